# tbdrsim from Python: runs the tbdrsim binary (`run --json -`, `sweep`, `advise --json -`) and returns
# its JSON documents as Python values, so a sweep ends in a pandas DataFrame (tools/doc/python.md).
"""Script tbdrsim from Python.

    import tbdrsim
    report = tbdrsim.run(preset="mali-g76", set={"tiling.width": 32, "tiling.height": 32})
    report["totals"]["dram"]                       # the same figures as `tbdrsim run --json -`
    rows = tbdrsim.sweep(vary={"tiling.width": [16, 32, 64]}, preset="mali-g76")
    advice = tbdrsim.advise("traces/features/load_store_ops.json", preset="mali-g76")

The binary is the one named by the environment variable TBDRSIM, else the one installed beside this
module (PREFIX/bin/tbdrsim for PREFIX/lib/python3*/dist-packages/tbdrsim), else `tbdrsim` on PATH.
A non-zero exit raises TbdrsimError carrying tbdrsim's one-line message and its exit status
(2: bad input, 1: a failure).
"""
import json
import os
import re
import shutil
import stat
import subprocess
import tempfile
from pathlib import Path

__all__ = ["TbdrsimError", "binary", "version", "run", "sweep", "advise"]


class TbdrsimError(RuntimeError):
    """tbdrsim exited non-zero; `status` is its exit status, `message` its stderr."""

    def __init__(self, command, status, message):
        self.command, self.status, self.message = command, status, message
        super().__init__(f"tbdrsim {command} exited {status}: {message}")


def binary():
    """The path of the tbdrsim binary this module runs (see the module's documentation)."""
    named = os.environ.get("TBDRSIM")
    if named:
        return named
    here = Path(__file__).resolve()
    if len(here.parents) > 4 and here.parents[2].name.startswith("python3"):
        beside = here.parents[4] / "bin" / "tbdrsim"
        if os.access(beside, os.X_OK):
            return str(beside)
    found = shutil.which("tbdrsim")
    if found:
        return found
    raise FileNotFoundError("tbdrsim: no binary found: set TBDRSIM=/path/to/tbdrsim or put tbdrsim on PATH")


def _call(command, args):
    """tbdrsim COMMAND ARGS...; returns stdout, raises TbdrsimError on a non-zero exit."""
    done = subprocess.run([binary(), command] + [str(a) for a in args], capture_output=True, text=True)
    if done.returncode != 0:
        raise TbdrsimError(command, done.returncode, done.stderr.strip())
    return done.stdout


_SCRATCH_PREFIX = "tbdrsim-python"


def _scratch_folder():
    """A new folder $TMPDIR/tbdrsim-python-PID-RANDOM for a sweep without `out`, after removing those a
    killed Python (kill -9 skips the `with` that removes it) left: this user's real folders of that
    pattern whose process is gone, as the binary does with its own (tools/doc/cli.md "Output files and
    input limits")."""
    parent = tempfile.gettempdir()
    pattern = re.compile(re.escape(_SCRATCH_PREFIX) + r"-(\d{1,9})-[a-z0-9_]{8}")
    for name in os.listdir(parent):
        match = pattern.fullmatch(name)
        if not match or int(match[1]) == os.getpid():
            continue
        path = os.path.join(parent, name)
        try:
            st = os.lstat(path)
        except FileNotFoundError:  # another process removed it meanwhile
            continue
        if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.geteuid():
            continue
        try:
            os.kill(int(match[1]), 0)
        except ProcessLookupError:
            shutil.rmtree(path, ignore_errors=True)
        except PermissionError:  # alive, another user's process
            pass
    return tempfile.TemporaryDirectory(prefix=f"{_SCRATCH_PREFIX}-{os.getpid()}-")


def _value(value):
    """A value as tbdrsim reads it on the command line (booleans as true/false)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _assignment(key, value):
    """{"tiling.width": 32} -> "tiling.width=32"."""
    return f"{key}={_value(value)}"


def _configuration_args(preset, set, threads):
    args = ["--preset", preset]
    for key, value in (set or {}).items():  # applied left to right, as --set on the command line
        args += ["--set", _assignment(key, value)]
    if threads:
        args += ["--threads", threads]
    return args


def version():
    """{"version": "MAJOR.MINOR.PATCH", "commit": "..."} of the binary, as every report carries it
    (from `tbdrsim --version`: "tbdrsim 0.9.0 (commit 1a2b3c4d5e6f)")."""
    done = subprocess.run([binary(), "--version"], capture_output=True, text=True, check=True)
    match = re.fullmatch(r"tbdrsim (\S+) \(commit (.+)\)\n?", done.stdout)
    if not match:
        raise TbdrsimError("--version", 0, "unexpected output: " + done.stdout.strip())
    return {"version": match.group(1), "commit": match.group(2)}


def run(trace=None, preset="reference", set=None, threads=None, imr=False):
    """Simulates `trace` (default: the bundled scene) under `preset` with the `set` assignments
    ({"KIND": "IMPL", "KIND.PARAM": value}, in order) and returns the JSON report as a dict: the
    figures of `tbdrsim run --json -` (schema traces/schema/report.schema.json). Writes no images."""
    args = ([trace] if trace is not None else []) + _configuration_args(preset, set, threads)
    args += ["--no-images", "--json", "-"] + (["--imr"] if imr else [])
    return json.loads(_call("run", args))


def _rows(document):
    """A sweep's results.json as a pandas DataFrame (columns in the file's order) when pandas is
    installed, else as a list of dicts."""
    try:
        import pandas
    except ImportError:
        return document["rows"]
    return pandas.DataFrame(document["rows"], columns=document["columns"])


def sweep(traces=None, preset="reference", set=None, vary=None, out=None, jobs=None, reuse=True):
    """Simulates every configuration of the cartesian product of `vary` ({"KEY": [v1, v2, ...]}, the
    first key varying slowest) over `traces` (a path or a list; default: the bundled scene) and
    returns the rows of results.json: one per (trace, configuration) total and per pass, as a pandas
    DataFrame when pandas is installed, else a list of dicts. `out`: keep the sweep folder there
    (resumable); default: a temporary folder, removed afterwards."""
    if isinstance(traces, (str, os.PathLike)):
        traces = [traces]
    args = [str(t) for t in traces or []] + _configuration_args(preset, set, None)
    for key, values in (vary or {}).items():
        args += ["--vary", f"{key}={','.join(_value(v) for v in values)}"]
    if jobs:
        args += ["--jobs", jobs]
    if not reuse:
        args.append("--no-reuse")
    with _scratch_folder() as scratch:
        folder = Path(out) if out is not None else Path(scratch) / "sweep"
        _call("sweep", args + ["--quiet", "--out", folder])
        with open(folder / "results.json") as f:
            return _rows(json.load(f))


def advise(trace=None, preset="reference", fps=60, all=False, threads=None):
    """`tbdrsim advise --json -`: the findings for `trace` (default: the bundled scene), each fix priced
    under `preset`, as a dict (schema traces/schema/advice.schema.json). `all`: also the findings
    not worth it."""
    args = ([trace] if trace is not None else []) + ["--preset", preset, "--fps", fps, "--json", "-"]
    if all:
        args.append("--all")
    if threads:
        args += ["--threads", threads]
    return json.loads(_call("advise", args))
