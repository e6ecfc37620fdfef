# Shared by tools/capture and tools/rdc2trace: a private Xvfb display when none is set, the lavapipe
# (Mesa CPU Vulkan) driver selection, and the one-line error convention of the tbdrsim tools.
import ctypes
import glob
import os
import signal
import subprocess
import sys


class ToolError(Exception):
    """An input or environment problem: printed as one line, exit code 2, nothing written."""


def fail(program, error):
    print(f"{program}: error: {error}", file=sys.stderr)
    sys.exit(2)


def warn(program, message):
    print(f"{program}: warning: {message}", file=sys.stderr)


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

    def __enter__(self):
        if os.environ.get("DISPLAY"):
            return self
        read_fd, write_fd = os.pipe()
        try:
            self.proc = subprocess.Popen(
                ["Xvfb", "-displayfd", str(write_fd), "-screen", "0", self.size, "-nolisten", "tcp"],
                pass_fds=(write_fd,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                preexec_fn=_die_with_parent)
        except FileNotFoundError:
            raise ToolError("Xvfb is not installed (install xvfb) and DISPLAY is not set")
        os.close(write_fd)
        number = b""
        with os.fdopen(read_fd, "rb") as pipe:
            while not number.endswith(b"\n"):
                byte = pipe.read(1)
                if not byte:
                    break
                number += byte
        if not number.strip():
            self.proc.kill()
            self.proc.wait()
            raise ToolError("Xvfb did not start")
        os.environ["DISPLAY"] = ":" + number.decode().strip()
        # SIGTERM (ctest's timeout, a CI cancel) unwinds through __exit__ like Ctrl-C does.
        signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
        return self

    def __exit__(self, *exc):
        if self.proc is not None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return False
