#!/usr/bin/python3
"""A corpus of real programs from Debian, one frame each, checked against RenderDoc's own view of the
capture: SuperTux through SDL's OpenGL ES 2 renderer (EGL), SuperTuxKart (core OpenGL), Warzone 2100
(Vulkan) and vkd3d-gears (Direct3D 12 on Vulkan through vkd3d). Each frame is captured with
tools/capture, converted with tools/rdc2trace and simulated with `tbdrsim run --json` under the
`reference` preset (no compression, no transaction elimination, no empty-tile skipping), and the
capture is opened here with RenderDoc's module to count what the trace and the report must carry:
render passes, draws (a draw RenderDoc lists that the trace drops is a counted warning), copies,
warnings by kind, attachment load and store bytes (width x height x bytes per pixel of RenderDoc's
texture description) and the size of every material texture. Needs RenderDoc's Python module, Xvfb
and the programs: a missing one skips its frame unless TBDR_REQUIRE_EXTERNAL is set.
argv[1]: the tbdrsim binary."""
import json
import os
import re
import shutil
import struct
import sys
import tempfile
import time
import unittest

from external_capture import missing, run

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOOLS = os.path.join(ROOT, "tools")
sys.path.insert(0, TOOLS)
TBDRSIM = os.path.abspath(sys.argv.pop(1)) if len(sys.argv) > 1 else os.path.join(ROOT, "build", "tbdrsim")

# STK's settings: a 640x480 window (at 320x240 it opens a "screen resolution too low" dialog), no
# sound, the "connect to the Internet?" question answered no. Without a player it opens on its
# "Create User" screen, a menu of about 50 draws.
STK_CONFIG = """<?xml version="1.0"?>
<stkconfig version="8" >
    <Audio sfx_on="false" music_on="false" />
    <Video real_width="640" real_height="480" width="640" height="480" prev_real_width="640"
           prev_real_height="480" fullscreen="false" />
    <enable_internet value="2" />
</stkconfig>
"""

# name: (RenderDoc's driver name, program, frame, program arguments, environment, settings files).
# Environment values may name the frame's folder as {dir}. Debian builds no game for OpenGL ES on
# the desktop (SuperTuxKart's Debian build says "No OpenGL ES 2.0 support compiled in"), but a game
# drawing through SDL 2's renderer can be told to use SDL's OpenGL ES 2 renderer (SDL_RENDER_DRIVER,
# SDL's hint SDL_HINT_RENDER_DRIVER) through EGL (SDL_VIDEO_X11_FORCE_EGL): SuperTux's `sdl` renderer.
GAMES = {
    "supertux_gles": ("OpenGLES", "/usr/games/supertux2", 30,
                      ["--renderer", "sdl", "-g", "320x240", "-w", "--disable-sound", "--disable-music",
                       "--userdir", "user"],
                      {"SDL_RENDER_DRIVER": "opengles2", "SDL_VIDEO_X11_FORCE_EGL": "1"}, {"user/.keep": ""}),
    "supertuxkart_gl": ("OpenGL", "/usr/games/supertuxkart", 40, ["-w", "--log=5"],
                        {"XDG_CONFIG_HOME": "{dir}/config", "XDG_DATA_HOME": "{dir}/data",
                         "XDG_CACHE_HOME": "{dir}/cache"},
                        {"config/supertuxkart/config-0.10/config.xml": STK_CONFIG}),
    # Warzone 2100's title menu on its Vulkan backend (an in-game frame converts in minutes).
    "warzone2100_vulkan": ("Vulkan", "/usr/games/warzone2100", 20,
                           ["--gfxbackend=vulkan", "--window", "--resolution=640x480", "--nosound",
                            "--configdir=config"], {},
                           {"config/config": "[general]\nwidth=640\nheight=480\nfullscreen=0\nsound=0\n"
                                             "gfxbackend=vulkan\n"}),
    "vkd3d_gears": ("Vulkan", "/usr/bin/vkd3d-gears", 5, [], {}, {}),
}

# Bytes per pixel of RenderDoc's depth/stencil formats that are not components of one width.
SPECIAL_BYTES = {"D16S8": 3, "D24S8": 4, "D32S8": 5, "S8": 1}
# Bytes per pixel of the trace's attachment formats (traces/README.md "Formats").
TRACE_BYTES = {"RGBA8": 4, "BGRA8": 4, "RGB8": 3, "RGBA16F": 8, "RGB10A2": 4, "RG16F": 4, "R32F": 4, "R8": 1,
               "RG8": 2, "RGBA32F": 16, "D16": 2, "D24S8": 4, "D32F": 4, "D32FS8": 5, "S8": 1,
               "B10G11R11_UFLOAT": 4}
