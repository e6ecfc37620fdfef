"""Shared by tools/capture and rdc2trace: a private Xvfb display when none is set, the lavapipe
(Mesa CPU Vulkan) driver selection, the one-line error convention of the tbdrsim tools, and the
supervisor that turns a crash inside RenderDoc into such a line."""
import ctypes
import glob
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import traceback


class ToolError(Exception):
    """An input or environment problem: printed as one line, exit code 2, nothing written."""


def fail(program, error):
    print(f"{program}: error: {error}", file=sys.stderr)
    sys.exit(2)


def warn(program, message):
    print(f"{program}: warning: {message}", file=sys.stderr)


# A warning about one event starts "event EID: " or "event EID (CALL): ".
_EVENT_WARNING = re.compile(r"event (\d+)(?: \([^()]*\))?: (.+)", re.S)


def group_warnings(messages, shown=5):
    """One line per kind of warning: the messages that differ only in their leading event id (and
    call name) become one, "N events (EID, EID, ...): what", listing the first `shown` ids in event
    order; a kind met at one event, and every other message, stays as it was, in first-seen order."""
    events, order = {}, []
    for message in messages:
        match = _EVENT_WARNING.fullmatch(message)
        if match is None:
            order.append((message, None))
            continue
        what = match.group(2)
        if what not in events:
            events[what] = []
            order.append((message, what))
        events[what].append(int(match.group(1)))
    lines = []
    for message, what in order:
        ids = sorted(set(events.get(what, ())))
        if len(ids) < 2:
            lines.append(message)
            continue
        listed = ", ".join(str(i) for i in ids[:shown]) + (", ..." if len(ids) > shown else "")
        lines.append(f"{len(ids)} events ({listed}): {what}")
    return lines


def use_lavapipe(env):
    """Points the Vulkan loader at lavapipe only, so captures and replays are the same on every
    machine (Debian's mesa-vulkan-drivers installs lvp_icd.<arch>.json)."""
    icds = sorted(glob.glob("/usr/share/vulkan/icd.d/lvp_icd.*.json"))
    if not icds:
        raise ToolError("lavapipe is not installed (/usr/share/vulkan/icd.d/lvp_icd.*.json missing; "
                        "install mesa-vulkan-drivers)")
    env["VK_ICD_FILENAMES"] = icds[0]  # Vulkan loader 1.3.239 (Debian 12) reads this name
    env["VK_DRIVER_FILES"] = icds[0]   # and newer loaders this one


def _die_with_parent():
    # prctl(PR_SET_PDEATHSIG, SIGTERM): the Xvfb goes when the tool does, even if it is killed.
    ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)


