"""Draws: post-vertex-shader clip-space meshes into the trace's .bin, fixed-function state
(depth, stencil, blend, cull) and shader costs of the bound pipeline, and the sampled images a
draw's program binds."""
import numpy as np

from . import meshes
from .common import RasterNeeded, skipped
from .sampling import DrawSampling, output_layout, sampler_fields, spirv_sample_inputs
from .shaders import spirv_counts


COMPARE = {"Never": "never", "Less": "less", "Equal": "equal", "LessEqual": "less_or_equal",
           "Greater": "greater", "NotEqual": "not_equal", "GreaterEqual": "greater_or_equal",
           "AlwaysTrue": "always"}

STENCIL_OPS = {"Keep": "keep", "Zero": "zero", "Replace": "replace", "IncSat": "increment_and_clamp",
               "DecSat": "decrement_and_clamp", "Invert": "invert", "IncWrap": "increment_and_wrap",
               "DecWrap": "decrement_and_wrap"}

BLEND_FACTORS = {"Zero": "zero", "One": "one", "SrcCol": "src_color", "InvSrcCol": "one_minus_src_color",
                 "DstCol": "dst_color", "InvDstCol": "one_minus_dst_color", "SrcAlpha": "src_alpha",
                 "InvSrcAlpha": "one_minus_src_alpha", "DstAlpha": "dst_alpha", "InvDstAlpha": "one_minus_dst_alpha",
                 "FactorRGB": "constant_color", "InvFactorRGB": "one_minus_constant_color",
                 "FactorAlpha": "constant_alpha", "InvFactorAlpha": "one_minus_constant_alpha",
                 "SrcAlphaSat": "src_alpha_saturate"}

BLEND_OPS = {"Add": "add", "Subtract": "subtract", "ReversedSubtract": "reverse_subtract", "Minimum": "min",
             "Maximum": "max"}

CULL = {"NoCull": "none", "Front": "front", "Back": "back", "FrontAndBack": "front_and_back"}

# RenderDoc's primitive topologies the trace carries (traces/README.md MESH `topology`); the others
# (line loops, adjacency, patch lists) leave their draw out with a warning.
TOPOLOGIES = {"TriangleList": "triangle_list", "TriangleStrip": "triangle_strip", "TriangleFan": "triangle_fan",
              "LineList": "lines", "LineStrip": "line_strip", "PointList": "points"}


def trace_topology(rd, topology):
    """RenderDoc's Topology -> the trace's topology name, or None when the trace has none."""
    return TOPOLOGIES.get(rd.Topology(topology).name)


def primitive_size(topology, line_width, point_size, where, warn):
    """The DRAW keys of a line draw's width or a point draw's size (traces/README.md DRAW: 1 to 255
    pixels, 1 when absent); a value outside that range is carried clamped into it, warned."""
    key, value = {"lines": ("line_width", line_width), "line_strip": ("line_width", line_width),
                  "points": ("point_size", point_size)}.get(topology, (None, 1.0))
    carried = min(max(float(value), 1.0), 255.0)
    if carried != value:
        warn(f"{where}: {key} {value:g} is outside 1..255; carried as {carried:g}")
    return {key: carried} if key is not None and carried != 1.0 else {}


def stencil_face(rd, face):
    """One face's stencil state (a Vulkan or GL pipeline state's StencilFace) -> trace STENCIL."""
    def op(o):
        return STENCIL_OPS[rd.StencilOperation(o).name]
    return {"fail_op": op(face.failOperation), "pass_op": op(face.passOperation),
            "depth_fail_op": op(face.depthFailOperation),
            "compare_op": COMPARE[rd.CompareFunction(face.function).name],
            "compare_mask": face.compareMask & 0xFF, "write_mask": face.writeMask & 0xFF,
            "reference": face.reference & 0xFF}


def blend_target(rd, b, warn, where):
    """One color target's blend (RenderDoc's ColorBlend, either API) -> trace BLEND; a factor the
    trace has no name for is carried as one, with a warning."""
    def factor(f):
        name = rd.BlendMultiplier(f).name
        if name not in BLEND_FACTORS:
            warn(f"{where}: blend factor {name} carried as one")
        return BLEND_FACTORS.get(name, "one")

    def bop(o):
        return BLEND_OPS[rd.BlendOperation(o).name]
    mask = "".join(c for bit, c in ((1, "r"), (2, "g"), (4, "b"), (8, "a")) if b.writeMask & bit)
    return {"enable": bool(b.enabled), "src_color": factor(b.colorBlend.source),
            "dst_color": factor(b.colorBlend.destination), "color_op": bop(b.colorBlend.operation),
            "src_alpha": factor(b.alphaBlend.source), "dst_alpha": factor(b.alphaBlend.destination),
            "alpha_op": bop(b.alphaBlend.operation), "write_mask": mask}


