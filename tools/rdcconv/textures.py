"""Pixels of a capture's images: the PNG writer, attachment pixels as the trace reader wants them,
material textures decoded from RenderDoc's raw level 0 (GetTextureData), and the converter's
Textures part, which reads them from the replay and names the files."""
import concurrent.futures
import os
import re
import struct
import zlib

import numpy as np

from .common import note_temp, private_temp_folder, skipped
from .structured import clean_name


def png_bytes(width, height, channels, bits, rows):
    """A PNG file's bytes. rows: bytes of width * channels samples per row, big-endian for 16 bits
    (the trace reader decodes them with stb_image)."""
    color_type = {1: 0, 2: 4, 3: 2, 4: 6}[channels]
    raw = b"".join(b"\x00" + row for row in rows)

    def chunk(tag, data):
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)
    return b"".join((b"\x89PNG\r\n\x1a\n",
                     chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, bits, color_type, 0, 0, 0)),
                     chunk(b"IDAT", zlib.compress(raw, 6)), chunk(b"IEND", b"")))


def write_png(path, width, height, channels, bits, rows):
    """png_bytes into the file `path`."""
    with open(path, "wb") as f:
        f.write(png_bytes(width, height, channels, bits, rows))


def _rows16(values, channels, width, height):
    """Values in 0..1 (clamped; NaN as 0) -> big-endian 16-bit PNG rows: round(v * 65535), halves
    to even as Python's round."""
    scaled = np.rint(np.clip(np.nan_to_num(values, nan=0.0), 0.0, 1.0) * 65535.0).astype(">u2")
    return [row.tobytes() for row in scaled.reshape(height, width * channels)]


def texture_png(data, vk_format, width, height):
    """Pixels of GetTextureData in `vk_format` as (channels, bits, rows, clamped) or None if the
    format has no PNG form here. Depth: 16-bit grey depth * 65535 (the reader: depth = grey / max)."""
    n = width * height
    fmt = vk_format.replace("VK_FORMAT_", "")
    if fmt in ("R8G8B8A8_UNORM", "R8G8B8A8_SRGB", "B8G8R8A8_UNORM", "B8G8R8A8_SRGB"):
        if len(data) < n * 4:
            return None
        px = bytearray(data[:n * 4])
        if fmt.startswith("B8G8R8A8"):
            px[0::4], px[2::4] = px[2::4], px[0::4]
        return 4, 8, [bytes(px[y * width * 4:(y + 1) * width * 4]) for y in range(height)], False
    if fmt == "R8G8B8_UNORM":
        if len(data) < n * 3:
            return None
        return 3, 8, [bytes(data[y * width * 3:(y + 1) * width * 3]) for y in range(height)], False
    if fmt in ("R8_UNORM", "R8G8_UNORM"):
        c = 1 if fmt == "R8_UNORM" else 2
        px = bytearray(data[:n * c])
        if c == 2:  # as RGB: the reader maps grey+alpha to (g, g, g, a)
            rgb = bytearray(n * 3)
            rgb[0::3], rgb[1::3] = px[0::2], px[1::2]
            return 3, 8, [bytes(rgb[y * width * 3:(y + 1) * width * 3]) for y in range(height)], False
        return 1, 8, [bytes(px[y * width:(y + 1) * width]) for y in range(height)], False
    if fmt == "D16_UNORM":
        if len(data) < n * 2:
            return None
        vals = np.frombuffer(data, "<u2", n).astype(">u2").reshape(height, width)
        return 1, 16, [row.tobytes() for row in vals], False
    if fmt in ("D32_SFLOAT", "D32_SFLOAT_S8_UINT", "X8_D24_UNORM_PACK32", "D24_UNORM_S8_UINT"):
        stride = len(data) // n if n else 0
        if stride < 4:
            return None
        # each texel's first 4 bytes, `stride` apart
        words = np.ndarray((n,), "<u4", buffer=data, strides=(stride,))
        if fmt.startswith("D32"):
            depth = words.view("<f4").astype(np.float64)
        else:
            depth = (words & 0xFFFFFF).astype(np.float64) / 16777215.0
        return 1, 16, _rows16(depth, 1, width, height), False
    if fmt == "R16G16B16A16_SFLOAT":
        if len(data) < n * 8:
            return None
        vals = np.frombuffer(data, "<f2", n * 4).astype(np.float64)
        clamped = bool(np.count_nonzero(~((vals >= 0.0) & (vals <= 1.0))))
        return 4, 16, _rows16(vals, 4, width, height), clamped
    return None


