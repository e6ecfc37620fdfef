"""ctest rdcconv_shaders: tools/rdcconv/shaders.py: static counts of a hand-assembled SPIR-V module
and of GLSL text (traces/README.md "Captured frames" gives the rules)."""
import struct
import unittest

from fakes import TOOLS  # noqa: F401  (puts tools/ on the path)

from rdcconv.shaders import glsl_counts, spirv_counts


def spirv(*instructions):
    words = [0x07230203, 0x00010000, 0, 100, 0]
    for opcode, *operands in instructions:
        words += [(len(operands) + 1) << 16 | opcode] + list(operands)
    return struct.pack("<%dI" % len(words), *words)


class ShadersTest(unittest.TestCase):
    def test_spirv_counts(self):
        code = spirv((25, 10, 1, 6, 0, 0, 0, 2, 0),  # OpTypeImage %10 Dim SubpassData
                     (61, 10, 11, 5),                # OpLoad %11 of type %10
                     (98, 20, 21, 11, 30),           # OpImageRead of the subpass image: a tile read
                     (98, 20, 22, 12, 30),           # OpImageRead of another image: a sample
                     (87, 20, 23, 12, 30),           # OpImageSampleImplicitLod
                     (129, 20, 24, 1, 2),            # OpFAdd
                     (12, 20, 25, 1, 69, 3),         # OpExtInst (normalize)
                     (71, 5, 11, 22),                # OpDecorate BuiltIn FragDepth
                     (252,))                         # OpKill
        self.assertEqual(spirv_counts(code), {"alu": 2, "samples": 2, "subpass_loads": 1,
                                              "discard": True, "depth_write": True})

    def test_spirv_rejects_what_is_not_spirv(self):
        self.assertIsNone(spirv_counts(b"\0" * 20))
        self.assertIsNone(spirv_counts(spirv()[:-1]))
        self.assertIsNone(spirv_counts(spirv() + b"\0\0\0\0"))  # a zero-length instruction

    def test_glsl_counts_the_main_body(self):
        source = """#version 300 es
        float helper(float x) { return x * 2.0 + 1.0; }
        /* texture(s, v) in a comment */
        void main() {
            vec4 c = texture(tex, uv) * 2.0;   // texture2D(t, v) in a comment
            c.rgb = normalize(c.rgb) + vec3(0.5);
            if (c.a < 0.1) discard;
            gl_FragDepth = 0.5;
        }"""
        self.assertEqual(glsl_counts(source), {"alu": 3, "samples": 1, "discard": True, "depth_write": True})


if __name__ == "__main__":
    unittest.main()