class Display:
    """A context that makes sure DISPLAY names a running X server: the caller's if set, else a private Xvfb picked with -displayfd (no fixed number, so
    parallel tests cannot collide), stopped on exit. RenderDoc's replay needs a display even for
    offscreen work, and swapchain programs need a window."""

    def __init__(self, size="1280x1024x24"):
        self.size = size
        self.proc = None
        self.number_fd = None  # where the started Xvfb writes its display number (wait() reads it)

    def start(self):
        """Starts the private Xvfb when DISPLAY is not set, without waiting for it to come up (the
        caller may do other work meanwhile; wait() or entering the context waits)."""
        if os.environ.get("DISPLAY") or self.proc is not None:
            return self
        read_fd, write_fd = os.pipe()
        try:
            self.proc = subprocess.Popen(
                ["Xvfb", "-displayfd", str(write_fd), "-screen", "0", self.size, "-nolisten", "tcp"],
                pass_fds=(write_fd,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                preexec_fn=_die_with_parent)
        except FileNotFoundError:
            os.close(read_fd)
            raise ToolError("Xvfb is not installed (install xvfb) and DISPLAY is not set")
        finally:
            os.close(write_fd)
        self.number_fd = read_fd
        return self

    def wait(self):
        """Sets DISPLAY once the Xvfb of start() has said its display number."""
        if self.number_fd is None:
            return self
        number = b""
        with os.fdopen(self.number_fd, "rb") as pipe:
            self.number_fd = None
            while not number.endswith(b"\n"):
                byte = pipe.read(1)
                if not byte:
                    break
                number += byte
        if not number.strip():
            self.proc.kill()
            self.proc.wait()
            self.proc = None
            raise ToolError("Xvfb did not start")
        os.environ["DISPLAY"] = ":" + number.decode().strip()
        # SIGTERM (ctest's timeout, a CI cancel) unwinds through __exit__ like Ctrl-C does.
        signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
        return self

    def __enter__(self):
        return self.start().wait()

    def __exit__(self, *exc):
        if self.proc is not None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return False


# ---- supervised work --------------------------------------------------------------------------
# RenderDoc's replay can die of a signal inside a call (SaveTexture on real frames' textures: exit
# 139, no message), which no Python handler sees. The work runs in a forked child that notes, down a
# pipe, what it is about to ask RenderDoc and which temporary folders it made; the parent turns a
# death by signal into one line naming the last note, and removes the folders on every exit.
_notes = None
_skipped = set()  # keys of the steps a former run crashed in (the parent's, copied by fork)
MAX_SKIPPED = 16


def note(text, skip=None):
    """Child side: the step about to run (the parent's error line names the last one). `skip`: a
    key naming what the step reads; should the step crash, the work is run again with the key in
    skipped(), so that the caller leaves that one thing out (with a warning) instead of failing."""
    if _notes is not None:
        os.write(_notes, ("A" + text.replace("\n", " ") + "\n").encode("utf-8", "replace"))
        if skip:
            os.write(_notes, ("S" + skip + "\n").encode("utf-8", "replace"))


def skipped(key):
    """Child side: whether a former run crashed in the step noted with this key."""
    return key in _skipped


def private_temp_folder(prefix, parent=None):
    """A new folder PARENT/PREFIX-PID-RANDOM (PARENT: $TMPDIR by default) for this process's temporary
    files, after removing those of that prefix a killed run (kill -9) left: this user's real folders
    whose process is gone, as tbdrsim does with its own (README.md "Output files and input limits")."""
    parent = parent or tempfile.gettempdir()
    pattern = re.compile(re.escape(prefix) + r"-(\d{1,9})-[a-z0-9_]{8}")
    for name in os.listdir(parent):
        match = pattern.fullmatch(name)
        path = os.path.join(parent, name)
        if not match or int(match[1]) == os.getpid():
            continue
        st = os.lstat(path)
        if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.geteuid():
            continue
        try:
            os.kill(int(match[1]), 0)
        except ProcessLookupError:
            shutil.rmtree(path, ignore_errors=True)
        except PermissionError:  # alive, another user's process
            pass
    return tempfile.mkdtemp(prefix=f"{prefix}-{os.getpid()}-", dir=parent)


def note_temp(path):
    """Child side: a temporary folder the parent removes once the child is gone, however it ended."""
    if _notes is not None:
        os.write(_notes, ("T" + path + "\n").encode("utf-8", "replace"))


# The exit code of a child whose replay cannot do without rasterization (pixels.RasterNeeded): the
# supervisor runs it again with TBDR_CONVERT_RASTER=all.
RERUN_RASTERIZING = 75


class RasterNeeded(Exception):
    """What a replay without rasterization cannot read right (a vertex shader sampling textures)."""


def _child(program, work, write_fd):
    global _notes
    _notes = write_fd
    _die_with_parent()
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    code = 0
    try:
        work()
    except ToolError as e:
        print(f"{program}: error: {e}", file=sys.stderr)
        code = 2
    except RasterNeeded as e:
        if os.environ.get("TBDR_DEBUG"):
            print(f"{program}: {e}: converting again with one rasterizing replay", file=sys.stderr)
        code = RERUN_RASTERIZING
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 2)
    except KeyboardInterrupt:
        code = 128 + signal.SIGINT
    except Exception as e:  # a failure nobody foresaw: still one line (TBDR_DEBUG=1: the traceback)
        if os.environ.get("TBDR_DEBUG"):
            traceback.print_exc()
        print(f"{program}: error: {type(e).__name__}: {e}; TBDR_DEBUG=1 shows the traceback", file=sys.stderr)
        code = 2
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
    os._exit(code)


def supervised(program, work, attempts=2):
    """Runs work() in a child process and exits with its exit code. A child killed by a signal in
    a step noted with a skip key is run again with that key skipped (at most MAX_SKIPPED keys);
    one killed elsewhere is rerun (RenderDoc's replay has crashed now and then on a loaded machine)
    up to `attempts` runs in all, then reported as one line, exit code 2. SIGTERM and SIGINT reach
    the child, which unwinds through its cleanups; the parent removes what is left."""
    sys.stdout.flush()
    sys.stderr.flush()
    runs = crashes = 0
    while True:
        runs += 1
        read_fd, write_fd = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(read_fd)
            _child(program, work, write_fd)
        os.close(write_fd)

        def forward(signum, frame):
            try:
                os.kill(pid, signum)
            except ProcessLookupError:
                pass
        old = {s: signal.signal(s, forward) for s in (signal.SIGTERM, signal.SIGINT)}
        last, last_skip, temps = "", None, []
        try:
            with os.fdopen(read_fd, "rb") as pipe:
                for line in pipe:
                    text = line.decode("utf-8", "replace").rstrip("\n")
                    if text.startswith("A"):
                        last, last_skip = text[1:], None
                    elif text.startswith("S"):
                        last_skip = text[1:]
                    elif text.startswith("T"):
                        temps.append(text[1:])
            while True:
                try:
                    _, status = os.waitpid(pid, 0)
                    break
                except InterruptedError:
                    continue
        finally:
            for path in temps:
                shutil.rmtree(path, ignore_errors=True)
            for s, handler in old.items():
                signal.signal(s, handler)
        if os.WIFEXITED(status):
            if os.WEXITSTATUS(status) == RERUN_RASTERIZING and os.environ.get("TBDR_CONVERT_RASTER") != "all":
                os.environ["TBDR_CONVERT_RASTER"] = "all"
                continue
            sys.exit(os.WEXITSTATUS(status))
        signum = os.WTERMSIG(status)
        if signum in (signal.SIGTERM, signal.SIGINT, signal.SIGKILL):
            break
        if last_skip and last_skip not in _skipped and len(_skipped) < MAX_SKIPPED:
            _skipped.add(last_skip)
            continue
        crashes += 1
        if crashes == attempts:
            break
    name = signal.Signals(signum).name
    times = f", {runs} runs" if runs > 1 else ""
    fail(program, f"RenderDoc's replay crashed ({name}{times}){' while ' + last if last else ''}; nothing written")
