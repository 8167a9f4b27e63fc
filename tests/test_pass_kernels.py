"""The statistics passes' shortcuts against what they stand for.

* the small kernels of :mod:`xrr_accessor.kernels.within` (alpha's
  within-replication sums alone) equal the general categorical kernel: the
  vector form to the last bit, the matrix form (summed once per distinct count
  pattern) to rounding, and against its definition in exact fractions; a call
  routed to them equals the same call through the general kernel (likewise);
* the symmetric matrix outputs (``pair_o``, ``pa_mat``), added once per
  category pair by the kernel and folded after it, equal their definitions
  summed item by item in Python;
* the float encoder's missing values with every value of the range present
  (the case that skips the remapping pass).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from xrr_accessor.engine import statistics
from xrr_accessor.engine.additive import Meta
from xrr_accessor.kernels import accumulate, within
from xrr_accessor.kernels.encode import whole_float_codes

EMPTY = np.zeros(0, dtype=np.int64)


def _random_rows(seed: int, n_cat: int, n_label: int, shuffled: bool):
    """Items with 0-7 annotations each, 30% missing, rows in item order or shuffled."""
    rng = np.random.default_rng(seed)
    n_item = int(rng.integers(1, 40))
    sizes = rng.integers(0, 8, n_item)
    item = np.repeat(np.arange(n_item), sizes)
    if shuffled:
        item = rng.permutation(item)
    codes = rng.integers(0, n_cat, (n_label, item.size))
    codes[rng.random(codes.shape) < 0.3] = -1
    weight = rng.choice([0.0, 1.0, 2.0, 0.37], n_item)
    offsets, order = accumulate.item_order(item, n_item)
    return item, offsets, order, codes, weight


def _general(offsets, order, codes, weight, n_cat, top, matrix=False, chance=False):
    """The general kernel's categorical outputs (one replication, no raters, no pairs)."""
    n_label = codes.shape[0]
    s, k = top + 1, n_cat
    z = np.zeros
    out = {
        "m_hist": z((n_label, 1, s)),
        "pairable": z((n_label, 1, s, k)),
        "pair_diag": z((0,) * 4) if matrix else z((n_label, 1, s, k)),
        "pair_o": z((n_label, 1, s, k, k)) if matrix else z((0,) * 5),
        "pa_diag": z((0, 0)) if matrix or not chance else z((n_label, 1)),
        "pa_mat": z((n_label, 1, k, k)) if matrix and chance else z((0,) * 4),
        "pa_inv": z((n_label, 1)) if chance else z((0, 0)),
        "shares": z((n_label, 1, k)) if chance else z((0,) * 3),
        "strata_rater": z((0,) * 5), "joint": z((0,) * 6), "cross_agree": z((0, 0)),
        "cross_o": z((0,) * 4), "cross_total": z((0, 0)), "cross_x": z((0,) * 3),
        "cross_y": z((0,) * 3), "cross_used": z((0, 0)), "cross_unpaired": z((0, 0)),
    }
    accumulate.categorical(offsets, order, EMPTY, EMPTY, codes, EMPTY, weight,
                           np.zeros((0, 2), dtype=np.int64), n_cat, *out.values())
    within.fold_symmetric(out)
    return out


