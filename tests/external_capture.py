"""Helpers of the external tests that capture real programs with tools/capture and convert them with
tools/rdc2trace (tests/rdc_sequence_test.py, tests/real_games_test.py)."""
import os
import shutil
import subprocess


def missing(program):
    """What keeps a capture of `program` from running here (RenderDoc's Python module, the program,
    Xvfb), or None."""
    try:
        import renderdoc  # noqa: F401
    except ImportError:
        return "RenderDoc's Python module"
    for path in (program, shutil.which("Xvfb") or "/usr/bin/Xvfb"):
        if not os.path.exists(path):
            return path
    return None


def run(argv, cwd, env=None):
    """Runs `argv` in `cwd`; a non-zero exit fails the test with the end of its output."""
    r = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    if r.returncode != 0:
        raise AssertionError(f"{' '.join(argv)}: exit {r.returncode}\n{r.stdout[-3000:]}{r.stderr[-3000:]}")
    return r
