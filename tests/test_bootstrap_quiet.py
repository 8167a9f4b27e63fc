"""A quiet, bounded bootstrap: bars only where a person watches, no resampling of
cells already NaN, and n_boot refused before allocating when it cannot fit."""

from __future__ import annotations

import fcntl
import os
import pty
import struct
import subprocess
import sys
import termios
import tracemalloc
import types
import warnings

import numpy as np
import pytest

import xrr_accessor as xrr
from xrr_accessor.coefficients import lookup
from xrr_accessor.datasets import simulate
from xrr_accessor.engine.pipeline import run
from xrr_accessor.errors import CostWarning, InputError, UndefinedWarning
from xrr_accessor.uncertainty import budget, resample

pytest.importorskip("tqdm")

#: A bootstrap with the bar threshold at 0 s: a bar whenever one may be shown.
BAR_SCRIPT = """
import warnings
warnings.simplefilter("ignore")
from xrr_accessor.uncertainty import resample
from xrr_accessor.datasets import simulate
resample.PROGRESS_AFTER = 0.0
df = simulate(n_items=200, labels=["joy"], pools=["A", "B"], seed=1)
df.xrr.cross_kappa(ci=0.9, n_boot=400, seed=1, progress={progress})
print("done")
"""


def _env() -> dict[str, str]:
    src = os.path.join(os.path.dirname(xrr.__file__), os.pardir)
    return {**os.environ, "PYTHONPATH": os.path.abspath(src)}


def _piped(progress: str) -> str:
    out = subprocess.run([sys.executable, "-c", BAR_SCRIPT.format(progress=progress)],
                         capture_output=True, text=True, check=True, env=_env())
    assert out.stdout.strip() == "done"
    return out.stderr


def test_no_bar_and_no_escape_codes_in_a_log():
    err = _piped("None")
    assert "bootstrap" not in err and "\r" not in err and "\x1b" not in err, err
    assert "bootstrap" in _piped("True")  # asked for, it is shown even in a log


def test_a_bar_on_a_terminal():
    main, child = pty.openpty()
    fcntl.ioctl(child, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))  # 80 columns
    proc = subprocess.Popen([sys.executable, "-c", BAR_SCRIPT.format(progress="None")],
                            stdout=subprocess.PIPE, stderr=child, env=_env())
    os.close(child)
    seen = b""
    while True:
        try:
            chunk = os.read(main, 4096)
        except OSError:  # the terminal closed with the process
            break
        if not chunk:
            break
        seen += chunk
    proc.wait(timeout=120)
    os.close(main)
    assert proc.returncode == 0
    assert b"bootstrap" in seen


def test_watched_in_a_notebook_not_in_a_pipe(monkeypatch):
    import io

    monkeypatch.setattr(sys, "stderr", io.StringIO())
    monkeypatch.delitem(sys.modules, "IPython", raising=False)
    assert not resample.watched()
    shell = type("ZMQInteractiveShell", (), {})()
    monkeypatch.setitem(sys.modules, "IPython",
                        types.SimpleNamespace(get_ipython=lambda: shell))
    assert resample.watched()
    terminal = type("TerminalInteractiveShell", (), {})()
    monkeypatch.setitem(sys.modules, "IPython",
                        types.SimpleNamespace(get_ipython=lambda: terminal))
    assert not resample.watched()  # IPython in a pipe is still a pipe


def _one_rater(n_items: int = 120):
    df = simulate(n_items=n_items, labels=["joy", "awe"], pools=["A", "B", "C"], seed=2)
    first = df[df["pool"] == "A"]["rater"].iloc[0]
    return df[(df["pool"] != "A") | (df["rater"] == first)]


def _counting(monkeypatch):
    from xrr_accessor.engine import draws

    calls = []
    columns = draws.columns  # the passes of the replicates go through draws.weighted_columns

    def counted(rows, meta, weight, *args, **kwargs):
        calls.append(weight.shape[1])
        return columns(rows, meta, weight, *args, **kwargs)

    monkeypatch.setattr(draws, "columns", counted)
    return calls


def test_replicate_pass_not_entered_when_every_cell_is_nan(monkeypatch):
    calls = _counting(monkeypatch)
    df = _one_rater()
    pool_a = df[df["pool"] == "A"]
    with pytest.warns(UndefinedWarning, match="no item has two or more ratings"):
        out = pool_a.xrr.irr(metric="scott", ci=0.95, seed=1)
    assert calls == []
    assert out[["estimate", "se", "lower", "upper"]].isna().all().all()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        df[df["pool"] == "B"].xrr.irr(metric="scott", ci=0.95, n_boot=100, seed=1)
    assert sum(calls) >= 100  # a defined cell is resampled (and counted)


