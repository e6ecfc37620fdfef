"""Static shader costs for rdc2trace: instruction counts of a captured SPIR-V module (Vulkan)
and of GLSL source text (OpenGL ES and OpenGL), the rules of traces/README.md "Captured frames"."""
import re
import struct


# ---- SPIR-V cost rule ----------------------------------------------------------------------------
# Static instruction counts of a shader module's code (SPIR-V 1.6 spec, section 3.52 opcodes):
#   arithmetic = OpExtInst (12, e.g. GLSL.std.450 normalize/pow) and every opcode of the conversion,
#                arithmetic, bit, relational/logical and derivative groups (109..215), one per
#                instruction whatever its vector width;
#   image samples = OpImageSample*, OpImageFetch, OpImage*Gather (87..97) and their sparse forms
#                (305..315), plus OpImageRead (98) of a non-subpass image;
#   subpass loads = OpImageRead of an image whose type has Dim SubpassData (6): GLSL subpassLoad.
# Each instruction counts once: loops are not unrolled, both sides of a branch count.
OP_EXT_INST, OP_TYPE_IMAGE, OP_LOAD, OP_IMAGE_READ = 12, 25, 61, 98
OP_DECORATE, OP_KILL, OP_TERMINATE_INVOCATION, OP_DEMOTE = 71, 252, 4416, 5380
DECORATION_BUILTIN, BUILTIN_FRAG_DEPTH, DIM_SUBPASS_DATA = 11, 22, 6


def spirv_counts(code):
    if len(code) < 20 or len(code) % 4:
        return None
    words = struct.unpack("<%dI" % (len(code) // 4), code)
    if words[0] != 0x07230203:
        return None
    counts = {"alu": 0, "samples": 0, "subpass_loads": 0, "discard": False, "depth_write": False}
    image_types, loaded_type = {}, {}
    i = 5
    while i < len(words):
        length, opcode = words[i] >> 16, words[i] & 0xFFFF
        if length == 0:
            return None
        op = words[i + 1:i + length]
        if opcode == OP_TYPE_IMAGE:
            image_types[op[0]] = op[2]  # result id -> Dim
        elif opcode == OP_LOAD:
            loaded_type[op[1]] = op[0]  # result id -> its type
        elif opcode == OP_DECORATE and len(op) >= 3 and op[1] == DECORATION_BUILTIN and op[2] == BUILTIN_FRAG_DEPTH:
            counts["depth_write"] = True
        elif opcode in (OP_KILL, OP_TERMINATE_INVOCATION, OP_DEMOTE):
            counts["discard"] = True
        elif opcode == OP_IMAGE_READ:
            if image_types.get(loaded_type.get(op[2])) == DIM_SUBPASS_DATA:
                counts["subpass_loads"] += 1
            else:
                counts["samples"] += 1
        elif 87 <= opcode <= 97 or 305 <= opcode <= 315:
            counts["samples"] += 1
        elif opcode == OP_EXT_INST or 109 <= opcode <= 215:
            counts["alu"] += 1
        i += length
    return counts


# GLSL static cost (traces/README.md "OpenGL ES and OpenGL captures"): texture lookups and arithmetic.
GLSL_SAMPLE = re.compile(r"\b(texture|texture2D|texture3D|textureCube|texture2DProj|textureProj|textureLod|"
                         r"texture2DLod|textureCubeLod|texture2DLodEXT|textureCubeLodEXT|textureGrad|"
                         r"textureOffset|texelFetch|texelFetchOffset|textureGather|textureProjLod|"
                         r"shadow2D|shadow2DEXT|texture2DRect)\s*\(")
GLSL_BUILTINS = ("radians degrees sin cos tan asin acos atan sinh cosh tanh pow exp log exp2 log2 sqrt "
                 "inversesqrt abs sign floor trunc round roundEven ceil fract mod modf min max clamp mix step "
                 "smoothstep length distance dot cross normalize faceforward reflect refract matrixCompMult "
                 "dFdx dFdy fwidth").split()
GLSL_CALL = re.compile(r"\b(" + "|".join(GLSL_BUILTINS) + r")\s*\(")
GLSL_OP = re.compile(r"(?<![-+*/=<>!&|^])([-+*/])(?![-+=])")


def glsl_counts(source):
    """Static counts of the main body's GLSL text: lookups, built-in calls + arithmetic operators."""
    text = re.sub(r"/\*.*?\*/", " ", source, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    text = "\n".join(line for line in text.split("\n") if not line.lstrip().startswith("#"))
    body = text[text.find("void main"):] if "void main" in text else text
    samples = len(GLSL_SAMPLE.findall(body))
    # Binary operators between operands: an operator directly after '(' , ',' or '=' is a sign.
    code = re.sub(r"[0-9]*\.?[0-9]+([eE][-+]?[0-9]+)?", "1", body)
    ops = 0
    for m in GLSL_OP.finditer(code):
        before = code[:m.start()].rstrip()
        if before and before[-1] not in "(,=?:{;[":
            ops += 1
    return {"alu": ops + len(GLSL_CALL.findall(body)), "samples": samples,
            "discard": bool(re.search(r"\bdiscard\b", body)),
            "depth_write": bool(re.search(r"\bgl_FragDepth(EXT)?\b", body))}
