"""The ``xrr`` command: demo output, summary of a CSV, one-line user errors."""

from __future__ import annotations

import subprocess
import sys

import pandas as pd

from xrr_accessor.cli import main
from xrr_accessor.datasets import load_demo


def test_demo_prints_table_5_layout(capsys):
    assert main(["demo", "--labels", "5"]) == 0
    out = capsys.readouterr().out
    for word in ("IRR of each replication", "kappa_x", "normalized", "Budapest x Kuala Lumpur",
                 "amusement"):
        assert word in out
    # the printed numbers are the library's numbers
    df = load_demo().iloc[:, :8]
    alpha = df.xrr.irr().loc["amusement", "Budapest"]
    assert f"{alpha:.3f}" in out


def test_summary_of_csv(tmp_path, capsys):
    path = tmp_path / "ann.csv"
    load_demo().iloc[:, :5].rename(columns={"pool": "city"}).to_csv(path, index=False)
    assert main(["summary", str(path), "--replication", "city", "--irr", "cohen"]) == 0
    assert "kappa_x" in capsys.readouterr().out


def test_user_errors_are_one_line_exit_2(tmp_path):
    path = tmp_path / "bad.csv"
    pd.DataFrame({"x": [1], "y": [2]}).to_csv(path, index=False)
    for args in (["summary", str(path)], ["summary", str(tmp_path / "missing.csv")]):
        proc = subprocess.run([sys.executable, "-m", "xrr_accessor", *args],
                              capture_output=True, text=True, timeout=120)
        assert proc.returncode == 2
        assert "Traceback" not in proc.stderr
        assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("xrr: error:")