def test_targets_nan_everywhere_are_not_finalized(monkeypatch):
    df = _one_rater()
    two = df[df["pool"].isin(["A", "B"])]
    norm, kx, alpha = (lookup("normalized_kappa_x", kind="cross"),
                       lookup("kappa_x", kind="cross"), lookup("alpha"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = run(two, [norm, kx, alpha])
    finalized = []
    real = resample._finalize

    def spy(arrays, run_, targets, n_cols):
        finalized.extend(t.key for t in targets)
        return real(arrays, run_, targets, n_cols)

    monkeypatch.setattr(resample, "_finalize", spy)
    targets = [resample.Target("kx", kx), resample.Target("norm", norm, {"irr": "alpha"})]
    reps = resample.replicate(r, targets, n_boot=64, seed=1, jackknife=True, threads=1)
    assert set(finalized) == {"kx"}
    assert np.isnan(reps.boot["norm"]).all() and reps.boot["norm"].shape[0] == 64
    assert np.isfinite(reps.boot["kx"]).any()
    assert reps.jack is not None and set(reps.jack) == {"kx", "norm"}


def test_nan_cells_have_nan_intervals_beside_defined_ones():
    df = _one_rater()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = df.xrr.irr(metric="scott", ci=0.9, n_boot=200, seed=1, interval="percentile")
    a = out.xs("A", level="replication")
    rest = out.drop(index="A", level="replication")
    assert a[["estimate", "se", "lower", "upper"]].isna().all().all()
    assert np.isfinite(rest[["estimate", "se", "lower", "upper"]].to_numpy()).all()


def test_huge_n_boot_refused_fast_without_allocating(monkeypatch):
    df = simulate(n_items=200, labels=["joy"], pools=["A", "B"], seed=1)

    def never(*args, **kwargs):
        raise AssertionError("the seeds were drawn before the bound was checked")

    from xrr_accessor.engine import draws

    monkeypatch.setattr(draws, "seeds", never)
    tracemalloc.start()
    try:
        with pytest.raises(InputError, match=r"n_boot=1,000,000,000 would need about "
                           r"[\d.]+ GiB of memory .* of memory available now"):
            df.xrr.cross_kappa(ci=0.95, n_boot=1_000_000_000)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 64 * 2**20  # the seeds alone would be 7.45 GiB


def test_limit_is_half_the_available_memory(monkeypatch):
    df = simulate(n_items=100, labels=["joy"], pools=["A", "B"], seed=1)
    costs = []
    estimate = budget.estimate

    def recorded(*args, **kwargs):
        costs.append(estimate(*args, **kwargs))
        return costs[-1]

    monkeypatch.setattr(budget, "estimate", recorded)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        df.xrr.cross_kappa(ci=0.9, n_boot=100, seed=1)
    need = costs[-1].bytes
    monkeypatch.setattr(budget, "available_memory", lambda: int(need / 0.5 * 0.99))
    with pytest.raises(InputError, match="more than 50% of the"):
        df.xrr.cross_kappa(ci=0.9, n_boot=100, seed=1)
    monkeypatch.setattr(budget, "available_memory", lambda: int(need / 0.5 * 1.01))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        df.xrr.cross_kappa(ci=0.9, n_boot=100, seed=1)


def test_large_runs_announced_with_the_estimate(monkeypatch):
    df = simulate(n_items=100, labels=["joy", "awe"], pools=["A", "B", "C"], seed=1)
    args = []
    estimate = budget.estimate

    def recorded(*a, **k):
        args.append(a)
        return estimate(*a, **k)

    monkeypatch.setattr(budget, "estimate", recorded)
    monkeypatch.setattr(budget, "ANNOUNCE_SECONDS", 0.0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        df.xrr.cross_kappa(ci=0.9, n_boot=100, seed=1)
    n_boot, n_annotations, cells, block, threads = args[-1]
    assert (n_boot, n_annotations, cells) == (100, 2 * len(df), 2 * 3)
    assert block == resample.BLOCK_BYTES and threads >= 1
    said = [str(w.message) for w in caught if w.category is CostWarning]
    assert said == [f"the bootstrap of n_boot=100 replicates will take "
                    f"{estimate(*args[-1]).describe()} (estimated); pass a smaller n_boot "
                    "for a quicker, rougher interval."]
    monkeypatch.setattr(budget, "ANNOUNCE_SECONDS", 1e9)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        df.xrr.cross_kappa(ci=0.9, n_boot=100, seed=1)
    assert not [w for w in caught if w.category is CostWarning]


def test_estimate_formula():
    cost = budget.estimate(1000, 50_000, 7, 2**20, 2)
    assert cost.bytes == 8 * 1000 * (1 + budget.COPIES * 7) + 2 * 2**20
    assert cost.seconds == pytest.approx(1000 * 50_000 * budget.SECONDS_PER_ANNOTATION / 2)
    assert budget.Cost(3 * 2**30, 90).describe() == "about 3.0 GiB of memory and 1.5 min"


def test_cli_refuses_a_huge_n_boot_in_shell_terms(tmp_path, capsys):
    from xrr_accessor.cli import main

    path = tmp_path / "two_pools.csv"
    simulate(n_items=100, labels=["joy"], pools=["A", "B"], seed=1).to_csv(path, index=False)
    assert main(["cross-kappa", str(path), "--ci", "0.95", "--n-boot", "1000000000"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("xrr: error: --n-boot 1000000000 would ")  # the CLI's own bound
    assert "GiB" in err and "memory available" in err and "Traceback" not in err
