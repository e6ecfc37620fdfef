# Command line of tools/rdc2trace: parses FILE.rdc ... -o OUT.json, converts every capture in one
# replay session under the crash supervisor (common.supervised), then writes all the traces or none.
"""usage: tools/rdc2trace FILE.rdc -o DIR/TRACE.json
       tools/rdc2trace FILE.rdc FILE2.rdc ... -o DIR/{name}.json
       tools/rdc2trace --sequence FRAME1.rdc FRAME2.rdc ... -o DIR/TRACE.json

Several captures are converted in one process (RenderDoc's replay starts once: each further capture
opens in about a third of the first one's time), each into the -o name with {name} replaced by the
capture's file name less .rdc; either every trace is written or none. --sequence: the captures are
consecutive frames of one run of a program (tools/capture --frame 2,3,4 --out f_{frame}.rdc), in
order, converted into ONE trace of that many frames sharing its images, textures and buffers (one
resource of the program is one of the trace; a swapchain's images are one image of `swapchain` N).
Writes DIR/TRACE.json (DIR is created), DIR/TRACE.bin (clip-space positions and indices of every draw)
and DIR/TRACE_captured/ (PNG: material textures, every attachment at its pass's last draw, referenced by the trace as
ATTACHMENT `contents` with "captured": true, and final_<image>.png, each stored image at the end of
the frame, for comparison with the images `tbdrsim run` writes). Needs Debian's /usr/bin/python3
(python3-renderdoc) and a display: without DISPLAY a private Xvfb is started. What the trace cannot
carry is listed in its `warnings` and on stderr, one line per kind (a kind met at several events:
their count and first event ids). A Vulkan frame whose draws are slow to replay is converted by
worker processes as well, each replaying its share of the draws (the outputs are the same byte for
byte): TBDR_CONVERT_JOBS=N sets how many (default: one per CPU; 1: none). The replay that reads the
draws rasterizes nothing (Mesa's LP_NO_RAST: RenderDoc replays the frame from its start at every
draw, and skipping the pixels makes that cheap); the pixels the trace carries come from a second,
rasterizing replay, so the files are those of one rasterizing replay byte for byte
(TBDR_CONVERT_RASTER=all: one replay that rasterizes, as a frame of a few draws may prefer).
"""
import importlib
import os
import shutil
import stat
import sys
import time

from .common import Display, RasterNeeded, ToolError, fail, note, supervised, use_lavapipe, warn
from .pixels import start_no_rast

PROGRAM = "rdc2trace"
# What a conversion imports besides RenderDoc's module (numpy and the converter: a second or more on
# a loaded machine): main() imports them while the private Xvfb starts.
CONVERTER_MODULES = ("numpy", ".opengl", ".vulkan", ".replay", ".trace_writer")


def convert_one(rd, rdc, out_json, prepare=None, final=True, finish=None):
    """Replays one capture: (its converter, holding the files to write, and the trace). A frame of a
    sequence (sequence.convert_sequence): prepare(converter) before it converts, its final images
    saved only when `final`, and finish(converter, passes) in place of the trace."""
    from .pixels import PixelReader
    from .replay import last_event, read_capture
    from .split import plan_split
    note(f"{rdc}: opening the capture for replay")
    reader = PixelReader(rdc) if os.environ.get("LP_NO_RAST") else None  # it opens the capture meanwhile
    opening = time.process_time()
    try:
        cap, controller, api = read_capture(rd, rdc)
    except BaseException:
        if reader is not None:
            reader.stop()
        raise
    open_s = time.process_time() - opening
    conv = None
    try:
        note(f"{rdc}: reading its resources")
        conv = new_converter(rd, controller, out_json, api)
        conv.rdc, conv.pixel_reader = rdc, reader
        if prepare is not None:
            prepare(conv)
        plan_split(rd, conv, rdc, open_s)
        passes = conv.convert()
        if final:
            conv.save_final_images(last_event(controller))
        return conv, (finish(conv, passes) if finish is not None else conv.trace(passes))
    except BaseException as e:
        if conv is not None:
            e.converter_at = conv.at
            if conv.tmp is not None:
                shutil.rmtree(conv.tmp, ignore_errors=True)
        raise
    finally:
        if conv is not None and conv.workers is not None:
            conv.workers.stop()
        if reader is not None:
            reader.stop()
        controller.Shutdown()
        cap.Shutdown()


def new_converter(rd, controller, out_json, api):
    from .opengl import GLConverter
    from .vulkan import Converter
    return Converter(rd, controller, out_json) if api == "Vulkan" else GLConverter(rd, controller, out_json, api)


def convert_one_named(rd, rdc, out_json, **frame):
    """convert_one, with a failure it does not foresee reported as one line naming the capture."""
    try:
        return convert_one(rd, rdc, out_json, **frame)
    except (ToolError, RasterNeeded):  # RasterNeeded: the supervisor converts again, rasterizing
        raise
    except Exception as e:  # a capture this converter does not understand: still one line, nothing written
        if os.environ.get("TBDR_DEBUG"):
            raise
        at = getattr(e, "converter_at", "opening it")
        raise ToolError(f"{rdc}: {at}: not understood by the converter ({type(e).__name__}: {e}); "
                        "TBDR_DEBUG=1 shows the traceback")