# ---- material textures -------------------------------------------------------------------------
# RenderDoc's SaveTexture crashed (exit 139, no message) on real frames' mipmapped textures (a
# 1024x1024 BC7 of 11 levels, an R8 of 11 levels): level 0 is read raw with GetTextureData instead
# and decoded here, to RGBA8 as SaveTexture's PNGs were. Block-compressed levels go through
# Pillow's "bcn" decoder (BC1-BC7, Pillow's "DDS" image file format notes); what neither reads
# (ETC2, EAC, ASTC, packed 16-bit formats) is None, and the caller decides.

# Pillow bcn decoder arguments and the mode it decodes into, by RenderDoc ResourceFormatType name.
BCN = {"BC1": ((1,), "RGBA"), "BC2": ((2,), "RGBA"), "BC3": ((3,), "RGBA"), "BC4": ((4,), "L"),
       "BC5": ((5,), "RGB"), "BC7": ((7,), "RGBA")}
BLOCK_BYTES = {"BC1": 8, "BC4": 8, "BC2": 16, "BC3": 16, "BC5": 16, "BC6": 16, "BC7": 16}


def _regular_rgba(rd, fmt, data, width, height):
    """An uncompressed level of 1 - 4 components of 1, 2 or 4 bytes -> (height, width, 4) uint8."""
    n, size, kind = fmt.compCount, fmt.compByteWidth, rd.CompType(fmt.compType).name
    types = {(1, "SNorm"): "<i1", (1, "SInt"): "<i1", (2, "Float"): "<f2", (2, "SNorm"): "<i2", (2, "SInt"): "<i2",
             (4, "Float"): "<f4", (4, "SNorm"): "<i4", (4, "SInt"): "<i4"}
    dtype = types.get((size, kind), {1: "<u1", 2: "<u2", 4: "<u4"}.get(size))
    count = width * height * n
    if dtype is None or not 1 <= n <= 4 or len(data) < count * size:
        return None
    values = np.frombuffer(data, dtype, count).reshape(height, width, n)
    if kind == "Float":
        values = np.clip(np.nan_to_num(values.astype(np.float32)), 0.0, 1.0) * 255.0 + 0.5
    elif kind == "SNorm":  # [-1, 1] -> [0, 255]
        top = float(2 ** (8 * size - 1) - 1)
        values = (np.clip(values / top, -1.0, 1.0) + 1.0) * 127.5 + 0.5
    elif kind in ("UInt", "SInt"):
        values = np.clip(values, 0, 255)
    elif size > 1:  # UNorm (sRGB stays encoded, as in the 8-bit case)
        values = values.astype(np.float64) * (255.0 / float(2 ** (8 * size) - 1)) + 0.5
    values = values.astype(np.uint8)
    if fmt.BGRAOrder() and n >= 3:
        values = values[..., [2, 1, 0, 3][:n]]
    rgba = np.zeros((height, width, 4), np.uint8)
    rgba[..., 3] = 255
    rgba[..., :n] = values
    return rgba


