"""Vulkan frames: resources from the creation chunks, render passes (vkCmdBeginRenderPass and
dynamic rendering), clears, transfers and barriers as trace passes. Converter, the class both
APIs convert with, gathers the draw, compute, texture and trace-writing parts."""
import re

from .common import ToolError
from .compute import Compute
from .draws import Draws
from .replay import Replay
from .split import SplitDraws
from .structured import as_list, bit_names, clean_name, level_ref, sd
from .textures import Textures
from .trace_writer import TraceWriter


VK_ATTACHMENT_UNUSED = 0xFFFFFFFF
VK_SUBPASS_EXTERNAL = 0xFFFFFFFF

# VkFormat -> trace format (traces/README.md IMAGE `format`).
FORMATS = {
    "VK_FORMAT_R8G8B8A8_UNORM": "RGBA8", "VK_FORMAT_R8G8B8A8_SRGB": "RGBA8",
    "VK_FORMAT_B8G8R8A8_UNORM": "BGRA8", "VK_FORMAT_B8G8R8A8_SRGB": "BGRA8",
    "VK_FORMAT_R16G16B16A16_SFLOAT": "RGBA16F", "VK_FORMAT_A2B10G10R10_UNORM_PACK32": "RGB10A2",
    "VK_FORMAT_A2R10G10B10_UNORM_PACK32": "RGB10A2", "VK_FORMAT_R16G16_SFLOAT": "RG16F",
    "VK_FORMAT_R32_SFLOAT": "R32F", "VK_FORMAT_R8_UNORM": "R8", "VK_FORMAT_R8G8_UNORM": "RG8",
    "VK_FORMAT_R32G32B32A32_SFLOAT": "RGBA32F", "VK_FORMAT_D16_UNORM": "D16",
    "VK_FORMAT_D24_UNORM_S8_UINT": "D24S8", "VK_FORMAT_X8_D24_UNORM_PACK32": "D24S8",
    "VK_FORMAT_D32_SFLOAT": "D32F", "VK_FORMAT_D32_SFLOAT_S8_UINT": "D32FS8", "VK_FORMAT_S8_UINT": "S8",
    # 3 B a pixel and 4 B of packed unsigned floats: the trace's own RGB8 and B10G11R11_UFLOAT, not
    # RGBA8 (a third more bytes for RGB8).
    "VK_FORMAT_R8G8B8_UNORM": "RGB8", "VK_FORMAT_B10G11R11_UFLOAT_PACK32": "B10G11R11_UFLOAT",
}

DEPTH_FORMATS = {"D16", "D24S8", "D32F", "D32FS8", "S8"}

LOAD_OPS = {"VK_ATTACHMENT_LOAD_OP_LOAD": "load", "VK_ATTACHMENT_LOAD_OP_CLEAR": "clear",
            "VK_ATTACHMENT_LOAD_OP_DONT_CARE": "dont_care", "VK_ATTACHMENT_LOAD_OP_NONE_EXT": "none"}

STORE_OPS = {"VK_ATTACHMENT_STORE_OP_STORE": "store", "VK_ATTACHMENT_STORE_OP_DONT_CARE": "dont_care",
             "VK_ATTACHMENT_STORE_OP_NONE": "none", "VK_ATTACHMENT_STORE_OP_NONE_EXT": "none",
             "VK_ATTACHMENT_STORE_OP_NONE_KHR": "none", "VK_ATTACHMENT_STORE_OP_NONE_QCOM": "none"}

LAYOUTS = {
    "VK_IMAGE_LAYOUT_UNDEFINED": "undefined", "VK_IMAGE_LAYOUT_PREINITIALIZED": "undefined",
    "VK_IMAGE_LAYOUT_GENERAL": "general", "VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL": "color_attachment",
    "VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL": "depth_stencil_attachment",
    "VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL": "depth_stencil_attachment",
    "VK_IMAGE_LAYOUT_STENCIL_ATTACHMENT_OPTIMAL": "depth_stencil_attachment",
    "VK_IMAGE_LAYOUT_DEPTH_READ_ONLY_STENCIL_ATTACHMENT_OPTIMAL": "depth_stencil_attachment",
    "VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_STENCIL_READ_ONLY_OPTIMAL": "depth_stencil_attachment",
    "VK_IMAGE_LAYOUT_DEPTH_STENCIL_READ_ONLY_OPTIMAL": "depth_stencil_read_only",
    "VK_IMAGE_LAYOUT_DEPTH_READ_ONLY_OPTIMAL": "depth_stencil_read_only",
    "VK_IMAGE_LAYOUT_STENCIL_READ_ONLY_OPTIMAL": "depth_stencil_read_only",
    "VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL": "shader_read_only",
    "VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL": "transfer_src", "VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL": "transfer_dst",
    "VK_IMAGE_LAYOUT_PRESENT_SRC_KHR": "present", "VK_IMAGE_LAYOUT_SHARED_PRESENT_KHR": "present",
}