def depth_bias(constant, slope, clamp):
    """Vulkan's depthBiasConstantFactor / SlopeFactor / Clamp (GL's polygon offset units, factor,
    clamp) -> trace DEPTH_BIAS (applied by the rasterizer, Vulkan "Depth Bias")."""
    return {"constant": float(constant), "slope": float(slope), "clamp": float(clamp)}


def vertex_shader_reads_no_image(rd, controller, where):
    """A replay without rasterization (pixels.py) has drawn no image the vertex shader may sample, nor
    restored the ones RenderDoc restores by drawing (a terrain's displacement map): RasterNeeded when
    the draw's vertex shader declares any texture or image it reads."""
    reflection = controller.GetPipelineState().GetShaderReflection(rd.ShaderStage.Vertex)
    if reflection is not None and (len(reflection.readOnlyResources) or len(reflection.readWriteResources)):
        raise RasterNeeded(f"{where}: its vertex shader samples textures")


def vertex_point_size(sizes, where, warn):
    """A Vulkan point draw's size: the vertex shader's PointSize output (Vulkan "Points": the size is
    taken from PointSize as the last vertex-processing stage wrote it), read from the post-vertex-shader
    data (`sizes`: per instance, (n, 1) arrays; None when the shader does not write it). The trace
    carries one size a draw: points of several sizes are carried at the commonest, warned."""
    if sizes is None:
        warn(f"{where}: the vertex shader writes no point size; points carried 1 pixel wide")
        return 1.0
    values = np.concatenate(sizes)[:, 0] if sizes else np.zeros(0)
    if not len(values) or not np.isfinite(values).all():
        warn(f"{where}: the vertex shader's point sizes are not finite; points carried 1 pixel wide")
        return 1.0
    found, counts = np.unique(values, return_counts=True)
    if len(found) > 1:
        warn(f"{where}: points of {len(found)} sizes ({found.min():g} to {found.max():g} pixels) carried at "
             f"{found[counts.argmax()]:g}, the commonest")
    return float(found[counts.argmax()])


