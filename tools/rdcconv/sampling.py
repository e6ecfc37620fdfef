"""Where a captured fragment shader samples: for each sampled resource, the fragment input whose
value is its texture coordinate, read from the shader's SPIR-V (Vulkan) or GLSL text (OpenGL), where
that is found simply (traces/README.md "Captured frames", texture coordinates)."""
import re
import struct

import numpy as np

# SPIR-V 1.6 spec, section 3.52 opcodes and 3.20 decorations.
OP_VARIABLE, OP_LOAD, OP_DECORATE = 59, 61, 71
OP_VECTOR_SHUFFLE, OP_COMPOSITE_CONSTRUCT, OP_COMPOSITE_EXTRACT, OP_COPY_OBJECT = 79, 80, 81, 83
OP_SAMPLED_IMAGE = 86
# OpImageSample{Implicit,Explicit}Lod, their Dref and Proj forms (87..94) and the sparse forms (305..312):
# result type, result, sampled image, coordinate, ...
SAMPLE_OPS = set(range(87, 95)) | set(range(305, 313))
DECORATION_LOCATION, DECORATION_BINDING, DECORATION_SET = 30, 33, 34
STORAGE_INPUT = 1


class _Module:
    """The few facts of a SPIR-V module the tracing needs: decorations, variables, and the defining
    instruction of every result id."""

    def __init__(self, words):
        self.decorations = {}  # id -> {decoration: value}
        self.variables = {}    # id -> storage class
        self.defs = {}         # result id -> (opcode, operands after the result id)
        self.samples = []      # (sampled image id, coordinate id) of each sample instruction
        i = 5
        while i < len(words):
            length, opcode = words[i] >> 16, words[i] & 0xFFFF
            if length == 0 or i + length > len(words):
                raise ValueError("truncated instruction")
            self._read(opcode, words[i + 1:i + length])
            i += length

    def _read(self, opcode, op):
        if opcode == OP_DECORATE and len(op) >= 3:
            self.decorations.setdefault(op[0], {})[op[1]] = op[2]
        elif opcode == OP_VARIABLE and len(op) >= 3:
            self.variables[op[1]] = op[2]
        elif opcode in SAMPLE_OPS and len(op) >= 4:
            self.samples.append((op[2], op[3]))
        elif opcode in (OP_LOAD, OP_VECTOR_SHUFFLE, OP_COMPOSITE_CONSTRUCT, OP_COMPOSITE_EXTRACT, OP_COPY_OBJECT,
                        OP_SAMPLED_IMAGE) and len(op) >= 3:
            self.defs[op[1]] = (opcode, op[2:])

    def resource(self, sampled_image):
        """(set, binding) of the variable a sampled image is loaded from (a combined image sampler,
        or OpSampledImage of a loaded image), or None."""
        opcode, op = self.defs.get(sampled_image, (None, ()))
        if opcode == OP_SAMPLED_IMAGE:
            opcode, op = self.defs.get(op[0], (None, ()))
        if opcode != OP_LOAD:
            return None
        d = self.decorations.get(op[0], {})
        if DECORATION_SET not in d or DECORATION_BINDING not in d:
            return None
        return d[DECORATION_SET], d[DECORATION_BINDING]

    def input_location(self, value, component=0):
        """The Location of the Input variable whose components `component`, `component` + 1 are the
        value's first two (a load, its .xy swizzle, or vec2(v.x, v.y)), or None."""
        opcode, op = self.defs.get(value, (None, ()))
        if opcode == OP_COPY_OBJECT:
            return self.input_location(op[0], component)
        if opcode == OP_LOAD:
            if self.variables.get(op[0]) != STORAGE_INPUT or component != 0:
                return None
            return self.decorations.get(op[0], {}).get(DECORATION_LOCATION)
        if opcode == OP_VECTOR_SHUFFLE and len(op) >= 4 and op[2] == 0 and op[3] == 1:
            return self.input_location(op[0], component)
        if opcode == OP_COMPOSITE_CONSTRUCT and len(op) >= 2:
            first, second = (self.defs.get(v, (None, ())) for v in op[:2])
            if (first[0] == second[0] == OP_COMPOSITE_EXTRACT and len(first[1]) == 2 and len(second[1]) == 2
                    and first[1][0] == second[1][0] and (first[1][1], second[1][1]) == (0, 1)):
                return self.input_location(first[1][0], component)
        return None