def _same(n_cat: int, got: np.ndarray, want: np.ndarray, name: str) -> None:
    """Sums of count patterns (up to PACKED_CATEGORIES categories) to rounding; item by
    item (the vector form above them) to the last bit."""
    if n_cat > within.PACKED_CATEGORIES:
        np.testing.assert_array_equal(got, want, err_msg=name)
    else:
        np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-12, err_msg=name)


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("shuffled", [False, True])
@pytest.mark.parametrize("form", ["vector", "matrix"])
def test_within_kernels_equal_the_general_kernel(seed, shuffled, form):
    """within_vector (nominal) and within_matrix (ordinal and the other K x K levels)
    against the general kernel on the same rows: every output equal (the matrix form
    after both are folded), to rounding where the small kernels sum count patterns
    (up to 8 categories), to the last bit above (item by item, as the general one)."""
    n_cat = int(np.random.default_rng(seed).integers(1, within.MAX_CATEGORIES + 1))
    top = 2 if seed % 2 else 7
    _, offsets, order, codes, weight = _random_rows(seed, n_cat, 3, shuffled)
    matrix = form == "matrix"
    want = _general(offsets, order, codes, weight, n_cat, top, matrix=matrix)
    names = ("m_hist", "pairable", "pair_o" if matrix else "pair_diag")
    got = {k: np.zeros_like(want[k]) for k in names}
    kernel = within.within_matrix if matrix else within.within_vector
    kernel(offsets, order, codes, weight, n_cat, *got.values())
    within.fold_symmetric(got)
    assert want["m_hist"].sum() > 0
    for k, v in got.items():
        _same(n_cat if form == "vector" else 0, v, want[k], k)


@pytest.mark.parametrize("form", ["vector", "matrix"])
def test_a_call_routed_to_a_small_kernel_equals_the_general_one(monkeypatch, form):
    """Alpha's pass (nominal: vector form, ordinal: matrix form) takes a small kernel;
    forced onto the general kernel (the route closed) every statistic is the same
    (to rounding: the small kernels sum count patterns), in one thread or two."""
    rng = np.random.default_rng(5)
    rows = 3_000
    codes = rng.integers(0, 4, (2, rows))
    codes[rng.random(codes.shape) < 0.2] = -1
    item = np.sort(rng.integers(0, 700, rows))
    ann = type("Codes", (), {"item": item, "rater": rng.integers(0, 5, rows),
                             "replication": np.zeros(rows, dtype=np.int64),
                             "codes": codes, "n_items": 700})()
    meta = Meta(n_label=2, n_rep=1, n_rater=5, n_category=4, n_categories=(4, 4),
                form=form, groups=frozenset({"within"}))
    calls = []
    name = f"within_{form}"
    real = getattr(within, name)

    def spy(*args):
        calls.append(1)
        return real(*args)

    monkeypatch.setattr(within, name, spy)
    for parallel in (False, True):
        calls.clear()
        routed = statistics.chunk(ann, meta, parallel=parallel).arrays
        assert calls, "the within-only pass did not take the small kernel"
        with monkeypatch.context() as m:  # the route closed: a multiplicity per row
            m.setattr(ann, "mult", np.ones(rows, dtype=np.int64), raising=False)
            calls.clear()
            general = statistics.chunk(ann, meta, parallel=parallel).arrays
            assert not calls
        assert routed.keys() == general.keys()
        for k in routed:
            _same(4, routed[k], general[k], k)
        assert routed["pair_diag" if form == "vector" else "pair_o"].sum() > 0


