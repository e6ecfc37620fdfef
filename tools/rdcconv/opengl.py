"""OpenGL ES / OpenGL frames: render passes inferred from the call stream as a tiler driver infers
them (traces/README.md "OpenGL ES and OpenGL captures" gives the rules and their public sources):
framebuffer spans, clears, invalidates, flushes and load / store operations."""
import re

from .common import ToolError
from .compute import GLCompute
from .opengl_draws import GLDraws
from .opengl_transfers import GL_COPY_TEX_IMAGE, GL_COPY_TEX_SUB, GLTransfers, gl_mask_bits
from .shaders import glsl_counts
from .structured import as_list, clean_name, level_ref, sd
from .vulkan import DEPTH_FORMATS, FORMATS, Converter


# RenderDoc's ResourceFormat name -> trace format.
GL_FORMATS = {"R8G8B8A8_UNORM": "RGBA8", "R8G8B8A8_SRGB": "RGBA8", "B8G8R8A8_UNORM": "BGRA8",
              "B8G8R8A8_SRGB": "BGRA8", "R16G16B16A16_FLOAT": "RGBA16F", "R10G10B10A2_UNORM": "RGB10A2",
              "R16G16_FLOAT": "RG16F", "R32_FLOAT": "R32F", "R8_UNORM": "R8", "R8G8_UNORM": "RG8",
              "R32G32B32A32_FLOAT": "RGBA32F", "D16": "D16", "D24S8": "D24S8", "D24": "D24S8", "D32": "D32F",
              "D32S8": "D32FS8", "S8": "S8"}

# trace format -> the VkFormat name texture_png reads the pixels as.
VK_NAME = {}
for _vk, _fmt in FORMATS.items():
    VK_NAME.setdefault(_fmt, _vk)

GL_DRAWS = ("glDrawArrays", "glDrawElements", "glDrawRangeElements", "glDrawArraysInstanced",
            "glDrawElementsInstanced", "glDrawElementsBaseVertex", "glDrawRangeElementsBaseVertex",
            "glDrawElementsInstancedBaseVertex", "glDrawArraysInstancedBaseInstance",
            "glDrawElementsInstancedBaseInstance", "glDrawElementsInstancedBaseVertexBaseInstance")

GL_FB_CHANGES = ("glBindFramebuffer", "glFramebufferTexture", "glFramebufferRenderbuffer", "glDrawBuffers",
                 "glNamedFramebuffer", "glFramebufferParameteri")

GL_FLUSHES = ("glFlush", "glFinish", "glClientWaitSync", "glWaitSync")

GL_READS = ("glReadPixels", "glReadnPixels", "glCopyTexImage", "glCopyTexSubImage", "glCopyTextureImage",
            "glCopyTextureSubImage", "glCopyMultiTexSubImage", "glBlitFramebuffer",
            "glBlitNamedFramebuffer", "glGenerateMipmap", "glGenerateTextureMipmap", "glCopyImageSubData")

GL_SWAPS = ("eglSwapBuffers", "eglSwapBuffersWithDamage", "glXSwapBuffers", "wglSwapBuffers",
            "SwapBuffers", "CGLFlushDrawable")

# Indirect draws: RenderDoc reads their parameters from the captured buffer into the action, as for
# Vulkan's (traces/README.md "OpenGL ES and OpenGL captures").
GL_INDIRECT_DRAWS = ("glDrawArraysIndirect", "glDrawElementsIndirect")

GL_UNCARRIED = ("glMultiDraw",
                "glCopyTexImage1D", "glCopyTextureImage1D", "glCopyMultiTexImage1D", "glCopyTexSubImage1D",
                "glCopyTexSubImage3D", "glCopyTextureSubImage1D", "glCopyTextureSubImage3D", "glReadPixels", "glRenderbufferStorageMultisampleEXT",
                "glFramebufferTexture2DMultisampleEXT")


