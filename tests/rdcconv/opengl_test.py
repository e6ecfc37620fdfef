"""ctest rdcconv_opengl: tools/rdcconv/opengl.py: load / store operations
inferred for a span's attachments (a full clear begins it, invalidates end it, the window surface's
depth is dropped at the swap)."""
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
