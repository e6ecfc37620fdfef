"""ctest rdcconv_opengl: tools/rdcconv/opengl.py: load / store operations
inferred for a span's attachments (a full clear begins it, invalidates end it, the window surface's
depth is dropped at the swap); the formats images are carried as."""
import types
import unittest

from fakes import Controller, fake_rd, texture

from rdcconv.opengl import GLConverter


def span(**kw):
    s = {"_begin": 10, "_first": False, "_swap": False, "_ended_by": "event 20 eglSwapBuffers",
         "_began": "event 10 glBindFramebuffer", "_begin_clears": {}, "attachments": [
             {"_slot": 0, "_image_id": 1, "_stencil": False},
             {"_slot": "depth", "_image_id": 2, "_stencil": True}]}
    s.update(kw)
    return s


class OpenGLTest(unittest.TestCase):
    def setUp(self):
        self.conv = GLConverter(fake_rd(), Controller(textures=[texture(1), texture(2)]), "/tmp/f.json", "OpenGLES")

    def test_24_bit_window_surface_is_4_bytes_a_pixel_without_a_warning(self):
        # X11 lays a depth-24 window's pixels out in 32 bits: RGBA8, nothing dropped. An off-screen
        # R8G8B8 image is still carried as RGBA8 with a warning.
        window, offscreen = texture(1, flags=0x10), texture(2, flags=0x1)
        for t in (window, offscreen):
            t.format = types.SimpleNamespace(Name=lambda: "R8G8B8_UNORM")
        conv = GLConverter(fake_rd(), Controller(textures=[window, offscreen], names={1: "Backbuffer Color"}),
                           "/tmp/f.json", "OpenGL")
        image = conv.gl_image(1, "here")
        self.assertEqual((image["format"], image["swapchain"], image["_vk_format"]),
                         ("RGBA8", 2, "VK_FORMAT_R8G8B8_UNORM"))
        self.assertEqual(conv.warnings, [])
        self.assertEqual(conv.gl_image(2, "here")["format"], "RGBA8")
        self.assertEqual(conv.warnings, ["image unnamed_2: format R8G8B8_UNORM has no trace equivalent; "
                                         "carried as RGBA8"])

    def test_no_clear_loads_and_stores(self):
        s = span()
        self.conv.infer_ops(s)
        color, depth = s["attachments"]
        self.assertEqual((color["load"], color["store"]), ("load", "store"))
        self.assertEqual((depth["load"], depth["store"], depth["stencil_load"], depth["stencil_store"]),
                         ("load", "store", "load", "store"))
        self.assertEqual(s["inferred"], {"begin": "event 10 glBindFramebuffer", "end": "event 20 eglSwapBuffers"})

    def test_full_clears_and_invalidates(self):
        s = span(_begin_clears={(0, "color"): (11, [0.25, 0.5, 0.75, 1.0]), (1, "depth"): (11, 2.0),
                                (1, "stencil"): (11, 0x1FF)},
                 _invalidated={"depth": (19, "glInvalidateFramebuffer")})
        self.conv.infer_ops(s)
        color, depth = s["attachments"]
        self.assertEqual((color["load"], color["clear"]), ("clear", [0.25, 0.5, 0.75, 1.0]))
        self.assertEqual((depth["load"], depth["clear"]), ("clear", {"depth": 1.0, "stencil": 0xFF}))
        self.assertEqual((depth["store"], depth["stencil_store"]), ("dont_care", "store"))
        self.assertIn("event 19 glInvalidateFramebuffer", depth["inferred"]["store"])

    def test_window_surface(self):
        self.conv.default_ids = {1, 2}
        s = span(_first=True, _swap=True)
        self.conv.infer_ops(s)
        color, depth = s["attachments"]
        self.assertEqual((color["load"], color["store"]), ("dont_care", "store"))
        self.assertEqual((depth["load"], depth["store"], depth["stencil_store"]), ("dont_care", "dont_care", "dont_care"))



if __name__ == "__main__":
    unittest.main()
