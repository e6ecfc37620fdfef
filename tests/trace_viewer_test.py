#!/usr/bin/env python3
# The simulated schedule (`tbdrsim run --trace-events`) loaded by a real trace viewer that works offline:
# speedscope (npm, its built page dist/release/index.html, installed by tools/setup.sh) in headless
# Chromium, driven by tools/browser_drive.py. The 23-pass forward frame's file must load without an
# error, and the viewer must list every track that holds slices, under the name the file gives it.
#
# Usage: trace_viewer_test.py TBDRSIM SOURCE_DIR SPEEDSCOPE_DIR
# speedscope reads the Trace Event Format's complete ("X") events, one profile per (pid, tid) track,
# named "PROCESS (pid P), THREAD (tid T)" from the "M" metadata; counter ("C") tracks are Perfetto's to
# show (speedscope has no counters). Its command line loads a file through a script calling
# speedscope.loadFileFromBase64 (node_modules/speedscope/bin/cli.mjs), which this test writes itself.
import base64
import json
import os
import subprocess
import sys
import tempfile


def expected_track_titles(events):
    names = {(e["pid"], e.get("tid")): e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "thread_name"}
    process = {e["pid"]: e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "process_name"}
    tracks = sorted({(e["pid"], e["tid"]) for e in events if e["ph"] == "X"})
    return ["%s (pid %d), %s (tid %d)" % (process[pid], pid, names[(pid, tid)], tid) for pid, tid in tracks]


def main():
    tbdrsim, source, speedscope = sys.argv[1:4]
    page = os.path.join(speedscope, "dist", "release", "index.html")
    if not os.path.isfile(page):
        print("trace_viewer_test: speedscope is not installed at %s (tools/setup.sh installs it)" % speedscope)
        return 77 if os.environ.get("TBDR_REQUIRE_EXTERNAL") != "1" else 1
    with tempfile.TemporaryDirectory(prefix="tbdr-trace-viewer-") as work:
        trace_file = os.path.join(work, "forward.trace.json")
        subprocess.run([tbdrsim, "run", os.path.join(source, "traces", "seed002", "forward_baseline.json"),
                        "--preset", "mali-g710", "--no-images", "--quiet", "--trace-events", trace_file],
                       check=True, stdout=subprocess.DEVNULL)
        with open(trace_file, "rb") as f:
            raw = f.read()
        events = json.loads(raw)["traceEvents"]
        titles = expected_track_titles(events)
        loader = os.path.join(work, "load.js")
        with open(loader, "w") as f:
            f.write("speedscope.loadFileFromBase64(%s, %s)" % (json.dumps("forward.trace.json"), json.dumps(base64.b64encode(raw).decode())))
        # One title read a profile, "n" moving to the next (speedscope's keyboard shortcuts).
        title_js = "document.body.innerText.split('\\n').find(l => l.indexOf('(pid ') >= 0)"
        steps = [{"open": "file://%s#localProfilePath=%s" % (page, loader)},
                 {"wait": "document.title === 'forward.trace.json - speedscope'"}]
        for i in range(len(titles)):
            if i:
                steps.append({"key": "n"})
                steps.append({"wait": "(%s || '').indexOf('(%d/%d)') >= 0" % (title_js, i + 1, len(titles))})
            steps.append({"eval": title_js})
        steps_file = os.path.join(work, "steps.json")
        with open(steps_file, "w") as f:
            json.dump(steps, f)
        profile = os.path.join(work, "profile")
        os.mkdir(profile)
        driven = subprocess.run([sys.executable, os.path.join(source, "tools", "browser_drive.py"), steps_file, "--profile", profile],
                                capture_output=True, text=True, timeout=240)
        result = json.loads(driven.stdout)
        if driven.returncode != 0 or result["errors"]:
            print("trace_viewer_test: the viewer failed: %s %s" % (result.get("failed", ""), result["errors"]))
            return 1
        seen = [r for r in result["results"][2:] if isinstance(r, str) and "(pid " in r]
        wanted = ["%s (%d/%d)" % (t, i + 1, len(titles)) for i, t in enumerate(titles)]
        if seen != wanted:
            print("trace_viewer_test: the viewer's tracks differ from the file's:\n  seen   %s\n  wanted %s" % (seen, wanted))
            return 1
        slices = sum(1 for e in events if e["ph"] == "X")
        print("trace_viewer_test: speedscope loaded %d tracks (%d slices) of the 23-pass frame, each under its name" % (len(titles), slices))
    return 0


if __name__ == "__main__":
    sys.exit(main())
