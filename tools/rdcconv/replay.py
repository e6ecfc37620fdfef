"""Capture reading and replay control: opening a capture for replay (read_capture), the frame's
events in order, and moving the replay between events (SetFrameEvent) as rarely as possible,
keeping attachment bytes read at an event the replay already stands at."""
import os

from .common import ToolError, note, skipped


class Replay:
    """State shared by the Vulkan and GL converters, and the replay's position in the frame."""

    def __init__(self, rd, controller, out_json):
        self.rd = rd
        self.ctl = controller
        self.out_json = out_json
        self.stem = os.path.splitext(os.path.basename(out_json))[0]
        self.warnings = []
        self.images = {}        # resource id -> create info (vkCreateImage) or swapchain info
        self.views = {}         # view id -> (image id, mip, layer)
        self.render_passes = {}  # id -> create info
        self.framebuffers = {}  # id -> create info
        self.trace_images = {}  # resource id -> trace IMAGE dict
        self.meshes = []
        self.bin = bytearray()
        self.files = {}         # relative path -> future PNG bytes (Textures.add_png)
        self.encoder = None     # the threads that compress them
        self.stored_images = {}  # resource id -> trace image name (stored by some pass)
        self.names = {int(r.resourceId): r.name for r in controller.GetResources()}
        self.material = {}       # resource id -> TEXTURE name (None: not carried)
        self.trace_textures = {}  # resource id -> trace TEXTURE dict
        self.trace_buffers = {}  # resource id -> trace BUFFER dict (bound by dispatches)
        self.texture_files = {}  # relative path -> the PNG SaveTexture wrote into self.tmp
        self.tmp = None
        self.textures = {int(t.resourceId): t for t in controller.GetTextures()}
        self.texture_index = {rid: k for k, rid in enumerate(self.textures)}  # the pixel reader's names
        self.rows_bottom_up = False  # GetTextureData's rows run top to bottom (Vulkan)
        self.rdc = out_json     # the capture's path, set by convert_one, for notes
        self.at_event = None    # the event the replay stands at (replay_to)
        self.at = "reading the capture's chunks"  # what conversion is at, for a one-line error
        self.snapshots = {}     # (event, image id, mip, layer) -> GetTextureData bytes (keep_pixels)
        self.frame_tag = ""     # a sequence's frame: "frame<K>_" before its meshes' and PNGs' names
        self.pixel_reader = None  # pixels.PixelReader when this replay does not rasterize
        self.first_draw = None    # the frame's first draw event (Textures.reader_event)

    def note(self, text, skip=None):
        """What RenderDoc is about to do, for the one-line error should its replay crash in it
        (`skip`: the key under which a rerun leaves the thing read out, common.note)."""
        note(f"{self.rdc}: {text}", skip)

    def replay_to(self, eid):
        """SetFrameEvent, skipped when the replay already stands at `eid` (the calls that read
        state and data do not move it)."""
        if eid != self.at_event:
            self.note(f"event {eid}: replaying the frame to it")
            self.ctl.SetFrameEvent(eid, True)
            self.at_event = eid

    def keep_pixels(self, p):
        """When the replay stands at pass `p`'s last draw (or its begin, with none), its attachments'
        bytes are read now, for finish_pass: every SetFrameEvent replays the frame from its start
        (measured: as long backwards as forwards), so not coming back to the event saves one. Without
        rasterization here, they are asked of the pixel reader, which replays while conversion goes on."""
        eid = p["_last_draw"] or p["_begin"]
        if eid != self.at_event and self.pixel_reader is None:
            return
        for a in p["attachments"]:
            key = (eid, a["_image_id"], a["_mip"], a["_layer"])
            if self.trace_images[a["_image_id"]].get("transient"):
                continue
            if self.pixel_reader is not None:
                if self.workers is None:  # workers send the pixels of the draws they replayed
                    self.pixel_reader.ask(self.reader_key(key))
            elif key not in self.snapshots:
                self.snapshots[key] = self.read_pixels(*key)

    def reader_key(self, key):
        """(event, image id, mip, layer) as the pixel reader names it: the image by its place."""
        eid, image_id, mip, layer = key
        return eid, self.texture_index[image_id], mip, layer

    def read_pixels(self, eid, image_id, mip, layer):
        """GetTextureData of the level at the event the replay stands at; None when a former run
        crashed in it (common.skipped)."""
        key = f"pixels {eid} {image_id} {mip} {layer}"
        if skipped(key):
            return None
        self.note(f"event {eid}: reading image {self.trace_images[image_id]['name']} (resource {image_id}, "
                  f"{self.trace_images[image_id]['_vk_format']}, level {mip}, layer {layer})", key)
        return bytes(self.ctl.GetTextureData(self.textures[image_id].resourceId, self.rd.Subresource(mip, layer, 0)))

    def pixels_at(self, eid, image_id, mip, layer):
        """The level's bytes after event `eid`: kept by keep_pixels, else replayed to and read."""
        key = (eid, image_id, mip, layer)
        if key in self.snapshots:
            return self.snapshots.pop(key)
        if self.pixel_reader is not None:
            return self.pixel_reader.get(self.reader_key(key))
        self.replay_to(eid)
        return self.read_pixels(*key)

    def warn(self, message):
        if message not in self.warnings:
            self.warnings.append(message)

    def events(self):
        """Every API event of the frame in order: (event id, chunk name, chunk, action or None)."""
        out = []

        chunks = self.sf.chunks
        count = len(chunks)

        def walk(actions):
            for a in actions:
                for e in a.events:
                    # An event RenderDoc made up has no chunk (APIEvent.chunkIndex is NoChunk, ~0): the
                    # marker action of a vkQueueSubmit without command buffers (vkd3d's D3D12 queue).
                    if e.chunkIndex >= count:
                        continue
                    chunk = chunks[e.chunkIndex]
                    out.append((e.eventId, chunk.name, chunk, a if e.eventId == a.eventId else None))
                walk(a.children)
        walk(self.ctl.GetRootActions())
        return out


def read_capture(rd, rdc):
    """Opens `rdc` for replay: (capture file, replay controller, API name); one line on failure."""
    cap = rd.OpenCaptureFile()
    status = cap.OpenFile(rdc, "", None)
    if status != rd.ResultCode.Succeeded:
        cap.Shutdown()
        raise ToolError(f"{rdc}: not a readable RenderDoc capture ({status})")
    api = cap.DriverName()
    failure = None
    if api not in ("Vulkan", "OpenGL", "OpenGLES"):
        failure = f"{rdc}: a {api} capture; only Vulkan, OpenGL ES and OpenGL captures are supported"
    elif cap.LocalReplaySupport() != rd.ReplaySupport.Supported:
        failure = f"{rdc}: this machine cannot replay it ({cap.LocalReplaySupport()})"
    else:
        status, controller = cap.OpenCapture(rd.ReplayOptions(), None)
        if status == rd.ResultCode.Succeeded:
            return cap, controller, api
        failure = f"{rdc}: replay failed ({status})"
    cap.Shutdown()
    raise ToolError(failure)


def last_event(controller):
    last = 0

    def walk(actions):
        nonlocal last
        for a in actions:
            last = max(last, a.eventId)
            walk(a.children)
    walk(controller.GetRootActions())
    return last
