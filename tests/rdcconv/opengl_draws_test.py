"""ctest rdcconv_opengl_draws: tools/rdcconv/opengl_draws.py: GL lists every texture unit, so a draw
reads only the units its fragment shader's samplers are set to (reflection bind point ->
bindpointMapping -> unit); no fragment shader reads none; glLineWidth and glPointSize carried on line
and point draws (a shader-written point size warned)."""
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

    def test_line_width_and_point_size_from_the_rasterizer_state(self):
        conv = GLConverter(fake_rd(), Controller(), "/tmp/f.json", "OpenGLES")

        def pipe(programmable=False):
            return types.SimpleNamespace(rasterizer=types.SimpleNamespace(state=types.SimpleNamespace(
                lineWidth=2.0, pointSize=5.0, programmablePointSize=programmable)))
        self.assertEqual(conv.gl_primitive_size(pipe(), "lines", "event 3"), {"line_width": 2.0})
        self.assertEqual(conv.gl_primitive_size(pipe(), "points", "event 3"), {"point_size": 5.0})
        self.assertEqual(conv.gl_primitive_size(pipe(), "triangle_strip", "event 3"), {})
        self.assertEqual(conv.warnings, [])
        self.assertEqual(conv.gl_primitive_size(pipe(True), "points", "event 4"), {"point_size": 5.0})
        self.assertEqual(conv.warnings, ["event 4: the vertex shader's point size (GL_PROGRAM_POINT_SIZE) is not "
                                         "read; points carried at glPointSize's 5"])


if __name__ == "__main__":
    unittest.main()
