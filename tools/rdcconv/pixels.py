"""Replays without rasterization: the converter's own replay runs under Mesa's LP_NO_RAST, and the
attachments' pixels come from a second process that replays with rasterization (PixelReader)."""
import os
import pickle
import subprocess
import sys

# RenderDoc's SetFrameEvent replays the frame from its start (ReplayController::SetFrameEvent ->
# ReplayLog(0, event)), and llvmpipe and lavapipe rasterize every earlier draw again at the next
# synchronisation: the converter's one SetFrameEvent a draw made conversion quadratic in the draws
# (measured on a 169-draw Warzone 2100 frame: 3.5 s a draw, 440 s). With LP_NO_RAST (Mesa's llvmpipe
# debug option, read by lp_rast_create) the draws are set up, vertex-shaded and binned but no pixel
# is rasterized: what the converter reads per draw (pipeline state, post-vertex-shader data through
# transform feedback, buffers, the material textures no pass writes) does not depend on it. The same
# frame converts in 20 s that way. Only the attachments' pixels do: they are read by a process that
# rasterizes, one replay per event they are read at (a pass's last draw, the frame's end).
RASTER_ALL = "TBDR_CONVERT_RASTER"  # "all": one rasterizing replay for everything, as before
# Why not decide by the frame's draws (a frame of a few draws replays fast, where the reader's start,
# a second process opening the capture, costs more than it saves): counting them means reading the
# capture's chunks first, and RenderDoc numbers the OpenGL window's images anew at every read of a
# capture in a process, so the trace's image names would change with it.


def start_no_rast(environ=os.environ):
    """Sets LP_NO_RAST for the replays this process opens from now on (llvmpipe reads it when a replay's
    context is made; RenderDoc's OpenGL replay keeps its first one) unless TBDR_CONVERT_RASTER=all;
    whether it did."""
    if environ.get(RASTER_ALL, "") == "all":
        environ.pop("LP_NO_RAST", None)
        return False
    environ["LP_NO_RAST"] = "1"
    return True


class PixelReader:
    """A process replaying capture `rdc` with rasterization, reading levels of images at events as
    asked (an image named by its place in GetTextures(): RenderDoc numbers the OpenGL window's images
    anew each time a process opens a capture, so ids differ between this process and the reader): ask() sends a request at once (it replays while the converter goes on), get() waits for
    its bytes, None when the process failed (RenderDoc's replay died in it); save() has RenderDoc's
    SaveTexture write a PNG there (it decodes compressed formats by drawing them)."""

    # RenderDoc's replay has died now and then on a loaded machine in a call that passes when run
    # again (common.supervised runs a conversion again once): a reader that dies is started again
    # this many times, its unanswered requests sent anew.
    RESTARTS = 1

    def __init__(self, rdc):
        self.rdc, self.restarts = rdc, 0
        self.pending, self.results, self.failed = [], {}, False
        self.proc = self.start()

    def start(self):
        tools = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        code = f"import sys; sys.path.insert(0, {tools!r}); from rdcconv.pixels import reader_main; reader_main()"
        env = dict(os.environ)
        env.pop("LP_NO_RAST", None)
        from .split import _die_with_parent
        return subprocess.Popen([sys.executable, "-c", code, self.rdc], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                preexec_fn=_die_with_parent, env=env)

    def ask(self, key):
        """Requests (event, texture index, mip, layer) unless it is asked already."""
        self._send(("pixels",) + tuple(key))

    def get(self, key):
        return self._answer(("pixels",) + tuple(key))

    def save(self, eid, index, path):
        """SaveTexture of level 0 to `path` (PNG) at event `eid`: whether it wrote the file."""
        return bool(self._answer(("save", eid, index, path)))

    def _send(self, request):
        if self.failed or request in self.results or request in self.pending:
            return
        self.pending.append(request)
        self._write(request)

    def _write(self, request):
        try:
            pickle.dump(request, self.proc.stdin, protocol=pickle.HIGHEST_PROTOCOL)
            self.proc.stdin.flush()
        except OSError:
            pass  # the process is gone: _answer finds its output ended

    def _answer(self, request):
        self._send(request)
        while request not in self.results and self.pending and not self.failed:
            try:
                data = pickle.load(self.proc.stdout)
            except Exception:  # EOF: RenderDoc's replay died in the first pending request
                self._restart()
                continue
            self.results[self.pending.pop(0)] = data
        return self.results.pop(request, None)

    def _restart(self):
        self.stop()
        if self.restarts == self.RESTARTS:
            self.failed = True
            return
        self.restarts += 1
        self.proc = self.start()
        for request in self.pending:
            self._write(request)

    def stop(self):
        for stream in (self.proc.stdin, self.proc.stdout):
            try:
                stream.close()
            except OSError:
                pass
        self.proc.kill()
        self.proc.wait()


def answer(rd, controller, textures, request):
    """The reader's answer to one request, the replay standing at its event."""
    from .textures import level0_png
    kind, _, index = request[:3]
    if kind == "pixels":
        mip, layer = request[3:]
        return bytes(controller.GetTextureData(textures[index].resourceId, rd.Subresource(mip, layer, 0)))
    controller.SaveTexture(level0_png(rd, textures[index].resourceId), request[3])
    return os.path.isfile(request[3]) and os.path.getsize(request[3]) > 0


def reader_main():
    """The reader process: argv CAPTURE; reads requests (pickles) from stdin until its end and answers
    each on stdout, in order: ("pixels", event, texture index, mip, layer) with the level's bytes
    (GetTextureData), ("save", event, texture index, path) with whether SaveTexture wrote the PNG."""
    out = os.fdopen(os.dup(1), "wb")
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)  # anything RenderDoc prints goes nowhere, not into the answers
    os.close(devnull)
    requests = os.fdopen(0, "rb")
    import renderdoc as rd
    from .replay import read_capture
    rd.InitialiseReplay(rd.GlobalEnvironment(), [])
    cap, controller, _ = read_capture(rd, sys.argv[1])
    textures = list(controller.GetTextures())
    at = None
    while True:
        try:
            request = pickle.load(requests)
        except EOFError:
            break
        if request[1] != at:
            controller.SetFrameEvent(request[1], True)
            at = request[1]
        pickle.dump(answer(rd, controller, textures, request), out, protocol=pickle.HIGHEST_PROTOCOL)
        out.flush()
    os._exit(0)  # RenderDoc's replay is not shut down: the converter has what it asked for
