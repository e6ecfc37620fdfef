#!/usr/bin/env python3
# ctest `json_schemas`: every bundled trace and tests/data/lines_points.json satisfy
# traces/schema/trace.schema.json, the reports of the small bundled traces (reference, mali-g710 and
# adreno-a740) satisfy traces/schema/report.schema.json,
# `advise --all --json -` of two of them satisfies traces/schema/advice.schema.json, every bundled preset
# satisfies preset.schema.json (its implementations and parameters those `tbdrsim models --json` lists),
# a sweep's and a shard's sweep.json and results.json satisfy sweep.schema.json and
# sweep_results.schema.json, and the schemas refuse an unknown key, as the reader does
# (python3-jsonschema, Draft 2020-12).
import copy
import glob
import json
import os
import subprocess
import sys
import tempfile

import jsonschema


def validator(source_dir, name):
    with open(os.path.join(source_dir, "traces", "schema", name)) as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def problems(validator, document):
    return ["/".join(map(str, e.absolute_path)) + ": " + e.message[:200] for e in validator.iter_errors(document)]


def tbdrsim_json(tbdrsim, args, what, failures):
    """`tbdrsim ARGS --json -`'s document, None (and a failure) when it exits non-zero."""
    run = subprocess.run([tbdrsim] + args + ["--json", "-"], capture_output=True, text=True)
    if run.returncode != 0:
        failures.append(f"{what}: tbdrsim exit {run.returncode}: {run.stderr.strip()}")
        return None
    return json.loads(run.stdout)


def advice_failures(tbdrsim, source_dir):
    """advise --all: findings that save and ones that change nothing (load_store_ops), a report without an
    edit is not among them; the schema refuses a finding that costs listed as recommended, and an unknown key."""
    schema, failures, advice = validator(source_dir, "advice.schema.json"), [], None
    for name in ("features/load_store_ops.json", "savers/hud_undefined.json"):
        path = os.path.join(source_dir, "traces", name)
        document = tbdrsim_json(tbdrsim, ["advise", path, "--preset", "mali-g76", "--all", "--threads", "2"], "advise " + name, failures)
        if document is None:
            continue
        failures += [f"advise {name}: {p}" for p in problems(schema, document)[:3]]
        advice = advice or (document if document["findings"] and document.get("not_worth_it") else None)
    if advice is None:
        return failures + ["advise: no output with both a recommended finding and one not worth it"]
    costing = copy.deepcopy(advice)
    costing["findings"][0]["verdict"] = "costs"
    if not problems(schema, costing):
        failures.append("advice.schema.json accepts a finding that costs among the recommended ones")
    no_warnings = copy.deepcopy(advice)
    del no_warnings["warnings"]
    if not problems(schema, no_warnings):
        failures.append("advice.schema.json accepts advice without its warnings")
    unknown = copy.deepcopy(advice)
    unknown["not_worth_it"][0]["extra"] = 1
    if not problems(schema, unknown):
        failures.append("advice.schema.json accepts an unknown key in a finding")
    return failures


def preset_failures(tbdrsim, source_dir):
    """Every bundled preset against preset.schema.json and against `models --json`: each kind's
    implementation is one tbdrsim has, each parameter one that implementation declares."""
    schema, failures = validator(source_dir, "preset.schema.json"), []
    models = tbdrsim_json(tbdrsim, ["models"], "models", failures)
    if models is None:
        return failures
    declared = {k["kind"]: {i["name"]: {p["name"] for p in i["parameters"]} for i in k["implementations"]}
                for k in models["kinds"]}
    kinds_in_schema = set(schema.schema["properties"]["models"]["propertyNames"]["enum"])
    if kinds_in_schema != set(declared):
        failures.append(f"preset.schema.json's kinds {sorted(kinds_in_schema)} are not models --json's {sorted(declared)}")
    presets = sorted(glob.glob(os.path.join(source_dir, "models", "presets", "*.json")))
    for path in presets:
        with open(path) as f:
            preset = json.load(f)
        failures += [f"{path}: {p}" for p in problems(schema, preset)[:3]]
        for kind, body in preset.get("models", {}).items():
            impl = body.get("impl")
            if impl not in declared.get(kind, {}):
                failures.append(f"{path}: {kind}={impl} is no implementation models --json lists")
                continue
            failures += [f"{path}: {kind}.{p} is no parameter of {kind}={impl}"
                         for p in body if p != "impl" and p not in declared[kind][impl]]
    if len(presets) != len(models["presets"]):
        failures.append(f"{len(presets)} preset files, models --json lists {len(models['presets'])}")
    bad = copy.deepcopy(models["presets"][0])
    bad["extends"] = "reference"
    if not problems(schema, bad):
        failures.append("preset.schema.json accepts an unknown key")
    bad = copy.deepcopy(models["presets"][0])
    bad["models"]["no_such_kind"] = {"impl": "x"}
    if not problems(schema, bad):
        failures.append("preset.schema.json accepts an unknown kind")
    return failures


