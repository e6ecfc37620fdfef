"""ctest rdcconv_opengl_transfers: tools/rdcconv/opengl_transfers.py: which buffers a glClear /
glBlitFramebuffer mask names, as RenderDoc writes it (flag names) or as a number."""
import unittest

from fakes import TOOLS  # noqa: F401  (puts tools/ on the path)

from rdcconv.opengl_transfers import GL_COPY_TEX_IMAGE, GL_COPY_TEX_SUB, gl_mask_bits


class OpenGLTransfersTest(unittest.TestCase):
    def test_mask_bits(self):
        self.assertEqual(gl_mask_bits("GL_COLOR_BUFFER_BIT | GL_STENCIL_BUFFER_BIT"),
                         {"color": True, "depth": False, "stencil": True})
        self.assertEqual(gl_mask_bits(0x4100), {"color": True, "depth": True, "stencil": False})
        self.assertEqual(gl_mask_bits(None), {"color": False, "depth": False, "stencil": False})

    def test_copy_calls_as_recorded(self):
        # RenderDoc records glCopyTexSubImage2D as glCopyTextureSubImage2DEXT: matched by prefix.
        self.assertTrue("glCopyTextureSubImage2DEXT".startswith(GL_COPY_TEX_SUB))
        self.assertTrue("glCopyTexImage2D".startswith(GL_COPY_TEX_IMAGE))
        self.assertFalse("glCopyTexSubImage3D".startswith(GL_COPY_TEX_SUB + GL_COPY_TEX_IMAGE))


if __name__ == "__main__":
    unittest.main()
