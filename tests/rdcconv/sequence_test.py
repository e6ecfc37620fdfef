"""ctest rdcconv_sequence: tools/rdcconv/sequence.py: frames of a sequence share one converter's
resources, a swapchain's images (and GL's window surface) become one image, warnings met in several
frames are one line, and a swapchain drawn out of rotation is warned about."""
import unittest

from fakes import TOOLS  # noqa: F401  (puts tools/ on the path)

from rdcconv.common import ToolError
from rdcconv.sequence import SHARED, convert_sequence, merge_swapchains, rotation_warnings, sequence_warnings
from rdcconv.trace_writer import TraceWriter


class FrameConverter(TraceWriter):
    """A converter of one frame that draws into swapchain image `target` (120 + index)."""

    def __init__(self, target, texture_reads):
        self.stem, self.warnings, self.meshes, self.bin, self.files, self.texture_files = "seq", [], [], bytearray(), {}, {}
        self.trace_images, self.trace_textures, self.trace_buffers, self.material = {}, {}, {}, {}
        self.images = {120 + i: {"swapchain_id": 9} for i in range(3)}
        self.target, self.texture_reads, self.frame_tag = target, texture_reads, ""

    def convert(self):
        image_id = 120 + self.target
        self.trace_images.setdefault(image_id, {"name": f"swapchain_image_{image_id}", "format": "BGRA8",
                                                "swapchain": 3, "_vk_format": "", "_swapchain_id": 9})
        if 5 not in self.material:  # a material texture: read by the first frame that samples it
            self.texture_reads.append(self.frame_tag)
            self.material[5] = "texture_5"
            self.trace_textures[5] = {"name": "texture_5", "file": "seq_captured/texture_5.png", "format": "RGBA8"}
        self.meshes.append({"name": f"{self.frame_tag}draw_event_7"})
        self.warn("event 7: logic op is not carried")
        self.warn(f"event 7: image swapchain_image_{image_id}: format carried as BGRA8")
        return [{"name": "pass0", "_subpass": 0, "_begin": 6, "_last_draw": 7, "_end": 8,
                 "attachments": [{"image": f"swapchain_image_{image_id}", "_image_id": image_id, "_mip": 0, "_layer": 0}],
                 "subpasses": [{"draws": [{"name": "event_7", "mesh": f"{self.frame_tag}draw_event_7"}]}]}]

    def warn(self, message):
        if message not in self.warnings:
            self.warnings.append(message)


def run_sequence(targets):
    reads, convs = [], []

    def convert_frame(rdc, prepare, final, finish):
        conv = FrameConverter(targets[int(rdc)], reads)
        prepare(conv)
        return conv, finish(conv, conv.convert())
    last, trace = convert_sequence(convert_frame, [str(k) for k in range(len(targets))], convs)
    return last, trace, convs, reads


class SequenceTest(unittest.TestCase):
    def test_frames_share_resources_and_one_swapchain_image(self):
        last, trace, convs, reads = run_sequence([0, 1, 2, 0])
        self.assertEqual(len(trace["frames"]), 4)
        self.assertEqual(reads, ["frame0_"])  # the texture is read once, by the first frame
        for name in SHARED:
            self.assertIs(getattr(convs[3], name), getattr(convs[0], name))
        self.assertEqual([i["name"] for i in trace["images"]], ["swapchain_image_120"])
        self.assertEqual(trace["images"][0]["swapchain"], 3)
        attached = [f["passes"][0]["attachments"][0]["image"] for f in trace["frames"]]
        self.assertEqual(attached, ["swapchain_image_120"] * 4)
        self.assertEqual([m["name"] for m in trace["meshes"]],
                         [f"frame{k}_draw_event_7" for k in range(4)])
        self.assertEqual(trace["warnings"], [
            "frames 0, 1, 2, 3: event 7: logic op is not carried",
            "frames 0, 1, 2, 3: event 7: image swapchain_image_120: format carried as BGRA8"])

    def test_out_of_rotation_is_warned(self):
        _, trace, _, _ = run_sequence([0, 2, 1])
        self.assertEqual(len(trace["warnings"]), 3)
        self.assertIn("the frames draw into its images in the order 0, 2, 1", trace["warnings"][-1])
        _, trace, _, _ = run_sequence([1, 2, 0, 1])  # a rotation that starts elsewhere is one
        self.assertEqual(len(trace["warnings"]), 2)

    def test_one_capture_is_not_a_sequence(self):
        with self.assertRaises(ToolError):
            run_sequence([0])

    def test_rotation_and_warning_helpers(self):
        self.assertEqual(rotation_warnings({9: [120, 121]}, [{9: 120}, {9: 121}, {9: 120}]), [])
        self.assertEqual(len(rotation_warnings({9: [120, 121]}, [{9: 120}, {9: 120}])), 1)
        self.assertEqual(sequence_warnings([["a"], ["b", "a"]], {}), ["frames 0, 1: a", "frame 1: b"])
        self.assertEqual(sequence_warnings([["x img_2 y"], ["x img_3 y"]], {"img_3": "img_2"}),
                         ["frames 0, 1: x img_2 y"])

    def test_gl_window_surface_merged(self):
        conv = FrameConverter(0, [])
        conv.images = {}
        conv.trace_images = {
            111: {"name": "backbuffer_color_111", "swapchain": 2, "_swapchain_id": "window surface color"},
            112: {"name": "backbuffer_depth_112", "_swapchain_id": "window surface depth"},
            396: {"name": "backbuffer_color_396", "swapchain": 2, "_swapchain_id": "window surface color"},
            397: {"name": "backbuffer_depth_397", "_swapchain_id": "window surface depth"}}
        frames = [{"passes": [{"attachments": [{"image": "backbuffer_color_396"}, {"image": "backbuffer_depth_397"}],
                               "subpasses": [{"draws": [{"program": {"bindings": {"image0": {"image": "backbuffer_color_396"}}}}]}]}]}]
        _, renamed = merge_swapchains(conv, frames)
        self.assertEqual(sorted(conv.trace_images), [111, 112])
        self.assertEqual(renamed, {"backbuffer_color_396": "backbuffer_color_111", "backbuffer_depth_397": "backbuffer_depth_112"})
        p = frames[0]["passes"][0]
        self.assertEqual([a["image"] for a in p["attachments"]], ["backbuffer_color_111", "backbuffer_depth_112"])
        self.assertEqual(p["subpasses"][0]["draws"][0]["program"]["bindings"]["image0"]["image"], "backbuffer_color_111")


if __name__ == "__main__":
    unittest.main()
