#!/usr/bin/env python3
"""Parameter-buffer overflow stress test (the param_buffer kind, models/README.md; ctest label `stress`).

Generates into the build folder (never committed) a 1920x1080 frame of 4,022,784 triangles of 50 px
(97 layers of a grid of 10x10-px cells, two triangles each, every layer shifted by a few pixels,
drawn front to back with a depth test), simulates it with `tbdrsim run --time` under
`--set param_buffer=fixed --set param_buffer.capacity=CAPACITY`, and checks that every triangle was
binned, that the pass flushed at least MIN_FLUSHES times and that the peak RSS stayed under
MAX_RSS_MIB (traces/README.md "Parameter buffer" records the measured figures).

usage: param_buffer_stress.py TBDRSIM FOLDER [--capacity B] [--min-flushes N] [--max-rss-mib M] [--unbounded]
--unbounded runs without the capacity (param_buffer=unbounded) and only prints, for the record.
"""
import argparse
import array
import json
import os
import re
import subprocess
import sys

WIDTH, HEIGHT = 1920, 1080
CELL = 10        # 10x10-pixel cells: two right triangles of 50 px each
LAYERS = 97      # 97 x 192 x 108 x 2 = 4,022,784 triangles


def generate(folder):
    """Writes stress.json + stress.bin (deterministic); returns (trace path, triangles)."""
    os.makedirs(folder, exist_ok=True)
    cols, rows = WIDTH // CELL, HEIGHT // CELL
    pos = array.array("f")
    for j in range(rows + 1):
        for i in range(cols + 1):
            pos.extend((-1.0 + 2.0 * i / cols, -1.0 + 2.0 * j / rows, 0.0))
    idx = array.array("I")
    stride = cols + 1
    for j in range(rows):
        for i in range(cols):
            a = j * stride + i
            idx.extend((a, a + 1, a + stride, a + 1, a + stride + 1, a + stride))
    if sys.byteorder != "little":
        pos.byteswap()
        idx.byteswap()
    blob = pos.tobytes() + idx.tobytes()
    draws = []
    for k in range(LAYERS):
        # Shift each layer by whole pixels (so cell edges fall differently on the tiles) and push
        # it further back: front to back, so the depth test rejects what is hidden.
        tx, ty, tz = 2.0 * ((3 * k) % CELL) / WIDTH, 2.0 * ((7 * k) % CELL) / HEIGHT, 0.1 + 0.8 * k / LAYERS
        draws.append({"mesh": "grid",
                      "transform": {"mvp": [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, tx, ty, tz, 1]},
                      "state": {"depth_test": True, "depth_write": True, "depth_compare": "less"},
                      "program": {"name": "flat", "params": {"color": [(k % 7) / 6.0, (k % 5) / 4.0, k / LAYERS, 1]}}})
    trace = {
        "format": "tbdrsim-trace", "version": 1, "name": "stress",
        "images": [
            {"name": "color", "format": "RGBA8", "width": WIDTH, "height": HEIGHT, "usage": ["color_attachment"]},
            {"name": "depth", "format": "D32F", "width": WIDTH, "height": HEIGHT,
             "usage": ["depth_stencil_attachment"], "transient": True},
        ],
        "meshes": [{"name": "grid", "index_bits": 32,
                    "positions": {"file": "stress.bin", "offset": 0, "count": len(pos)},
                    "indices": {"file": "stress.bin", "offset": len(pos) * 4, "count": len(idx)}}],
        "frames": [{"passes": [{
            "name": "layers",
            "attachments": [
                {"image": "color", "load": "clear", "store": "store", "clear": [0, 0, 0, 1]},
                {"image": "depth", "load": "clear", "store": "dont_care", "clear": {"depth": 1.0, "stencil": 0}},
            ],
            "subpasses": [{"color": [0], "depth": 1, "draws": draws}],
        }]}],
    }
    with open(os.path.join(folder, "stress.bin"), "wb") as f:
        f.write(blob)
    trace_path = os.path.join(folder, "stress.json")
    with open(trace_path, "w") as f:
        json.dump(trace, f)
    return trace_path, cols * rows * 2 * LAYERS


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("tbdrsim")
    ap.add_argument("folder")
    ap.add_argument("--capacity", type=int, default=33554432)
    ap.add_argument("--min-flushes", type=int, default=3)
    # The exact figures traces/README.md documents for this frame (0: not checked); they are the
    # same at every thread count.
    ap.add_argument("--expect-flushes", type=int, default=0)
    ap.add_argument("--expect-flush-store-bytes", type=int, default=0)
    ap.add_argument("--expect-tile-list-bytes", type=int, default=0)
    ap.add_argument("--max-rss-mib", type=float, default=0, help="0: no check")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--unbounded", action="store_true")
    a = ap.parse_args()
    trace, triangles = generate(a.folder)
    report = os.path.join(a.folder, "stress_report.json")
    config = ["--set", "param_buffer=unbounded"] if a.unbounded else \
        ["--set", "param_buffer=fixed", "--set", "param_buffer.capacity=%d" % a.capacity]
    cmd = [a.tbdrsim, "run", trace, "--no-images", "--quiet", "--time", "--threads", str(a.threads),
           "--json", report] + config
    p = subprocess.run(cmd, capture_output=True, text=True)
    m = re.search(r"simulate ([0-9.]+) s, peak RSS ([0-9.]+) MiB", p.stderr)
    if p.returncode != 0 or not m:
        sys.exit("stress: tbdrsim failed (exit %d): %s" % (p.returncode, p.stderr))
    seconds, rss = float(m.group(1)), float(m.group(2))
    with open(report) as f:
        pass_report = json.load(f)["frames"][0]["passes"][0]
    flushes = pass_report["param_buffer_flushes"]
    print("stress: %d triangles, %s, %d flushes (%d B stored, %d B reloaded), tile_list %d B written, "
          "simulate %.1f s, peak RSS %.1f MiB" %
          (triangles, "unbounded" if a.unbounded else "capacity %d B" % a.capacity, flushes,
           pass_report["param_buffer_flush_store_bytes"], pass_report["param_buffer_flush_load_bytes"],
           pass_report["dram"]["by_category"]["tile_list"]["write_bytes"], seconds, rss))
    failures = []
    if pass_report["primitives_in"] != triangles or pass_report["primitives"] != triangles:
        failures.append("expected %d triangles in and binned, got %d / %d" %
                        (triangles, pass_report["primitives_in"], pass_report["primitives"]))
    if not a.unbounded and flushes < a.min_flushes:
        failures.append("%d flushes, expected at least %d" % (flushes, a.min_flushes))
    expected = [("flushes", a.expect_flushes, flushes),
                ("bytes stored by flushes", a.expect_flush_store_bytes, pass_report["param_buffer_flush_store_bytes"]),
                ("bytes reloaded by flushes", a.expect_flush_store_bytes, pass_report["param_buffer_flush_load_bytes"]),
                ("tile_list bytes written", a.expect_tile_list_bytes,
                 pass_report["dram"]["by_category"]["tile_list"]["write_bytes"])]
    for name, want, got in expected:
        if want and got != want:
            failures.append("%s %d, documented %d" % (name, got, want))
    if a.max_rss_mib and rss > a.max_rss_mib:
        failures.append("peak RSS %.1f MiB above the documented %.0f MiB" % (rss, a.max_rss_mib))
    if failures:
        sys.exit("stress: FAILED: " + "; ".join(failures))


if __name__ == "__main__":
    main()
