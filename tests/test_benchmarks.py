"""The benchmark script runs (tiny sizes; it checks its own numbers, never wall time)."""

from __future__ import annotations

import runpy
from pathlib import Path

import pytest

from helpers import thorough_only


@thorough_only
def test_benchmark_script_smoke(capsys):
    path = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_core.py"
    module = runpy.run_path(str(path))
    md = module["main"](["--quick"])
    assert "kappa_x, 31 labels x 3 pool pairs" in md
    assert "krippendorff" in md
    out = capsys.readouterr().out
    assert "Fleiss' kappa, 5 raters" in out
    assert "Cohen's kappa, 2 raters (Dataset variable)" in out
    # the engine rows and targets: floor kernel, Table 5, first call, module sizes
    assert "hand-written floor kernel" in md
    assert "summary(df, irr='cohen')" in md
    assert "First call in a fresh process" in md
    assert "Largest module under src/xrr_accessor" in md
    assert "statistics.py" in md


def test_reader_benchmark_runs_and_reads_every_choice():
    path = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_readers.py"
    module = runpy.run_path(str(path))
    lines = module["main"](["--n", "50"])
    assert [line.split(":")[0] for line in lines] == [
        "read_label_studio", "read_prodigy", "read_doccano", "read_mturk(multi_sep='|')"]
    for call in module["cases"](50).values():  # every distinct choice is one category
        assert call()["value"].nunique() == 50


def test_models_benchmark_runs_and_equals_its_naive_peer():
    path = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_models.py"
    module = runpy.run_path(str(path))
    md = module["main"](["--quick"])
    row = next(line for line in md.splitlines() if line.startswith("| alt_test, 200 humans"))
    assert row.rstrip(" |").endswith("yes")  # the same winning rates and advantage
    assert "plan_alt_test" in md and "ci=0.95" in md


@thorough_only
def test_speed_benchmark_rows_say_what_their_columns_claim():
    """bench_speed.py: each row's median, range and ratio are those of its timings, and a
    quick run covers every coefficient family against its peer (both sides agreeing)."""
    import re
    import statistics

    path = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_speed.py"
    module = runpy.run_path(str(path))
    row = {"benchmark": "x", "shape": "s", "layout": "long DataFrame",
           "ours": [0.002, 0.001, 0.004], "peer": "p", "theirs": [0.010, 0.006, 0.008]}
    cells = [c.strip() for c in module["_line"](row).strip("|").split("|")]
    assert cells[3] == "2.00 ms (1.00-4.00)"  # the median of the three runs, their range
    assert cells[5] == "8.00 ms (6.00-10.00)"
    assert cells[6] == f"**{statistics.median([10, 6, 8]) / 2:.1f}x**"  # medians' ratio
    slow = dict(row, theirs=[0.001, 0.001, 0.001])
    assert module["_line"](slow).endswith("| 0.50x (slower) |")
    rows = module["Rows"](1, 1)
    with pytest.raises(ValueError, match="needs value= and peer_value="):  # no unchecked peer
        rows.add("x", "s", "l", lambda: 1.0, "p", lambda: 1.0)
    with pytest.raises(AssertionError, match="ours"):  # a peer that differs stops the run
        rows.add("x", "s", "l", lambda: 1.0, "p", lambda: 1.1, float, float)
    rows.add("x", "s", "l", lambda: [1.0, 2.0], "p", lambda: (1.0, 2.0), list, list)
    assert len(rows.rows) == 1
    md = module["main"](["--quick"])
    header = md.splitlines()[0]
    assert "median (range)" in header and "speed-up (peer / ours, medians)" in header
    found = {line.split("|")[1].strip() for line in md.splitlines()[2:] if line.startswith("|")}
    for name in ("alpha, nominal", "alpha, ordinal", "alpha, interval", "Cohen's kappa",
                 "Fleiss' kappa", "ICC, all six forms", "alpha, masi (label sets)",
                 "item_disagreement (interval), whole table",
                 "alpha, ordinal, many distinct values"):
        assert name in found, name
    assert re.search(r"\| polars \|", md) and re.search(r"\| DataArray \|", md)
