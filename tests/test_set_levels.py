"""Set-valued levels: level="jaccard" and level="masi" in alpha, kappa_x, normalized.

Checked three ways: the distances against nltk and against the formulas written
here; alpha, kappa_x and normalized kappa_x against the naive pair loops of
tests/naive.py run with those formulas (random set-valued data, missing
annotations, several replications); alpha against nltk's AnnotationTask. Real
multi-label data: test_set_levels_varierr.py; the long layout, the canonical
form, nominal on set cells, dask and bad input: test_set_levels_inputs.py.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from nltk.metrics.agreement import AnnotationTask
from nltk.metrics.distance import jaccard_distance, masi_distance

import xrr_accessor as xa
from xrr_accessor.engine.levels import set_distances

import naive
from helpers import assert_close_or_both_nan, quietly

# --- the formulas, written from their definitions ----------------------------------


def d_jaccard(a: frozenset, b: frozenset) -> float:
    """1 - |A n B| / |A u B|."""
    return 1.0 - len(a & b) / len(a | b)


def d_masi(a: frozenset, b: frozenset) -> float:
    """Passonneau (2006): 1 - J * M, M = 1 equal, 2/3 subset, 1/3 overlap, 0 disjoint."""
    if a == b:
        m = 1.0
    elif a <= b or b <= a:
        m = 2 / 3
    elif a & b:
        m = 1 / 3
    else:
        m = 0.0
    return 1.0 - len(a & b) / len(a | b) * m


NAIVE = {"jaccard": d_jaccard, "masi": d_masi}
NLTK = {"jaccard": jaccard_distance, "masi": masi_distance}
SET_LEVELS = ["jaccard", "masi"]
ALPHABET = "abcd"

label_sets = st.frozensets(st.sampled_from("abcdef"), min_size=1, max_size=6)


def _cell(labels: frozenset, kind: int, rng: np.random.Generator):
    """The same set as a list (shuffled), a tuple, a set or a frozenset."""
    order = list(labels)
    rng.shuffle(order)
    return [list(order), tuple(order), set(order), frozenset(order)][kind]


@st.composite
def set_frames(draw, min_reps: int = 1, max_reps: int = 3, max_items: int = 10,
               max_raters: int = 4, p_missing: float | None = None) -> pd.DataFrame:
    """item, rater, pool, tags: a random label set per annotation (any cell type),
    missing annotations (no row, or a NaN / None cell), items missing from pools."""
    n_items = draw(st.integers(1, max_items))
    n_raters = draw(st.integers(1, max_raters))
    n_reps = draw(st.integers(min_reps, max_reps))
    n_labels = draw(st.integers(1, len(ALPHABET)))
    if p_missing is None:
        p_missing = draw(st.sampled_from([0.0, 0.2, 0.5]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    rows = []
    for i in range(n_items):
        for r in range(n_raters):
            for p in range(n_reps):
                if (i, r) != (0, 0) and rng.random() < p_missing:
                    continue
                if (i, r) != (0, 0) and rng.random() < 0.1:
                    cell = [None, np.nan][int(rng.integers(2))]  # a missing cell
                else:
                    size = int(rng.integers(1, n_labels + 1))
                    labels = frozenset(rng.choice(list(ALPHABET[:n_labels]), size,
                                                  replace=False).tolist())
                    cell = _cell(labels, int(rng.integers(4)), rng)
                rows.append({"item": 100 + i, "rater": f"r{r}", "pool": f"P{p}",
                             "tags": cell})
    return pd.DataFrame(rows)


def scalar(result) -> float:
    """The one value of a labeled result (one label, one replication or pair)."""
    values = np.asarray(result, dtype=float).reshape(-1)
    assert values.size == 1
    return float(values[0])


def units(df: pd.DataFrame, pool: str) -> dict:
    """item -> list of frozensets of one pool (missing cells left out), plain Python."""
    out: dict = defaultdict(list)
    for item, p, cell in zip(df["item"], df["pool"], df["tags"], strict=True):
        if p == pool and isinstance(cell, list | tuple | set | frozenset):
            out[item].append(frozenset(cell))
    return dict(out)


# --- distances ---------------------------------------------------------------------


@pytest.mark.parametrize("level", SET_LEVELS)
@given(sets=st.lists(label_sets, min_size=1, max_size=12))
def test_distances_equal_nltk_and_the_formulas(level, sets):
    got = set_distances(sets, level)
    want_nltk = np.array([[NLTK[level](set(a), set(b)) for b in sets] for a in sets])
    want = np.array([[NAIVE[level](a, b) for b in sets] for a in sets])
    np.testing.assert_allclose(got, want_nltk, rtol=0, atol=1e-15)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-15)


def test_masi_weights_by_relation():
    """One pair per MASI case: equal, subset, overlap, disjoint (Passonneau's M)."""
    sets = [{"a", "b"}, {"a", "b"}, {"a", "b", "c", "d"}, {"b", "c"}, {"e"}]
    d = set_distances(sets, "masi")
    assert d[0, 1] == 0.0
    assert d[0, 2] == pytest.approx(1 - (2 / 4) * (2 / 3))
    assert d[0, 3] == pytest.approx(1 - (1 / 3) * (1 / 3))
    assert d[0, 4] == 1.0
    assert set_distances(sets, "jaccard")[0, 3] == pytest.approx(1 - 1 / 3)


# --- alpha, kappa_x, normalized against the naive pair loops -------------------------


@pytest.mark.parametrize("level", SET_LEVELS)
@given(df=set_frames())
def test_alpha_equals_naive(level, df):
    got, _ = quietly(xa.irr, df, level=level, replication="pool", labels=["tags"])
    got = got.loc["tags"]
    for pool in got.index:
        assert_close_or_both_nan(got[pool], naive.alpha(units(df, pool), NAIVE[level]))


@pytest.mark.parametrize("level", SET_LEVELS)
@given(df=set_frames(min_reps=2))
def test_kappa_x_and_normalized_equal_naive(level, df):
    kx, _ = quietly(xa.cross_kappa, df, level=level, replication="pool", labels=["tags"])
    norm, _ = quietly(xa.normalized, df, level=level, replication="pool", labels=["tags"])
    kx, norm = kx.loc["tags"], norm.loc["tags"]
    for (a, b), value in kx.items():
        x, y = units(df, a), units(df, b)
        assert_close_or_both_nan(value, naive.kappa_x(x, y, NAIVE[level]))
        want = naive.normalized_kappa_x(x, y, NAIVE[level])
        assert_close_or_both_nan(norm[(a, b)], want, tol=1e-9)


@pytest.mark.parametrize("level", SET_LEVELS)
@given(df=set_frames(max_reps=1, p_missing=0.0))
def test_iota_equals_naive(level, df):
    """Janson-Olsson iota (and Cohen's kappa for two raters) with a set distance."""
    df = df[df["tags"].map(lambda v: isinstance(v, list | tuple | set | frozenset))]
    wide = df.pivot(index="item", columns="rater", values="tags").dropna()
    assume(wide.shape[1] >= 2 and len(wide) >= 1)
    rows = [[frozenset(v) for v in row] for row in wide.to_numpy()]
    got, _ = quietly(xa.irr, df, metric="iota", level=level, labels=["tags"])
    assert_close_or_both_nan(scalar(got), naive.iota(rows, NAIVE[level]))


def test_intervals_with_a_set_level():
    rng = np.random.default_rng(2)
    cells = [sorted(rng.choice(list("abc"), int(rng.integers(1, 3)), replace=False))
             for _ in range(240)]
    df = pd.DataFrame({"item": np.repeat(np.arange(60), 4), "rater": np.tile([0, 1, 0, 1], 60),
                       "pool": np.tile(["A", "A", "B", "B"], 60), "tags": cells})
    point = xa.irr(df, level="masi").loc["tags"]
    analytic = xa.irr(df, level="masi", ci=0.95)
    assert analytic["estimate"].to_numpy() == pytest.approx(point.to_numpy())
    assert (analytic["lower"] < analytic["estimate"]).all()
    kx = scalar(xa.cross_kappa(df, level="masi"))
    boot = xa.cross_kappa(df, level="masi", ci=0.95, n_boot=50, seed=0, progress=False)
    assert float(boot["estimate"].iloc[0]) == pytest.approx(kx)
    assert float(boot["lower"].iloc[0]) < kx < float(boot["upper"].iloc[0])


@given(df=set_frames(min_reps=2, max_reps=2))
def test_summary_and_report_carry_the_set_level(df):
    table, _ = quietly(xa.summary, df, level="masi", replication="pool", labels=["tags"])
    assert table.attrs["level"] == "masi"
    for pool in ("P0", "P1"):
        assert_close_or_both_nan(table[("irr", pool, "")].iloc[0],
                                 naive.alpha(units(df, pool), d_masi))
    x, y = units(df, "P0"), units(df, "P1")
    assert_close_or_both_nan(table[("kappa_x", "P0", "P1")].iloc[0],
                             naive.kappa_x(x, y, d_masi))
    rep, _ = quietly(xa.report, df, level="masi", irr="alpha", replication="pool",
                     labels=["tags"])
    row = rep.frame[(rep.frame["statistic"] == "kappa_x")].iloc[0]
    assert_close_or_both_nan(row["estimate"], naive.kappa_x(x, y, d_masi))


@given(df=set_frames(max_reps=1, max_raters=3))
def test_singletons_equal_nominal(df):
    """With one label per annotation, Jaccard and MASI are the nominal level."""
    cells = df["tags"].map(lambda v: [sorted(v)[0]] if isinstance(
        v, list | tuple | set | frozenset) else v)
    singles = df.assign(tags=cells.map(lambda v: v[0] if isinstance(v, list) else None))
    want, _ = quietly(xa.irr, singles, labels=["tags"])
    for level in SET_LEVELS:
        got, _ = quietly(xa.irr, df.assign(tags=cells), level=level, labels=["tags"])
        assert_close_or_both_nan(scalar(got), scalar(want))


def test_kappa_x_identity_with_a_copy():
    """1 - kappa_x(X, X) = ((m - 1)/m)(M/(M - 1))(1 - alpha_X), for any D (SPEC 3)."""
    rng = np.random.default_rng(7)
    n, m = 40, 3
    cells = [frozenset(rng.choice(list("abcde"), int(rng.integers(1, 4)), replace=False))
             for _ in range(n * m)]
    x = pd.DataFrame({"item": np.repeat(np.arange(n), m), "rater": np.tile(np.arange(m), n),
                      "tags": cells})
    for level in SET_LEVELS:
        alpha = scalar(xa.irr(x, level=level))
        kx = scalar(xa.cross_kappa(x, x.copy(), level=level))
        big_m = n * m
        assert 1 - kx == pytest.approx((m - 1) / m * big_m / (big_m - 1) * (1 - alpha))


# --- the peer: nltk's AnnotationTask ----------------------------------------------------


def _nltk_alpha(units_: dict, distance) -> float:
    data = [(f"c{k}", item, labels) for item, values in units_.items()
            for k, labels in enumerate(values)]
    return AnnotationTask(data=data, distance=distance).alpha()


@pytest.mark.parametrize("level", SET_LEVELS)
@given(df=set_frames(max_reps=1, max_items=12), complete=st.booleans())
def test_alpha_equals_nltk(level, df, complete):
    """nltk's alpha: items with one value left out (as ours), but 1.0 where only one
    distinct value is pairable (ours: NaN with a warning), so those draws are skipped.
    Its coders do not matter to alpha; each annotation gets its own slot here."""
    if complete:
        df = df[df["tags"].map(lambda v: isinstance(v, list | tuple | set | frozenset))]
        sizes = df.groupby("item").size()
        df = df[df["item"].isin(sizes[sizes == sizes.max()].index)]
    u = units(df, "P0")
    pairable = {v for values in u.values() if len(values) >= 2 for v in values}
    assume(len(pairable) >= 2)
    got = scalar(xa.irr(df, level=level, labels=["tags"]))
    assert got == pytest.approx(_nltk_alpha(u, NLTK[level]), abs=1e-12)
