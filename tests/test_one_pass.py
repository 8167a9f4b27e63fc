"""Table 5's path in one pass: every label column coded together, kappa_x's pass by
count cross_pass.

* :func:`xrr_accessor.schema.blocks.block_codes` (the label columns of one
  kind of number coded in one block) equals :func:`label_categories` column by
  column, codes and categories with their dtype, on random frames of integers,
  bytes, booleans, whole and fractional floats, missing values, wide ranges
  and huge numbers;
* the pattern route of :func:`~xrr_accessor.kernels.cross_pass.cross_vector`
  (at most two annotations per item and replication, whole item weights)
  equals the item-by-item pass and the general kernel to the last bit, rows
  in any order, in one thread or two, a block of items included; it steps
  aside (to the item-by-item pass) for a third annotation, a third rater,
  a rater twice on an item, or fractional weights.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from xrr_accessor.datasets import simulate
from xrr_accessor.engine import statistics
from xrr_accessor.engine.additive import Meta
from xrr_accessor.kernels import cross_pass, patterns
from xrr_accessor.schema import Roles, encode, read
from xrr_accessor.schema.encode import label_categories

KINDS = ["int8", "int16", "int64", "uint8", "uint32", "bool", "float32", "whole", "likert",
         "fraction", "wide", "huge"]


def _column(kind: str, n: int, rng: np.random.Generator, missing: float) -> np.ndarray:
    if kind == "bool":
        return rng.random(n) < 0.4
    if kind in ("int8", "int16", "int64", "uint8", "uint32"):
        lo = 0 if kind.startswith("u") else -3
        return rng.integers(lo, lo + rng.integers(1, 9), n).astype(kind)
    if kind == "wide":  # a range wider than the lookup table: hashed per column
        return rng.integers(0, 10**9, n)
    if kind == "huge":  # whole numbers beyond 2^52
        return rng.integers(0, 4, n) + 2**60
    x = rng.integers(-2, 6, n).astype(float)
    if kind == "likert":  # a gap: 1, 2, 4, 5
        x = rng.choice([1.0, 2.0, 4.0, 5.0], n)
    if kind == "fraction":
        x = x / 4
    if kind == "float32":
        x = x.astype(np.float32)
    if kind != "whole" or missing:
        x[rng.random(n) < missing] = np.nan
    return x


@st.composite
def frames(draw):
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    n_item, n_rater = draw(st.integers(1, 40)), draw(st.integers(1, 4))
    kinds = draw(st.lists(st.sampled_from(KINDS), min_size=1, max_size=7))
    missing = draw(st.sampled_from([0.0, 0.3, 1.0]))
    df = pd.DataFrame({"item": np.repeat(np.arange(n_item), n_rater),
                       "rater": np.tile(np.arange(n_rater), n_item)})
    for j, kind in enumerate(kinds):
        df[f"l{j}_{kind}"] = _column(kind, len(df), rng, missing)
    return df


@settings(max_examples=80)
@given(df=frames())
def test_label_columns_coded_together_equal_one_by_one(df):
    table = read(df, Roles.from_kwargs({"labels": list(df.columns[2:])}))
    ann = encode([table])
    for j, name in enumerate(ann.labels):
        codes, cats = label_categories(table.labels[name][1], name, None)
        np.testing.assert_array_equal(ann.codes[j], codes, err_msg=name)
        pd.testing.assert_index_equal(ann.categories[j], cats, exact=True)


def test_the_paper_shaped_frame_codes_as_one_by_one():
    """31 int8 labels (simulate's IRep-like frame) coded in one block."""
    df = simulate(n_items=300, coverage=0.72, seed=2)
    table = read(df, Roles.from_kwargs({}))
    ann = encode([table])
    assert len(ann.labels) == 31
    for j, name in enumerate(ann.labels):
        codes, cats = label_categories(table.labels[name][1], name, None)
        np.testing.assert_array_equal(ann.codes[j], codes)
        pd.testing.assert_index_equal(ann.categories[j], cats, exact=True)


def _rows(seed: int, n_rep: int, n_item: int, raters_per_rep: int, shared: bool):
    """Each item rated by up to two raters in each replication (some rows missing),
    raters shared across replications or each replication's own; rows shuffled (every
    third seed: in item order, read without a row order)."""
    rng = np.random.default_rng(seed)
    item, rep, rater = [], [], []
    for i in range(n_item):
        for r in range(n_rep):
            if rng.random() < 0.25:
                continue  # the replication did not rate the item
            for t in rng.permutation(raters_per_rep)[:rng.integers(1, raters_per_rep + 1)]:
                item.append(i)
                rep.append(r)
                rater.append(t if shared else r * raters_per_rep + t)
    order = rng.permutation(len(item)) if seed % 3 else np.arange(len(item))
    return tuple(np.asarray(a, dtype=np.int64)[order] for a in (item, rep, rater))


@pytest.fixture(autouse=True)
def _patterns_at_any_size(monkeypatch):
    """The pattern route at the tests' small sizes (it starts at a million codes)."""
    monkeypatch.setattr(cross_pass, "PATTERNS_FROM", 0)


CROSS = ("m_hist", "pairable", "pair_diag", "strata_rater", "cross_agree", "cross_total",
         "cross_x", "cross_y", "cross_used", "cross_unpaired")


def _both(item, rep, rater, n_cat, n_rep, n_rater, groups, weight, seed, block=None):
    """The statistics by cross_vector (pattern route) and item by item."""
    rng = np.random.default_rng(seed)
    n_item = int(item.max()) + 1
    codes = rng.integers(0, n_cat, (3, item.size))
    codes[rng.random(codes.shape) < 0.2] = -1
    ann = type("Codes", (), {"item": item, "rater": rater, "replication": rep, "codes": codes,
                             "n_items": n_item})()
    pairs = np.array([[a, b] for a in range(n_rep) for b in range(a + 1, n_rep)],
                     dtype=np.int64).reshape(-1, 2)
    meta = Meta(n_label=3, n_rep=n_rep, n_rater=n_rater, n_category=n_cat,
                n_categories=(n_cat,) * 3, form="vector", groups=frozenset(groups),
                pairs=pairs, top=2)
    r = statistics.rows(ann, meta)
    w = np.ascontiguousarray(weight(n_item, rng), dtype=np.float64)
    if block is not None:
        r, w = r.items(*block), w[block[0]:block[1]]
    out = {}
    for name, kernel in (("patterns", cross_pass.cross_vector),
                         ("items", cross_pass.item_by_item)):
        arrays = {k: np.zeros(s) for k, s in meta.shapes().items() if k in CROSS}
        kernel(r.offsets, r.order, r.rep, r.rater, r.codes, w, meta.pairs, n_cat,
               *(arrays.get(k, np.zeros((0,) * 5)) for k in CROSS))
        out[name] = arrays
    ann.mult = np.ones(item.size, dtype=np.int64)  # closes the small-kernel route
    taken = patterns.whole_weights(w) and patterns.pattern_space(n_cat + 1, n_rep) > 0 \
        and patterns.row_slots(
        r.offsets, r.rep, r.rater, n_rep, n_rater, "raters" in groups, n_cat + 1)[0]
    return out["patterns"], out["items"], ann, meta, w, taken


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("groups", [{"cross"}, {"cross", "within", "raters", "strata"}])
def test_pattern_pass_equals_item_by_item_and_the_general_kernel(seed, groups):
    n_rep, shared = 2 + seed % 3, seed % 2 == 0
    item, rep, rater = _rows(seed, n_rep, 200, 2, shared)
    n_rater = 2 if shared else 2 * n_rep
    n_cat = 2 if n_rep == 4 else 2 + seed % 2
    def whole(n, rng):
        return rng.choice([0.0, 1.0, 2.0, 5.0], n)
    got, want, ann, meta, w, taken = _both(item, rep, rater, n_cat, n_rep, n_rater, groups,
                                           whole, seed)
    assert taken
    for k in got:
        np.testing.assert_array_equal(got[k], want[k], err_msg=k)
    general = statistics.chunk(ann, meta, w).arrays  # mult set: the general kernel
    for k in got:
        np.testing.assert_array_equal(got[k], general[k], err_msg=k)
    assert got["cross_agree"].sum() > 0 and got["cross_unpaired"].sum() > 0
    if "raters" in groups:
        assert got["strata_rater"].sum() > 0
    block, items_block, *_ = _both(item, rep, rater, n_cat, n_rep, n_rater, groups, whole,
                                   seed, block=(50, 120))
    for k in block:
        np.testing.assert_array_equal(block[k], items_block[k], err_msg=k)


def test_pattern_route_taken_and_declined():
    """The route is taken for two raters per replication (not for a third rater, a
    third row, a rater twice on an item), and whole weights only."""
    offsets, rep = np.array([0, 2, 4]), np.array([0, 1, 0, 1])
    ok, mult, slots = patterns.row_slots(offsets, rep, np.array([0, 1, 0, 1]), 2, 2, True, 3)
    assert ok and mult.tolist() == [1, 9, 1, 9] and slots.tolist() == [[0, -1], [1, -1]]
    three = patterns.row_slots(np.array([0, 3]), np.zeros(3, dtype=np.int64),
                               np.array([0, 1, 2]), 1, 3, True, 3)
    assert not three[0]
    rows3 = patterns.row_slots(np.array([0, 3]), np.zeros(3, dtype=np.int64),
                               np.zeros(0, dtype=np.int64), 1, 0, False, 3)
    assert not rows3[0]
    twice = patterns.row_slots(np.array([0, 2]), np.zeros(2, dtype=np.int64),
                               np.array([1, 1]), 1, 2, True, 3)
    assert not twice[0]
    assert patterns.whole_weights(np.array([0.0, 3.0])) and not patterns.whole_weights(
        np.array([1.0, 0.37]))
    assert patterns.pattern_space(17, 3) == 0 and patterns.pattern_space(3, 3) == 729


@pytest.mark.parametrize("case", ["fraction", "third rater", "third row"])
def test_declined_pass_still_equals_item_by_item(case):
    item, rep, rater = _rows(11, 3, 150, 3 if case != "fraction" else 2, True)
    if case == "third row":
        rater = np.zeros_like(rater)  # the rows of a replication are not one rater's
    def weight(n, rng):
        return rng.choice([1.0, 0.37], n) if case == "fraction" else np.ones(n)
    groups = {"cross", "within", "raters", "strata"} if case == "third rater" else {"cross"}
    got, want, *_, taken = _both(item, rep, rater, 2, 3, 3, groups, weight, 11)
    assert not taken
    for k in got:
        np.testing.assert_array_equal(got[k], want[k], err_msg=k)


@pytest.mark.parametrize("reps", [
    pd.Index(["Budapest", "Mexico City", "Sydney"]), pd.Index([1, 2, 3, 7]),
    pd.Index(["self", "other"]), pd.Index(["b", 1, "a"], dtype=object),
    pd.Index([1.0, 2.5, np.nan]), pd.Index([False, True]),
    pd.Index(pd.to_datetime(["2020-01-01", "2020-01-02", "2021-01-01"]))])
def test_pair_index_equals_from_arrays(reps):
    """Table 5's pair labels built from the codes equal pandas' own construction,
    levels (the used replications, in order) and codes included."""
    from types import SimpleNamespace

    from xrr_accessor.engine.results import pair_index

    r = len(reps)
    every = [(a, b) for a in range(r) for b in range(a + 1, r)]
    for pairs in (every, every[::-1], [(1, 0)], []):
        pairs = np.array(pairs, dtype=np.int64).reshape(-1, 2)
        want = pd.MultiIndex.from_arrays([reps[pairs[:, 0]], reps[pairs[:, 1]]],
                                         names=["replication", "replication_other"])
        got = pair_index(SimpleNamespace(replications=reps.rename("replication")), pairs)
        pd.testing.assert_index_equal(got, want, exact=True)
        for a, b in zip(got.levels, want.levels, strict=True):
            pd.testing.assert_index_equal(a, b, exact=True)
        for a, b in zip(got.codes, want.codes, strict=True):
            np.testing.assert_array_equal(a, b)


@settings(max_examples=60)
@given(rows=st.lists(st.lists(st.sampled_from(
    [0.0, -0.0, 1.0, -2.0, 3.5, 1e300, -1e300, np.inf, -np.inf, np.nan]), min_size=0,
    max_size=13), min_size=1, max_size=3).filter(lambda r: len({len(x) for x in r}) == 1))
def test_block_ranges_equal_numpy_nan_ignoring_bounds(rows):
    """The four-lane bounds equal numpy's NaN-ignoring min and max (inf and -inf where a
    row is all NaN or empty) and the whole-number flag its definition, for every length
    (the lanes' remainder included)."""
    from xrr_accessor.kernels.label_codes import block_ranges

    values = np.array(rows, dtype=float).reshape(len(rows), -1)
    lo, hi = np.empty(len(rows)), np.empty(len(rows))
    bad = np.zeros(len(rows), dtype=np.bool_)
    block_ranges(values, lo, hi, bad)
    for g, row in enumerate(values):
        known = row[~np.isnan(row)]
        assert lo[g] == (known.min() if known.size else np.inf)
        assert hi[g] == (known.max() if known.size else -np.inf)
        assert bad[g] == bool(np.any(known != np.floor(known)))


@pytest.mark.parametrize("values", [
    [2.0, 0.0, np.nan, 2.0, 5.0], [1.0, 2.0, 4.0, 5.0, 1.0], [-3.0, -1.0, -3.0, np.nan, 0.0],
    [0.5, 1.0, 1.5, 0.5, 2.0], [np.nan] * 5, [7.0] * 5, [3.0, 4.0, 3.0, 4.0, np.nan],
    [0.0, 1e6, 2.0, 1.0, 0.0], [2.0**53, 2.0**53 + 2, 2.0**53, 0.0, 1.0],
    [-0.0, 0.0, 1.0, 1.0, 0.0]])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_one_float_label_codes_as_factorize(values, dtype):
    """A frame of one float label takes one kernel call (float64) or the block (float32):
    its codes and categories (values and dtype) equal ``label_categories`` (a sorted
    factorize), and the declined columns (fractions, wide or huge ranges, all NaN) too."""
    n = len(values)
    df = pd.DataFrame({"item": np.arange(n), "rater": np.zeros(n, dtype=int),
                       "joy": np.array(values, dtype=dtype)})
    table = read(df, Roles.from_kwargs({}))
    ann = encode([table])
    codes, cats = label_categories(table.labels["joy"][1], "joy", None)
    np.testing.assert_array_equal(ann.codes[0], codes)
    pd.testing.assert_index_equal(ann.categories[0], cats, exact=True)
