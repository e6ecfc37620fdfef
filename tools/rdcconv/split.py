"""Replays split over processes: worker processes, each opening the capture, convert every Nth draw
of the frame and hand back each draw's effects; the parent converts the frame and takes each draw's
effects, in event order, from the worker that replayed it, so its outputs are byte for byte those of
one process (traces/README.md "Converter code and conversion time")."""
import os
import pickle
import shutil
import subprocess
import sys
import time


# A worker process's start: Python, numpy, RenderDoc's module and replay, the frame's chunks read
# (1 to 2 s of CPU measured on the corpus) besides opening the capture, which the parent times.
WORKER_START_S = 1.5


class Done:
    """A PNG a worker made, where the converter keeps futures (Textures.add_png)."""

    def __init__(self, data):
        self.data = data

    def result(self):
        return self.data


def draw_events(rd, controller):
    """The event ids of the frame's draws, in order."""
    out = []

    def walk(actions):
        for a in actions:
            if a.flags & rd.ActionFlags.Drawcall and not len(a.children):
                out.append(a.eventId)
            walk(a.children)
    walk(controller.GetRootActions())
    return out


def split_jobs(environ=os.environ):
    """How many workers: TBDR_CONVERT_JOBS (1: no split), else one per CPU."""
    value = environ.get("TBDR_CONVERT_JOBS", "")
    return int(value) if value.isdigit() and int(value) > 0 else (os.cpu_count() or 1)


class SplitPlan:
    """When to split a frame's conversion: the parent converts draws itself, timing each (CPU
    seconds), until the draws left, at the cost of the last one each (a replay runs from the frame's
    start: later draws cost more), would take much longer here than in `jobs` workers started now;
    then the workers convert the rest. A frame of cheap draws never starts one."""

    def __init__(self, rdc, events, jobs, open_s):
        self.rdc, self.events, self.jobs, self.open_s = rdc, events, jobs, open_s
        self.index = {eid: k for k, eid in enumerate(events)}

    def after(self, conv, eid, cost):
        """After the parent converted draw `eid` in `cost` s: the workers, or None for not yet."""
        rest = len(self.events) - self.index.get(eid, len(self.events)) - 1
        if rest < 2 * self.jobs:
            return None
        here = rest * cost
        split = self.open_s + WORKER_START_S + here / self.jobs
        if split >= 0.6 * here:
            return None
        if os.environ.get("TBDR_DEBUG"):
            print(f"rdc2trace: event {eid}: {rest} draws left at {cost:.3f} s each: {here:.1f} s here, "
                  f"{split:.1f} s in {self.jobs} workers", file=sys.stderr)
        conv.split_plan = None
        return Workers(conv, self.rdc, self.events, self.jobs, len(self.events) - rest)


def plan_split(rd, conv, rdc, open_s):
    """conv.split_plan (SplitPlan) for a Vulkan frame, or with TBDR_CONVERT_SPLIT=always (tests)
    workers from the first draw; neither with one job (TBDR_CONVERT_JOBS=1) or fewer than two draws.
    An OpenGL frame is not split unless asked: its parent replays every draw itself (the inference
    of its passes reads the framebuffer bound there), and measured on warzone_2100 (169 draws) the
    split doubled the CPU time (434 s against 217 s) for no gain in wall time on 2 cores."""
    events = draw_events(rd, conv.ctl)
    jobs = min(split_jobs(), len(events))
    if jobs < 2:
        return
    if os.environ.get("TBDR_CONVERT_SPLIT") == "always":
        conv.workers = Workers(conv, rdc, events, jobs, 0)
    elif getattr(conv, "api", "Vulkan") == "Vulkan":
        conv.split_plan = SplitPlan(rdc, events, jobs, open_s)


