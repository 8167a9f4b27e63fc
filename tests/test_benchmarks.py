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
