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
    assert "Fleiss' kappa, 5 raters" in capsys.readouterr().out