DEPTH_FORMATS = ("D16", "D24S8", "D32F", "D32FS8", "S8")
# Bytes per texel of the trace's uncompressed texture formats (traces/README.md "Formats").
TEXTURE_BYTES = {"RGBA8": 4, "RGB8": 3, "R8": 1, "RG8": 2, "R16": 2, "RG16": 4, "R16F": 2, "RG16F": 4, "R32F": 4,
                 "RG32F": 8, "RGBA16F": 8, "RGBA32F": 16}
# RenderDoc's actions that move data between resources and that the trace carries as a pass.
IMAGE_TRANSFERS = ("vkCmdCopyImage", "vkCmdBlitImage", "vkCmdResolveImage", "glBlitFramebuffer",
                   "glBlitNamedFramebuffer", "glCopyImageSubData", "glCopyTexSubImage2D", "glCopyTexImage2D")
FORMAT_WARNING = re.compile(r"image (\S+): format (\S+) has no trace equivalent; carried as (\S+)")
TRANSFER_WARNING = re.compile(r"(\d+) x (\w+): not (?:supported|carried) by the converter; left out")
EVENTS_WARNING = re.compile(r"(\d+) events \(([\d, ]+)(?:, \.\.\.)?\): (.+)")
EVENT_WARNING = re.compile(r"event (\d+)(?: \([^()]*\))?: (.+)")


def png_size(path):
    """(width, height) from a PNG's IHDR chunk."""
    with open(path, "rb") as f:
        head = f.read(24)
    if head[:8] != b"\x89PNG\r\n\x1a\n" or head[12:16] != b"IHDR":
        raise AssertionError(f"{path}: not a PNG")
    return struct.unpack(">II", head[16:24])


def resource_id(trace_name):
    """RenderDoc's resource id a trace IMAGE or TEXTURE is named after (its name ends `_<id>`)."""
    return int(trace_name.rsplit("_", 1)[1])


def bytes_per_pixel(fmt):
    """Bytes per pixel of a RenderDoc ResourceFormat, from its own description."""
    if fmt.Name() in SPECIAL_BYTES:
        return SPECIAL_BYTES[fmt.Name()]
    return fmt.compByteWidth * fmt.compCount


