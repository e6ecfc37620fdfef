"""ctest rdcconv_pixels: tools/rdcconv/pixels.py and the converter's use of it, with fakes: the
no-rasterization switch, the pixel reader's requests (each once, answered in order; a reader that
dies is started again once, then answers None), attachments asked of it wherever the replay stands,
material textures read from it at the first draw unless the frame writes them by then, and a vertex
shader that reads images calling for a rasterizing replay."""
import enum
import os
import subprocess
import sys
import tempfile
import types
import unittest

from fakes import Controller, fake_rd, texture

from rdcconv.common import RasterNeeded
from rdcconv.draws import vertex_shader_reads_no_image
from rdcconv.pixels import PixelReader, start_no_rast
from rdcconv.replay import Replay
from rdcconv.textures import Textures, written_by

# A stand-in reader process: answers each request with ("answer", request); dies at a request for
# event "die", and at one for event "die once" unless the file named by argv[1] exists (it makes it).
ECHO = ("import os, pickle, sys\n"
        "while True:\n"
        "    try: r = pickle.load(sys.stdin.buffer)\n"
        "    except EOFError: break\n"
        "    if r[1] == 'die': sys.exit(1)\n"
        "    if r[1] == 'die once' and not os.path.exists(sys.argv[1]):\n"
        "        open(sys.argv[1], 'w').close(); sys.exit(1)\n"
        "    pickle.dump(('answer', r), sys.stdout.buffer); sys.stdout.buffer.flush()\n")
Usage = enum.IntEnum("ResourceUsage", "Unused VertexBuffer IndexBuffer VS_Constants HS_Constants DS_Constants "
                     "GS_Constants PS_Constants CS_Constants All_Constants VS_Resource HS_Resource DS_Resource "
                     "GS_Resource PS_Resource CS_Resource All_Resource InputTarget ColorTarget Indirect Clear "
                     "CopySrc CopyDst ResolveSrc Barrier GenMips")


class EchoReader(PixelReader):
    def start(self):
        return subprocess.Popen([sys.executable, "-c", ECHO, self.rdc], stdin=subprocess.PIPE, stdout=subprocess.PIPE)


def echo_reader(marker="/nonexistent/marker"):
    return EchoReader(marker)


class FakeReader:
    def __init__(self):
        self.asked, self.got = [], []

    def ask(self, key):
        self.asked.append(key)

    def get(self, key):
        self.got.append(key)
        return b"from the reader"


class UsageController(Controller):
    def __init__(self, usage, **kwargs):
        super().__init__(**kwargs)
        self.usage = usage

    def GetUsage(self, rid):
        return [type("EventUsage", (), {"eventId": e, "usage": u}) for e, u in self.usage.get(int(rid), [])]


class Converter(Replay, Textures):
    workers = None