class Draws(DrawSampling):
    """Vulkan draws; opengl_draws.GLDraws reads GL's state the same way."""

    def add_draw(self, p, eid, action):
        rd = self.rd
        where = f"event {eid}"
        if p["_subpass"] >= len(p["subpasses"]):
            self.warn(f"{where}: draw beyond the render pass's subpasses was left out")
            return
        self.replay_to(eid)
        pipe = self.ctl.GetVulkanPipelineState()
        topology = pipe.inputAssembly.topology
        if trace_topology(rd, topology) is None:
            self.warn(f"{where}: topology {rd.Topology(topology).name} is not supported; draw left out")
            return
        instances = max(1, action.numInstances if action is not None else 1)
        positions, indices, vertices = [], [], 0  # per instance: (vertices, 4) and index arrays
        plan, uvs = self.coordinate_plan(where), []
        size_at, sizes = (self.point_size_offset() if topology == rd.Topology.PointList else None), []
        index_bits = 32
        indexed = action is not None and bool(action.flags & rd.ActionFlags.Indexed)
        for inst in range(instances):
            post = self.post_vs_data(eid, inst, where)
            if post is None:
                return
            if post.format.compCount < 4 or post.format.compByteWidth != 4:
                self.warn(f"{where}: position output is not float4; draw left out")
                return
            idx = meshes.instance_indices(self.ctl, rd, post)
            if post.indexResourceId != rd.ResourceId.Null() and post.numIndices:
                if post.allowRestart and topology != rd.Topology.TriangleList and (idx == post.restartIndex).any():
                    self.warn(f"{where}: primitive restart is not supported; draw left out")
                    return
                idx += post.baseVertex
            count = int(idx.max()) + 1 if len(idx) else 0
            positions.append(meshes.instance_positions(self.ctl, post, count))
            if plan is not None:
                uvs.append(meshes.instance_floats(self.ctl, post, count, plan[0], 2))
            if size_at is not None:
                sizes.append(meshes.instance_floats(self.ctl, post, count, size_at, 1))
            if indexed or instances > 1:
                indices.append(idx + vertices)
            vertices += count
        if indexed:
            index_bits = 16 if pipe.inputAssembly.indexBuffer.byteStride == 2 else 32
        if instances > 1:
            self.warn(f"{where}: {instances} instances converted as one mesh of every instance's vertices")
        if not vertices:
            self.warn(f"{where}: draw without vertices left out")
            return
        if len(pipe.viewportScissor.viewportScissors) == 0:
            self.warn(f"{where}: draw without a viewport (rasterizer discard?) left out")
            return
        viewport, scissor = pipe.viewportScissor.viewportScissors[0].vp, pipe.viewportScissor.viewportScissors[0].scissor
        flip = viewport.height < 0
        positions = np.concatenate(positions)
        if flip:  # a negative-height viewport (VK_KHR_maintenance1): the same pixels with y negated
            positions[:, 1] = -positions[:, 1]
        indices = np.concatenate(indices) if indices else np.zeros(0, np.int64)
        uvs = self.carried_uvs(uvs, plan, where, flip_v=False)
        mesh_name = self.add_mesh(eid, where, trace_topology(rd, topology), positions,
                                  indices if indices.size else None, index_bits, uvs)
        if mesh_name is None:
            return
        draw = {"name": f"event_{eid}", "mesh": mesh_name, "transform": {"clip_space": True}}
        point_size = 1.0
        if topology == rd.Topology.PointList:
            point_size = vertex_point_size(sizes if size_at is not None else None, where, self.warn)
        draw.update(primitive_size(trace_topology(rd, topology), pipe.rasterizer.lineWidth, point_size, where, self.warn))
        draw["viewport"] = {"x": viewport.x, "y": viewport.y + viewport.height if flip else viewport.y,
                            "width": viewport.width, "height": abs(viewport.height),
                            "min_depth": min(max(viewport.minDepth, 0.0), 1.0),
                            "max_depth": min(max(viewport.maxDepth, 0.0), 1.0)}
        if scissor.enabled:
            draw["scissor"] = {"x": max(0, scissor.x), "y": max(0, scissor.y),
                               "width": scissor.width, "height": scissor.height}
        draw["state"], draw["cost"] = self.draw_state(pipe, p, flip, where)
        draw["program"] = self.program(p, where, *(plan[1:] if uvs is not None else ()))
        p["subpasses"][p["_subpass"]]["draws"].append(draw)
        p["_last_draw"] = eid

    def point_size_offset(self):
        """Byte offset of the vertex shader's PointSize output in a post-vertex-shader vertex, or None."""
        reflection = self.ctl.GetPipelineState().GetShaderReflection(self.rd.ShaderStage.Vertex)
        if reflection is None:
            return None
        for signature, offset in output_layout(self.rd, reflection.outputSignature):
            if signature.systemValue == self.rd.ShaderBuiltin.PointSize:
                return offset
        return None

    def post_vs_data(self, eid, inst, where):
        """GetPostVSData of the draw's instance `inst` (a step noted with the key a replay crash
        skips), or None with a warning when RenderDoc has none or crashed reading it in a former run."""
        rd = self.rd
        if skipped(f"draw {eid}"):
            self.warn(f"{where}: RenderDoc's replay crashed reading its post-vertex-shader data; draw left out")
            return None
        if self.pixel_reader is not None and inst == 0:
            vertex_shader_reads_no_image(rd, self.ctl, where)
        self.note(f"event {eid}: reading the post-vertex-shader positions of instance {inst}", f"draw {eid}")
        post = self.ctl.GetPostVSData(inst, 0, rd.MeshDataStage.VSOut)
        if post.status or post.vertexResourceId == rd.ResourceId.Null():
            self.warn(f"{where}: no post-vertex-shader data ({post.status or 'none'}); draw left out")
            return None
        return post

    def add_mesh(self, eid, where, topology, positions, indices, index_bits, uvs=None):
        """A draw's MESH: float64 (n, 4) clip-space positions, its indices (None: not indexed) and its
        (n, 2) uvs (None: none carried) into the .bin; its name, or None with a warning when a position
        is not finite."""
        bad = meshes.non_finite_rows(positions)
        if bad:
            self.warn(f"{where}: {bad} non-finite clip-space positions; draw left out")
            return None
        mesh_name = f"{self.frame_tag}draw_event_{eid}"
        mesh = {"name": mesh_name, "topology": topology, "position_components": 4,
                "positions": self.sidecar(positions, "f")}
        if uvs is not None:
            mesh["uvs"] = self.sidecar(uvs, "f")
        if indices is not None:
            if index_bits == 16 and indices.max() >= 65536:
                index_bits = 32
            mesh["indices"] = self.sidecar(indices, "H" if index_bits == 16 else "I")
            mesh["index_bits"] = index_bits
        self.meshes.append(mesh)
        return mesh_name

    def program(self, p, where, at_uv=frozenset(), stand_in=frozenset()):
        """The `captured` stand-in program, bound to the render-target images (images of some pass,
        not of this one: those are input attachments) and material textures that the fragment shader
        samples; those of binding keys `at_uv` sampled at the mesh's uvs, those of `stand_in` read at
        the pixel in their stead, warned (coordinate_plan)."""
        attachments = {a["_image_id"] for a in p["attachments"]}
        bindings, textures, stand_ins = {}, 0, 0
        used = self.used_read_only()
        for unit, array in enumerate(self.ctl.GetPipelineState().GetReadOnlyResources(self.rd.ShaderStage.Fragment)):
            key = self.binding_key(unit, array)
            if key not in used:
                continue
            for element, bound in enumerate(array.resources):
                image_id = int(bound.resourceId)
                if image_id in attachments or image_id not in self.images:
                    continue
                if image_id not in self.trace_images:
                    name = self.material_texture(image_id, where)
                    if name is None:
                        textures += 1
                        continue
                    binding = {"texture": name}
                else:
                    binding = {"image": self.trace_images[image_id]["name"]}
                    if bound.firstMip:
                        binding["mip"] = bound.firstMip
                    if bound.firstSlice:
                        binding["layer"] = bound.firstSlice
                if len(bindings) == 3:
                    self.warn(f"{where}: more than 3 sampled images; the reads of the rest are not counted")
                    continue
                if key in at_uv:
                    binding["coordinates"] = "uv"
                    binding.update(self.sampler_of(key, element))
                stand_ins += key in stand_in
                bindings[f"image{len(bindings)}"] = binding
        if textures:
            self.warn(f"{where}: {textures} sampled images that no render pass writes (material textures) could not be "
                      "saved: their texture traffic is not counted (their sample instructions are in the cost)")
        if stand_ins:
            self.warn(f"{where}: a sampled image's coordinates come from another vertex output than the one "
                      "carried, or from where the converter does not follow: its reads stay at the pixel's "
                      "screen position (a stand-in)")
        program = {"name": "captured"}
        if bindings:
            program["bindings"] = bindings
        return program

    def used_read_only(self):
        """The bindings of GetReadOnlyResources the fragment shader reads, named as binding_key names
        them. RenderDoc lists every binding of the bound descriptor sets the fragment stage may see,
        whether the shader reads it or not (PipeState.GetReadOnlyResources): only the (set, binding)
        pairs the shader's reflection declares and marks used (Bindpoint.used) count as sampled."""
        fs = self.ctl.GetVulkanPipelineState().fragmentShader
        if fs.reflection is None:
            return set()
        mapping = fs.bindpointMapping.readOnlyResources
        return {(mapping[r.bindPoint].bindset, mapping[r.bindPoint].bind) for r in fs.reflection.readOnlyResources
                if 0 <= r.bindPoint < len(mapping) and mapping[r.bindPoint].used}

    def sample_sources(self):
        """({(set, binding): the vertex output signature its samples' coordinate is, or None}, the
        vertex shader's outputs) from the fragment shader's SPIR-V (an input's Location is the vertex
        output's), or None when a shader is missing or not SPIR-V."""
        pipe = self.ctl.GetVulkanPipelineState()
        fs, vs = pipe.fragmentShader.reflection, pipe.vertexShader.reflection
        if fs is None or vs is None:
            return None
        found = spirv_sample_inputs(bytes(fs.rawBytes))
        if found is None:
            return None
        by_location = {s.regIndex: s for s in vs.outputSignature if s.systemValue == self.rd.ShaderBuiltin.Undefined}
        return {key: by_location.get(location) for key, location in found.items()}, vs.outputSignature

    def sampler_of(self, key, element):
        """The binding's `filter` and `address` from the sampler of descriptor `element` of (set, binding)
        `key` (a combined image sampler's; {} where the descriptor has none)."""
        sets = self.ctl.GetVulkanPipelineState().graphics.descriptorSets
        set_index, binding = key
        if set_index >= len(sets) or binding >= len(sets[set_index].bindings):
            return {}
        binds = sets[set_index].bindings[binding].binds
        if element >= len(binds):
            return {}
        return sampler_fields(self.rd, binds[element].filter, binds[element].addressU)

    def binding_key(self, unit, array):
        """GetReadOnlyResources' `unit`-th array as used_read_only names it: Vulkan's (set, binding)."""
        return (array.bindPoint.bindset, array.bindPoint.bind)

    def sidecar(self, values, code):
        while len(self.bin) % 4:
            self.bin.append(0)
        offset = len(self.bin)
        self.bin += meshes.sidecar_bytes(values, code)
        return {"file": self.stem + ".bin", "offset": offset, "count": int(values.size)}

    def shader_counts(self, reflection, where, stage):
        if reflection is None or reflection.resourceId == self.rd.ResourceId.Null():
            return None
        counts = spirv_counts(bytes(reflection.rawBytes))
        if counts is None:
            self.warn(f"{where}: the {stage} shader is not SPIR-V the converter can read; cost left at zero")
        return counts

    def draw_state(self, pipe, p, flip, where):
        rd = self.rd
        r, ds, cb = pipe.rasterizer, pipe.depthStencil, pipe.colorBlend
        state = {"cull": CULL.get(rd.CullMode(r.cullMode).name, "none")}
        front_ccw = bool(r.frontCCW) != flip
        state["front_face"] = "counter_clockwise" if front_ccw else "clockwise"
        subpass = p["subpasses"][p["_subpass"]]
        if subpass["depth"] is not None:
            state["depth_test"] = bool(ds.depthTestEnable)
            state["depth_write"] = bool(ds.depthWriteEnable)
            state["depth_compare"] = COMPARE[rd.CompareFunction(ds.depthFunction).name]
            if ds.stencilTestEnable:
                state["stencil_test"] = True
                state["stencil_front"] = stencil_face(rd, ds.frontFace)
                state["stencil_back"] = stencil_face(rd, ds.backFace)
        if r.depthBiasEnable and subpass["depth"] is not None:
            state["depth_bias"] = depth_bias(r.depthBias, r.slopeScaledDepthBias, r.depthBiasClamp)
        blends = []
        for slot, b in enumerate(cb.blends[:len(subpass["color"])]):
            blends.append(blend_target(rd, b, self.warn, where))
            if b.logicOperationEnabled:
                self.warn(f"{where}: logic op is not carried")
        if blends and any(b["enable"] or b["write_mask"] != "rgba" for b in blends):
            state["blend"] = blends
        if any(b["enable"] for b in blends):
            state["blend_constants"] = [float(v) for v in cb.blendFactor]
        if pipe.multisample.rasterSamples > 1 and pipe.multisample.sampleShadingEnable:
            self.warn(f"{where}: sample shading is not carried (shading is once per pixel)")
        vs = self.shader_counts(pipe.vertexShader.reflection, where, "vertex")
        fs = self.shader_counts(pipe.fragmentShader.reflection, where, "fragment")
        cost = {"alu": 0, "texture_samples": 0, "tile_reads": 0, "varyings": 0, "vertex_alu": 0}
        if vs:
            cost["vertex_alu"] = vs["alu"]
        if fs:
            cost["alu"], cost["texture_samples"], cost["tile_reads"] = fs["alu"], fs["samples"], fs["subpass_loads"]
            if fs["discard"]:
                state["discard"] = True
            if fs["depth_write"]:
                state["shader_depth_write"] = True
        refl = pipe.fragmentShader.reflection
        if refl is not None and refl.resourceId != rd.ResourceId.Null():
            cost["varyings"] = sum(s.compCount for s in refl.inputSignature
                                   if s.systemValue == rd.ShaderBuiltin.Undefined)
        return state, cost
