"""Intervals on rater diagnostics (issue 21): ``rater_agreement(ci=...)``.

Each replicate is rebuilt here the literal way, by copying every item as many times as
its keyed Poisson draw says (new ids for the copies) and running the R separate naive
computations of ``test_diagnostics.naive_raters`` on the copy; the percentile interval
is their quantiles, and BCa's uses the naive leave-one-item-out values as its jackknife.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from test_diagnostics import naive_raters

import xrr_accessor as xrr
from xrr_accessor.engine.draws import Draws, item_keys
from xrr_accessor.uncertainty.intervals import limits

LEVEL = 0.9


def _frame(seed: int, n_items: int = 24, pools: tuple[str, ...] = ("P0",)) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 3, n_items)
    rows = [(f"t{i}", f"r{b}", pool, int(truth[i]) if rng.random() < 0.7
             else int(rng.integers(0, 3)))
            for pool in pools for i in range(n_items) for b in range(4)
            if rng.random() < 0.8]
    return pd.DataFrame(rows, columns=["item", "rater", "pool", "value"])


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def _scores(df: pd.DataFrame, level: str) -> dict[tuple, tuple[float, float]]:
    out = {}
    for key, row in naive_raters(df, level).items():
        out[key] = (row["kappa_x"], row["alpha_without"] - row["alpha"])
    return out


def _copied(df: pd.DataFrame, weight: dict[str, int]) -> pd.DataFrame:
    parts = [df[df["item"] == i].assign(item=f"{i}#{k}")
             for i, w in weight.items() for k in range(w)]
    return pd.concat(parts, ignore_index=True) if parts else df.iloc[:0]


def _naive_replicates(df, level, n_boot, seed):
    items = pd.Index(df["item"].unique())
    w = Draws.plan(len(items), n_boot, seed).weights(item_keys(items))
    keys = sorted(_scores(df, level))
    boot = np.full((n_boot, len(keys), 2), np.nan)
    for b in range(n_boot):
        copy = _copied(df, {i: int(w[k, b]) for k, i in enumerate(items)})
        got = _scores(copy, level) if len(copy) else {}
        for j, key in enumerate(keys):
            boot[b, j] = got.get(key, (math.nan, math.nan))
    return keys, boot


def _got(df, **kwargs) -> pd.DataFrame:
    out = _quiet(xrr.rater_agreement, df, ci=LEVEL, replication="pool", **kwargs)
    return out.reset_index().set_index(["replication", "rater"])


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval"])
def test_percentile_interval_is_the_quantiles_of_copied_items(level):
    df = _frame(1)
    keys, boot = _naive_replicates(df, level, n_boot=30, seed=7)
    got = _got(df, n_boot=30, seed=7, interval="percentile", level=level)
    checked = 0
    for j, key in enumerate(keys):
        for c, name in enumerate(("kappa_x", "delta_alpha")):
            v = boot[:, j, c]
            v = v[np.isfinite(v)]
            want = np.quantile(v, [(1 - LEVEL) / 2, (1 + LEVEL) / 2])
            row = got.loc[key]
            assert row[f"{name}_lower"] == pytest.approx(want[0], abs=1e-9), (key, name)
            assert row[f"{name}_upper"] == pytest.approx(want[1], abs=1e-9), (key, name)
            checked += 1
    assert checked == 2 * len(keys) == 8


def test_bca_uses_the_leave_one_item_out_jackknife():
    df = _frame(2, n_items=18)
    level = "nominal"
    keys, boot = _naive_replicates(df, level, n_boot=25, seed=4)
    est = _scores(df, level)
    items = list(df["item"].unique())
    jack = np.array([[_scores(df[df["item"] != i], level)[k] for k in keys] for i in items])
    got = _got(df, n_boot=25, seed=4, interval="bca", level=level)
    for c, name in enumerate(("kappa_x", "delta_alpha")):
        e = np.array([est[k][c] for k in keys])[None, :]
        lo, hi = limits(e, boot[:, None, :, c], LEVEL, "bca", jack[:, None, :, c])
        for j, key in enumerate(keys):
            assert got.loc[key, f"{name}_lower"] == pytest.approx(lo[0, j], abs=1e-9)
            assert got.loc[key, f"{name}_upper"] == pytest.approx(hi[0, j], abs=1e-9)
    inside = (got["kappa_x_lower"] <= got["kappa_x"]) & (got["kappa_x"] <= got["kappa_x_upper"])
    assert inside.all()


def test_draws_are_keyed_by_item_whatever_else_is_in_the_call():
    """Pool A's rater replicates are the same computed alone or beside pool B (items of B
    only, and B's raters, change nothing about them), so its percentile intervals are
    equal. (BCa's acceleration counts the items of the call: one more item, one more
    jackknife value.)"""
    both = _frame(3, pools=("A", "B"))
    both = both[~((both["pool"] == "B") & (both["item"] == "t0"))]
    extra = pd.DataFrame({"item": ["only_b"] * 3, "rater": ["r0", "r1", "r2"],
                          "pool": "B", "value": [0, 1, 1]})
    both = pd.concat([both, extra], ignore_index=True)
    alone = both[both["pool"] == "A"]
    cols = ["kappa_x_lower", "kappa_x_upper", "delta_alpha_lower", "delta_alpha_upper"]
    a = _got(alone, n_boot=40, seed=11, interval="percentile").loc["A", cols]
    b = _got(both, n_boot=40, seed=11, interval="percentile").loc["A", cols]
    pd.testing.assert_frame_equal(a.sort_index(), b.sort_index(), rtol=1e-12)


def test_attrs_say_how_and_no_ci_adds_no_columns():
    df = _frame(4)
    got = _quiet(xrr.rater_agreement, df, ci=0.95, n_boot=20, seed=0, replication="pool")
    assert {k: got.attrs[k] for k in ("ci", "method", "interval", "n_boot", "seed")} == {
        "ci": 0.95, "method": "bootstrap", "interval": "bca", "n_boot": 20, "seed": 0}
    plain = _quiet(xrr.rater_agreement, df, replication="pool")
    assert not [c for c in plain.columns if c.endswith(("_lower", "_upper"))]
    assert "ci" not in plain.attrs
    np.testing.assert_allclose(plain["kappa_x"], got["kappa_x"], rtol=1e-15)
    with pytest.raises(xrr.InputError, match="ci="):
        xrr.rater_agreement(df, ci=1.5, replication="pool")
    with pytest.raises(xrr.InputError, match="n_boot"):
        xrr.rater_agreement(df, ci=0.9, n_boot=1, replication="pool")


def test_cli_and_one_pool_report_carry_the_same_intervals(tmp_path, capsys):
    import io

    from xrr_accessor.cli import main

    df = _frame(5).drop(columns="pool")
    want = _quiet(xrr.rater_agreement, df, ci=0.95, n_boot=50, seed=2)
    df.to_csv(tmp_path / "pool.csv", index=False)
    assert main(["raters", str(tmp_path / "pool.csv"), "--ci", "0.95", "--n-boot", "50",
                 "--seed", "2", "--format", "csv"]) == 0
    got = pd.read_csv(io.StringIO(capsys.readouterr().out)).set_index("rater")
    for col in ("kappa_x", "kappa_x_lower", "kappa_x_upper", "delta_alpha_lower"):
        np.testing.assert_allclose(got.loc[want.index, col], want[col], rtol=1e-12)
    rep = _quiet(xrr.report, df, ci=0.95, n_boot=50, seed=2)
    np.testing.assert_allclose(rep.raters.loc[want.index, "kappa_x_upper"],
                               want["kappa_x_upper"], rtol=1e-12)


def test_raters_below_min_items_are_kept_counted_and_not_ranked():
    """Found by a new-user trial (CSC: every rater has 2-13 items): min_items above every
    rater returned an empty table. Now every rater keeps its row (with its interval),
    none is ranked, and the count says how many."""
    df = _frame(6)
    counts = df.groupby("rater").size()
    out = _quiet(xrr.rater_agreement, df, min_items=int(counts.max()) + 1, ci=0.9,
                 n_boot=10, seed=0, replication="pool")
    assert len(out) == len(counts) == out.attrs["n_below_min_items"]
    assert out["rank"].isna().all() and out["kappa_x_lower"].notna().any()
    cut = int(counts.sort_values().iloc[1]) + 1  # at least two raters below it
    out = _quiet(xrr.rater_agreement, df, min_items=cut, replication="pool")
    left = int((counts < cut).sum())
    assert len(out) == len(counts) and out.attrs["n_below_min_items"] == left
    assert int(out["rank"].isna().sum()) == left
    assert (out["n_annotations"][out["rank"].isna()] < cut).all()


def test_bca_needs_ten_items_as_everywhere_else():
    df = _frame(8, n_items=6)
    with pytest.raises(xrr.InputError, match="needs at least 10 items"):
        xrr.rater_agreement(df, ci=0.9, replication="pool")
    out = _quiet(xrr.rater_agreement, df, ci=0.9, n_boot=20, seed=0, interval="percentile",
                 replication="pool")
    assert "kappa_x_lower" in out.columns