class PixelsTest(unittest.TestCase):
    def test_no_rast_unless_asked_to_rasterize_all(self):
        env = {}
        self.assertTrue(start_no_rast(env))
        self.assertEqual(env["LP_NO_RAST"], "1")
        env = {"TBDR_CONVERT_RASTER": "all", "LP_NO_RAST": "1"}
        self.assertFalse(start_no_rast(env))
        self.assertNotIn("LP_NO_RAST", env)

    def test_reader_asks_each_request_once_and_answers_in_order(self):
        reader = echo_reader()
        try:
            reader.ask((5, 7, 0, 0))
            reader.ask((9, 7, 1, 0))
            reader.ask((5, 7, 0, 0))  # asked already: not sent again
            self.assertEqual(len(reader.pending), 2)
            self.assertEqual(reader.get((9, 7, 1, 0)), ("answer", ("pixels", 9, 7, 1, 0)))
            self.assertEqual(reader.get((5, 7, 0, 0)), ("answer", ("pixels", 5, 7, 0, 0)))
            self.assertTrue(reader.save(12, 3, "/tmp/x.png"))  # the echo's answer is truthy
        finally:
            reader.stop()

    def test_a_reader_that_dies_once_is_started_again(self):
        with tempfile.TemporaryDirectory() as folder:
            reader = echo_reader(os.path.join(folder, "died"))
            try:
                reader.ask((5, 7, 0, 0))
                self.assertEqual(reader.get(("die once", 7, 0, 0)), ("answer", ("pixels", "die once", 7, 0, 0)))
                self.assertEqual(reader.get((5, 7, 0, 0)), ("answer", ("pixels", 5, 7, 0, 0)))
                self.assertEqual(reader.restarts, 1)
            finally:
                reader.stop()

    def test_a_reader_that_dies_again_answers_none(self):
        reader = echo_reader()
        try:
            self.assertIsNone(reader.get(("die", 7, 0, 0)))
            self.assertTrue(reader.failed)
            self.assertIsNone(reader.get((5, 7, 0, 0)))
        finally:
            reader.stop()

    def test_attachments_are_asked_of_the_reader_wherever_the_replay_stands(self):
        ctl = Controller(textures=[texture(7), texture(9)])  # the reader names them 0 and 1
        r = Converter(fake_rd(), ctl, "/tmp/out/frame.json")
        r.trace_images = {7: {"name": "color"}, 9: {"name": "scratch", "transient": True}}
        r.pixel_reader = FakeReader()
        p = {"_last_draw": 12, "_begin": 10,
             "attachments": [{"_image_id": 7, "_mip": 0, "_layer": 0}, {"_image_id": 9, "_mip": 0, "_layer": 0}]}
        r.keep_pixels(p)
        self.assertEqual(r.pixel_reader.asked, [(12, 0, 0, 0)])  # image 7 by its place; transient 9: never
        self.assertEqual(r.pixels_at(12, 7, 0, 0), b"from the reader")
        self.assertEqual(ctl.calls, [])  # this replay neither moved nor read

    def test_a_vertex_shader_reading_images_needs_rasterization(self):
        rd = fake_rd()
        for readonly, readwrite, needed in (([], [], False), (["tDisplacement"], [], True), ([], ["heights"], True)):
            reflection = types.SimpleNamespace(readOnlyResources=readonly, readWriteResources=readwrite)
            pipe = types.SimpleNamespace(GetShaderReflection=lambda stage, r=reflection: r)
            ctl = types.SimpleNamespace(GetPipelineState=lambda p=pipe: p)
            if needed:
                with self.assertRaises(RasterNeeded):
                    vertex_shader_reads_no_image(rd, ctl, "event 64")
            else:
                vertex_shader_reads_no_image(rd, ctl, "event 64")

    def test_written_by_counts_every_usage_but_reads(self):
        rd = fake_rd()
        rd.ResourceUsage = Usage
        ctl = UsageController({3: [(4, Usage.PS_Resource), (8, Usage.CopyDst)], 5: [(2, Usage.CopySrc)]})
        self.assertFalse(written_by(rd, ctl, 3, 7))
        self.assertTrue(written_by(rd, ctl, 3, 8))
        self.assertFalse(written_by(rd, ctl, 5, 9))

    def test_material_textures_come_from_the_reader_at_the_first_draw_unless_written_by_then(self):
        rd = fake_rd()
        rd.ResourceUsage = Usage
        ctl = UsageController({3: [(6, Usage.CopyDst), (9, Usage.PS_Resource)], 4: [(9, Usage.PS_Resource)]},
                              textures=[texture(3), texture(4)])
        r = Converter(rd, ctl, "/tmp/out/frame.json")
        r.pixel_reader = FakeReader()
        r.at_event, r.first_draw = 9, 2
        self.assertEqual(r.material_level0(ctl.textures[0], 3), b"from the reader")
        r.material_level0(ctl.textures[1], 4)
        # texture 3 (place 0), copied into at event 6, at the draw; texture 4 (place 1) at the first draw
        self.assertEqual(r.pixel_reader.got, [(9, 0, 0, 0), (2, 1, 0, 0)])
        self.assertEqual(ctl.calls, [])  # nothing read from the replay that does not rasterize


if __name__ == "__main__":
    os.environ.pop("LP_NO_RAST", None)
    unittest.main(verbosity=2)