def _block_rgba(kind, data, width, height, signed):
    try:
        from PIL import Image
    except ImportError:
        return None
    blocks_x, blocks_y = (width + 3) // 4, (height + 3) // 4
    need = blocks_x * blocks_y * BLOCK_BYTES[kind]
    if len(data) < need:
        return None
    if kind == "BC6":
        args, mode = (6, "BC6HS" if signed else "BC6HU"), "RGB"
    else:
        args, mode = BCN[kind]
    image = Image.frombytes(mode, (width, height), bytes(data[:need]), "bcn", args)
    return np.asarray(image.convert("RGBA"))


# Uncompressed formats with a TEXTURE format of their own size, by RenderDoc's format name's head.
OWN_SIZE = (("R8G8B8A8", "RGBA8"), ("B8G8R8A8", "RGBA8"), ("R8G8B8X8", "RGBA8"), ("B8G8R8X8", "RGBA8"),
            ("R8G8B8_", "RGB8"), ("B8G8R8_", "RGB8"), ("R16G16B16A16_SFLOAT", "RGBA16F"), ("R16G16B16A16_FLOAT", "RGBA16F"),
            ("R32G32B32A32_SFLOAT", "RGBA32F"), ("R32G32B32A32_FLOAT", "RGBA32F"), ("R32G32_SFLOAT", "RG32F"),
            ("R32G32_FLOAT", "RG32F"), ("R16G16_SFLOAT", "RG16F"), ("R16G16_FLOAT", "RG16F"), ("R16G16_", "RG16"),
            ("R32_SFLOAT", "R32F"), ("R32_FLOAT", "R32F"), ("R16_SFLOAT", "R16F"), ("R16_FLOAT", "R16F"),
            ("R16_", "R16"), ("R8G8_", "RG8"), ("R8_", "R8"), ("A8_", "R8"), ("L8_", "R8"), ("L8A8_", "RG8"))


def material_format(name):
    """RenderDoc's format name -> (the TEXTURE `format`, None, or the tail of the warning that
    says how it is carried when the trace has no such format)."""
    upper = name.upper()
    block = re.search(r"(\d+)X(\d+)", upper)
    if "ETC2" in upper or "EAC" in upper:
        return ("ETC2_RGBA8" if ("A8" in upper or "RGBA" in upper) else "ETC2_RGB8"), None
    if "ASTC" in upper:
        fmt = "ASTC_4x4" if not block or int(block.group(1)) * int(block.group(2)) < 36 else "ASTC_8x8"
        return fmt, ("" if not block or block.group(0) not in ("4X4", "8X8") else None)
    bc = re.match(r"BC([1-7])H?", upper)
    if bc:
        return ("BC6H" if bc.group(1) == "6" else f"BC{bc.group(1)}"), None
    for head, fmt in OWN_SIZE:
        if upper.startswith(head):
            return fmt, None
    return "RGBA8", " (4 B per texel)"


def decode_level0(rd, fmt, data, width, height, flip):
    """Level 0 of a material texture as RenderDoc's raw GetTextureData bytes -> (4, 8, rows) RGBA8
    rows top to bottom (`flip`: the data's rows run bottom to top, as OpenGL stores them), or None
    when the format is not one read here."""
    kind = rd.ResourceFormatType(fmt.type).name
    if kind == "Regular":
        rgba = _regular_rgba(rd, fmt, data, width, height)
    elif kind in BLOCK_BYTES:
        rgba = _block_rgba(kind, data, width, height, rd.CompType(fmt.compType).name == "SNorm")
    else:
        return None
    if rgba is None:
        return None
    if flip:
        rgba = rgba[::-1]
    return 4, 8, [rgba[y].tobytes() for y in range(height)]


def level0_png(rd, resource):
    """RenderDoc's TextureSave settings for level 0 of `resource` as a PNG, alpha kept."""
    save = rd.TextureSave()
    save.resourceId = resource
    save.destType = rd.FileType.PNG
    save.mip = 0
    save.alpha = rd.AlphaMapping.Preserve
    return save


