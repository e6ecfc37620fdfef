"""OpenGL ES / OpenGL draws: clip-space meshes and the GL pipeline state (rasterizer, depth,
stencil, blend) of each draw of an inferred render pass."""
import numpy as np

from . import meshes
from .draws import COMPARE, CULL, blend_target, depth_bias, primitive_size, stencil_face, trace_topology
from .sampling import SCREEN, glsl_sample_inputs, sampler_fields
from .shaders import glsl_counts


class GLDraws:
    """Draws of an opengl.GLConverter span."""

    def add_gl_draw(self, span, eid, action, pipe, name):
        rd = self.rd
        where = f"event {eid} ({name})"
        instances = max(1, action.numInstances if action is not None else 1)
        positions, indices, vertices, topology, index_bits = [], [], 0, None, 32
        plan, uvs = self.coordinate_plan(where), []
        for inst in range(instances):
            post = self.post_vs_data(eid, inst, where)
            if post is None:
                return
            topology = post.topology
            if trace_topology(rd, topology) is None:
                self.warn(f"{where}: topology {rd.Topology(topology).name} is not supported; draw left out")
                return
            if post.format.compCount < 4 or post.format.compByteWidth != 4:
                self.warn(f"{where}: position output is not float4; draw left out")
                return
            idx = meshes.instance_indices(self.ctl, rd, post)
            if post.indexResourceId != rd.ResourceId.Null() and post.numIndices:
                idx += post.baseVertex
                index_bits = 16 if post.indexByteStride <= 2 else 32
            count = int(idx.max()) + 1 if len(idx) else 0
            xyzw = meshes.instance_positions(self.ctl, post, count)
            # GL -> trace: y negated (GL's window origin is the bottom left), z from [-w, w] to [0, w].
            xyzw[:, 1] = -xyzw[:, 1]
            if pipe.vertexProcessing.clipNegativeOneToOne:
                with np.errstate(invalid="ignore", over="ignore"):  # non-finite ones are left out below
                    xyzw[:, 2] = (xyzw[:, 2] + xyzw[:, 3]) * 0.5
            positions.append(xyzw)
            if plan is not None:
                uvs.append(meshes.instance_floats(self.ctl, post, count, plan[0], 2))
            indices.append(idx + vertices)
            vertices += count
        if instances > 1:
            self.warn(f"{where}: {instances} instances converted as one mesh of every instance's vertices")
        if not vertices:
            self.warn(f"{where}: draw without vertices left out")
            return
        positions, indices = np.concatenate(positions), np.concatenate(indices)
        trivial = np.array_equal(indices, np.arange(vertices))  # 0, 1, 2, ...: no index data
        uvs = self.carried_uvs(uvs, plan, where, flip_v=True)
        mesh_name = self.add_mesh(eid, where, trace_topology(rd, topology), positions, None if trivial else indices,
                                  index_bits, uvs)
        if mesh_name is None:
            return
        height = span["render_area"]["height"]
        vp = pipe.rasterizer.viewports[0]
        draw = {"name": f"event_{eid}", "mesh": mesh_name, "transform": {"clip_space": True},
                "viewport": {"x": vp.x, "y": height - (vp.y + vp.height), "width": vp.width, "height": vp.height,
                             "min_depth": min(max(vp.minDepth, 0.0), 1.0),
                             "max_depth": min(max(vp.maxDepth, 0.0), 1.0)}}
        sc = pipe.rasterizer.scissors[0] if len(pipe.rasterizer.scissors) else None
        if sc is not None and sc.enabled:
            y = height - (sc.y + sc.height)
            draw["scissor"] = {"x": max(0, sc.x), "y": max(0, y), "width": sc.width,
                               "height": sc.height + min(0, y)}
        draw.update(self.gl_primitive_size(pipe, trace_topology(rd, topology), where))
        draw["state"], draw["cost"] = self.gl_draw_state(pipe, span, where)
        draw["program"] = self.program(span, where, *(plan[1:] if uvs is not None else ()))
        span["subpasses"][0]["draws"].append(draw)
        span["_last_draw"] = eid
        self.fb_moved = False

    def used_read_only(self):
        """GL lists every texture unit: only those the fragment shader's samplers are set to
        (reflection bind point -> bindpointMapping -> unit)."""
        fs = self.ctl.GetGLPipelineState().fragmentShader
        if fs.reflection is None:
            return set()
        mapping = fs.bindpointMapping.readOnlyResources
        return {mapping[r.bindPoint].bind for r in fs.reflection.readOnlyResources if 0 <= r.bindPoint < len(mapping)}

    def sample_sources(self):
        """({texture unit: the vertex output signature its lookups' coordinate is, or None}, the vertex
        shader's outputs) from the fragment shader's GLSL (a varying is the vertex output of the same
        name; a sampler uniform is set to its unit), or None when a shader is missing."""
        pipe = self.ctl.GetGLPipelineState()
        shader = pipe.fragmentShader
        fs, vs = shader.reflection, pipe.vertexShader.reflection
        if fs is None or vs is None:
            return None
        found = glsl_sample_inputs(bytes(fs.rawBytes).decode("utf-8", "replace"))
        mapping = shader.bindpointMapping.readOnlyResources
        units = {r.name: mapping[r.bindPoint].bind for r in fs.readOnlyResources if 0 <= r.bindPoint < len(mapping)}
        by_name = {s.varName: s for s in vs.outputSignature if s.systemValue == self.rd.ShaderBuiltin.Undefined}
        return ({units[name]: varying if varying in (None, SCREEN) else by_name.get(varying)
                 for name, varying in found.items() if name in units}, vs.outputSignature)

    def sampler_of(self, unit, element):
        """The binding's `filter` and `address` from texture unit `unit`'s sampler state."""
        samplers = self.ctl.GetGLPipelineState().samplers
        if unit >= len(samplers):
            return {}
        return sampler_fields(self.rd, samplers[unit].filter, samplers[unit].addressS)

    def binding_key(self, unit, array):
        """GL's read-only arrays are its texture units, in order."""
        return unit

    def gl_primitive_size(self, pipe, topology, where):
        """glLineWidth and glPointSize (a size the vertex shader writes, GL_PROGRAM_POINT_SIZE, is not
        read: warned, carried as glPointSize's)."""
        r = pipe.rasterizer.state
        if topology == "points" and r.programmablePointSize:
            self.warn(f"{where}: the vertex shader's point size (GL_PROGRAM_POINT_SIZE) is not read; points carried "
                      f"at glPointSize's {r.pointSize:g}")
        return primitive_size(topology, r.lineWidth, r.pointSize, where, self.warn)

    def gl_draw_state(self, pipe, span, where):
        rd = self.rd
        r, ds, ss = pipe.rasterizer.state, pipe.depthState, pipe.stencilState
        state = {"cull": CULL.get(rd.CullMode(r.cullMode).name, "none")}
        # GL's winding is that of its y-up window, the trace's that of Vulkan's framebuffer (its area
        # formula, Vulkan 1.3 section 28.8.1, carries the sign that makes the two agree): the y mirror
        # keeps glFrontFace as it is (the effect2d quad, GL_CCW and culled back, is drawn either way).
        state["front_face"] = "counter_clockwise" if r.frontCCW else "clockwise"
        sub = span["subpasses"][0]
        if sub["depth"] is not None:
            state["depth_test"] = bool(ds.depthEnable)
            state["depth_write"] = bool(ds.depthWrites) and bool(ds.depthEnable)
            state["depth_compare"] = COMPARE[rd.CompareFunction(ds.depthFunction).name]
            if ss.stencilEnable and span["attachments"][sub["depth"]]["_stencil"]:
                state["stencil_test"] = True
                state["stencil_front"] = stencil_face(rd, ss.frontFace)
                state["stencil_back"] = stencil_face(rd, ss.backFace)
        if (r.offsetClamp or r.depthBias or r.slopeScaledDepthBias) and sub["depth"] is not None:
            state["depth_bias"] = depth_bias(r.depthBias, r.slopeScaledDepthBias, r.offsetClamp)
        blends = []
        cb = pipe.framebuffer.blendState
        for i in sub["color"]:
            n = int(span["attachments"][i]["_slot"][5:])
            b = cb.blends[n] if n < len(cb.blends) else cb.blends[0]
            blends.append(blend_target(rd, b, self.warn, where))
        if blends and any(b["enable"] or b["write_mask"] != "rgba" for b in blends):
            state["blend"] = blends
        if any(b["enable"] for b in blends):
            state["blend_constants"] = [float(v) for v in cb.blendFactor]
        cost = {"alu": 0, "texture_samples": 0, "tile_reads": 0, "varyings": 0, "vertex_alu": 0}
        for stage, shader in (("vertex", pipe.vertexShader), ("fragment", pipe.fragmentShader)):
            refl = shader.reflection
            if refl is None or refl.resourceId == rd.ResourceId.Null():
                continue
            counts = glsl_counts(bytes(refl.rawBytes).decode("utf-8", "replace"))
            if stage == "vertex":
                cost["vertex_alu"] = counts["alu"]
            else:
                cost["alu"], cost["texture_samples"] = counts["alu"], counts["samples"]
                cost["varyings"] = sum(s.compCount for s in refl.inputSignature
                                       if s.systemValue == rd.ShaderBuiltin.Undefined)
                if counts["discard"]:
                    state["discard"] = True
                if counts["depth_write"]:
                    state["shader_depth_write"] = True
        return state, cost