@pytest.mark.parametrize("case", ["patterns", "long items", "many categories", "full table"])
def test_within_kernels_equal_their_definition_in_fractions(case):
    """within_matrix against n_c (n_k - [c = k]) / (m - 1) summed over items in exact
    fractions (Python's Fraction), within_vector against its diagonal, on each of
    their routes: count patterns in the
    table, items of 256 or more annotations and scales of more than 8 categories
    item by item, and more distinct patterns than the table holds (emptied into the
    sums when half full); weights 0, 1, 2 and 0.37, missing values. Equal to within
    a few roundings of the exact sums."""
    from fractions import Fraction

    rng = np.random.default_rng(["patterns", "long items", "many categories",
                                 "full table"].index(case))
    n_cat = {"many categories": 12}.get(case, 8 if case == "full table" else 5)
    n_item = 3000 if case == "full table" else 300
    sizes = rng.integers(0, 9, n_item)
    if case == "long items":
        sizes[::7] = rng.integers(256, 400, sizes[::7].size)
    if case == "full table":  # up to 40 annotations on 8 categories: thousands of patterns
        sizes = rng.integers(10, 41, n_item)
    item = np.repeat(np.arange(n_item), sizes)
    codes = rng.integers(0, n_cat, (1, item.size))
    codes[rng.random(codes.shape) < 0.2] = -1
    weight = rng.choice([0.0, 1.0, 2.0, 0.37], n_item)
    offsets, order = accumulate.item_order(item, n_item)
    top = 3
    got = {"m_hist": np.zeros((1, 1, top + 1)), "pairable": np.zeros((1, 1, top + 1, n_cat)),
           "pair_o": np.zeros((1, 1, top + 1, n_cat, n_cat))}
    within.within_matrix(offsets, order, codes, weight, n_cat, *got.values())
    within.fold_symmetric(got)
    vec = {"m_hist": np.zeros((1, 1, top + 1)), "pairable": np.zeros((1, 1, top + 1, n_cat)),
           "pair_diag": np.zeros((1, 1, top + 1, n_cat))}
    within.within_vector(offsets, order, codes, weight, n_cat, *vec.values())
    want = np.full((top + 1, n_cat, n_cat), Fraction(0))
    patterns = set()
    for i in range(n_item):
        x = np.bincount(codes[0, item == i][codes[0, item == i] >= 0], minlength=n_cat)
        m = int(x.sum())
        patterns.add(tuple(x))
        if m < 2 or weight[i] == 0:
            continue
        w = Fraction(float(weight[i]))
        for c in range(n_cat):
            for k in range(n_cat):
                want[min(m, top), c, k] += w * int(x[c]) * (int(x[k]) - (c == k)) / (m - 1)
    want = want.astype(float)
    np.testing.assert_allclose(got["pair_o"][0, 0], want, rtol=1e-14, atol=1e-13)
    diag = np.einsum("scc->sc", want)  # the vector form: the diagonal
    np.testing.assert_allclose(vec["pair_diag"][0, 0], diag, rtol=1e-14, atol=1e-13)
    for k in ("m_hist", "pairable"):
        np.testing.assert_array_equal(vec[k], got[k], err_msg=k)
    assert want.sum() > 0
    if case == "full table":
        assert len(patterns) > within.PATTERN_SLOTS // 2


def _naive_matrix(item, codes, weight, n_cat, top):
    """pair_o and pa_mat from their definitions, item by item (one label)."""
    n_item = len(weight)
    pair_o = np.zeros((top + 1, n_cat, n_cat))
    pa_mat = np.zeros((n_cat, n_cat))
    for i in range(n_item):
        x = np.bincount(codes[(item == i) & (codes >= 0)], minlength=n_cat).astype(float)
        m = x.sum()
        if m < 2:
            continue
        s = min(int(m), top)
        pair_o[s] += weight[i] * (np.outer(x, x) - np.diag(x)) / (m - 1)
        pa_mat += weight[i] * np.outer(x, x) / (m * (m - 1))
    return pair_o, pa_mat


