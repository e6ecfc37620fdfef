"""ctest rdcconv_opengl_draws: tools/rdcconv/opengl_draws.py: GL lists every texture unit, so a draw
reads only the units its fragment shader's samplers are set to (reflection bind point ->
bindpointMapping -> unit); no fragment shader reads none."""
import types
import unittest

from fakes import Controller, fake_rd

from rdcconv.opengl import GLConverter


def gl_state(fragment):
    return types.SimpleNamespace(fragmentShader=fragment)


class OpenGLDrawsTest(unittest.TestCase):
    def test_used_read_only_maps_bind_points_to_units(self):
        ctl = Controller()
        fragment = types.SimpleNamespace(
            reflection=types.SimpleNamespace(readOnlyResources=[types.SimpleNamespace(bindPoint=0),
                                                                types.SimpleNamespace(bindPoint=1),
                                                                types.SimpleNamespace(bindPoint=7)]),
            bindpointMapping=types.SimpleNamespace(readOnlyResources=[types.SimpleNamespace(bind=3),
                                                                      types.SimpleNamespace(bind=0)]))
        ctl.GetGLPipelineState = lambda: gl_state(fragment)
        conv = GLConverter(fake_rd(), ctl, "/tmp/f.json", "OpenGLES")
        self.assertEqual(conv.used_read_only(), {0, 3})
        ctl.GetGLPipelineState = lambda: gl_state(types.SimpleNamespace(reflection=None))
        self.assertEqual(conv.used_read_only(), set())


if __name__ == "__main__":
    unittest.main()
