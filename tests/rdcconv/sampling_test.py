"""ctest rdcconv_sampling: tools/rdcconv/sampling.py: the input a fragment shader's samples take their
coordinates from (hand-assembled SPIR-V, GLSL text), the post-vertex-shader layout of the outputs,
and the plan a draw carries (the output sampled most, a guess said in a warning, nothing carried)."""
import enum
import struct
import types
import unittest

from fakes import TOOLS  # noqa: F401  (puts tools/ on the path)

from fakes import fake_rd
from rdcconv.sampling import (SCREEN, DrawSampling, glsl_sample_inputs, output_layout, sampler_fields,
                              spirv_sample_inputs)


def spirv(*instructions):
    words = [0x07230203, 0x00010000, 0, 100, 0]
    for opcode, *operands in instructions:
        words += [(len(operands) + 1) << 16 | opcode] + list(operands)
    return struct.pack("<%dI" % len(words), *words)


# Ids: 10 combined sampler `tex` (set 0, binding 1), 11 input `texcoord` (Location 2, a vec4),
# 12 image (set 1, binding 3), 13 sampler, 14 `tex2` (set 0, binding 5); 1..9 types.
DECORATIONS = [(71, 10, 34, 0), (71, 10, 33, 1), (71, 11, 30, 2), (71, 12, 34, 1), (71, 12, 33, 3),
               (71, 14, 34, 0), (71, 14, 33, 5),
               (59, 1, 10, 0), (59, 2, 11, 1), (59, 3, 12, 0), (59, 4, 13, 0), (59, 1, 14, 0)]
LOADS = [(61, 5, 40, 10), (61, 6, 44, 11), (61, 7, 50, 12), (61, 8, 51, 13), (61, 5, 60, 14)]


class SpirvTest(unittest.TestCase):
    def test_swizzled_input_and_separate_sampler(self):
        code = spirv(*DECORATIONS, *LOADS,
                     (79, 9, 45, 44, 44, 0, 1),        # texcoord.xy
                     (87, 6, 46, 40, 45),              # texture(tex, texcoord.xy)
                     (86, 5, 52, 50, 51),              # sampler2D(image, sampler)
                     (81, 9, 53, 44, 0), (81, 9, 54, 44, 1), (80, 9, 55, 53, 54),  # vec2(t.x, t.y)
                     (88, 6, 56, 52, 55, 2, 0))        # textureLod(..., vec2(t.x, t.y), 0)
        self.assertEqual(spirv_sample_inputs(code), {(0, 1): 2, (1, 3): 2})

    def test_computed_coordinates_are_none(self):
        code = spirv(*DECORATIONS, *LOADS,
                     (79, 9, 45, 44, 44, 0, 1),
                     (142, 9, 47, 45, 99),             # texcoord.xy * s
                     (87, 6, 46, 40, 47),
                     (79, 9, 48, 44, 44, 2, 3),        # texcoord.zw: not the first two components
                     (87, 6, 61, 60, 48),
                     (87, 6, 62, 60, 45))              # and once at .xy: not one input throughout
        self.assertEqual(spirv_sample_inputs(code), {(0, 1): None, (0, 5): None})

    def test_not_spirv(self):
        self.assertIsNone(spirv_sample_inputs(b"#version 300 es\nvoid main() {}\n"))
        self.assertIsNone(spirv_sample_inputs(spirv() + struct.pack("<I", 5 << 16 | 61)))  # truncated


class GlslTest(unittest.TestCase):
    def test_lookups(self):
        source = """#version 300 es
        in vec2 v_uv; in vec4 v_both;
        uniform sampler2D tex, scaled, both, cube, moving, back, frag;
        uniform mat3 to_uv;
        // texture(tex, commented) is not read
        void main() {
            vec4 a = texture(tex, v_uv) + texture2D(scaled, v_uv * 2.0);
            a += texture(both, v_both.xy) + texture(both, v_both.st);
            a += textureCube(cube, v_dir) + texture(moving, v_uv + (speed * time));
            vec2 uv = (to_uv * gl_FragCoord.xyw).xy;
            a += texture(back, uv) + texture(frag, gl_FragCoord.xy / size);
        }"""
        self.assertEqual(glsl_sample_inputs(source), {"tex": "v_uv", "scaled": None, "both": "v_both", "moving": None,
                                                      "back": SCREEN, "frag": SCREEN})


Builtin = enum.IntEnum("ShaderBuiltin", "Undefined Position")
VarType = enum.IntEnum("VarType", "Float Double")