def sweep_failures(tbdrsim, source_dir):
    """A small sweep, unsharded and as shard 1 of 2: sweep.json and results.json against their schemas;
    every row's keys among the columns; an unknown key and a pass row without its pass refused."""
    fingerprint, results, failures = validator(source_dir, "sweep.schema.json"), validator(source_dir, "sweep_results.schema.json"), []
    trace = os.path.join(source_dir, "traces", "default", "scene.json")
    with tempfile.TemporaryDirectory(prefix="tbdrsim-schema-") as tmp:
        document = None
        for name, shard in (("all", []), ("shard", ["--shard", "1/2"])):
            out = os.path.join(tmp, name)
            run = subprocess.run([tbdrsim, "sweep", trace, "--vary", "tile=16x16,32x32", "--vary", "dram.bytes_per_cycle=8,16",
                                  "-j", "2", "--quiet", "--out", out] + shard, capture_output=True, text=True)
            if run.returncode != 0:
                failures.append(f"sweep {name}: tbdrsim exit {run.returncode}: {run.stderr.strip()}")
                continue
            with open(os.path.join(out, "sweep.json")) as f:
                failures += [f"sweep {name} sweep.json: {p}" for p in problems(fingerprint, json.load(f))[:3]]
            with open(os.path.join(out, "results.json")) as f:
                document = json.load(f)
            failures += [f"sweep {name} results.json: {p}" for p in problems(results, document)[:3]]
            columns = set(document["columns"])
            failures += [f"sweep {name} results.json: row {i} has keys outside the columns"
                         for i, row in enumerate(document["rows"]) if not set(row) <= columns][:3]
    if document is None:
        return failures
    bad = copy.deepcopy(document)
    bad["extra"] = 1
    if not problems(results, bad):
        failures.append("sweep_results.schema.json accepts an unknown key")
    bad = copy.deepcopy(document)
    pass_row = next(r for r in bad["rows"] if r["row"] == "pass")
    del pass_row["pass"]
    if not problems(results, bad):
        failures.append("sweep_results.schema.json accepts a pass row without its pass")
    return failures


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: schema_test.py TBDRSIM SOURCE_DIR")
    tbdrsim, source_dir = sys.argv[1:]
    traces_schema, report_schema = validator(source_dir, "trace.schema.json"), validator(source_dir, "report.schema.json")
    failures = []
    traces = sorted(f for f in glob.glob(os.path.join(source_dir, "traces", "**", "*.json"), recursive=True)
                    if os.sep + "schema" + os.sep not in f)
    # Lines and points, which no bundled trace draws (tests/sim_lines_test.cpp, tests/refrender_test.cpp).
    for path in traces + [os.path.join(source_dir, "tests", "data", "lines_points.json")]:
        with open(path) as f:
            failures += [f"{path}: {p}" for p in problems(traces_schema, json.load(f))[:3]]
    small = [t for t in traces if any(os.sep + d + os.sep in t for d in ("default", "features", "savers"))]
    report = None
    for path in small:
        for preset in ("reference", "mali-g710", "adreno-a740"):
            document = tbdrsim_json(tbdrsim, ["run", path, "--preset", preset, "--no-images", "--threads", "2"],
                                    f"{path} ({preset})", failures)
            if document is None:
                continue
            report = document
            failures += [f"{path} ({preset}) report: {p}" for p in problems(report_schema, report)[:3]]
    # binning=hierarchical adds each hardware pass's tile_list_levels (traces/README.md).
    run = subprocess.run([tbdrsim, "run", "--set", "binning=hierarchical", "--no-images", "--json", "-"],
                         capture_output=True, text=True)
    levels = json.loads(run.stdout)["frames"][0]["passes"][0]["hardware_passes"][0].get("tile_list_levels") if run.returncode == 0 else None
    if not levels:
        failures.append(f"binning=hierarchical: no tile_list_levels in the default trace's report ({run.stderr.strip()})")
    else:
        failures += [f"binning=hierarchical report: {p}" for p in problems(report_schema, json.loads(run.stdout))[:3]]
    # The schemas are strict: an unknown key anywhere is refused, as traces/README.md says of traces.
    with open(traces[0]) as f:
        trace = json.load(f)
    trace["frames"][0]["extra"] = 1
    if not problems(traces_schema, trace):
        failures.append("trace.schema.json accepts an unknown key in a frame")
    bad_report = copy.deepcopy(report)
    bad_report["frames"][0]["passes"][0]["dram"]["by_category"]["tile_list"]["read_bytes"] = -1
    if not problems(report_schema, bad_report):
        failures.append("report.schema.json accepts negative bytes")
    # The present timeline and power (models/README.md "display", "power"): a mode Vulkan does not
    # name, a frame without its present record and a power block without watts are refused.
    for edit, what in ((lambda r: r["totals"]["present"].update(mode="vsync"), "an unknown present mode"),
                       (lambda r: r["frames"][0].pop("present"), "a frame without its present record"),
                       (lambda r: r["totals"]["power"].pop("watts"), "a power block without watts")):
        bad_report = copy.deepcopy(report)
        edit(bad_report)
        if not problems(report_schema, bad_report):
            failures.append("report.schema.json accepts " + what)
    failures += advice_failures(tbdrsim, source_dir)
    failures += preset_failures(tbdrsim, source_dir)
    failures += sweep_failures(tbdrsim, source_dir)
    for failure in failures:
        print("schema_test: FAIL:", failure, file=sys.stderr)
    print(f"schema_test: {len(traces)} traces, {2 * len(small)} reports checked")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