class Workers:
    """The parent's view of its workers: each converts the draws events[first:][index::count] and
    sends, down its stdout as it goes, each draw's record and the pixels it read (pickles, in event
    order), so the parent waits for one draw's worker only as long as that draw takes."""

    def __init__(self, conv, rdc, events, count, first):
        self.snapshots = conv.snapshots  # the pixels workers read, where finish_pass looks first
        self.owner = {eid: k % count for k, eid in enumerate(events[first:])}
        self.procs, self.records = {}, {}
        self.applied = self.here = 0  # draws taken from workers, converted by the parent
        tools = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        code = f"import sys; sys.path.insert(0, {tools!r}); from rdcconv.split import worker_main; worker_main()"
        # llvmpipe (under lavapipe too) rasterizes on one thread per CPU by default: the workers share
        # the CPUs instead of each starting as many (Mesa's LP_NUM_THREADS; the user's value is kept).
        env = dict(os.environ)
        env.setdefault("LP_NUM_THREADS", str(max(1, (os.cpu_count() or 1) // count)))
        # Workers rasterize (the parent may not, pixels.py): the pixels and textures they read are
        # those one rasterizing process reads.
        env.pop("LP_NO_RAST", None)
        for index in range(count):
            argv = [sys.executable, "-c", code, rdc, conv.out_json, conv.frame_tag, str(first), str(index), str(count)]
            self.procs[index] = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                                 stderr=subprocess.DEVNULL, preexec_fn=_die_with_parent, env=env)

    def receive(self, index):
        """The next message of worker `index` stored (False at its end: done, or failed)."""
        proc = self.procs.get(index)
        if proc is None:
            return False
        try:
            message = pickle.load(proc.stdout)
        except Exception:  # EOF or a message cut short: the worker is gone; its draws are converted here
            message = ("end",)
        if message[0] == "draw":
            self.records[message[1]] = message[2]
        elif message[0] == "pixels":
            self.snapshots[message[1]] = message[2]
        else:
            proc.stdout.close()
            proc.wait()
            del self.procs[index]
            return False
        return True

    def record(self, eid):
        """The effects of draw `eid` as its worker recorded them, waiting for them; None when the
        worker failed or left the draw to the parent."""
        index = self.owner.get(eid)
        while eid not in self.records and self.receive(index):
            pass
        return self.records.pop(eid, None)

    def drain(self):
        """Every message left (the pixels of the passes' last draws), the workers ended."""
        for index in list(self.procs):
            while self.receive(index):
                pass

    def stop(self):
        if os.environ.get("TBDR_DEBUG"):
            print(f"rdc2trace: split over {len(self.owner) and max(self.owner.values()) + 1} workers: "
                  f"{self.applied} draws from them, {self.here} converted by the parent", file=sys.stderr)
        for proc in self.procs.values():
            proc.kill()
            proc.stdout.close()
            proc.wait()
        self.procs = {}


def _die_with_parent():
    from .common import _die_with_parent as die
    die()


class SplitDraws:
    """The converter's side: draws handed to workers (parent) or recorded (worker)."""

    owned = None       # worker: the draw events it converts
    workers = None     # parent: Workers
    split_plan = None  # parent: SplitPlan, until it starts the workers

    def draw_event(self, p, eid, action):
        """A Vulkan draw: converted here, taken from its worker, or (a worker's draw of another
        worker) left out."""
        self.one_draw(p, eid, lambda: self.add_draw(p, eid, action))

    def finish_passes(self, passes):
        """The pixels the workers read are all in before the passes are finished."""
        if self.workers is not None:
            self.workers.drain()
        super().finish_passes(passes)

    def gl_draw_event(self, eid, action, name):
        """A GL draw: its span (the inference of the passes reads the replay's framebuffer at each
        draw) and the draw converted as draw_event. A worker neither replays nor infers at another
        worker's draws: its spans are not the frame's, but a draw's own conversion reads only the
        framebuffer bound at it (the trace images it sees are checked by the parent, apply_draw)."""
        if self.owned is not None and eid not in self.owned:
            return
        self.replay_to(eid)
        span, pipe = self.span_for(eid)
        self.one_draw(span, eid, lambda: self.add_gl_draw(span, eid, action, pipe, name))

    def one_draw(self, p, eid, convert):
        if self.owned is not None:
            p["_seen_draw"] = eid
            if eid in self.owned:
                self.records[eid] = record_draw(self, p, eid, convert)
            return
        record = self.workers.record(eid) if self.workers is not None else None
        if record is not None and apply_draw(self, p, eid, record):
            self.workers.applied += 1
            return
        if self.workers is not None:
            self.workers.here += 1
        start = time.process_time()
        convert()
        if self.split_plan is not None:
            self.workers = self.split_plan.after(self, eid, time.process_time() - start)


def bound_images(conv):
    """The resources bound read-only to the fragment stage, each with whether it is a trace image now
    (program() binds a trace image as an `image`, another as a material texture)."""
    ids = []
    for array in conv.ctl.GetPipelineState().GetReadOnlyResources(conv.rd.ShaderStage.Fragment):
        ids += [int(b.resourceId) for b in array.resources]
    return [(i, i in conv.trace_images) for i in ids]


def record_draw(conv, p, eid, convert):
    """Runs `convert` (the draw's conversion) at the draw's event and records its effects in order:
    warnings, material textures first met here (with their PNG and their own warnings), sidecar
    bytes; then the mesh and the draw it added."""
    conv.replay_to(eid)
    stream = []
    conv.recording = stream
    subpass = p["subpasses"][p["_subpass"]]["draws"] if p["_subpass"] < len(p["subpasses"]) else []
    draws, meshes = len(subpass), len(conv.meshes)
    checks = bound_images(conv)
    try:
        convert()
    finally:
        conv.recording = None
    return {"checks": checks, "stream": stream, "meshes": conv.meshes[meshes:],
            "draw": subpass[draws] if len(subpass) > draws else None}


def apply_draw(conv, p, eid, record):
    """The recorded effects of draw `eid` applied as its conversion here would have made them; False
    (nothing applied) when the worker saw other trace images than these bound ones."""
    if any((i in conv.trace_images) != known for i, known in record["checks"]):
        return False
    for entry in record["stream"]:
        if entry[0] == "warn":
            conv.warn(entry[1])
        elif entry[0] == "sidecar":
            _, raw, ref = entry
            while len(conv.bin) % 4:
                conv.bin.append(0)
            ref["offset"] = len(conv.bin)
            conv.bin += raw
        elif entry[1] not in conv.material:  # a texture: read by the first draw that samples it
            _, image_id, name, texture, data, warnings = entry
            conv.material[image_id] = name
            if name is not None:
                conv.trace_textures[image_id] = texture
                conv.files[texture["file"]] = Done(data)
            for w in warnings:
                conv.warn(w)
    conv.meshes += record["meshes"]
    if record["draw"] is not None:
        p["subpasses"][p["_subpass"]]["draws"].append(record["draw"])
        p["_last_draw"] = eid
        conv.fb_moved = False  # GL: as add_gl_draw
    return True


class Recorder:
    """A worker's converter, its effects recorded: warnings, sidecars and material textures go into
    the stream of the draw being converted (record_draw); the pixels of each pass's last draw are
    read while the replay stands there; no pass is finished here (the parent does)."""

    def __init__(self, conv, owned, sender):
        self.conv, self.sender, self.read = conv, sender, set()
        conv.owned, conv.records, conv.recording = owned, sender, None
        self.warn, self.sidecar, self.material_texture = conv.warn, conv.sidecar, conv.material_texture
        conv.warn, conv.sidecar, conv.material_texture = self.on_warn, self.on_sidecar, self.on_material_texture
        conv.keep_pixels = self.keep_pixels
        conv.finish_passes = lambda passes: None
        conv.dispatch_pass = lambda eid, name, action, index: {"name": f"dispatch{index}", "type": "compute"}

    def on_warn(self, message):
        if self.conv.recording is not None:
            self.conv.recording.append(("warn", message))
        else:
            self.warn(message)

    def on_sidecar(self, values, code):
        ref = self.sidecar(values, code)
        if self.conv.recording is not None:
            raw = bytes(self.conv.bin[ref["offset"]:])
            self.conv.recording.append(("sidecar", raw, ref))
        return ref

    def on_material_texture(self, image_id, where):
        conv = self.conv
        if image_id in conv.material or conv.recording is None:
            return self.material_texture(image_id, where)
        stream, conv.recording = conv.recording, []
        try:
            name = self.material_texture(image_id, where)
        finally:
            warnings, conv.recording = [w for _, w in conv.recording], stream
        texture = conv.trace_textures.get(image_id) if name is not None else None
        data = None
        if texture is not None:
            rel = texture["file"]
            if rel in conv.texture_files:
                with open(conv.texture_files[rel], "rb") as f:
                    data = f.read()
            else:
                data = conv.files[rel].result()
        stream.append(("texture", image_id, name, texture, data, warnings))
        return name

    def keep_pixels(self, p):
        """Vulkan: at a pass's end, its attachments at its last draw when this worker replayed it."""
        eid = p.get("_seen_draw")
        if eid is None or eid != self.conv.at_event:
            return
        for a in p["attachments"]:
            key = (eid, a["_image_id"], a["_mip"], a["_layer"])
            if key not in self.read and not self.conv.trace_images[a["_image_id"]].get("transient"):
                self.read.add(key)
                self.sender.send("pixels", key, self.conv.read_pixels(*key))


class Sender:
    """A worker's stdout as the stream of its messages to the parent (Workers.receive)."""

    def __init__(self):
        self.out = os.fdopen(os.dup(1), "wb")
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)  # anything else printed goes nowhere, not into the stream
        os.close(devnull)

    def send(self, *message):
        pickle.dump(message, self.out, protocol=pickle.HIGHEST_PROTOCOL)
        self.out.flush()

    def __setitem__(self, eid, record):  # conv.records[eid] = record (SplitDraws.one_draw)
        self.send("draw", eid, record)


def worker_main():
    """A worker process: argv CAPTURE TRACE.json FRAME_TAG FIRST INDEX COUNT: it converts the draws
    draw_events[FIRST:][INDEX::COUNT], sending each draw's record and the pixels it read as they come,
    then ("end",), exit 0; any failure ends the stream early and the parent converts the rest itself."""
    rdc, out_json, frame_tag, first, index, count = sys.argv[1:7]
    sender = Sender()
    import renderdoc as rd
    from .cli import new_converter
    from .replay import read_capture
    rd.InitialiseReplay(rd.GlobalEnvironment(), [])
    cap, controller, api = read_capture(rd, rdc)
    conv = new_converter(rd, controller, out_json, api)
    conv.rdc, conv.frame_tag = rdc, frame_tag
    events = draw_events(rd, controller)
    Recorder(conv, set(events[int(first):][int(index)::int(count)]), sender)
    if api != "Vulkan":
        conv.keep_pixels = lambda p: None  # the GL parent replays every draw and reads them itself
    try:
        conv.convert()
    finally:  # the PNGs RenderDoc's SaveTexture wrote here were sent with their draws
        if conv.tmp is not None:
            shutil.rmtree(conv.tmp, ignore_errors=True)
    sender.send("end")
    controller.Shutdown()
    cap.Shutdown()
    os._exit(0)  # RenderDoc's replay is not shut down: the parent has what it needs