class Signature(types.SimpleNamespace):
    """A SigParameter: RenderDoc's SWIG objects raise on comparison with another type."""

    def __eq__(self, other):
        if not isinstance(other, Signature):
            raise SystemError("returned a result with an exception set")
        return self is other

    def __ne__(self, other):
        return not self.__eq__(other)

    __hash__ = object.__hash__


def signature(name, location, count, builtin=Builtin.Undefined, var_type=VarType.Float):
    return Signature(varName=name, regIndex=location, compCount=count, systemValue=builtin, varType=var_type)


RD = types.SimpleNamespace(ShaderBuiltin=Builtin, VarType=VarType)
OUTPUTS = [signature("color", 0, 4), signature("gl_Position", 0, 4, Builtin.Position), signature("uv1", 1, 2),
           signature("uv2", 2, 2), signature("distance", 3, 1)]


class Plan(DrawSampling):
    """A draw whose used bindings and sources are given (the API parts of Draws / GLDraws)."""

    def __init__(self, used, sources):
        self.rd, self.warnings, self.used, self.sources = RD, [], used, sources

    def used_read_only(self):
        return self.used

    def sample_sources(self):
        return self.sources

    def warn(self, message):
        self.warnings.append(message)


class SamplerTest(unittest.TestCase):
    def test_sampler_fields(self):
        rd = fake_rd()

        def filt(minify, magnify):
            return types.SimpleNamespace(minify=minify, magnify=magnify)
        self.assertEqual(sampler_fields(rd, filt(1, 1), 0), {})  # point, wrap: the trace's defaults
        self.assertEqual(sampler_fields(rd, filt(1, 2), 1), {"filter": "bilinear", "address": "mirrored_repeat"})
        self.assertEqual(sampler_fields(rd, filt(4, 1), 4), {"filter": "bilinear", "address": "clamp_to_edge"})


class PlanTest(unittest.TestCase):
    def test_output_layout_puts_the_position_first_and_packs(self):
        self.assertEqual([(s.varName, offset) for s, offset in output_layout(RD, OUTPUTS)],
                         [("gl_Position", 0), ("color", 16), ("uv1", 32), ("uv2", 40), ("distance", 48)])

    def test_the_output_sampled_most_is_carried(self):
        uv2 = signature("uv2", 2, 2)  # a fresh object, as RenderDoc hands out at each read
        plan = Plan({(0, 0), (0, 1), (0, 2)}, ({(0, 0): uv2, (0, 1): signature("uv2", 2, 2), (0, 2): None}, OUTPUTS))
        self.assertEqual(plan.coordinate_plan("event 5"), (40, {(0, 0), (0, 1), (0, 2)}, set()))
        # binding 2's coordinate is computed: sampled at the carried output, said as a guess
        self.assertEqual(plan.warnings, ["event 5: texture coordinates guessed (the vertex output uv2): the fragment "
                                         "shader computes them"])

    def test_another_output_and_screen_space_reads(self):
        sources = {(0, 0): signature("uv2", 2, 2), (0, 1): signature("uv1", 1, 2), (0, 2): SCREEN}
        plan = Plan({(0, 0), (0, 1), (0, 2), (0, 3)}, (sources, OUTPUTS))
        # uv2 wins the tie (the first key's); uv1's binding and the one the converter did not follow
        # (0, 3) are stand-ins; the gl_FragCoord read is the pixel's, not a stand-in
        self.assertEqual(plan.coordinate_plan("event 5"), (40, {(0, 0)}, {(0, 1), (0, 3)}))
        self.assertEqual(plan.warnings, [])
        self.assertIsNone(Plan({(0, 2)}, (sources, OUTPUTS)).coordinate_plan("event 5"))

    def test_a_guess_is_said(self):
        plan = Plan({(0, 0)}, ({(0, 0): None}, OUTPUTS))
        self.assertEqual(plan.coordinate_plan("event 5"), (32, {(0, 0)}, set()))
        self.assertEqual(plan.warnings, ["event 5: texture coordinates guessed (the vertex output uv1): the fragment "
                                         "shader computes them"])

    def test_nothing_carried(self):
        self.assertIsNone(Plan(set(), None).coordinate_plan("event 5"))
        plan = Plan({(0, 0)}, None)
        self.assertIsNone(plan.coordinate_plan("event 5"))
        self.assertIn("could not be read", plan.warnings[0])
        plan = Plan({(0, 0)}, ({(0, 0): None}, [signature("gl_Position", 0, 4, Builtin.Position)]))
        self.assertIsNone(plan.coordinate_plan("event 5"))
        self.assertIn("no texture coordinate found", plan.warnings[0])


if __name__ == "__main__":
    unittest.main()
