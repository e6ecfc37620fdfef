"""ctest rdcconv_textures: tools/rdcconv/textures.py: the PNG writer (decoded back with zlib), pixels
of attachment formats as PNG rows, material formats, and the Textures part reading an attachment's
level from a fake replay (rows flipped for GL, a failed read left simulated with a warning)."""
import os
import struct
import tempfile
import unittest
import zlib

from fakes import Controller, fake_rd, texture

from rdcconv.replay import Replay
from rdcconv.textures import Textures, material_format, png_bytes, texture_png, write_png


def png_rows(path=None, data=None):
    """(width, height, bits, colour type, rows) of a PNG written by write_png (filter 0 rows)."""
    if data is None:
        with open(path, "rb") as f:
            data = f.read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, ihdr = 8, b"", None
    while pos < len(data):
        length, tag = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if tag == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif tag == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, bits, colour = ihdr[:4]
    raw = zlib.decompress(idat)
    stride = len(raw) // height
    assert all(raw[y * stride] == 0 for y in range(height))
    return width, height, bits, colour, [raw[y * stride + 1:(y + 1) * stride] for y in range(height)]


class Frame(Textures, Replay):
    pass


class TexturesTest(unittest.TestCase):
    def test_write_png_round_trip(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "a.png")
            rows = [bytes(range(8)), bytes(range(8, 16))]
            write_png(path, 2, 2, 4, 8, rows)
            self.assertEqual(png_rows(path), (2, 2, 8, 6, rows))
            with open(path, "rb") as f:
                self.assertEqual(f.read(), png_bytes(2, 2, 4, 8, rows))

    def test_texture_png_swizzles_bgra_and_refuses_short_data(self):
        channels, bits, rows, clamped = texture_png(bytes([1, 2, 3, 4, 5, 6, 7, 8]), "VK_FORMAT_B8G8R8A8_UNORM", 2, 1)
        self.assertEqual((channels, bits, rows, clamped), (4, 8, [bytes([3, 2, 1, 4, 7, 6, 5, 8])], False))
        self.assertIsNone(texture_png(b"\0" * 7, "VK_FORMAT_R8G8B8A8_UNORM", 2, 1))
        self.assertIsNone(texture_png(b"\0" * 64, "VK_FORMAT_R64_SFLOAT", 2, 1))

    def test_material_format(self):
        self.assertEqual(material_format("ETC2_RGB8_UNORM"), ("ETC2_RGB8", None))
        # BC blocks as themselves, one- and two-channel formats at their own size (4x less than RGBA8 for R8)
        self.assertEqual(material_format("BC3_UNORM"), ("BC3", None))
        self.assertEqual(material_format("BC1_SRGB"), ("BC1", None))
        self.assertEqual(material_format("BC6H_UFLOAT"), ("BC6H", None))
        self.assertEqual(material_format("BC7_UNORM"), ("BC7", None))
        self.assertEqual(material_format("R8_UNORM"), ("R8", None))
        self.assertEqual(material_format("R8G8_UNORM"), ("RG8", None))
        self.assertEqual(material_format("R32_FLOAT"), ("R32F", None))
        self.assertEqual(material_format("ASTC_8x8_UNORM"), ("ASTC_8x8", None))
        self.assertEqual(material_format("R8G8B8A8_SRGB"), ("RGBA8", None))
        self.assertEqual(material_format("R16G16B16A16_FLOAT"), ("RGBA16F", None))
        self.assertEqual(material_format("R5G6B5_UNORM"), ("RGBA8", " (4 B per texel)"))

    def frame(self, data, bottom_up):
        ctl = Controller(textures=[texture(5, width=1, height=2)])
        ctl.GetTextureData = lambda rid, sub: data
        f = Frame(fake_rd(), ctl, "/tmp/x/frame.json")
        f.rows_bottom_up = bottom_up
        f.trace_images = {5: {"name": "color_5", "_vk_format": "VK_FORMAT_R8G8B8A8_UNORM"}}
        return f

    def test_save_texture_flips_gl_rows(self):
        for bottom_up in (False, True):
            f = self.frame(bytes([1, 1, 1, 1, 2, 2, 2, 2]), bottom_up)
            self.assertTrue(f.save_texture(5, 0, 0, "frame_captured/a.png", "pass0", 4))
            width, height, bits, colour, rows = png_rows(data=f.files["frame_captured/a.png"].result())
            self.assertEqual((width, height, bits, colour), (1, 2, 8, 6))
            self.assertEqual(rows[0][0], 2 if bottom_up else 1)
            self.assertEqual(f.ctl.calls, [("SetFrameEvent", 4)])

    def test_unreadable_pixels_stay_simulated(self):
        f = self.frame(b"\0", False)
        self.assertFalse(f.save_texture(5, 0, 0, "frame_captured/a.png", "pass0", 4))
        self.assertEqual(f.files, {})
        self.assertIn("cannot be saved", f.warnings[0])


if __name__ == "__main__":
    unittest.main()
