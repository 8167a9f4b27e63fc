"""The benchmark script runs (tiny sizes; it checks its own numbers, never wall time)."""

from __future__ import annotations

import runpy
from pathlib import Path


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