def spirv_sample_inputs(code):
    """{(set, binding): input Location or None} of every resource a SPIR-V fragment shader samples:
    the Location when every sample of it takes its coordinate straight from one input (.xy), None
    when some sample's coordinate is computed. None for the whole when the code is not SPIR-V."""
    if len(code) < 20 or len(code) % 4:
        return None
    words = struct.unpack("<%dI" % (len(code) // 4), code)
    if words[0] != 0x07230203:
        return None
    try:
        module = _Module(words)
    except ValueError:
        return None
    found = {}
    for sampled_image, coordinate in module.samples:
        key = module.resource(sampled_image)
        if key is None:
            continue
        location = module.input_location(coordinate)
        found[key] = location if found.get(key, location) == location else None
    return found


# GLSL: a lookup's first two arguments, `sampler, coordinate`; the coordinate is simple when it is an
# identifier, optionally swizzled to its first two components.
GLSL_LOOKUP = re.compile(r"\b(?:texture|texture2D|textureLod|texture2DLod|texture2DLodEXT|textureGrad|textureOffset|"
                         r"texture2DRect)\s*\(\s*([A-Za-z_]\w*)\s*,")
GLSL_SIMPLE = re.compile(r"([A-Za-z_]\w*)(?:\.(?:xy|st|rg))?")
SCREEN = "screen"  # a coordinate made from gl_FragCoord: the pixel's own position, as the stand-in reads


def _argument(text, start):
    """The text of the call argument starting at `start`, up to its ',' or ')' at depth 0."""
    depth = 0
    for i in range(start, len(text)):
        c = text[i]
        if c in "([":
            depth += 1
        elif c in ")]":
            if depth == 0:
                return text[start:i]
            depth -= 1
        elif c == "," and depth == 0:
            return text[start:i]
    return text[start:]


def _coordinate(text, argument):
    """An input's name for a simple coordinate, SCREEN for one of gl_FragCoord (or a variable
    assigned from it), None for any other expression."""
    if "gl_FragCoord" in argument:
        return SCREEN
    match = GLSL_SIMPLE.fullmatch(argument.strip())
    if match is None:
        return None
    if re.search(r"\b" + match.group(1) + r"\s*=[^=;][^;]*gl_FragCoord", text):
        return SCREEN
    return match.group(1)


def glsl_sample_inputs(source):
    """{sampler uniform name: coordinate identifier, SCREEN or None} of the 2D lookups of GLSL text
    (comments removed): the identifier (or SCREEN) when every lookup of the sampler takes it as is."""
    text = re.sub(r"/\*.*?\*/", " ", source, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    found = {}
    for lookup in GLSL_LOOKUP.finditer(text):
        sampler, name = lookup.group(1), _coordinate(text, _argument(text, lookup.end()))
        found[sampler] = name if found.get(sampler, name) == name else None
    return found


# RenderDoc's AddressMode names -> the trace's `address` (one mode for both axes: the u axis's).
ADDRESS = {"Wrap": "repeat", "Mirror": "mirrored_repeat", "MirrorOnce": "clamp_to_edge", "ClampEdge": "clamp_to_edge",
           "ClampBorder": "clamp_to_edge"}


def sampler_fields(rd, sampler_filter, address):
    """A sampler's TextureFilter and u AddressMode -> the binding's `filter` and `address`: bilinear
    when either the minifying or the magnifying filter is not a point one; the trace's defaults
    (nearest, repeat) are left out."""
    fields = {}
    modes = {rd.FilterMode(sampler_filter.minify).name, rd.FilterMode(sampler_filter.magnify).name}
    if modes & {"Linear", "Cubic", "Anisotropic"}:
        fields["filter"] = "bilinear"
    mode = ADDRESS.get(rd.AddressMode(address).name, "repeat")
    if mode != "repeat":
        fields["address"] = mode
    return fields


def rd_width(rd, signature):
    """Bytes of one component of a shader signature parameter."""
    return 8 if rd.VarType(signature.varType).name in ("Double", "SLong", "ULong") else 4


def output_layout(rd, outputs):
    """[(signature, byte offset)] of a vertex shader's outputs in RenderDoc's post-vertex-shader data:
    the position first, then the others in signature order, each compCount components of 4 B (8 B
    for doubles) packed one after the other (measured on Vulkan and OpenGL captures: outputs of
    16 + 8 + 8 + 4 B in a 48 B vertex, the stride rounded up to 16 B on Vulkan)."""
    position = [s for s in outputs if s.systemValue == rd.ShaderBuiltin.Position]
    layout, offset = [], 0
    for s in position + [s for s in outputs if s.systemValue != rd.ShaderBuiltin.Position]:
        layout.append((s, offset))
        offset += s.compCount * rd_width(rd, s)
    return layout


def _is_screen(source):
    """Whether a sample source is SCREEN (RenderDoc's signature objects refuse comparison with a str)."""
    return isinstance(source, str) and source == SCREEN


def _signature_key(signature):
    return signature.varName, signature.regIndex, int(signature.systemValue)


class DrawSampling:
    """Converter part: which vertex output a draw's fragment shader samples its textures at, carried
    as the draw mesh's uvs, and which of the draw's bindings sample at it. The API's part,
    sample_sources, is Draws' (SPIR-V) or GLDraws' (GLSL)."""

    def coordinate_plan(self, where):
        """(byte offset of the carried output in a post-vertex-shader vertex, the binding keys sampled
        at it, the binding keys read at the pixel as a stand-in) or None when the draw samples nothing
        or nothing can be carried (warned, but for screen-space reads, which the pixel models)."""
        used = self.used_read_only()
        if not used:
            return None
        found = self.sample_sources()
        if found is None:
            self.warn(f"{where}: the fragment shader's sampling could not be read; its texture reads stay at "
                      "the pixel's screen position (a stand-in)")
            return None
        sources, outputs = found
        layout = output_layout(self.rd, outputs)
        # RenderDoc hands out a new object at each read of a signature: outputs are told apart by name.
        index = {_signature_key(s): i for i, (s, _) in enumerate(layout)}
        output_of = {k: index.get(_signature_key(sources[k])) for k in used
                     if sources.get(k) is not None and not _is_screen(sources[k])}
        computed = {k for k in used if k in sources and sources[k] is None}
        chosen = [output_of[k] for k in sorted(output_of) if output_of[k] is not None]
        if chosen:
            output = max(chosen, key=chosen.count)  # ties: the first binding's
        else:
            pairs = [i for i, (s, _) in enumerate(layout)
                     if s.systemValue == self.rd.ShaderBuiltin.Undefined and s.compCount == 2]
            if not computed:
                return None  # screen-space reads only (or samples the converter does not follow)
            if not pairs:
                self.warn(f"{where}: no texture coordinate found in the shaders; its texture reads stay at the "
                          "pixel's screen position (a stand-in)")
                return None
            output = pairs[0]
        signature, offset = layout[output]
        if signature.compCount < 2 or rd_width(self.rd, signature) != 4:
            self.warn(f"{where}: the texture coordinate output is not float2 or wider; its texture reads stay at "
                      "the pixel's screen position (a stand-in)")
            return None
        if computed:
            self.warn(f"{where}: texture coordinates guessed (the vertex output {signature.varName or 'unnamed'}): "
                      "the fragment shader computes them")
        at_uv = {k for k, o in output_of.items() if o == output} | computed
        stand_in = {k for k in used if k not in at_uv and not _is_screen(sources.get(k))}
        return offset, at_uv, stand_in

    def carried_uvs(self, uvs, plan, where, flip_v):
        """The instances' uvs of coordinate_plan's output as one (n, 2) array (`flip_v`: v = 1 - t, for
        OpenGL, whose texture rows run bottom to top while the trace's v = 0 is the top row), or None
        with a warning when a value is not finite."""
        if plan is None or not uvs:
            return None
        uvs = np.concatenate(uvs)
        if not np.isfinite(uvs).all():
            self.warn(f"{where}: non-finite texture coordinates; its texture reads stay at the pixel's screen "
                      "position (a stand-in)")
            return None
        if flip_v:
            uvs[:, 1] = 1.0 - uvs[:, 1]
        return uvs
