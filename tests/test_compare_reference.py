"""compare(reference=...): paired comparisons of the other replications on a reference,
a single-rater gold or a multi-rater pool. Each estimate equals the naive kappa_x
(Eq 9-11) and alpha differences; every row's p-value inverts its interval; the rows
leave out what a single-rater reference cannot have (an IRR)."""

from __future__ import annotations

import warnings
from itertools import combinations

import numpy as np
import pandas as pd
import pytest

import xrr_accessor as xa
from xrr_accessor.datasets import simulate
from xrr_accessor.errors import InputError, UndefinedWarning

import naive


@pytest.fixture(scope="module")
def pools() -> pd.DataFrame:
    """A crowd (3 raters per item), two models (one rater each) and a gold label."""
    crowd = simulate(n_items=300, labels=["joy", "awe"], pools=["crowd"], raters_per_item=3,
                     coverage=1.0, single_rate=0.0, seed=4)
    rng = np.random.default_rng(4)
    items = crowd.groupby("item_id")[["joy", "awe"]].mean()
    parts = [crowd]
    for name, noise in (("gold", 0.1), ("model_a", 0.2), ("model_b", 0.35)):
        flip = rng.random(items.shape) < noise
        vals = np.where(flip, 1 - (items.to_numpy() > 0.5), items.to_numpy() > 0.5)
        parts.append(pd.DataFrame({"item_id": items.index, "pool": name, "rater": name,
                                   "joy": vals[:, 0].astype(int),
                                   "awe": vals[:, 1].astype(int)}))
    return pd.concat(parts, ignore_index=True)


def units(df: pd.DataFrame, pool: str, label: str) -> dict:
    sub = df[df["pool"] == pool]
    return sub.groupby("item_id")[label].apply(list).to_dict()


def quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedWarning)
        return fn(*args, **kwargs)


@pytest.mark.parametrize("reference", ["gold", "crowd"])
def test_differences_against_a_reference_equal_the_naive_coefficients(pools, reference):
    out = quiet(xa.compare, pools, reference=reference, n_boot=200, seed=1)
    others = [p for p in ("crowd", "gold", "model_a", "model_b") if p != reference]
    for label in ("joy", "awe"):
        ref = units(pools, reference, label)
        kx = {p: naive.kappa_x(units(pools, p, label), ref) for p in others}
        rows = out[out["label"] == label].set_index(["comparison", "replication",
                                                     "replication_other"])
        for x, y in combinations(others, 2):
            got = rows.loc[("kappa_x(x, ref) - kappa_x(y, ref)", x, y), "estimate"]
            assert got == pytest.approx(kx[x] - kx[y], abs=1e-12)
        kinds = set(rows.index.get_level_values("comparison"))
        if reference == "gold":  # one rater: no IRR, only the kappa_x differences
            assert kinds == {"kappa_x(x, ref) - kappa_x(y, ref)"}
            assert "one rater" in out.attrs["note"]
        else:
            irr = naive.alpha(ref)
            for x in others:
                got = rows.loc[("kappa_x(x, ref) - irr_ref", x, reference), "estimate"]
                assert got == pytest.approx(kx[x] - irr, abs=1e-12)
                got = rows.loc[("kappa_x(x, ref) / irr_ref - 1", x, reference), "estimate"]
                assert got == pytest.approx(kx[x] / irr - 1, abs=1e-12)
    assert (out["reference"] == reference).all()
    assert out.attrs["reference"] == reference


@pytest.mark.parametrize("interval", ["bca", "percentile"])
@pytest.mark.parametrize("reference", ["gold", "crowd"])
def test_p_values_against_a_reference_invert_their_intervals(pools, interval, reference):
    checked = {True: 0, False: 0}
    for ci in (0.8, 0.95, 0.99):
        out = quiet(xa.compare, pools, reference=reference, n_boot=300, seed=2,
                    interval=interval, ci=ci)
        for r in out.itertuples():
            excludes = bool(r.lower > 0 or r.upper < 0)
            assert (r.p_value < 1 - ci) == excludes, (ci, r)
            checked[excludes] += 1
    assert checked[True] and checked[False]


def test_compare_reference_does_not_depend_on_row_order(pools):
    """The draws are keyed by item id: shuffled rows, the same seed, the same table."""
    out = quiet(xa.compare, pools, reference="gold", n_boot=200, seed=5,
                interval="percentile", labels=["joy"])
    again = quiet(xa.compare, pools.sample(frac=1.0, random_state=1), reference="gold",
                  n_boot=200, seed=5, interval="percentile", labels=["joy"])
    pd.testing.assert_frame_equal(out, again)


def test_compare_reference_errors(pools):
    with pytest.raises(InputError, match="reference='experts' is not a replication"):
        xa.compare(pools, reference="experts")
    one = pools[pools["pool"] == "crowd"]
    with pytest.raises(InputError, match="needs another replication"):
        xa.compare(one, reference="crowd", n_boot=50)
