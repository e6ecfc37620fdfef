"""OpenGL ES / OpenGL transfers: glBlitFramebuffer, glCopyTexSubImage2D, glCopyImageSubData and
mipmap generation as copy / blit passes."""
from .structured import level_ref


# glCopyTexSubImage2D (RenderDoc records it as glCopyTextureSubImage2DEXT) -> a copy pass.
GL_COPY_TEX_SUB = ("glCopyTexSubImage2D", "glCopyTextureSubImage2D", "glCopyMultiTexSubImage2D")

# glCopyTexImage2D (level defined and filled from the read framebuffer) -> a copy pass too.
GL_COPY_TEX_IMAGE = ("glCopyTexImage2D", "glCopyTextureImage2D", "glCopyMultiTexImage2D")


def gl_mask_bits(mask):
    text = mask if isinstance(mask, str) else ""
    value = mask if isinstance(mask, int) else 0
    return {"color": "COLOR_BUFFER_BIT" in text or bool(value & 0x4000),
            "depth": "DEPTH_BUFFER_BIT" in text or bool(value & 0x100),
            "stencil": "STENCIL_BUFFER_BIT" in text or bool(value & 0x400)}


class GLTransfers:
    """Transfer passes of an opengl.GLConverter."""

    def gl_blit(self, eid, name, chunk):
        """glBlitFramebuffer -> a `blit` pass per copied buffer: the read framebuffer's read buffer
        (or depth) into each draw buffer (or depth), rects mirrored to top-left rows."""
        rd = self.rd
        where = f"event {eid} ({name})"
        keys = ("srcX0", "srcY0", "srcX1", "srcY1", "dstX0", "dstY0", "dstX1", "dstY1")
        if not all(k in chunk for k in keys):
            self.warn(f"{where}: the blit's rectangles are not in the capture; not carried")
            return
        fb = self.ctl.GetGLPipelineState().framebuffer
        bits = gl_mask_bits(chunk.get("mask", 0))
        pairs = []
        if bits["color"]:
            rb = fb.readFBO.readBuffer
            colors = list(fb.readFBO.colorAttachments)
            if 0 <= rb < len(colors) and colors[rb].resourceId != rd.ResourceId.Null():
                for db in fb.drawFBO.drawBuffers:
                    if 0 <= db < len(fb.drawFBO.colorAttachments) and \
                            fb.drawFBO.colorAttachments[db].resourceId != rd.ResourceId.Null():
                        pairs.append((colors[rb], fb.drawFBO.colorAttachments[db]))
        if bits["depth"] or bits["stencil"]:
            if fb.readFBO.depthAttachment.resourceId != rd.ResourceId.Null() and \
                    fb.drawFBO.depthAttachment.resourceId != rd.ResourceId.Null():
                pairs.append((fb.readFBO.depthAttachment, fb.drawFBO.depthAttachment))

        def ref(att, x0, y0, x1, y1):
            image = self.gl_image(int(att.resourceId), where)
            height = max(1, image["height"] >> att.mipLevel)
            r = level_ref(image["name"], att.mipLevel, att.slice)
            r["region"] = {"x": min(x0, x1), "y": height - max(y0, y1), "width": abs(x1 - x0),
                           "height": abs(y1 - y0)}
            return r
        if (chunk["srcX0"] > chunk["srcX1"]) != (chunk["dstX0"] > chunk["dstX1"]) or \
                (chunk["srcY0"] > chunk["srcY1"]) != (chunk["dstY0"] > chunk["dstY1"]):
            self.warn(f"{where}: a mirroring blit is carried unmirrored")
        for src, dst in pairs:
            p = {"type": "blit", "src": ref(src, chunk["srcX0"], chunk["srcY0"], chunk["srcX1"], chunk["srcY1"]),
                 "dst": ref(dst, chunk["dstX0"], chunk["dstY0"], chunk["dstX1"], chunk["dstY1"]),
                 "filter": "nearest" if chunk.get("filter") == "GL_NEAREST" else "bilinear"}
            if p["src"]["region"]["width"] and p["src"]["region"]["height"] and p["dst"]["region"]["width"] and \
                    p["dst"]["region"]["height"]:
                self.ended.append(p)
                self.stored_images[int(dst.resourceId)] = (dst.mipLevel, dst.slice)
        if not pairs:
            self.warn(f"{where}: no attachment pair to copy; not carried")

    def gl_transfer(self, where, src_id, src_mip, src_layer, src_box, dst_id, dst_mip, dst_layer, dst_box):
        """A GL copy as a `copy` pass (a `blit` of the same size, nearest, when the formats differ: the
        trace's copy needs compatible formats); boxes (x, y, w, h) in GL's bottom-up rows."""
        def ref(image_id, mip, layer, box):
            image = self.gl_image(image_id, where)
            height = max(1, image["height"] >> mip)
            r = level_ref(image["name"], mip, layer)
            x, y, w, h = box
            r["region"] = {"x": x, "y": height - (y + h), "width": w, "height": h}
            return r
        if src_box[2] <= 0 or src_box[3] <= 0:
            return
        src, dst = ref(src_id, src_mip, src_layer, src_box), ref(dst_id, dst_mip, dst_layer, dst_box)
        p = {"type": "copy", "src": src, "dst": dst}
        if self.trace_images[src_id]["format"] != self.trace_images[dst_id]["format"]:
            self.warn(f"{where}: {self.trace_images[src_id]['format']} -> {self.trace_images[dst_id]['format']} "
                      "carried as a same-size nearest blit")
            p = {"type": "blit", "src": src, "dst": dst, "filter": "nearest"}
        self.ended.append(p)
        self.stored_images[dst_id] = (dst_mip, dst_layer)

    def gl_copy_tex_sub(self, eid, name, chunk):
        """glCopyTexSubImage2D: the read framebuffer's read buffer, rect (x, y, width, height), into
        the texture's level at (xoffset, yoffset); glCopyTexImage2D: into the whole level it defines,
        at (0, 0) (its border must be 0 in OpenGL ES and core OpenGL)."""
        rd = self.rd
        where = f"event {eid} ({name})"
        if name.startswith(GL_COPY_TEX_IMAGE):
            chunk = dict(chunk, xoffset=0, yoffset=0)
        if not isinstance(chunk.get("texture"), int) or not chunk["texture"] or \
                not all(isinstance(chunk.get(k), int) for k in ("x", "y", "width", "height", "xoffset", "yoffset")):
            self.warn(f"{where}: the copy's texture or rectangle is not in the capture; not carried")
            return
        fb = self.ctl.GetGLPipelineState().framebuffer
        rb, colors = fb.readFBO.readBuffer, list(fb.readFBO.colorAttachments)
        if not (0 <= rb < len(colors)) or colors[rb].resourceId == rd.ResourceId.Null():
            self.warn(f"{where}: the read framebuffer has no read buffer; not carried")
            return
        src = colors[rb]
        w, h = chunk["width"], chunk["height"]
        self.gl_transfer(where, int(src.resourceId), src.mipLevel, src.slice, (chunk["x"], chunk["y"], w, h),
                         chunk["texture"], chunk.get("level", 0), 0, (chunk["xoffset"], chunk["yoffset"], w, h))

    def gl_copy_image(self, eid, name, chunk):
        """glCopyImageSubData: srcName's level and region into dstName's (first layer, srcDepth 1)."""
        where = f"event {eid} ({name})"
        keys = ("srcX", "srcY", "dstX", "dstY", "srcWidth", "srcHeight")
        src_id, dst_id = chunk.get("srcName"), chunk.get("dstName")
        if not all(isinstance(chunk.get(k), int) for k in keys) or not isinstance(src_id, int) or \
                not isinstance(dst_id, int) or src_id not in self.textures or dst_id not in self.textures:
            self.warn(f"{where}: the copy's images or region are not in the capture; not carried")
            return
        if chunk.get("srcDepth", 1) != 1:
            self.warn(f"{where}: {chunk['srcDepth']} layers carried as the first one only")
        w, h = chunk["srcWidth"], chunk["srcHeight"]
        self.gl_transfer(where, src_id, chunk.get("srcLevel", 0), chunk.get("srcZ", 0), (chunk["srcX"], chunk["srcY"], w, h),
                         dst_id, chunk.get("dstLevel", 0), chunk.get("dstZ", 0), (chunk["dstX"], chunk["dstY"], w, h))

    def mip_chain(self, eid, name, chunk):
        """glGenerateMipmap -> a bilinear blit pass per level, level l into level l + 1 (the 2x2 box
        filter drivers use for a power-of-two chain; traces/README.md "OpenGL ES and OpenGL captures")."""
        texture = chunk.get("texture")
        tex = self.textures.get(texture)
        where = f"event {eid} ({name})"
        if tex is None or tex.mips < 2:
            self.warn(f"{where}: no mip levels to generate in texture {texture}; not carried")
            return
        image = self.gl_image(texture, where)
        if tex.arraysize > 1 or tex.depth > 1:
            self.warn(f"{where}: the levels of layers other than the first are not carried")
        for level in range(tex.mips - 1):
            def ref(mip):
                w, h = max(1, tex.width >> mip), max(1, tex.height >> mip)
                r = {"image": image["name"], "region": {"x": 0, "y": 0, "width": w, "height": h}}
                if mip:
                    r["mip"] = mip
                return r
            self.ended.append({"type": "blit", "src": ref(level), "dst": ref(level + 1), "filter": "bilinear"})