def check_capture_file(rdc):
    """One line on what keeps `rdc` from being read as a capture: RenderDoc opens only a regular file
    it can seek in (a folder, a named pipe or a device is named as such, before anything is opened)."""
    try:
        mode = os.stat(rdc).st_mode
    except FileNotFoundError:
        raise ToolError(f"{rdc}: no such file")
    except OSError as e:
        raise ToolError(f"{rdc}: cannot be examined ({e.strerror})")
    kinds = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISCHR, "a device"),
             (stat.S_ISBLK, "a device"), (stat.S_ISSOCK, "a socket"))
    for test, kind in kinds:
        if test(mode):
            raise ToolError(f"{rdc}: is {kind}, not a capture file: give the .rdc file RenderDoc wrote")
    if not stat.S_ISREG(mode):
        raise ToolError(f"{rdc}: is not a regular file, not a capture file: give the .rdc file RenderDoc wrote")
    if not os.access(rdc, os.R_OK):
        raise ToolError(f"{rdc}: cannot be read (permission denied)")


def convert_job(rd, job, convs):
    """One job of convert(): (converter, trace, trace path); `convs` gets every converter it made."""
    rdcs, out_json = job
    if isinstance(rdcs, str):
        conv, trace = convert_one_named(rd, rdcs, out_json)
        convs.append(conv)
        return conv, trace, out_json
    from .sequence import convert_sequence

    def frame(rdc, prepare, final, finish):
        return convert_one_named(rd, rdc, out_json, prepare=prepare, final=final, finish=finish)
    conv, trace = convert_sequence(frame, rdcs, convs)
    return conv, trace, out_json


def convert(jobs):
    """Converts every (capture, trace path) of `jobs` in one replay session, then writes them all. A
    job's capture may be a list: the consecutive frames of one sequence (sequence.py)."""
    for rdcs, _ in jobs:
        for rdc in [rdcs] if isinstance(rdcs, str) else rdcs:
            check_capture_file(rdc)
    try:
        importlib.import_module("numpy")  # the converter's arrays
    except ImportError:
        raise ToolError("numpy is missing: install python3-numpy")
    from .trace_writer import write_outputs
    try:
        import renderdoc as rd
    except ImportError:
        raise ToolError("the renderdoc module is missing: run with Debian's /usr/bin/python3 "
                        "(package python3-renderdoc)")
    use_lavapipe(os.environ)
    done, convs = [], []
    try:
        with Display():
            rd.InitialiseReplay(rd.GlobalEnvironment(), [])
            start_no_rast(os.environ)
            try:
                for job in jobs:
                    done.append(convert_job(rd, job, convs))
            finally:
                rd.ShutdownReplay()
        for conv, trace, out_json in done:
            write_outputs(conv, trace, out_json)
    finally:
        for conv in convs:
            if conv.tmp is not None:
                shutil.rmtree(conv.tmp, ignore_errors=True)
    return [(out_json, trace) for _, trace, out_json in done]


def parse_jobs(args):
    """FILE.rdc ... -o OUT.json: (capture, trace path) pairs; several captures need {name} in OUT.
    --sequence FILE.rdc FILE2.rdc ... -o OUT.json: one job, its capture the list of frames."""
    usage = ("usage: tools/rdc2trace FILE.rdc [FILE2.rdc ...] -o DIR/TRACE.json (several: DIR/{name}.json)\n"
             "       tools/rdc2trace --sequence FRAME1.rdc FRAME2.rdc ... -o DIR/TRACE.json")
    if args[:1] == ["--sequence"]:
        if len(args) < 5 or args[-2] != "-o" or not args[-1].endswith(".json") or "-o" in args[1:-2]:
            raise ToolError(usage if len(args) >= 5 or "-o" not in args else
                            "--sequence needs at least two captures, the frames in order")
        return [(args[1:-2], args[-1])]
    if len(args) < 3 or args[-2] != "-o" or not args[-1].endswith(".json") or "-o" in args[:-2]:
        raise ToolError(usage)
    inputs, out = args[:-2], args[-1]
    if len(inputs) == 1:
        return [(inputs[0], out)]
    if "{name}" not in out:
        raise ToolError(f"-o {out}: several captures need {{name}} in the trace's name (-o DIR/{{name}}.json)")
    names = [os.path.basename(rdc)[:-4] if rdc.endswith(".rdc") else os.path.basename(rdc) for rdc in inputs]
    if len(set(names)) != len(names):
        raise ToolError(f"-o {out}: two captures have the same file name")
    return [(rdc, out.replace("{name}", name)) for rdc, name in zip(inputs, names)]


def main():
    args = sys.argv[1:]
    if any(a in ("-h", "--help") for a in args):
        print(__doc__)
        return
    try:
        jobs = parse_jobs(args)
        for rdcs, _ in jobs:
            for rdc in [rdcs] if isinstance(rdcs, str) else rdcs:
                check_capture_file(rdc)
        display = Display().start()  # the private Xvfb comes up (a second or two) while ...
    except ToolError as e:
        fail(PROGRAM, e)
    preload_modules()  # ... the converter's modules load
    try:
        display.wait()
    except ToolError as e:
        fail(PROGRAM, e)

    def work():
        results = convert(jobs)  # says in one line when numpy or RenderDoc's module is missing
        from .trace_writer import summary
        for out_json, trace in results:
            for w in trace["warnings"]:
                warn(PROGRAM, f"{out_json}: {w}" if len(results) > 1 else w)
            print(summary(out_json, trace))
    with display:  # stopped on every exit; the supervised runs share it
        supervised(PROGRAM, work)


def preload_modules():
    """Imports CONVERTER_MODULES; one that is missing is reported by convert(), in the supervised run."""
    for name in CONVERTER_MODULES:
        try:
            importlib.import_module(name, __package__)
        except ImportError:
            pass
