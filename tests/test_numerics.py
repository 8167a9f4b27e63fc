"""Numerical robustness: counts and float64 sums far past 2^31 annotations.

Synthetic statistics (not data): a few items carrying billions of annotations
each, fed to the statistics pass as rows with a multiplicity, and checked
against the same formulas in exact rational arithmetic (fractions.Fraction
over Python integers).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from xrr_accessor.api import annotations
from xrr_accessor.coefficients import Context, lookup
from xrr_accessor.coefficients.registry import finalize
from xrr_accessor.engine.pipeline import make_meta
from xrr_accessor.engine.statistics import chunk

BIG = np.array([
    # replication X: items x categories
    [[3_000_000_017, 1_500_000_003], [2_000_000_011, 2_900_000_029], [7, 4_100_000_001]],
    # replication Y
    [[2_600_000_000, 1_900_000_019], [1, 3_300_000_013], [1_000_000_007, 3_000_000_000]],
], dtype=np.int64)  # (R=2, n=3, K=2): over 2.5e10 annotations in all


class _Rows:
    """One row per (replication, item, category) with its count as multiplicity."""

    def __init__(self) -> None:
        rep, item, cat = np.meshgrid(np.arange(2), np.arange(3), np.arange(2), indexing="ij")
        self.replication = rep.reshape(-1).astype(np.int64)
        self.item = item.reshape(-1).astype(np.int64)
        self.codes = cat.reshape(1, -1).astype(np.int64)
        self.rater = np.zeros(len(self.item), dtype=np.int64)
        self.mult = BIG.reshape(-1)
        self.n_items = 3


def _finalize(name: str, kind: str = "irr") -> np.ndarray:
    df = pd.DataFrame({"item": [0, 0, 1, 1, 2, 2], "rater": ["a", "b"] * 3,
                       "pool": ["X", "Y"] * 3, "v": [0, 1, 0, 1, 0, 1]})
    ann, level = annotations(df, replication="pool")
    assert ann.items.tolist() == [0, 1, 2] and ann.replications.tolist() == ["X", "Y"]
    entry = lookup(name, kind=kind)
    meta = make_meta(ann, level, set(entry.needs), np.array([[0, 1]]))
    ctx = Context(meta, level, ann.categories, ("v",), ann.replications, ann.raters)
    stats = chunk(_Rows(), meta)
    return finalize(entry, stats, ctx, {}).value[0]


def _alpha_exact(counts: np.ndarray) -> Fraction:
    rows = [[int(v) for v in row] for row in counts]
    o = [[Fraction(0)] * 2 for _ in range(2)]
    for n in rows:
        m = sum(n)
        for c in range(2):
            for k in range(2):
                o[c][k] += Fraction(n[c] * (n[k] - (c == k)), m - 1)
    nc = [o[c][0] + o[c][1] for c in range(2)]
    total = nc[0] + nc[1]
    return 1 - (total - 1) * (o[0][1] + o[1][0]) / (2 * nc[0] * nc[1])


def _kappa_x_exact(x: np.ndarray, y: np.ndarray) -> Fraction:
    xs = [[int(v) for v in row] for row in x]
    ys = [[int(v) for v in row] for row in y]
    big_r = sum(map(sum, xs))
    big_s = sum(map(sum, ys))
    d_o = Fraction(0)
    for a, b in zip(xs, ys, strict=True):
        r, s = sum(a), sum(b)
        d_o += Fraction(r + s, big_r + big_s) * Fraction(a[0] * b[1] + a[1] * b[0], r * s)
    xm = [sum(a[c] for a in xs) for c in range(2)]
    ym = [sum(b[c] for b in ys) for c in range(2)]
    d_e = Fraction(xm[0] * ym[1] + xm[1] * ym[0], big_r * big_s)
    return 1 - d_o / d_e


def test_counts_past_int32_are_exact_to_float64():
    assert BIG.sum() > 2**34
    alpha = _finalize("alpha")
    for r in range(2):
        want = float(_alpha_exact(BIG[r]))
        assert alpha[r] == pytest.approx(want, rel=1e-12)
    kx = _finalize("kappa_x", kind="cross")[0]
    assert kx == pytest.approx(float(_kappa_x_exact(BIG[0], BIG[1])), rel=1e-12)


def test_kernel_counts_are_int64():
    from xrr_accessor import kernels

    codes = np.zeros((1, 3), dtype=np.int64)
    idx = np.zeros(3, dtype=np.int64)
    mask = np.ones((1, 1, 1), dtype=np.bool_)
    out, totals = kernels.grouped_counts(idx, idx, idx, codes, mask, 1, 1)
    assert out.dtype == np.int64 and out[0, 0, 0, 0] == 3
    assert totals.dtype == np.int64 and totals[0, 0, 0] == 3


@given(st.lists(st.one_of(st.integers(-50, 50).map(float), st.just(float("nan")),
                          st.sampled_from([0.5, -2.25, 1e300, float("inf")])),
                min_size=1, max_size=60))
def test_lookup_table_encoders_equal_factorize(values):
    """The lookup-table encoders give pd.factorize(sort=True)'s codes and categories,
    or step aside (empty) for values that are not whole numbers in a small range."""
    from xrr_accessor.kernels.encode import small_integer_codes, whole_float_codes

    arr = np.array(values, dtype=float)
    want_codes, want_cats = pd.factorize(arr, sort=True)
    codes = np.full(arr.size, -7, dtype=np.int64)
    ok, cats = whole_float_codes(arr, 1024, codes)
    finite = arr[~np.isnan(arr)]
    applies = finite.size > 0 and np.all(np.isfinite(finite)) and np.all(finite == np.floor(
        finite)) and np.all(np.abs(finite) < 2**52)
    assert ok == bool(applies)
    if not ok:
        assert (codes == -7).all()  # nothing written when the encoder steps aside
    else:
        np.testing.assert_array_equal(codes, want_codes)
        np.testing.assert_array_equal(cats, want_cats)
        ints = arr[~np.isnan(arr)].astype(np.int64)
        icodes = np.empty(ints.size, dtype=np.int64)
        ok_int, icats = small_integer_codes(ints, 1024, icodes)
        assert ok_int
        np.testing.assert_array_equal(icats, np.unique(ints))
        np.testing.assert_array_equal(icats[icodes], ints)


@pytest.mark.parametrize("threads", [1, 2, 3])
@pytest.mark.parametrize("span", [1, 2, 63, 64, 65, 300])
def test_lookup_table_encoders_both_paths(monkeypatch, span, threads):
    """Around MASK_SPAN the encoders switch from a bit mask of the values present to a
    table written per value: both give pd.factorize(sort=True)'s codes, gaps in the
    range and missing values at random included; on one thread and in blocks on two
    and three (each block's range, slots and ranks)."""
    from xrr_accessor.kernels import encode
    from xrr_accessor.kernels import threads as kernel_threads
    from xrr_accessor.kernels.encode import MASK_SPAN, small_integer_codes, whole_float_codes

    assert MASK_SPAN == 64
    monkeypatch.setattr(encode, "MIN_BLOCK", 50)
    monkeypatch.setattr(kernel_threads, "cores", lambda: threads)
    blocks = []
    real = encode.in_blocks
    monkeypatch.setattr(encode, "in_blocks", lambda n, fn, m: blocks.append(
        real(n, fn, m)) or blocks[-1])
    rng = np.random.default_rng(span)
    ints = rng.integers(-7, -7 + span, 2_000)
    ints[:2] = (-7, -8 + span)  # the whole range, so both sides of MASK_SPAN are taken
    ints = ints[(ints % 5 != 1) | (ints == -7) | (ints == -8 + span)]  # gaps
    floats = ints.astype(float)
    floats[rng.random(floats.size) < 0.3] = np.nan
    cases = [(kernel, a) for kernel, arr in ((small_integer_codes, ints),
                                            (whole_float_codes, floats))
             for a in (arr, np.sort(arr))]  # sorted: each block its own values and range
    for kernel, arr in cases:
        want_codes, want_cats = pd.factorize(arr, sort=True)
        codes = np.full(arr.size, -7, dtype=np.int64)
        ok, cats = kernel(arr, 1024, codes)
        assert ok
        np.testing.assert_array_equal(codes, want_codes)
        np.testing.assert_array_equal(cats, want_cats)
    assert max(len(b) for b in blocks) == threads  # the passes ran in that many blocks
