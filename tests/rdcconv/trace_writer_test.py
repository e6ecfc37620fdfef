"""ctest rdcconv_trace_writer: tools/rdcconv/trace_writer.py: the trace JSON without the converter's
private keys, the one-line summary, and all outputs renamed into place with no staging left."""
import concurrent.futures
import json
import os
import tempfile
import types
import unittest

from fakes import TOOLS  # noqa: F401  (puts tools/ on the path)

from rdcconv.trace_writer import TraceWriter, summary, write_outputs


def converted():
    w = TraceWriter()
    w.stem, w.warnings, w.meshes = "frame", ["event 3: x", "event 9: x"], []
    w.trace_images = {7: {"name": "color_7", "format": "RGBA8", "_vk_format": "VK_FORMAT_R8G8B8A8_UNORM"}}
    w.trace_textures, w.trace_buffers = {}, {4: {"name": "buffer4", "size": 16}}
    passes = [{"name": "pass0", "_subpass": 0, "_begin": 1, "_last_draw": 3, "_end": 4,
               "attachments": [{"image": "color_7", "_image_id": 7, "_mip": 0, "_layer": 0}],
               "subpasses": [{"draws": [{"name": "event_3"}]}]},
              {"name": "barrier5", "type": "barrier"}]
    return w, passes


class TraceWriterTest(unittest.TestCase):
    def test_trace_drops_private_keys(self):
        w, passes = converted()
        trace = w.trace(passes)
        self.assertNotIn("_", json.dumps(trace).replace("_7", "").replace("event_3", "").replace("_captured", "")
                         .replace("tbdrsim-trace", ""))
        self.assertEqual(trace["warnings"], ["2 events (3, 9): x"])
        self.assertEqual(trace["images"], [{"name": "color_7", "format": "RGBA8"}])
        self.assertEqual(trace["buffers"], [{"name": "buffer4", "size": 16}])
        self.assertNotIn("textures", trace)
        self.assertEqual(summary("t.json", trace), "t.json: 1 render passes, 1 other passes, 1 draws, 1 warnings")

    def test_write_outputs_all_in_place(self):
        w, passes = converted()
        trace = w.trace(passes)
        with tempfile.TemporaryDirectory() as d:
            png = concurrent.futures.Future()
            png.set_result(b"PNG bytes")
            conv = types.SimpleNamespace(stem="frame", bin=bytearray(b"\1\2\3\4"), texture_files={},
                                         files={"frame_captured/a.png": png})
            out = os.path.join(d, "sub", "frame.json")
            write_outputs(conv, trace, out)
            self.assertEqual(sorted(os.listdir(os.path.join(d, "sub"))), ["frame.bin", "frame.json", "frame_captured"])
            self.assertEqual(os.listdir(os.path.join(d, "sub", "frame_captured")), ["a.png"])
            with open(os.path.join(d, "sub", "frame_captured", "a.png"), "rb") as f:
                self.assertEqual(f.read(), b"PNG bytes")
            with open(out) as f:
                self.assertEqual(json.load(f), trace)
            with open(os.path.join(d, "sub", "frame.bin"), "rb") as f:
                self.assertEqual(f.read(), b"\1\2\3\4")


if __name__ == "__main__":
    unittest.main()