def written_by(rd, controller, resource, eid):
    """Whether the frame writes `resource` at or before event `eid` (RenderDoc's usage list: every
    usage but reads)."""
    reads = {rd.ResourceUsage.VertexBuffer, rd.ResourceUsage.IndexBuffer, rd.ResourceUsage.Indirect,
             rd.ResourceUsage.InputTarget, rd.ResourceUsage.CopySrc, rd.ResourceUsage.ResolveSrc,
             rd.ResourceUsage.Barrier, rd.ResourceUsage.Unused}
    for stage in ("VS", "HS", "DS", "GS", "PS", "CS", "All"):
        reads.add(getattr(rd.ResourceUsage, f"{stage}_Resource"))
        reads.add(getattr(rd.ResourceUsage, f"{stage}_Constants"))
    return any(u.eventId <= eid and u.usage not in reads for u in controller.GetUsage(resource))


class Textures:
    """Material textures and attachment pixels read from the replay, into the converter's files."""

    def add_png(self, rel, width, height, channels, bits, rows):
        """self.files[rel]: the PNG's bytes to come, compressed by worker threads while the replay goes
        on (zlib runs without Python's lock; the bytes are those of write_png whatever the order)."""
        if self.encoder is None:
            self.encoder = concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 1)
        self.files[rel] = self.encoder.submit(png_bytes, width, height, channels, bits, rows)

    def material_texture(self, image_id, where):
        """A sampled image no pass writes -> a TEXTURE: its level 0 decoded to RGBA8 PNG
        (decode_level0; RenderDoc's SaveTexture only for formats read nowhere else),
        its format's block size (ETC2 / ASTC as captured) and `mip` generate when the capture holds
        a mip chain. None when it cannot be saved."""
        if image_id in self.material:
            return self.material[image_id]
        tex = self.textures.get(image_id)
        self.material[image_id] = None
        if tex is None or tex.width > 16384 or tex.height > 16384:
            return None
        base = clean_name(self.names.get(image_id, f"texture_{image_id}"))
        name = base if base.endswith(str(image_id)) else f"{base}_{image_id}"
        rel = f"{self.stem}_captured/texture_{name}.png"
        what = (f"{where}: texture {name} (resource {image_id}, {tex.format.Name()} {tex.width}x{tex.height}, "
                f"{tex.mips} levels)")
        key = f"texture {image_id}"
        if skipped(key):
            self.warn(f"{what}: RenderDoc's replay crashed reading it; left out")
            return None
        self.note(f"reading {what}", key)
        data = self.material_level0(tex, image_id)
        if data is None:
            self.warn(f"{what}: RenderDoc's replay died reading its pixels; left out")
            return None
        png = decode_level0(self.rd, tex.format, data, tex.width, tex.height, self.rows_bottom_up)
        if png is not None:
            self.add_png(rel, tex.width, tex.height, *png)
        elif not self.save_with_renderdoc(tex, rel, what, key):
            return None
        fmt, why = material_format(tex.format.Name())
        if why is not None:
            self.warn(f"{where}: texture {name} ({tex.format.Name()}) carried as {fmt}{why}")
        texture = {"name": name, "file": rel, "format": fmt}
        if tex.mips > 1:
            texture["mip"] = "generate"  # the chain is regenerated from level 0, not read from the capture
        self.trace_textures[image_id] = texture
        self.material[image_id] = name
        return name

    def material_level0(self, tex, image_id):
        """Level 0's raw bytes at the event the replay stands at, from the pixel reader when this replay
        does not rasterize (pixels.py): RenderDoc restores some textures' contents by drawing, and the
        frame may copy rendered pixels into one."""
        if self.pixel_reader is not None:
            return self.pixel_reader.get(self.reader_key((self.reader_event(tex), image_id, 0, 0)))
        return self.ctl.GetTextureData(tex.resourceId, self.rd.Subresource(0, 0, 0))

    def reader_event(self, tex):
        """Where the pixel reader reads a material texture: at the draw that samples it when the frame
        writes it by then, else at the frame's first draw (its contents are the same at every event
        up to here, and the reader's replays to that event are short and shared)."""
        if written_by(self.rd, self.ctl, tex.resourceId, self.at_event):
            return self.at_event
        if self.first_draw is None:
            from .split import draw_events
            self.first_draw = (draw_events(self.rd, self.ctl) or [self.at_event])[0]
        return self.first_draw

    def save_with_renderdoc(self, tex, rel, what, key):
        """Level 0 through RenderDoc's SaveTexture (PNG into a private folder, removed on every exit):
        the formats decode_level0 does not read, such as ETC2 and ASTC."""
        if self.tmp is None:
            self.tmp = private_temp_folder("rdc2trace-textures")
            note_temp(self.tmp)
        path = os.path.join(self.tmp, os.path.basename(rel))
        self.note(f"saving {what} with RenderDoc's SaveTexture", key)
        if self.pixel_reader is not None:  # SaveTexture decodes by drawing: a replay that rasterizes
            self.pixel_reader.save(self.reader_event(tex), self.texture_index[int(tex.resourceId)], path)
        else:
            self.ctl.SaveTexture(level0_png(self.rd, tex.resourceId), path)
        if not os.path.isfile(path) or not os.path.getsize(path):
            return False  # program() warns about the textures left out
        self.texture_files[rel] = path
        return True

    def save_texture(self, image_id, mip, layer, rel, where, eid):
        """The level as it is after event `eid` -> self.files[rel] (False: its format has no PNG here)."""
        tex = self.textures[image_id]
        image = self.trace_images[image_id]
        width, height = max(1, tex.width >> mip), max(1, tex.height >> mip)
        data = self.pixels_at(eid, image_id, mip, layer)
        if data is None:
            self.warn(f"{where}: RenderDoc's replay crashed reading image {image['name']} at event {eid}; "
                      "its stored pixels stay simulated")
            return False
        png = texture_png(data, image["_vk_format"], width, height)
        if png is None:
            self.warn(f"{where}: the pixels of {image['_vk_format']} image {image['name']} cannot be saved; "
                      "its stored pixels stay simulated")
            return False
        channels, bits, rows, clamped = png
        if clamped:
            self.warn(f"{where}: image {image['name']} holds values outside 0..1, clamped in {rel}")
        if tex.msSamp > 1:
            self.warn(f"{where}: multisampled image {image['name']}: sample 0 saved for every sample")
        self.add_png(rel, width, height, channels, bits, rows[::-1] if self.rows_bottom_up else rows)
        return True

    def finish_pass(self, p):
        """Attachment pixels at the pass's last draw (or its begin, with no draws): the pixel data
        the savers need, as ATTACHMENT `contents` (captured)."""
        eid = p["_last_draw"] or p["_begin"]
        self.at = f"{p['name']} (its attachments at event {eid})"
        for i, a in enumerate(p["attachments"]):
            image = self.trace_images[a["_image_id"]]
            if image.get("transient"):
                continue
            rel = f"{self.stem}_captured/{self.frame_tag}{p['name']}_att{i}_{image['name']}.png"
            if self.save_texture(a["_image_id"], a["_mip"], a["_layer"], rel, f"{p['name']} attachment {i}", eid):
                a["contents"] = {"file": rel, "captured": True}
            if a["store"] == "store":
                self.stored_images[a["_image_id"]] = (a["_mip"], a["_layer"])

    def finish_passes(self, passes):
        """finish_pass of every render pass of the frame (a frame without any is warned about)."""
        for p in passes:
            if "type" not in p:
                self.finish_pass(p)
        if not passes:
            self.warn("the frame has no render pass")

    def save_final_images(self, last_event):
        self.at = f"the final images (event {last_event})"
        for image_id, (mip, layer) in sorted(self.stored_images.items()):
            image = self.trace_images[image_id]
            self.save_texture(image_id, mip, layer, f"{self.stem}_captured/final_{image['name']}.png",
                              f"final image {image['name']}", last_event)
