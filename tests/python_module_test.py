# ctest `python_module` (pytest): the Python module tools/python/tbdrsim returns what the binary's JSON
# says (run, sweep, advise), applies --set in order, raises TbdrsimError with tbdrsim's exit status on
# bad input, gives a DataFrame with pandas, a list of dicts without, and removes the scratch folders
# of killed sweeps. TBDRSIM names the binary.
import json
import os
import subprocess
import sys
import tempfile

import pytest

import tbdrsim

SOURCE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LOAD_STORE = os.path.join(SOURCE_DIR, "traces", "features", "load_store_ops.json")


def cli_json(*args):
    done = subprocess.run([os.environ["TBDRSIM"], *args, "--json", "-"], capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def test_binary_is_the_one_named_by_TBDRSIM():
    assert tbdrsim.binary() == os.environ["TBDRSIM"]


def test_run_returns_the_json_report_of_the_command_line():
    report = tbdrsim.run(LOAD_STORE, preset="mali-g76", set={"tiling.width": 32, "tiling.height": 32})
    assert report == cli_json("run", LOAD_STORE, "--preset", "mali-g76", "--set", "tiling.width=32",
                              "--set", "tiling.height=32", "--no-images")
    assert report["config"]["tiling"]["params"]["width"] == 32
    assert report["tbdrsim"] == tbdrsim.version()


def test_set_is_applied_left_to_right():
    later_wins = tbdrsim.run(LOAD_STORE, set={"tiling": "fixed", "tiling.width": 64})
    assert later_wins["config"]["tiling"]["params"]["width"] == 64
    assert later_wins["totals"] != tbdrsim.run(LOAD_STORE)["totals"]


def test_bad_input_raises_with_the_exit_status_and_the_field():
    with pytest.raises(tbdrsim.TbdrsimError) as raised:
        tbdrsim.run(LOAD_STORE, set={"tiling.nonexistent_param": 1})
    assert raised.value.status == 2
    assert "nonexistent_param" in raised.value.message
    with pytest.raises(tbdrsim.TbdrsimError):
        tbdrsim.run(os.path.join(SOURCE_DIR, "no-such-trace.json"))


def sweep_totals(rows):
    """(tiling width, DRAM bytes read) of each configuration's total row, from a DataFrame or a list."""
    if not isinstance(rows, list):
        rows = rows.to_dict("records")
    return [(r["set.tiling.width"], r["dram.read_bytes"]) for r in rows if r["row"] == "total"]


def test_sweep_rows_equal_single_runs(monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)  # as if pandas were not installed: a list of dicts
    rows = tbdrsim.sweep(LOAD_STORE, preset="mali-g76", vary={"tiling.width": [16, 32]}, jobs=2)
    assert isinstance(rows, list) and rows and isinstance(rows[0], dict)
    expected = [(w, tbdrsim.run(LOAD_STORE, preset="mali-g76", set={"tiling.width": w})["totals"]["dram"]["read_bytes"])
                for w in (16, 32)]
    assert sweep_totals(rows) == expected


def test_sweep_gives_a_dataframe_with_pandas(tmp_path):
    pandas = pytest.importorskip("pandas")
    frame = tbdrsim.sweep([LOAD_STORE], vary={"tiling.width": [16, 32]}, out=tmp_path / "sweep")
    assert isinstance(frame, pandas.DataFrame)
    assert list(frame.columns[:2]) == ["trace", "config_index"]
    assert sorted(frame["set.tiling.width"].unique()) == [16, 32]
    assert (tmp_path / "sweep" / "results.csv").exists()  # out= keeps the sweep folder


def test_advise_returns_the_findings_of_the_command_line():
    advice = tbdrsim.advise(LOAD_STORE, preset="mali-g76", all=True, threads=2)
    assert advice["format"] == "tbdrsim-advice"
    assert advice == cli_json("advise", LOAD_STORE, "--preset", "mali-g76", "--fps", "60", "--all", "--threads", "2")
    assert advice["findings"], "load_store_ops has findings that save"


def test_sweep_scratch_folders_of_killed_runs_are_removed(monkeypatch, tmp_path):
    # A sweep without out= works in $TMPDIR/tbdrsim-python-PID-RANDOM; kill -9 skips its removal, so
    # the next sweep removes such folders whose process is gone (a PID above Linux's 2^22), others kept.
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    stale = tmp_path / "tbdrsim-python-99999999-abcd_123"
    live = tmp_path / f"tbdrsim-python-{os.getppid()}-abcdefgh"
    foreign = tmp_path / "tbdrsim-python-99999999-short"
    for folder in (stale, live, foreign):
        (folder / "sweep").mkdir(parents=True)
    (tmp_path / "victim").mkdir()
    (tmp_path / "tbdrsim-python-99999998-linkxxxx").symlink_to(tmp_path / "victim")
    monkeypatch.setitem(sys.modules, "pandas", None)
    assert tbdrsim.sweep(LOAD_STORE, vary={"tiling.width": [16]})
    assert not stale.exists()
    assert live.is_dir() and foreign.is_dir() and (tmp_path / "victim").is_dir()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [live.name, foreign.name, "victim", "tbdrsim-python-99999998-linkxxxx"])  # its own removed too