@pytest.mark.parametrize("seed", range(10))
def test_folded_matrix_form_equals_its_definition(seed):
    """The kernel adds each off-diagonal category pair once (at (c, k) or (k, c), in
    the order the item's categories were met); folded, the matrices are the sums
    n_c (n_k - [c = k]) / (m - 1) and n_c n_k / (m (m - 1)) over items, and
    symmetric."""
    n_cat = 2 + seed % 6
    item, offsets, order, codes, weight = _random_rows(100 + seed, n_cat, 1, seed % 2 == 1)
    got = _general(offsets, order, codes, weight, n_cat, 3, matrix=True, chance=True)
    want_o, want_pa = _naive_matrix(item, codes[0], weight, n_cat, 3)
    np.testing.assert_allclose(got["pair_o"][0, 0], want_o, rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(got["pa_mat"][0, 0], want_pa, rtol=1e-13, atol=1e-13)
    assert np.abs(want_o - want_o.transpose(0, 2, 1)).max() == 0 or n_cat == 1
    assert (want_o.sum(axis=0) - np.diag(np.diag(want_o.sum(axis=0)))).sum() > 0


def test_fold_leaves_the_vector_form_alone():
    out = {"pair_o": np.zeros((0,) * 5), "pa_mat": np.zeros((0,) * 4),
           "pair_diag": np.arange(4.0)}
    within.fold_symmetric(out)
    np.testing.assert_array_equal(out["pair_diag"], np.arange(4.0))


@pytest.mark.parametrize("share", [0.0, 0.3, 1.0])
def test_float_codes_missing_values_with_every_value_present(share):
    """Missing values are -1 from the slot pass itself, which is the last pass when
    every value of [min, max] occurs (no remapping pass): still pd.factorize's codes."""
    rng = np.random.default_rng(1)
    values = rng.integers(-2, 3, 500).astype(float)
    values[:5] = [-2, -1, 0, 1, 2]
    values[5:][rng.random(495) < share] = np.nan
    codes = np.full(values.size, -7, dtype=np.int64)
    ok, cats = whole_float_codes(values, 1024, codes)
    want_codes, want_cats = pd.factorize(values, sort=True)
    assert ok
    np.testing.assert_array_equal(codes, want_codes)
    np.testing.assert_array_equal(cats, want_cats)
    assert (codes == -1).sum() == np.isnan(values).sum()


@pytest.mark.parametrize("groups", [{"cross"}, {"cross", "within"},
                                    {"cross", "within", "strata"},
                                    {"cross", "within", "raters", "strata"}])
@pytest.mark.parametrize("seed", range(4))
def test_kappa_x_pass_routed_to_its_small_kernel_equals_the_general_one(monkeypatch, groups,
                                                                        seed):
    """kappa_x's pass (and summary's: kappa_x with alpha's within sums or Cohen's
    per-rater counts) takes
    :func:`~xrr_accessor.kernels.cross_pass.cross_vector`; every statistic equals the
    general kernel's (the route closed by a multiplicity per row) to the last bit, with
    items unrated by a replication, rows in any order, in one thread or two."""
    from xrr_accessor.kernels import cross_pass

    rng = np.random.default_rng(seed)
    rows, n_item, n_cat = 4_000, 600, 2 + seed
    item = rng.integers(0, n_item, rows)
    if seed % 2:
        item = np.sort(item)
    codes = rng.integers(0, n_cat, (3, rows))
    codes[rng.random(codes.shape) < 0.2] = -1
    ann = type("Codes", (), {"item": item, "rater": rng.integers(0, 4, rows),
                             "replication": rng.integers(0, 3, rows),
                             "codes": codes, "n_items": n_item})()
    meta = Meta(n_label=3, n_rep=3, n_rater=4, n_category=n_cat,
                n_categories=(n_cat,) * 3, form="vector", groups=frozenset(groups),
                pairs=np.array([[0, 1], [0, 2], [2, 1]]), top=3 if "strata" in groups else 2)
    calls = []
    real = cross_pass.cross_vector
    monkeypatch.setattr(cross_pass, "cross_vector", lambda *a: calls.append(1) or real(*a))
    weight = rng.choice([0.0, 1.0, 3.0, 0.37, 1.1], n_item)
    for parallel in (False, True):
        calls.clear()
        routed = statistics.chunk(ann, meta, weight, parallel=parallel).arrays
        assert calls, "kappa_x's pass did not take the small kernel"
        with monkeypatch.context() as m:
            m.setattr(ann, "mult", np.ones(rows, dtype=np.int64), raising=False)
            calls.clear()
            general = statistics.chunk(ann, meta, weight, parallel=parallel).arrays
            assert not calls
        for k in routed:
            np.testing.assert_array_equal(routed[k], general[k], err_msg=k)
        assert routed["cross_agree"].sum() > 0 and routed["cross_unpaired"].sum() > 0
        assert ("within" in groups) == (routed["pair_diag"].size > 0)
        assert ("raters" in groups) == (routed["strata_rater"].sum() > 0)