class GLConverter(GLDraws, GLTransfers, GLCompute, Converter):
    """OpenGL ES / OpenGL frame -> render passes inferred from the call stream."""

    def __init__(self, rd, controller, out_json, api):
        super().__init__(rd, controller, out_json)
        self.api = api
        self.rows_bottom_up = True  # GL stores rows bottom to top; the trace's run top to bottom
        self.clear_color, self.clear_depth, self.clear_stencil = [0.0, 0.0, 0.0, 0.0], 1.0, 0
        self.default_ids = set()  # the window surface's (default framebuffer's) images
        self.depth_mask = None    # glDepthMask as last set in the frame (None: not set in the frame)

    def framebuffer_change(self, name, chunk):
        """Whether the open span may end at the next draw: another draw framebuffer bound (binding
        the span's own again does not end it), or a framebuffer's attachments or draw buffers set."""
        if name.startswith("glBindFramebuffer"):
            c = sd(chunk, self.rd)
            if c.get("target") in ("GL_FRAMEBUFFER", "GL_DRAW_FRAMEBUFFER"):
                self.bound_fb = c.get("framebuffer")
                self.fb_moved = self.fb_moved or self.cur is None or self.bound_fb != self.cur["_fb"]
        else:
            self.fb_moved = True

    def replay_to(self, eid):
        # The open span may end at this event, after the replay has left its last draw: its pixels
        # are kept first (a pixel reader is asked for them where the span ends instead: it may resume).
        if self.cur is not None and self.fb_moved and self.pixel_reader is None:
            self.keep_pixels(self.cur)
        super().replay_to(eid)

    def image_for(self, image_id, where):
        return self.gl_image(image_id, where)

    def shader_counts(self, reflection, where, stage):
        """GL shaders are GLSL text: glsl_counts."""
        if reflection is None or reflection.resourceId == self.rd.ResourceId.Null():
            return None
        return glsl_counts(bytes(reflection.rawBytes).decode("utf-8", "replace"))

    def gl_image(self, image_id, where):
        if image_id in self.trace_images:
            return self.trace_images[image_id]
        tex = self.textures.get(image_id)
        if tex is None:
            raise ToolError(f"{where}: image {image_id} is not in the capture's resources")
        base = clean_name(self.names.get(image_id, f"image_{image_id}"))
        name = base if base.endswith(str(image_id)) else f"{base}_{image_id}"
        cat = self.rd.TextureCategory
        fmt = GL_FORMATS.get(tex.format.Name())
        if fmt is None and tex.format.Name() == "R8G8B8_UNORM" and tex.creationFlags & cat.SwapBuffer:
            # The window surface of a 24-bit X visual: X11 lays depth-24 pixels out in 32 bits (the
            # server's pixmap formats, X protocol connection setup; Xvfb and Xorg: "depth 24,
            # bits_per_pixel 32" in xdpyinfo), so it is carried as 4 B a pixel, not as RGB8's 3.
            fmt = "RGBA8"
        elif fmt is None:
            fmt = "D32F" if tex.creationFlags & cat.DepthTarget else "RGBA8"
            self.warn(f"image {name}: format {tex.format.Name()} has no trace equivalent; carried as {fmt}")
        image = {"name": name, "format": fmt, "width": tex.width, "height": tex.height}
        if tex.msSamp > 1:
            image["samples"] = tex.msSamp
        if tex.mips > 1:
            image["mip_levels"] = tex.mips
        if tex.arraysize > 1:
            image["array_layers"] = tex.arraysize
        usage = ["depth_stencil_attachment" if fmt in DEPTH_FORMATS else "color_attachment"]
        if tex.creationFlags & cat.ShaderRead:
            usage.append("sampled")
        image["usage"] = usage
        if tex.creationFlags & cat.SwapBuffer:
            self.default_ids.add(image_id)
            if fmt not in DEPTH_FORMATS:
                image["swapchain"] = 2  # EGL window surfaces are double-buffered at least
            # RenderDoc names the window surface anew in each capture: a sequence merges them by this key
            image["_swapchain_id"] = "window surface " + ("depth" if fmt in DEPTH_FORMATS else "color")
        # A 24-bit window surface (GLX or EGL on a depth-24 X screen): carried as RGBA8, its pixels read as RGB8.
        image["_vk_format"] = "VK_FORMAT_R8G8B8_UNORM" if tex.format.Name() == "R8G8B8_UNORM" else VK_NAME.get(fmt, "")
        self.trace_images[image_id] = image
        return image

    def fb_state(self):
        """(key, attachments [(slot, image id, mip, layer, is_depth, has_stencil)]) of the bound draw framebuffer."""
        rd = self.rd
        pipe = self.ctl.GetGLPipelineState()
        fbo = pipe.framebuffer.drawFBO
        atts = []
        draw_buffers = list(fbo.drawBuffers)
        for i, a in enumerate(fbo.colorAttachments):
            if a.resourceId == rd.ResourceId.Null():
                continue
            if i not in draw_buffers and not (i == 0 and not draw_buffers):
                continue
            atts.append(("color%d" % i, int(a.resourceId), a.mipLevel, a.slice, False, False))
        d, s = fbo.depthAttachment, fbo.stencilAttachment
        if d.resourceId != rd.ResourceId.Null():
            atts.append(("depth", int(d.resourceId), d.mipLevel, d.slice, True,
                         s.resourceId == d.resourceId))
        elif s.resourceId != rd.ResourceId.Null():
            atts.append(("depth", int(s.resourceId), s.mipLevel, s.slice, True, True))
        key = (int(fbo.resourceId), tuple(atts))
        return key, atts, pipe

    def start_span(self, key, atts, eid, reason_eid, reason):
        where = f"event {eid}"
        attachments = []
        width = height = None
        for slot, image_id, mip, layer, is_depth, has_stencil in atts:
            image = self.gl_image(image_id, where)
            a = level_ref(image["name"], mip, layer)
            w, h = max(1, image["width"] >> mip), max(1, image["height"] >> mip)
            if width is not None and (w, h) != (width, height):
                # GL renders into the intersection; a trace's attachments share one size.
                self.warn(f"{where}: attachment {slot} ({image['name']}, {w}x{h}) differs in size from the "
                          f"framebuffer's first ({width}x{height}); left out of the pass")
                continue
            width, height = w, h
            a["_image_id"], a["_mip"], a["_layer"], a["_slot"], a["_stencil"] = image_id, mip, layer, slot, has_stencil
            a["old_layout"] = a["new_layout"] = "depth_stencil_attachment" if is_depth else "color_attachment"
            if image_id in self.default_ids and not is_depth:
                a["new_layout"] = "present"
            attachments.append(a)
        self.fb_moved = False  # a change before the span began does not end it
        span = {"name": None, "attachments": attachments, "_fb": self.bound_fb,
                "render_area": {"x": 0, "y": 0, "width": width or 1, "height": height or 1},
                "subpasses": [{"color": [i for i, a in enumerate(attachments) if a["_slot"] != "depth"],
                               "depth": next((i for i, a in enumerate(attachments) if a["_slot"] == "depth"), None),
                               "draws": []}],
                "dependencies": [],
                "_subpass": 0, "_begin": eid, "_last_draw": None, "_end": None, "_key": key,
                "_begin_clears": {}, "_began": f"event {reason_eid} {reason}" if reason_eid else reason,
                "_invalidated_at_begin": self.invalidated.pop(key, {}), "_first": key not in self.started_keys}
        self.started_keys.add(key)
        self.spans.append(span)
        return span

    def span_for(self, eid):
        key, atts, pipe = self.fb_state()
        if self.cur is not None and self.cur["_key"] == key:
            return self.cur, pipe
        if self.cur is not None:
            self.end_span(self.cur, self.fb_change_eid, "binds another framebuffer", switch=True)
        if key in self.pending:  # a span of clears only, waiting for its framebuffer's next draw
            self.cur = self.pending.pop(key)
            self.cur["_resumed"] = eid
        else:
            if self.fb_change_eid:
                self.cur = self.start_span(key, atts, eid, self.fb_change_eid, "bound the framebuffer")
            else:
                self.cur = self.start_span(key, atts, eid, eid, f"the first call after {self.after}" if self.after
                                           else "the first call of the frame")
        return self.cur, pipe

    def end_span(self, span, eid, why, switch=False, swap=False):
        self.keep_pixels(span)
        self.cur = None
        span["_end"] = eid
        span["_ended_by"] = f"event {eid} {why}" if eid else why
        span["_swap"] = swap
        if switch and not span["subpasses"][0]["draws"] and not span["subpasses"][0].get("clears"):
            self.pending[span["_key"]] = span  # nothing but full clears: no pass until its next draw
            return
        self.ended.append(span)

    def flush_pending(self, eid, why, swap=False):
        for key in list(self.pending):
            span = self.pending.pop(key)
            span["_end"] = eid
            span["_ended_by"] = f"event {eid} {why}"
            span["_swap"] = swap
            self.ended.append(span)

    def clear(self, eid, chunk, name):
        span, pipe = self.span_for(eid)
        bits = gl_mask_bits(chunk.get("mask", 0))
        values = {"color": list(self.clear_color), "depth": self.clear_depth, "stencil": self.clear_stencil}
        if name.startswith("glClearBuffer"):
            buf = str(chunk.get("buffer", ""))
            bits = {"color": buf == "GL_COLOR", "depth": buf in ("GL_DEPTH", "GL_DEPTH_STENCIL"),
                    "stencil": buf in ("GL_STENCIL", "GL_DEPTH_STENCIL")}
            v = chunk.get("value")
            v = v if isinstance(v, list) else [v] if v is not None else []
            if bits["color"]:
                values["color"] = [float(x) for x in (v + [0, 0, 0, 1])[:4]]
                if chunk.get("drawbuffer", 0):
                    self.warn(f"event {eid}: {name} of draw buffer {chunk['drawbuffer']} carried as draw buffer 0")
            if "depth" in chunk:
                values["depth"] = chunk["depth"]
            elif bits["depth"] and v:
                values["depth"] = float(v[0])
            if "stencil" in chunk:
                values["stencil"] = chunk["stencil"]
        scissor = pipe.rasterizer.scissors[0] if len(pipe.rasterizer.scissors) else None
        area = span["render_area"]
        full_area = True
        rect = {"x": 0, "y": 0, "width": area["width"], "height": area["height"]}
        if scissor is not None and scissor.enabled:
            x0, y0 = max(0, scissor.x), max(0, scissor.y)
            x1, y1 = min(area["width"], scissor.x + scissor.width), min(area["height"], scissor.y + scissor.height)
            if x1 <= x0 or y1 <= y0:
                return
            # GL's scissor has its origin at the bottom left: mirrored into the trace's top-left rows.
            rect = {"x": x0, "y": area["height"] - y1, "width": x1 - x0, "height": y1 - y0}
            full_area = rect["width"] == area["width"] and rect["height"] == area["height"]
        blends = pipe.framebuffer.blendState.blends
        stencil_mask = pipe.stencilState.frontFace.writeMask & 0xFF
        sub = span["subpasses"][0]
        for i, a in enumerate(span["attachments"]):
            slot = a["_slot"]
            aspects = []
            if slot != "depth" and bits["color"]:
                n = int(slot[5:])
                mask = blends[n].writeMask if n < len(blends) else 15
                if mask:
                    aspects.append(("color", mask == 15))
            if slot == "depth":
                # RenderDoc reports depthWrites off while the depth test is off; glClear obeys glDepthMask
                # alone: the frame's own glDepthMask call when there is one, else the GL default (true).
                depth_mask = self.depth_mask if self.depth_mask is not None else (
                    bool(pipe.depthState.depthWrites) if pipe.depthState.depthEnable else True)
                if bits["depth"] and depth_mask:
                    aspects.append(("depth", True))
                if bits["stencil"] and a["_stencil"] and stencil_mask:
                    aspects.append(("stencil", stencil_mask == 0xFF))
            for aspect, full_mask in aspects:
                if not sub["draws"] and full_area and full_mask and not sub.get("clears"):
                    span["_begin_clears"][(i, aspect)] = (eid, values[aspect] if aspect != "color" else values["color"])
                    continue
                if not full_mask:
                    self.warn(f"event {eid}: {name} with a partial write mask carried as a full clear of its rect")
                entry = {"before_draw": len(sub["draws"])}
                if aspect == "color":
                    entry["color"] = [i]
                    entry["value"] = values["color"]
                else:
                    entry["depth"] = aspect == "depth"
                    entry["stencil"] = aspect == "stencil"
                    entry["value"] = {"depth": min(max(float(values["depth"]), 0.0), 1.0),
                                      "stencil": int(values["stencil"]) & 0xFF}
                entry["rects"] = [rect]
                sub.setdefault("clears", []).append(entry)

    def invalidate(self, eid, chunk, name):
        key, atts, _ = self.fb_state()
        names = [str(x) for x in as_list(chunk.get("attachments"))]
        slots = set()
        for n in names:
            if n in ("GL_COLOR", "GL_COLOR_EXT"):
                slots.add("color0")
            elif n.startswith("GL_COLOR_ATTACHMENT"):
                slots.add("color" + n[len("GL_COLOR_ATTACHMENT"):].replace("_EXT", ""))
            elif n == "GL_DEPTH_STENCIL_ATTACHMENT":
                slots.update(("depth", "stencil"))
            elif n in ("GL_DEPTH", "GL_DEPTH_EXT", "GL_DEPTH_ATTACHMENT"):
                slots.add("depth")
            elif n in ("GL_STENCIL", "GL_STENCIL_EXT", "GL_STENCIL_ATTACHMENT"):
                slots.add("stencil")
        if name.startswith("glInvalidateSubFramebuffer"):
            self.warn(f"event {eid}: {name} (a sub-rectangle) carried as no invalidation")
            return
        span = self.cur if self.cur is not None and self.cur["_key"] == key else self.pending.get(key)
        for slot in slots:
            self.invalidated.setdefault(key, {})[slot] = (eid, name)
            if span is not None:
                span.setdefault("_invalidated", {})[slot] = (eid, name)

    def convert(self):
        rd = self.rd
        self.sf = self.ctl.GetStructuredFile()
        self.spans, self.ended, self.pending, self.invalidated = [], [], {}, {}
        self.cur, self.fb_change_eid, self.started_keys, self.after = None, None, set(), None
        self.bound_fb, self.fb_moved = None, False  # keep_pixels: the draw framebuffer, changed since the last draw
        self.images = {image_id: {} for image_id in self.textures}  # program(): every texture is an image
        counts, pixels = {}, {}
        events = self.events()
        for eid, name, chunk, action in events:
            self.at = f"event {eid} ({name})"
            base = re.sub(r"(EXT|OES|ARB|KHR)$", "", name)
            if name == "glClearColor":
                c = sd(chunk, rd)
                self.clear_color = [float(c[k]) for k in ("red", "green", "blue", "alpha")]
            elif name in ("glClearDepthf", "glClearDepth"):
                self.clear_depth = float(sd(chunk, rd).get("depth", 1.0))
            elif name == "glClearStencil":
                self.clear_stencil = int(sd(chunk, rd).get("stencil", sd(chunk, rd).get("s", 0)))
            elif name == "glDepthMask":
                self.depth_mask = bool(sd(chunk, rd).get("flag", True))
            elif name == "glClear" or name.startswith("glClearBuffer"):
                self.replay_to(eid)
                self.clear(eid, sd(chunk, rd), name)
            elif base in GL_DRAWS or (base in GL_INDIRECT_DRAWS and action is not None and
                                      action.flags & rd.ActionFlags.Drawcall and not len(action.children)):
                self.gl_draw_event(eid, action, name)
            elif name.startswith(GL_FB_CHANGES):
                self.fb_change_eid = eid
                self.framebuffer_change(name, chunk)
            elif name.startswith(("glInvalidateFramebuffer", "glDiscardFramebuffer", "glInvalidateSubFramebuffer",
                                  "glInvalidateNamedFramebuffer")):
                self.replay_to(eid)
                self.invalidate(eid, sd(chunk, rd), name)
            elif name.startswith(GL_FLUSHES):
                self.fb_change_eid, self.after = None, f"event {eid} {name}"
                if self.cur is not None:
                    self.end_span(self.cur, eid, f"{name} (the driver must submit the pass)")
                self.flush_pending(eid, name)
            elif name.startswith(GL_READS):
                self.fb_change_eid, self.after = None, f"event {eid} {name}"
                if self.cur is not None:
                    self.end_span(self.cur, eid, f"{name} reads a framebuffer or texture")
                if name.startswith(("glGenerateMipmap", "glGenerateTextureMipmap")):
                    self.mip_chain(eid, name, sd(chunk, rd))
                elif name.startswith(("glBlitFramebuffer", "glBlitNamedFramebuffer")):
                    self.replay_to(eid)
                    self.gl_blit(eid, name, sd(chunk, rd))
                elif name.startswith(GL_COPY_TEX_SUB + GL_COPY_TEX_IMAGE):
                    self.replay_to(eid)
                    self.gl_copy_tex_sub(eid, name, sd(chunk, rd))
                elif name.startswith("glCopyImageSubData"):
                    self.gl_copy_image(eid, name, sd(chunk, rd))
            elif name in GL_SWAPS:
                self.fb_change_eid, self.after = None, f"event {eid} {name}"
                if self.cur is not None:
                    self.end_span(self.cur, eid, name, swap=True)
                self.flush_pending(eid, name, swap=True)
            if name.startswith("glDispatchCompute") and action is not None and action.flags & rd.ActionFlags.Dispatch:
                if self.cur is not None:  # the dispatch runs between render passes: the open one ends
                    self.end_span(self.cur, eid, name)
                self.ended.append(self.dispatch_pass(eid, name, action, len(self.ended)))
            elif name.startswith(GL_UNCARRIED) or (name.startswith("gl") and "Indirect" in name and
                                                    base not in GL_INDIRECT_DRAWS):
                counts[name] = counts.get(name, 0) + 1
                c = sd(chunk, rd)
                if isinstance(c.get("width"), int) and isinstance(c.get("height"), int):
                    pixels[name] = pixels.get(name, 0) + c["width"] * c["height"]
        if self.cur is not None:
            self.end_span(self.cur, None, "the end of the captured frame")
        self.flush_pending(None, "the end of the captured frame")
        for name, n in sorted(counts.items()):
            moved = f"; {pixels[name]} pixels, {pixels[name] * 4} B at 4 B per pixel" if pixels.get(name) else ""
            self.warn(f"{n} x {name}: not carried by the converter; left out (event ids: "
                      f"{', '.join(str(e) for e, nm, _, _ in events if nm == name)}{moved})")
        # EXT_multisampled_render_to_texture is set up outside the frame: its textures render
        # multisampled in tile memory and resolve on store, which the trace does not say.
        for chunk in self.sf.chunks:
            if chunk.name in ("glFramebufferTexture2DMultisampleEXT", "glRenderbufferStorageMultisampleEXT"):
                c = sd(chunk, rd)
                self.warn(f"{chunk.name} ({c.get('samples', '?')} samples, resource "
                          f"{c.get('texture', c.get('renderbuffer', '?'))}): EXT_multisampled_render_to_texture is not "
                          "carried; its attachment is simulated single-sampled")
        passes = []
        for span in self.ended:
            if "type" in span:  # a transfer pass, named by its kind
                span["name"] = f"{span['type']}{len(passes)}"
            else:
                span["name"] = f"pass{len(passes)}"
                self.infer_ops(span)
            passes.append(span)
        self.finish_passes(passes)
        return passes

    def infer_ops(self, span):
        """Load and store of every attachment, each with the call that decided it (ATTACHMENT `inferred`)."""
        for i, a in enumerate(span["attachments"]):
            slot = a["_slot"]
            default = a["_image_id"] in self.default_ids
            inferred = {}
            aspects = [("load", "store", "color" if slot != "depth" else "depth")]
            if a["_stencil"]:
                aspects.append(("stencil_load", "stencil_store", "stencil"))
            for load_key, store_key, aspect in aspects:
                begin = span["_begin_clears"].get((i, aspect))
                inv_slot = slot if aspect != "stencil" else "stencil"
                inv_before = span.get("_invalidated_at_begin", {}).get(inv_slot)
                if begin is not None:
                    a[load_key] = "clear"
                    inferred[load_key] = f"event {begin[0]} glClear of the whole attachment (scissor off, full write mask) begins the pass"
                    if aspect == "color":
                        a["clear"] = [float(v) for v in begin[1]]
                    else:
                        c = a.setdefault("clear", {"depth": 1.0, "stencil": 0})
                        if aspect == "depth":
                            c["depth"] = min(max(float(begin[1]), 0.0), 1.0)
                        else:
                            c["stencil"] = int(begin[1]) & 0xFF
                elif inv_before is not None:
                    a[load_key] = "dont_care"
                    inferred[load_key] = f"event {inv_before[0]} {inv_before[1]} of the attachment before the pass"
                elif default and span["_first"]:
                    a[load_key] = "dont_care"
                    inferred[load_key] = ("the window surface's contents are undefined at the frame's start "
                                          "(EGL_SWAP_BEHAVIOR EGL_BUFFER_DESTROYED, the default)")
                else:
                    a[load_key] = "load"
                    inferred[load_key] = (f"event {span['_begin']}: the pass begins without a full clear: "
                                          "the attachment's contents are read from memory")
                inv = span.get("_invalidated", {}).get(inv_slot)
                if inv is not None:
                    a[store_key] = "dont_care"
                    inferred[store_key] = f"event {inv[0]} {inv[1]} of the attachment before the pass ended"
                elif default and aspect != "color" and span["_swap"]:
                    a[store_key] = "dont_care"
                    inferred[store_key] = (f"{span['_ended_by']}: the driver discards the window surface's depth "
                                           "and stencil at the swap (EGL leaves them undefined after it)")
                else:
                    a[store_key] = "store"
                    inferred[store_key] = f"{span['_ended_by']} ends the pass; the attachment is written back"
            a["inferred"] = inferred
        span["inferred"] = {"begin": span["_began"], "end": span["_ended_by"]}

    def trace(self, passes):
        for p in passes:
            if "type" in p:
                continue
            for a in p["attachments"]:
                for key in ("_slot", "_stencil"):
                    a.pop(key, None)
            for key in [k for k in p if k.startswith("_") and k not in ("_subpass", "_begin", "_last_draw", "_end")]:
                del p[key]
            if p["subpasses"][0]["depth"] is None:
                del p["subpasses"][0]["depth"]
        return super().trace(passes)