# VkPipelineStageFlagBits / VkAccessFlagBits -> trace names (DEPENDENCY); other bits are warned about.
STAGES = {0x1: "top_of_pipe", 0x2: "draw_indirect", 0x4: "vertex_input", 0x8: "vertex_shader",
          0x80: "fragment_shader", 0x100: "early_fragment_tests", 0x200: "late_fragment_tests",
          0x400: "color_attachment_output", 0x800: "compute_shader", 0x1000: "transfer",
          0x2000: "bottom_of_pipe", 0x8000: "all_graphics", 0x10000: "all_commands"}

ACCESS = {0x1: "indirect_command_read", 0x2: "index_read", 0x4: "vertex_attribute_read", 0x8: "uniform_read",
          0x10: "input_attachment_read", 0x20: "shader_read", 0x40: "shader_write",
          0x80: "color_attachment_read", 0x100: "color_attachment_write",
          0x200: "depth_stencil_attachment_read", 0x400: "depth_stencil_attachment_write",
          0x800: "transfer_read", 0x1000: "transfer_write", 0x8000: "memory_read", 0x10000: "memory_write"}

# VkImageUsageFlagBits -> IMAGE `usage`; TRANSIENT (0x40) becomes `transient`.
USAGE = {0x10: "color_attachment", 0x20: "depth_stencil_attachment", 0x80: "input_attachment", 0x4: "sampled",
         0x8: "storage", 0x1: "transfer_src", 0x2: "transfer_dst"}


