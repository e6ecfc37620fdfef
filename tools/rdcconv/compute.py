"""Compute dispatches -> `captured_compute` passes: the images and buffers a dispatch reads and
writes, for Vulkan (descriptor sets) and GL (texture units and storage-buffer bindings)."""
import re

from .structured import level_ref


class Compute:
    """Dispatches, as Vulkan lists their resources."""

    def dispatch_pass(self, eid, name, action, index):
        """A compute dispatch -> a `captured_compute` pass (traces/README.md `compute`): the images its
        shader reads (read-only bindings) and writes (read-write ones, with their pixels after the
        dispatch as `contents`), groups x local size invocations of the shader's static cost, and the
        buffers it binds (BUFFER `buffer<ID>`, the whole length) in `buffer_reads` / `buffer_writes`."""
        rd = self.rd
        where = f"event {eid} ({name})"
        self.replay_to(eid)
        state = self.ctl.GetPipelineState()
        buffers = {int(b.resourceId): b.length for b in self.ctl.GetBuffers()}
        p = {"name": f"compute{index}", "type": "compute", "program": {"name": "captured_compute"},
             "groups": [int(d) for d in action.dispatchDimension], "reads": [], "writes": []}
        refl = state.GetShaderReflection(rd.ShaderStage.Compute)
        p["local_size"] = [max(1, int(d)) for d in refl.dispatchThreadsDimension] if refl is not None else [1, 1, 1]
        counts = self.shader_counts(refl, where, "compute")
        p["cost"] = {"alu": counts["alu"] if counts else 0, "texture_samples": counts["samples"] if counts else 0}
        for read_write, key in ((False, "reads"), (True, "writes")):
            arrays = (state.GetReadWriteResources if read_write else state.GetReadOnlyResources)(rd.ShaderStage.Compute)
            used = self.used_compute(read_write)
            for unit, array in enumerate(arrays):
                if used is not None and unit not in used:
                    continue
                for bound in array.resources:
                    rid = int(bound.resourceId)
                    if rid in buffers:
                        self.bind_buffer(p, "buffer_" + key, rid, buffers[rid], where)
                    elif rid in self.textures:
                        p[key].append(self.dispatch_ref(rid, bound, read_write, p["name"], where))
        self.bind_storage_buffers(p, where)
        return p

    def bind_storage_buffers(self, p, where):
        """Vulkan's storage buffers are in the resource arrays above; GL lists them apart (GLConverter)."""

    def bind_buffer(self, p, key, rid, length, where):
        """A buffer a dispatch binds: a trace BUFFER of its whole length (the binding's range is not
        read: an upper bound), named in the pass's `buffer_reads` or `buffer_writes` once."""
        if length <= 0:
            self.warn(f"{where}: buffer {rid} has no bytes; left out")
            return
        name = f"buffer{rid}"
        self.trace_buffers.setdefault(rid, {"name": name, "size": int(length)})
        if name not in p.setdefault(key, []):
            p[key].append(name)

    def dispatch_ref(self, rid, bound, written, pass_name, where):
        """An image a dispatch binds as an IMAGEREF (its whole level); a written one with its pixels."""
        image = self.image_for(rid, where)
        mip = max(0, bound.firstMip)
        layer = max(0, bound.firstSlice)
        ref = level_ref(image["name"], mip, layer)
        if written:
            rel = f"{self.stem}_captured/{self.frame_tag}{pass_name}_{image['name']}.png"
            if self.save_texture(rid, mip, layer, rel, f"{where} image {image['name']}", self.at_event):
                ref["contents"] = {"file": rel, "captured": True}
            self.stored_images[rid] = (mip, layer)
        return ref

    def image_for(self, image_id, where):
        return self.trace_image(image_id, where)

    def used_compute(self, read_write):
        """Indices of the compute stage's resource arrays the shader uses; None: all (Vulkan lists
        only what its descriptor sets bind)."""
        return None


class GLCompute:
    """GL lists every unit: only those the compute shader uses, and its storage buffers apart."""

    def used_compute(self, read_write):
        """GL lists every texture (image) unit: only those the compute shader's samplers (images) are
        set to, as used_read_only does for the fragment shader."""
        cs = self.ctl.GetGLPipelineState().computeShader
        if cs.reflection is None:
            return set()
        mapping = cs.bindpointMapping.readWriteResources if read_write else cs.bindpointMapping.readOnlyResources
        refl = cs.reflection.readWriteResources if read_write else cs.reflection.readOnlyResources
        return {mapping[r.bindPoint].bind for r in refl if 0 <= r.bindPoint < len(mapping)}

    def bind_storage_buffers(self, p, where):
        """GL lists shader storage buffers apart from the resource arrays (which hold images): each
        storage block the compute shader declares, at the binding its bind point maps to. A block
        declared `readonly` (the GLSL text: RenderDoc's reflection does not say) is read, any other
        counts as written (an upper bound)."""
        gl = self.ctl.GetGLPipelineState()
        cs = gl.computeShader
        if cs.reflection is None:
            return
        source = bytes(cs.reflection.rawBytes).decode("utf-8", "replace")
        lengths = {int(b.resourceId): b.length for b in self.ctl.GetBuffers()}
        mapping = cs.bindpointMapping.readWriteResources
        for r in cs.reflection.readWriteResources:
            declaration = re.search(r"(\w[^;{}]*)\bbuffer\s+" + re.escape(r.name) + r"\b", source)
            if r.isTexture or declaration is None or not 0 <= r.bindPoint < len(mapping):
                continue
            bind = mapping[r.bindPoint].bind
            rid = int(gl.shaderStorageBuffers[bind].resourceId) if 0 <= bind < len(gl.shaderStorageBuffers) else 0
            if rid in lengths:
                readonly = re.search(r"\breadonly\b", declaration.group(1)) is not None
                self.bind_buffer(p, "buffer_reads" if readonly else "buffer_writes", rid, lengths[rid], where)