class RenderDocView:
    """What RenderDoc itself shows of a capture: its actions, each draw's output targets (the
    pipeline state at the draw), its textures, and the store and load ops it names Vulkan render
    passes' end and begin actions with."""

    def __init__(self, rd, rdc):
        self.rd = rd
        self.cap = rd.OpenCaptureFile()
        if self.cap.OpenFile(rdc, "", None) != rd.ResultCode.Succeeded:
            raise AssertionError(f"{rdc}: RenderDoc cannot open it")
        self.driver = self.cap.DriverName()
        status, self.ctl = self.cap.OpenCapture(rd.ReplayOptions(), None)
        if status != rd.ResultCode.Succeeded:
            raise AssertionError(f"{rdc}: RenderDoc cannot replay it ({status})")
        self.sf = self.ctl.GetStructuredFile()
        self.actions = []  # (event id, name, flags, depth of nesting) in order
        self._walk(self.ctl.GetRootActions(), 0)
        self.textures = {int(t.resourceId): t for t in self.ctl.GetTextures()}
        self.names = {re.sub(r"[^a-z0-9]+", "_", r.name.lower()): int(r.resourceId) for r in self.ctl.GetResources()}

    def texture(self, trace_name):
        """The texture a trace IMAGE or TEXTURE names. RenderDoc gives OpenGL's window surface ids
        from a counter of the replaying process (`backbuffer_color_1000000000000000110` in the trace
        is `Backbuffer Color` of another id in a second replay): those are found by name."""
        window = re.fullmatch(r"(backbuffer_[a-z_]+)_\d+", trace_name)
        if window:
            return self.textures[self.names[window.group(1)]]
        return self.textures[resource_id(trace_name)]

    def _walk(self, actions, depth):
        for a in actions:
            self.actions.append((a.eventId, a.GetName(self.sf), a.flags, depth))
            self._walk(a.children, depth + 1)

    def close(self):
        self.ctl.Shutdown()
        self.cap.Shutdown()

    def flagged(self, flag):
        return [a for a in self.actions if a[2] & flag]

    def draws(self):
        return [a[0] for a in self.flagged(self.rd.ActionFlags.Drawcall)]

    def render_passes(self):
        """Vulkan's begin-pass actions (RenderDoc flags command buffer starts BeginPass too)."""
        f = self.rd.ActionFlags
        return [a for a in self.flagged(f.BeginPass) if not a[2] & f.CommandBufferBoundary]

    def targets_at(self, eid):
        """(color target ids, depth target id) bound at event `eid`."""
        self.ctl.SetFrameEvent(eid, False)
        state = self.ctl.GetPipelineState()
        null = self.rd.ResourceId.Null()
        colors = tuple(int(b.resourceId) for b in state.GetOutputTargets() if b.resourceId != null)
        depth = state.GetDepthTarget().resourceId
        return colors, (int(depth) if depth != null else None)

    def gl_spans(self):
        """OpenGL: the runs of consecutive draws and clears into the same targets, each as
        (targets, [event ids]): the render passes a tiler driver makes of the call stream. A run of
        clears only waits for the next run into the same targets and joins it, as Mesa's tiler
        drivers keep a batch per framebuffer and a clear only marks its batch (panfrost, freedreno)."""
        f = self.rd.ActionFlags
        spans, waiting = [], {}
        for eid, _, flags, _ in self.actions:
            if not flags & (f.Drawcall | f.Clear):
                continue
            key = self.targets_at(eid)
            if not spans or spans[-1][0] != key:
                if spans and not spans[-1][2][0]:  # the run that ends was clears only: it waits
                    ended = spans.pop()
                    waiting[ended[0]] = ended[1]
                spans.append((key, waiting.pop(key, []), [False]))
            spans[-1][1].append(eid)
            spans[-1][2][0] |= bool(flags & f.Drawcall)
        spans = [(key, eids) for key, eids, _ in spans] + [(key, eids) for key, eids in waiting.items()]
        return spans

    def named(self, prefix):
        return [a for a in self.actions if a[1].startswith(prefix)]


def vk_ops(action_name):
    """{"C": op, "D": op, "DS": op} from RenderDoc's name of a begin/end render pass action, e.g.
    `vkCmdEndRenderPass(C=Store, DS=Don't Care)`; a pass of one attachment is `(Store)`."""
    inside = action_name[action_name.index("(") + 1:action_name.rindex(")")]
    ops = {}
    for part in filter(None, (p.strip() for p in inside.split(","))):
        kind, _, op = part.rpartition("=")
        ops[kind or "*"] = op
    return ops


def classify_warnings(warnings, view):
    """The trace's warnings by kind: {"format": {image: (RenderDoc format, carried as)},
    "transfer": {call: count}, "dropped_draws": count, "per_draw": {what: count of draws},
    "other": [lines]}: a warning about events is about draws only where RenderDoc lists them all
    as draws."""
    draws = set(view.draws())
    kinds = {"format": {}, "transfer": {}, "dropped_draws": 0, "per_draw": {}, "other": []}
    for line in warnings:
        m = FORMAT_WARNING.fullmatch(line)
        if m:
            kinds["format"][m.group(1)] = (m.group(2), m.group(3))
            continue
        m = TRANSFER_WARNING.match(line)
        if m:
            kinds["transfer"][m.group(2)] = int(m.group(1))
            continue
        m, ids, what = EVENTS_WARNING.fullmatch(line), [], ""
        if m:
            ids, what, count = [int(i) for i in m.group(2).split(", ")], m.group(3), int(m.group(1))
        elif EVENT_WARNING.fullmatch(line):
            m = EVENT_WARNING.fullmatch(line)
            ids, what, count = [int(m.group(1))], m.group(2), 1
        if ids and set(ids) <= draws and "left out" in what:
            kinds["dropped_draws"] += count
        elif ids and set(ids) <= draws and count <= len(draws):
            kinds["per_draw"][what] = count  # what a draw RenderDoc lists does that is not carried
        else:
            kinds["other"].append(line)
    return kinds


class RealGamesTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="real_games_")
        cls.times = {}
        cls.rd = cls.display = None
        try:
            import renderdoc as rd
        except ImportError:
            return
        from rdcconv.common import Display, use_lavapipe
        use_lavapipe(os.environ)  # the replay here on lavapipe, as tools/capture and tools/rdc2trace
        cls.display = Display().__enter__()  # one Xvfb for the captures, the conversions and the views
        rd.InitialiseReplay(rd.GlobalEnvironment(), [])
        cls.rd = rd

    @classmethod
    def tearDownClass(cls):
        if cls.rd is not None:
            cls.rd.ShutdownReplay()
        if cls.display is not None:
            cls.display.__exit__(None, None, None)
        shutil.rmtree(cls.dir, ignore_errors=True)
        for name, t in cls.times.items():
            print(f"{name}: " + ", ".join(f"{k} {v}" for k, v in t.items()))

    def frame(self, name):
        """Captures, converts and simulates the game's frame: (trace, report, RenderDoc's view, trace folder)."""
        driver, program, frame, args, env_extra, files = GAMES[name]
        why = missing(program)
        if why:
            if os.environ.get("TBDR_REQUIRE_EXTERNAL"):
                raise AssertionError(f"{why} is missing")
            self.skipTest(f"{why} is missing")
        folder = os.path.join(self.dir, name)
        for path, text in files.items():
            os.makedirs(os.path.dirname(os.path.join(folder, path)), exist_ok=True)
            with open(os.path.join(folder, path), "w") as f:
                f.write(text)
        os.makedirs(folder, exist_ok=True)
        env = dict(os.environ, **{k: v.replace("{dir}", folder) for k, v in env_extra.items()})
        t = self.times.setdefault(name, {})
        start = time.monotonic()
        run([os.path.join(TOOLS, "capture"), program, "--frame", str(frame), "--timeout", "90",
             "--out", "frame.rdc", "--"] + args, folder, env)
        t["capture"] = f"{time.monotonic() - start:.1f} s"
        start = time.monotonic()
        trace_path = os.path.join(folder, "trace", "frame.json")
        run([os.path.join(TOOLS, "rdc2trace"), "frame.rdc", "-o", trace_path], folder)
        t["conversion"] = f"{time.monotonic() - start:.1f} s"
        report_path = os.path.join(folder, "run.json")
        run([TBDRSIM, "run", trace_path, "--preset", "reference", "--json", report_path, "--no-images", "--quiet"],
            folder)
        with open(trace_path) as f:
            trace = json.load(f)
        with open(report_path) as f:
            report = json.load(f)
        start = time.monotonic()
        view = RenderDocView(self.rd, os.path.join(folder, "frame.rdc"))
        self.addCleanup(view.close)
        self.assertEqual(view.driver, driver)
        t["renderdoc open"] = f"{time.monotonic() - start:.1f} s"
        return trace, report, view, os.path.dirname(trace_path)

    # ---- checks against RenderDoc's view ------------------------------------------------------

    def check_draws(self, trace, report, view, kinds):
        """Every draw RenderDoc lists is in the trace or counted in a warning that drops it; the
        report simulates as many as the trace carries."""
        names = [d["name"] for p in trace["frames"][0]["passes"] for s in p.get("subpasses", [])
                 for d in s.get("draws", [])]
        eids = [int(re.match(r"event_(\d+)", n).group(1)) for n in names]
        listed = view.draws()
        self.assertLessEqual(set(eids), set(listed), "trace draws RenderDoc does not list")
        self.assertEqual(len(eids) + kinds["dropped_draws"], len(listed),
                         f"RenderDoc lists {len(listed)} draws, the trace carries {len(eids)} and warns "
                         f"of {kinds['dropped_draws']} left out")
        self.assertEqual(report["frames"][0]["totals"]["draws"], len(eids))
        return len(listed)

    def check_transfers(self, trace, report, view, kinds):
        """Image copies and blits are passes of the trace, one per RenderDoc action; an OpenGL
        glGenerateMipmap is a chain of blits, level to next level, down to 1x1 from the size of
        the texture RenderDoc describes; every other action that moves data is counted, by call, in
        a warning."""
        f = self.rd.ActionFlags
        moves = [a for a in view.actions if a[2] & (f.Copy | f.Resolve)]
        image = [a for a in moves if a[1].startswith(IMAGE_TRANSFERS)]
        passes = [p for p in trace["frames"][0]["passes"] if p.get("type") in ("copy", "blit", "resolve")]
        mipmaps = view.flagged(f.GenMips) if view.driver != "Vulkan" else []
        chain = [p for p in passes if mipmaps and p["type"] == "blit" and p["src"]["image"] == p["dst"]["image"]
                 and p["dst"].get("mip", 0) == p["src"].get("mip", 0) + 1]
        starts = [view.texture(p["src"]["image"]) for p in chain if p["src"].get("mip", 0) == 0]
        self.assertEqual(len(starts), len(mipmaps), "one chain of blits per glGenerateMipmap")
        self.assertEqual(len(chain), sum(max(t.width, t.height).bit_length() - 1 for t in starts))
        self.assertEqual(len(passes) - len(chain), len(image), [a[1] for a in image])
        # What the transfers write: a mipmap chain's level m is (width >> m) x (height >> m) of
        # RenderDoc's texture; another transfer's bytes are taken from the report as they are.
        written = {p["name"]: p["dram"]["by_category"]["attachment_store"]["write_bytes"]
                   for p in report["frames"][0]["passes"]}
        stored = 0
        for p in passes:
            if p in chain:
                tex, mip = view.texture(p["dst"]["image"]), p["dst"]["mip"]
                level = max(1, tex.width >> mip) * max(1, tex.height >> mip)
                want = level * self.carried_bytes(p["dst"]["image"], trace, kinds)
                self.assertEqual(written[p["name"]], want, f"{p['name']}: level {mip} of {p['dst']['image']}")
            stored += written[p["name"]]
        others = {}
        for a in moves:
            if a not in image:
                call = a[1].split("(")[0]
                others[call] = others.get(call, 0) + 1
        for call, n in others.items():
            self.assertEqual(kinds["transfer"].get(call), n, f"{n} x {call} in RenderDoc's view, warnings {kinds}")
        for call, n in kinds["transfer"].items():
            self.assertEqual(n, len(view.named(call + "(")) + len([a for a in view.actions if a[1] == call]),
                             f"warning {n} x {call}")
        return stored

    def carried_bytes(self, image_name, trace, kinds):
        """Bytes per pixel of an image as RenderDoc describes it; the trace's own format's only
        where a warning says it was carried as another."""
        tex = self.view.texture(image_name)
        fmt = next(i["format"] for i in trace["images"] if i["name"] == image_name)
        rd_bytes = bytes_per_pixel(tex.format)
        if tex.format.Name() == "R8G8B8_UNORM" and tex.creationFlags & self.rd.TextureCategory.SwapBuffer:
            rd_bytes = 4  # a depth-24 X window: X11 lays its pixels out in 32 bits ("bits_per_pixel 32")
        if image_name in kinds["format"]:
            self.assertEqual(kinds["format"][image_name], (tex.format.Name(), fmt))
            return TRACE_BYTES[fmt]
        self.assertEqual(TRACE_BYTES[fmt], rd_bytes, f"{image_name}: RenderDoc {tex.format.Name()}, trace {fmt}")
        return rd_bytes

    def check_vulkan_passes(self, trace, report, view, kinds):
        """One render pass per vkCmdBeginRenderPass / vkCmdBeginRendering; each attachment's load
        and store bytes as RenderDoc names the pass's load and store ops (`vkCmdEndRenderPass(C=Store,
        DS=Don't Care)`): width x height x bytes per pixel of its texture."""
        begins = view.render_passes()
        ends = [a for a in view.flagged(self.rd.ActionFlags.EndPass)
                if not a[2] & self.rd.ActionFlags.CommandBufferBoundary]
        clears = view.named("vkCmdClearColorImage") + view.named("vkCmdClearDepthStencilImage")
        self.assertEqual(len(begins), len(ends))
        passes = [p for p in report["frames"][0]["passes"] if p["type"] == "render"]
        self.assertEqual(len(passes), len(begins) + len(clears))
        expected = {"load": 0, "store": 0}
        for p, begin, end in zip(passes, begins, ends):
            for a in p["attachments"]:
                tex = self.view.texture(a["image"])
                keys = ("D", "DS", "*") if a["format"] in DEPTH_FORMATS else ("C", "*")
                size = tex.width * tex.height * self.carried_bytes(a["image"], trace, kinds)
                for what, name, op in (("load", begin[1], "Load"), ("store", end[1], "Store")):
                    ops = vk_ops(name)
                    named = [ops[k] for k in keys if k in ops]
                    self.assertTrue(named, f"{name}: no op for {a['image']}")
                    want = size if named[0] == op else 0
                    self.assertEqual(a[f"{what}_bytes"], want, f"{p['name']} {a['image']} {what} ({name})")
                    expected[what] += want
        return len(begins) + len(clears), expected

    def check_gl_passes(self, trace, report, view, kinds):
        """One render pass per run of draws and clears into the same targets (RenderDoc's pipeline
        state at each), with those targets as its attachments; an attachment stored or loaded moves
        width x height x bytes per pixel, and the window's color image is stored."""
        spans = view.gl_spans()
        passes = [p for p in report["frames"][0]["passes"] if p["type"] == "render"]
        trace_passes = [p for p in trace["frames"][0]["passes"] if p.get("type", "render") == "render"]
        self.assertEqual(len(passes), len(spans), [s[0] for s in spans])
        expected = {"load": 0, "store": 0}
        for p, tp, (targets, eids) in zip(passes, trace_passes, spans):
            ids = {int(view.texture(a["image"]).resourceId) for a in p["attachments"]}
            self.assertEqual(ids, set(targets[0]) | ({targets[1]} if targets[1] is not None else set()), p["name"])
            draws = [int(d["name"].split("_")[1]) for s in tp.get("subpasses", []) for d in s.get("draws", [])]
            self.assertLessEqual(set(draws), set(eids), p["name"])
            for a in p["attachments"]:
                tex = self.view.texture(a["image"])
                size = tex.width * tex.height * self.carried_bytes(a["image"], trace, kinds)
                window = tex.creationFlags & self.rd.TextureCategory.SwapBuffer
                if window and a["image"].startswith("backbuffer_color"):
                    self.assertEqual(a["store_bytes"], size, f"{p['name']}: the window's color image is presented")
                for what in ("load", "store"):
                    self.assertIn(a[f"{what}_bytes"], (0, size), f"{p['name']} {a['image']} {what}")
                    expected[what] += a[f"{what}_bytes"]
        return len(spans), expected

    def check_textures(self, trace, folder, kinds):
        """Every material texture at RenderDoc's size (its level 0) and bytes per texel."""
        for t in trace.get("textures", []):
            tex = self.view.texture(t["name"])
            self.assertEqual(png_size(os.path.join(folder, t["file"])), (tex.width, tex.height), t["name"])
            rd_name = tex.format.Name()
            if rd_name.startswith(("BC", "ETC2", "ASTC")) or t["format"].startswith(("BC", "ETC2", "ASTC")):
                self.assertTrue(rd_name.startswith(t["format"].split("_")[0]), f"{t['name']}: {rd_name} as {t['format']}")
                continue
            warned = any(t["name"] in w for w in kinds["other"])
            if not warned:
                self.assertEqual(TEXTURE_BYTES[t["format"]], bytes_per_pixel(tex.format), f"{t['name']}: {rd_name}")
        return len(trace.get("textures", []))

    def check_frame(self, name):
        start = time.monotonic()
        trace, report, view, folder = self.frame(name)
        self.view = view
        kinds = classify_warnings(trace.get("warnings", []), view)
        self.assertEqual(kinds["other"], [], "warnings of a kind RenderDoc's view does not account for")
        self.assertEqual(report.get("warnings", []), trace.get("warnings", []), "run reports the trace's warnings")
        for image, (rd_format, carried) in kinds["format"].items():
            self.assertEqual(self.view.texture(image).format.Name(), rd_format, image)
        draws = self.check_draws(trace, report, view, kinds)
        transfers = self.check_transfers(trace, report, view, kinds)
        if view.driver == "Vulkan":
            passes, moved = self.check_vulkan_passes(trace, report, view, kinds)
        else:
            passes, moved = self.check_gl_passes(trace, report, view, kinds)
        dram = report["frames"][0]["totals"]["dram"]["by_category"]
        self.assertEqual(dram["attachment_store"]["write_bytes"], moved["store"] + transfers)
        self.assertEqual(dram["attachment_load"]["read_bytes"], moved["load"])
        textures = self.check_textures(trace, folder, kinds)
        t = self.times[name]
        t["test"] = f"{time.monotonic() - start:.1f} s"
        t["frame"] = (f"{view.driver} frame {GAMES[name][2]}: {passes} render passes, {draws} draws, "
                      f"{textures} textures, stores {moved['store']:,} B, loads {moved['load']:,} B, "
                      f"{len(trace.get('warnings', []))} warnings")

    def test_gles_supertux(self):
        self.check_frame("supertux_gles")

    def test_gl_core_supertuxkart(self):
        self.check_frame("supertuxkart_gl")

    def test_vulkan_warzone2100(self):
        self.check_frame("warzone2100_vulkan")

    def test_d3d12_vkd3d_gears(self):
        self.check_frame("vkd3d_gears")


if __name__ == "__main__":
    unittest.main(verbosity=2)