class Converter(SplitDraws, Compute, Draws, Textures, TraceWriter, Replay):
    """A Vulkan frame -> trace passes; the base of opengl.GLConverter."""

    def read_chunks(self):
        rd = self.rd
        sf = self.ctl.GetStructuredFile()
        self.sf = sf
        swapchains = {}
        for chunk in sf.chunks:
            name = chunk.name
            if name == "vkCreateImage":
                c = sd(chunk, rd)
                self.images[c["Image"]] = c["CreateInfo"]
            elif name == "vkCreateSwapchainKHR":
                c = sd(chunk, rd)
                swapchains[c["SwapChain"]] = dict(c["CreateInfo"], NumImages=c.get("NumImages", 0))
            elif name == "vkGetSwapchainImagesKHR":
                c = sd(chunk, rd)
                image = c.get("SwapchainImage")
                if isinstance(image, int) and image:
                    info = swapchains.get(c.get("Swapchain"), {})
                    self.images[image] = {"swapchain": info, "swapchain_id": c.get("Swapchain")}
            elif name == "vkCreateImageView":
                c = sd(chunk, rd)
                ci = c["CreateInfo"]
                r = ci["subresourceRange"]
                self.views[c["View"]] = (ci["image"], r["baseMipLevel"], r["baseArrayLayer"])
            elif name in ("vkCreateRenderPass", "vkCreateRenderPass2", "vkCreateRenderPass2KHR"):
                c = sd(chunk, rd)
                self.render_passes[c["RenderPass"]] = c["CreateInfo"]
            elif name == "vkCreateFramebuffer":
                c = sd(chunk, rd)
                self.framebuffers[c["Framebuffer"]] = c["CreateInfo"]
        self.swapchain_counts = {}
        for info in self.images.values():
            if "swapchain_id" in info:
                self.swapchain_counts[info["swapchain_id"]] = self.swapchain_counts.get(info["swapchain_id"], 0) + 1

    def trace_image(self, image_id, where):
        if image_id in self.trace_images:
            return self.trace_images[image_id]
        tex = self.textures.get(image_id)
        info = self.images.get(image_id)
        if tex is None or info is None:
            raise ToolError(f"{where}: image {image_id} is not in the capture's resources")
        base = clean_name(self.names.get(image_id, f"image_{image_id}"))
        name = base if base.endswith(str(image_id)) else f"{base}_{image_id}"
        image = {"name": name}
        if "swapchain" in info:
            ci = info["swapchain"]
            vk_format = ci.get("imageFormat", "")
            usage = ci.get("imageUsage", 0x10)
            image["swapchain"] = max(2, ci.get("NumImages", 0), self.swapchain_counts.get(info["swapchain_id"], 0))
            image["_swapchain_id"] = info["swapchain_id"]  # a sequence merges the swapchain's images
            tiling, flags, samples = "VK_IMAGE_TILING_OPTIMAL", 0, 1
        else:
            vk_format = info["format"]
            usage = info["usage"]
            tiling, flags = info["tiling"], info["flags"]
            samples = int(info["samples"]) or 1
        fmt = FORMATS.get(vk_format)
        if fmt is None:
            fmt = "D32F" if tex.creationFlags & self.rd.TextureCategory.DepthTarget else "RGBA8"
            self.warn(f"image {name}: format {vk_format} has no trace equivalent; carried as {fmt}")
        image["format"] = fmt
        image["width"], image["height"] = tex.width, tex.height
        if samples > 1:
            image["samples"] = samples
        if tex.mips > 1:
            image["mip_levels"] = tex.mips
        if tex.arraysize > 1:
            image["array_layers"] = tex.arraysize
        image["usage"] = bit_names(usage & ~0x40, USAGE, "image usage", self.warnings, f"image {name}")
        if usage & 0x40:
            image["transient"] = True
        if tiling == "VK_IMAGE_TILING_LINEAR":
            image["image_tiling"] = "linear"
        if flags & 0x400:
            image["alias"] = True
        if flags & 0x8:
            image["mutable_format"] = True
        image["_vk_format"] = vk_format
        self.trace_images[image_id] = image
        return image

    def convert(self):
        rd = self.rd
        self.read_chunks()
        passes = []
        current = None
        counts = {}
        for eid, name, chunk, action in self.events():
            self.at = f"event {eid} ({name})"
            base = re.sub(r"(KHR|2)+$", "", name)
            if base == "vkCmdBeginRenderPass":
                current = self.begin_pass(sd(chunk, rd), eid, len(passes))
                passes.append(current)
            elif base == "vkCmdNextSubpass":
                if current is not None:
                    current["_subpass"] += 1
            elif base == "vkCmdEndRenderPass":
                if current is not None:
                    current["_end"] = eid
                    self.keep_pixels(current)
                current = None
            elif base in ("vkCmdDraw", "vkCmdDrawIndexed") or (
                    (name == "Indirect sub-command" or name.startswith(("vkCmdDrawIndirect", "vkCmdDrawIndexedIndirect")))
                    and action is not None and action.flags & rd.ActionFlags.Drawcall and not len(action.children)):
                # Indirect draws: RenderDoc reads the parameters from the captured buffer and makes
                # each of them a draw (an "Indirect sub-command" child when drawCount > 1).
                if current is None:
                    self.warn(f"event {eid}: {name} outside a render pass was left out")
                else:
                    self.draw_event(current, eid, action)
            elif name == "vkCmdClearAttachments":
                if current is not None:
                    self.add_clears(current, sd(chunk, rd), eid)
            elif base in ("vkCmdCopyImage", "vkCmdBlitImage", "vkCmdResolveImage"):
                passes += self.transfer_passes(sd(chunk, rd), base, eid, len(passes))
            elif name in ("vkCmdClearColorImage", "vkCmdClearDepthStencilImage"):
                passes += self.clear_image_passes(sd(chunk, rd), name, eid, len(passes))
            elif action is not None and action.flags & rd.ActionFlags.Dispatch:
                if current is not None:
                    self.warn(f"event {eid}: {name} inside a render pass was left out")
                else:
                    passes.append(self.dispatch_pass(eid, name, action, len(passes)))
            elif base == "vkCmdPipelineBarrier":
                if current is not None:
                    counts["vkCmdPipelineBarrier inside a render pass"] = counts.get(
                        "vkCmdPipelineBarrier inside a render pass", 0) + 1
                elif name.startswith("vkCmdPipelineBarrier2"):
                    passes.append(self.barrier2_pass(sd(chunk, rd), eid, len(passes)))
                else:
                    passes.append(self.barrier_pass(sd(chunk, rd), eid, len(passes)))
            elif base == "vkCmdBeginRendering":
                current = self.begin_rendering(sd(chunk, rd), eid, len(passes))
                passes.append(current)
            elif base == "vkCmdEndRendering":
                if current is not None:
                    current["_end"] = eid
                    self.keep_pixels(current)
                current = None
            elif name.startswith(("vkCmdDrawIndirect", "vkCmdDrawIndexedIndirect")):
                if action is None or not len(action.children):  # not a draw RenderDoc could read
                    counts[name] = counts.get(name, 0) + 1
            elif name.startswith(("vkCmdDrawMesh",
                                  "vkCmdCopy", "vkCmdBlit", "vkCmdResolve", "vkCmdClear",
                                  "vkCmdFillBuffer", "vkCmdUpdateBuffer", "vkCmdExecuteCommands",
                                  "vkCmdWaitEvents", "vkCmdBeginQuery", "vkCmdWriteTimestamp")):
                counts[name] = counts.get(name, 0) + 1
        reasons = {
            "vkCmdExecuteCommands": "secondary command buffers: their draws were converted inline as if recorded in the primary",
            "vkCmdPipelineBarrier inside a render pass": "subpass self-dependencies are not carried",
        }
        for name, n in sorted(counts.items()):
            reason = reasons.get(name, "not supported by the converter; left out")
            self.warn(f"{n} x {name}: {reason}")
        self.finish_passes(passes)
        return passes

    def begin_pass(self, chunk, eid, index):
        begin = chunk.get("RenderPassBegin") or chunk.get("pRenderPassBegin") or {}
        rp = self.render_passes.get(begin.get("renderPass"))
        fb = self.framebuffers.get(begin.get("framebuffer"))
        where = f"event {eid} (render pass {index})"
        if rp is None or fb is None:
            raise ToolError(f"{where}: the render pass or framebuffer was not created in the capture")
        views = as_list(fb.get("pAttachments"))
        descs = as_list(rp.get("pAttachments"))
        if fb.get("flags", 0) & 0x1 or len(views) != len(descs):
            raise ToolError(f"{where}: imageless framebuffers are not supported")
        name = f"pass{index}"
        attachments = []
        clears = as_list(begin.get("pClearValues"))
        for i, (desc, view) in enumerate(zip(descs, views)):
            if view not in self.views:
                raise ToolError(f"{where}: framebuffer attachment {i} names an image view the capture does not create")
            image_id, mip, layer = self.views[view]
            image = self.trace_image(image_id, where)
            a = level_ref(image["name"], mip, layer)
            a["load"] = LOAD_OPS.get(desc["loadOp"], "dont_care")
            a["store"] = STORE_OPS.get(desc["storeOp"], "store")
            depth = image["format"] in DEPTH_FORMATS
            if depth and image["format"] in ("D24S8", "D32FS8", "S8"):
                a["stencil_load"] = LOAD_OPS.get(desc["stencilLoadOp"], "dont_care")
                a["stencil_store"] = STORE_OPS.get(desc["stencilStoreOp"], "dont_care")
            if i < len(clears) and "clear" in (a["load"], a.get("stencil_load")):
                cv = clears[i]
                if depth:
                    ds = cv["depthStencil"]
                    a["clear"] = {"depth": min(max(ds["depth"], 0.0), 1.0), "stencil": ds["stencil"] & 0xFF}
                else:
                    a["clear"] = [float(v) for v in cv["color"]["float32"]]
            a["old_layout"] = LAYOUTS.get(desc["initialLayout"], "general")
            a["new_layout"] = LAYOUTS.get(desc["finalLayout"], "general")
            for key in ("initialLayout", "finalLayout"):
                if desc[key] not in LAYOUTS:
                    self.warn(f"{name} attachment {i}: layout {desc[key]} carried as general")
            a["_image_id"], a["_mip"], a["_layer"] = image_id, mip, layer
            attachments.append(a)
        # Extension structs (multiview, depth/stencil resolve, input attachment aspects, fragment
        # density maps) change what the render pass does; none of them is carried.
        if isinstance(rp.get("pNext"), dict):
            self.warn(f"{name}: render pass extension structs (pNext) are not carried")
        subpasses = []
        for s in as_list(rp.get("pSubpasses")):
            if isinstance(s.get("pNext"), dict):
                self.warn(f"{name}: subpass extension structs (pNext, e.g. depth/stencil resolve) are not carried")
            def refs(key):
                return [None if r["attachment"] == VK_ATTACHMENT_UNUSED else r["attachment"]
                        for r in as_list(s.get(key))]
            sub = {"color": refs("pColorAttachments")}
            ds = s.get("pDepthStencilAttachment")
            sub["depth"] = None if not ds or ds["attachment"] == VK_ATTACHMENT_UNUSED else ds["attachment"]
            inputs = refs("pInputAttachments")
            if inputs:
                sub["input"] = [x for x in inputs if x is not None]
            resolve = refs("pResolveAttachments")
            if any(r is not None for r in resolve):
                sub["resolve"] = resolve
            preserve = as_list(s.get("pPreserveAttachments"))
            if preserve:
                sub["preserve"] = preserve
            sub["draws"] = []
            subpasses.append(sub)
        deps = []
        for d in as_list(rp.get("pDependencies")):
            def sp(v):
                return "external" if v == VK_SUBPASS_EXTERNAL else v
            where_dep = f"{name} dependency {len(deps)}"
            deps.append({"src_subpass": sp(d["srcSubpass"]), "dst_subpass": sp(d["dstSubpass"]),
                         "src_stages": bit_names(d["srcStageMask"], STAGES, "stage", self.warnings, where_dep),
                         "dst_stages": bit_names(d["dstStageMask"], STAGES, "stage", self.warnings, where_dep),
                         "src_access": bit_names(d["srcAccessMask"], ACCESS, "access", self.warnings, where_dep),
                         "dst_access": bit_names(d["dstAccessMask"], ACCESS, "access", self.warnings, where_dep),
                         "by_region": bool(d.get("dependencyFlags", 0) & 0x1)})
        area = begin["renderArea"]
        return {"name": name, "attachments": attachments,
                "render_area": {"x": area["offset"]["x"], "y": area["offset"]["y"],
                                "width": area["extent"]["width"], "height": area["extent"]["height"]},
                "subpasses": subpasses, "dependencies": deps,
                "_subpass": 0, "_begin": eid, "_last_draw": None, "_end": None}

    def rendering_attachment(self, info, view, load, store, layout, where, attachments):
        """One VkRenderingAttachmentInfo (or its resolve target) as an ATTACHMENT; its index."""
        if view not in self.views:
            raise ToolError(f"{where}: an attachment names an image view the capture does not create")
        image_id, mip, layer = self.views[view]
        image = self.trace_image(image_id, where)
        a = level_ref(image["name"], mip, layer)
        a["load"], a["store"] = LOAD_OPS.get(load, "dont_care"), STORE_OPS.get(store, "store")
        if a["load"] == "clear" and info is not None:
            if image["format"] in DEPTH_FORMATS:
                ds = info["clearValue"]["depthStencil"]
                a["clear"] = {"depth": min(max(ds["depth"], 0.0), 1.0), "stencil": ds["stencil"] & 0xFF}
            else:
                a["clear"] = [float(v) for v in info["clearValue"]["color"]["float32"]]
        # Dynamic rendering transitions nothing: the layout is the one the barriers left.
        a["old_layout"] = a["new_layout"] = LAYOUTS.get(layout, "general")
        a["_image_id"], a["_mip"], a["_layer"] = image_id, mip, layer
        attachments.append(a)
        return len(attachments) - 1

    def begin_rendering(self, chunk, eid, index):
        """vkCmdBeginRendering (Vulkan 1.3 / VK_KHR_dynamic_rendering): one pass of one subpass, its
        load, store, clear and resolve from each VkRenderingAttachmentInfo."""
        info = chunk.get("pRenderingInfo") or chunk.get("RenderingInfo") or {}
        where = f"event {eid} (vkCmdBeginRendering, render pass {index})"
        name = f"pass{index}"
        if info.get("viewMask"):
            self.warn(f"{where}: multiview (viewMask 0x{info['viewMask']:x}) is not carried: view 0 only")
        if info.get("layerCount", 1) > 1:
            self.warn(f"{where}: {info['layerCount']} layers carried as the first one only")
        if info.get("flags", 0) & 0x6:
            self.warn(f"{where}: a suspended/resumed render pass is carried as a pass of its own")
        if isinstance(info.get("pNext"), dict):
            self.warn(f"{where}: rendering extension structs (pNext) are not carried")
        attachments, color, resolve = [], [], []
        for c in as_list(info.get("pColorAttachments")):
            if not c.get("imageView"):
                color.append(None)
                resolve.append(None)
                continue
            color.append(self.rendering_attachment(c, c["imageView"], c["loadOp"], c["storeOp"], c["imageLayout"],
                                                   where, attachments))
            if c.get("resolveMode") and c.get("resolveImageView"):
                resolve.append(self.rendering_attachment(None, c["resolveImageView"], "VK_ATTACHMENT_LOAD_OP_DONT_CARE",
                                                         "VK_ATTACHMENT_STORE_OP_STORE", c["resolveImageLayout"],
                                                         where, attachments))
            else:
                resolve.append(None)
        depth = None
        d, s = info.get("pDepthAttachment"), info.get("pStencilAttachment")
        if d and d.get("imageView"):
            depth = self.rendering_attachment(d, d["imageView"], d["loadOp"], d["storeOp"], d["imageLayout"], where,
                                              attachments)
            if d.get("resolveMode"):
                self.warn(f"{where}: the depth resolve is not carried")
        if s and s.get("imageView"):
            if depth is not None and s["imageView"] == d["imageView"]:
                a = attachments[depth]
            else:
                depth = self.rendering_attachment(s, s["imageView"], "VK_ATTACHMENT_LOAD_OP_DONT_CARE",
                                                  "VK_ATTACHMENT_STORE_OP_DONT_CARE", s["imageLayout"], where, attachments)
                a = attachments[depth]
            if self.trace_images[a["_image_id"]]["format"] in ("D24S8", "D32FS8", "S8"):
                a["stencil_load"] = LOAD_OPS.get(s["loadOp"], "dont_care")
                a["stencil_store"] = STORE_OPS.get(s["storeOp"], "dont_care")
                if a["stencil_load"] == "clear":
                    a.setdefault("clear", {"depth": 1.0, "stencil": 0})["stencil"] = \
                        s["clearValue"]["depthStencil"]["stencil"] & 0xFF
        sub = {"color": color, "depth": depth, "draws": []}
        if any(r is not None for r in resolve):
            sub["resolve"] = resolve
        area = info["renderArea"]
        return {"name": name, "attachments": attachments,
                "render_area": {"x": area["offset"]["x"], "y": area["offset"]["y"],
                                "width": area["extent"]["width"], "height": area["extent"]["height"]},
                "subpasses": [sub], "dependencies": [],
                "_subpass": 0, "_begin": eid, "_last_draw": None, "_end": None}

    def barrier2_pass(self, chunk, eid, index):
        """vkCmdPipelineBarrier2 (synchronization2): each barrier carries its own stages; the pass
        takes their union (VK_PIPELINE_STAGE_2_* / VK_ACCESS_2_* share the legacy bits below 2^17;
        higher bits are warned about by name)."""
        dep = chunk.get("pDependencyInfo") or chunk.get("DependencyInfo") or {}
        legacy = {"srcStageMask": 0, "dstStageMask": 0}
        for key in ("pMemoryBarriers", "pBufferMemoryBarriers", "pImageMemoryBarriers"):
            legacy[key] = as_list(dep.get(key))
            for b in legacy[key]:
                legacy["srcStageMask"] |= b.get("srcStageMask", 0)
                legacy["dstStageMask"] |= b.get("dstStageMask", 0)
        return self.barrier_pass(legacy, eid, index)

    def add_clears(self, p, chunk, eid):
        """vkCmdClearAttachments -> the subpass's `clears`, before its next draw; rects clipped to the
        render area (array layers other than 0 are not carried)."""
        subpass = p["subpasses"][min(p["_subpass"], len(p["subpasses"]) - 1)]
        area = p["render_area"]
        rects = []
        for r in as_list(chunk.get("pRects")):
            rect, x0, y0 = r["rect"], max(r["rect"]["offset"]["x"], area["x"]), max(r["rect"]["offset"]["y"], area["y"])
            x1 = min(rect["offset"]["x"] + rect["extent"]["width"], area["x"] + area["width"])
            y1 = min(rect["offset"]["y"] + rect["extent"]["height"], area["y"] + area["height"])
            if r.get("baseArrayLayer", 0) or r.get("layerCount", 1) != 1:
                self.warn(f"event {eid}: vkCmdClearAttachments of array layers other than 0 is carried for layer 0 only")
            if x1 > x0 and y1 > y0:
                rects.append({"x": x0, "y": y0, "width": x1 - x0, "height": y1 - y0})
        if not rects:
            return
        clears = subpass.setdefault("clears", [])
        for a in as_list(chunk.get("pAttachments")):
            entry = {"before_draw": len(subpass["draws"])}
            if a["aspectMask"] & 0x1:
                entry["color"] = [a["colorAttachment"]]
                entry["value"] = [float(v) for v in a["clearValue"]["color"]["float32"]]
            else:
                ds = a["clearValue"]["depthStencil"]
                entry["depth"] = bool(a["aspectMask"] & 0x2)
                entry["stencil"] = bool(a["aspectMask"] & 0x4)
                entry["value"] = {"depth": min(max(ds["depth"], 0.0), 1.0), "stencil": ds["stencil"] & 0xFF}
            entry["rects"] = rects
            clears.append(entry)

    def clear_image_passes(self, chunk, name, eid, index):
        """vkCmdClearColorImage / vkCmdClearDepthStencilImage -> a render pass of no draws per cleared
        mip level (first array layer): its one attachment CLEAR / STORE over the whole level, in the
        layout the command names: the trace has no clear pass type (traces/README.md "Captured frames")."""
        image_id = chunk.get("image")
        where = f"event {eid} ({name})"
        image = self.trace_image(image_id, where)
        depth = name == "vkCmdClearDepthStencilImage"
        value = chunk.get("pDepthStencil") or chunk.get("DepthStencil") if depth else \
            chunk.get("pColor") or chunk.get("Color")
        if depth:
            clear = {"depth": min(max(float(value["depth"]), 0.0), 1.0), "stencil": int(value["stencil"]) & 0xFF}
        else:
            clear = [float(v) for v in value["float32"]]
        layout = LAYOUTS.get(chunk.get("imageLayout"), "general")
        out = []
        for r in as_list(chunk.get("pRanges")):
            levels = r.get("levelCount", 1)
            if levels == 0xFFFFFFFF:
                levels = image.get("mip_levels", 1) - r.get("baseMipLevel", 0)
            layers = r.get("layerCount", 1)
            if layers != 1 and (layers != 0xFFFFFFFF or image.get("array_layers", 1) - r.get("baseArrayLayer", 0) != 1):
                self.warn(f"{where}: array layers other than {r.get('baseArrayLayer', 0)} are not carried")
            for mip in range(r.get("baseMipLevel", 0), r.get("baseMipLevel", 0) + levels):
                a = level_ref(image["name"], mip, r.get("baseArrayLayer", 0))
                a.update({"load": "clear", "store": "store", "clear": clear, "old_layout": layout, "new_layout": layout})
                if depth and image["format"] in ("D24S8", "D32FS8", "S8"):
                    a["stencil_load"] = "clear" if r.get("aspectMask", 0) & 0x4 else "load"
                    a["stencil_store"] = "store"
                a["_image_id"], a["_mip"], a["_layer"] = image_id, mip, r.get("baseArrayLayer", 0)
                w, h = max(1, image["width"] >> mip), max(1, image["height"] >> mip)
                sub = {"color": [] if depth else [0], "depth": 0 if depth else None, "draws": []}
                if not depth:
                    del sub["depth"]
                out.append({"name": f"clear{index + len(out)}", "attachments": [a],
                            "render_area": {"x": 0, "y": 0, "width": w, "height": h},
                            "subpasses": [sub], "dependencies": [],
                            "_subpass": 0, "_begin": eid, "_last_draw": None, "_end": eid})
        return out

    def transfer_passes(self, chunk, base, eid, index):
        """vkCmdCopyImage / vkCmdBlitImage / vkCmdResolveImage -> one copy / blit / resolve pass per region."""
        kind = {"vkCmdCopyImage": "copy", "vkCmdBlitImage": "blit", "vkCmdResolveImage": "resolve"}[base]
        src_id = chunk.get("srcImage")
        dst_id = chunk.get("destImage", chunk.get("dstImage"))
        out = []
        for r in as_list(chunk.get("pRegions")):
            where = f"event {eid} ({base})"
            if kind == "blit":
                so, do = r["srcOffsets"], r["dstOffsets"]
                if so[0]["x"] > so[1]["x"] or so[0]["y"] > so[1]["y"] or do[0]["x"] > do[1]["x"] or do[0]["y"] > do[1]["y"]:
                    self.warn(f"{where}: a mirroring blit is carried unmirrored")

                def box(o):
                    x0, x1 = sorted((o[0]["x"], o[1]["x"]))
                    y0, y1 = sorted((o[0]["y"], o[1]["y"]))
                    return x0, y0, x1 - x0, y1 - y0
                src_box, dst_box = box(so), box(do)
            else:
                e = r["extent"]
                src_box = (r["srcOffset"]["x"], r["srcOffset"]["y"], e["width"], e["height"])
                dst_box = (r["dstOffset"]["x"], r["dstOffset"]["y"], e["width"], e["height"])
            if src_box[2] <= 0 or src_box[3] <= 0 or dst_box[2] <= 0 or dst_box[3] <= 0:
                continue
            p = {"name": f"{kind}{index + len(out)}", "type": kind,
                 "src": self.image_ref(src_id, r["srcSubresource"], *src_box, where),
                 "dst": self.image_ref(dst_id, r["dstSubresource"], *dst_box, where)}
            if kind == "blit":
                p["filter"] = "nearest" if chunk.get("filter") == "VK_FILTER_NEAREST" else "bilinear"
            out.append(p)
            self.stored_images[dst_id] = (p["dst"].get("mip", 0), p["dst"].get("layer", 0))
        return out

    def barrier_pass(self, chunk, eid, index):
        """vkCmdPipelineBarrier -> a `barrier` pass: stages, the memory barriers' access masks, and the
        image barriers' layout transitions (one entry per mip level and array layer)."""
        where = f"event {eid} (vkCmdPipelineBarrier)"
        src_access = dst_access = 0
        for b in as_list(chunk.get("pMemoryBarriers")) + as_list(chunk.get("pBufferMemoryBarriers")):
            src_access |= b.get("srcAccessMask", 0)
            dst_access |= b.get("dstAccessMask", 0)
        images = []
        for b in as_list(chunk.get("pImageMemoryBarriers")):
            src_access |= b.get("srcAccessMask", 0)
            dst_access |= b.get("dstAccessMask", 0)
            image = self.trace_image(b["image"], where)
            r = b["subresourceRange"]
            tex = self.textures[b["image"]]
            mips = tex.mips - r["baseMipLevel"] if r["levelCount"] == 0xFFFFFFFF else r["levelCount"]
            layers = tex.arraysize - r["baseArrayLayer"] if r["layerCount"] == 0xFFFFFFFF else r["layerCount"]
            for mip in range(r["baseMipLevel"], r["baseMipLevel"] + mips):
                for layer in range(r["baseArrayLayer"], r["baseArrayLayer"] + layers):
                    entry = level_ref(image["name"], mip, layer)
                    for key, vk in (("old_layout", "oldLayout"), ("new_layout", "newLayout")):
                        entry[key] = LAYOUTS.get(b[vk], "general")
                        if b[vk] not in LAYOUTS:
                            self.warn(f"{where}: layout {b[vk]} carried as general")
                    images.append(entry)
        return {"name": f"barrier{index}", "type": "barrier",
                "src_stages": bit_names(chunk.get("srcStageMask", 0), STAGES, "stage", self.warnings, where),
                "dst_stages": bit_names(chunk.get("destStageMask", chunk.get("dstStageMask", 0)), STAGES, "stage",
                                        self.warnings, where),
                "src_access": bit_names(src_access, ACCESS, "access", self.warnings, where),
                "dst_access": bit_names(dst_access, ACCESS, "access", self.warnings, where),
                "images": images}

    def image_ref(self, image_id, subresource, x, y, width, height, where):
        image = self.trace_image(image_id, where)
        if subresource.get("layerCount", 1) != 1:
            self.warn(f"{where}: {subresource['layerCount']} array layers carried as the first one only")
        ref = level_ref(image["name"], subresource.get("mipLevel", 0), subresource.get("baseArrayLayer", 0))
        ref["region"] = {"x": x, "y": y, "width": width, "height": height}
        return ref
