"""Label-set cells encoded in vectorized passes (issue 35) against a per-cell reference.

:func:`~xrr_accessor.schema.setcells.label_set_codes` classifies cells by type,
groups equal tuples and frozensets, flattens the labels once and sorts each cell's
codes in one numba pass. The reference below reads every cell on its own, in
plain Python, as the encoder did before: the same codes, the same categories in
the same order, the same errors naming the same cell. And alpha on such cells
equals nltk's.
"""

from __future__ import annotations

import math
import re
from itertools import pairwise

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from nltk.metrics.agreement import AnnotationTask
from nltk.metrics.distance import jaccard_distance, masi_distance

import xrr_accessor as xa
from xrr_accessor.errors import InputError
from xrr_accessor.schema.setcells import label_set_codes
from xrr_accessor.schema.sets import cell_kinds

ORDERED, UNORDERED, SCALAR, MISSING = 0, 1, 2, 3


# --- the reference: one cell at a time ----------------------------------------------------

def naive_kind(v):
    if isinstance(v, list | tuple | np.ndarray | pd.Series):
        return ORDERED
    if isinstance(v, set | frozenset):
        return UNORDERED
    if v is None or v is pd.NA or v is pd.NaT or (isinstance(v, float) and v != v):
        return MISSING
    return SCALAR


def naive_label_codes(flat):
    """The labels' categories as the library defines them (sorted when they sort)."""
    arr = np.empty(len(flat), dtype=object)
    for k, v in enumerate(flat):
        arr[k] = v
    try:
        codes, cats = pd.factorize(arr, sort=True)
    except TypeError:
        codes, cats = pd.factorize(arr, sort=False)
    return list(codes), list(cats)


def plain(v):
    return v.item() if isinstance(v, np.generic) else v


def naive_set_codes(values):
    """(codes, categories) or ("error", kind, cell) or None, one cell at a time."""
    cells = list(values)
    kinds = [naive_kind(v) for v in cells]
    if not any(k in (ORDERED, UNORDERED) for k in kinds):
        return None
    scalars = [i for i, k in enumerate(kinds) if k == SCALAR]
    if scalars:
        return ("error", "mixes", scalars[0], len(scalars))
    present = [i for i, k in enumerate(kinds) if k != MISSING]
    empty = [i for i in present if len(cells[i]) == 0]
    if empty:
        return ("error", "empty", empty[0], len(empty))
    for i in present:
        if any(pd.isna(v) for v in cells[i]):
            return ("error", "missing", i, None)
    flat = [v for i in present for v in cells[i]]
    codes, cats = naive_label_codes(flat)
    per_cell, at = {}, 0
    for i in present:
        per_cell[i] = codes[at:at + len(cells[i])]
        at += len(cells[i])
    for i in present:
        c = sorted(per_cell[i])
        twice = [a for a, b in pairwise(c) if a == b]
        if twice:
            return ("error", "twice", i, plain(cats[twice[0]]))
    keys = {i: tuple(sorted(per_cell[i])) for i in present}
    distinct = sorted(set(keys.values()))
    out = [-1] * len(cells)
    for i in present:
        out[i] = distinct.index(keys[i])
    return out, [tuple(plain(cats[c]) for c in key) for key in distinct]


def run(values):
    """Ours in the reference's terms."""
    try:
        got = label_set_codes(pd.Series(values, dtype=object), "column 'tags'", None,
                              lambda i: f"row {i}")
    except InputError as exc:
        text = str(exc)
        row = int(re.search(r"at row (\d+)", text).group(1))
        if "single label" in text:
            n = int(re.search(r"mixes label sets with (\d+) single", text).group(1))
            return ("error", "mixes", row, n)
        if "empty label set" in text:
            n = int(re.search(r"has (\d+) empty", text).group(1))
            return ("error", "empty", row, n)
        if "missing value inside" in text:
            return ("error", "missing", row, None)
        if "appears twice" in text:
            return ("error", "twice", row, text)
        raise
    if got is None:
        return None
    codes, cats = got
    assert cats.name == "label set"
    return codes.tolist(), list(cats)


def same(got, want):
    if isinstance(want, tuple) and want[0] == "error":
        assert got[:3] == want[:3]
        if want[1] == "twice":  # the label repeated, shown as the message shows it
            shown = repr(want[3]) if isinstance(want[3], str) else str(want[3])
            assert f"the label {shown} appears twice" in got[3]
        else:
            assert got[3] == want[3]
        return
    assert got == want
    if want is not None:  # the categories' labels are Python scalars, of the same type
        for g, w in zip(got[1], want[1], strict=True):
            assert [type(x) for x in g] == [type(x) for x in w]


# --- random cells --------------------------------------------------------------------------

LABELS = ["a", "b", "joy", "épée", "日本", "😀", "", " a", "A", 0, 1, 2, 2.5, -3, 10**12]


def cell_of(kind, labels):
    return {"list": list, "tuple": tuple, "set": set, "frozenset": frozenset,
            "array": lambda x: np.array(x, dtype=object)}[kind](labels)


@st.composite
def columns(draw, n_max=14, nan_inside=False, scalars=False):
    pool = draw(st.lists(st.sampled_from(LABELS), min_size=1, max_size=6, unique=True))
    cells = []
    for _ in range(draw(st.integers(1, n_max))):
        what = draw(st.sampled_from(["list", "tuple", "set", "frozenset", "array", "none",
                                     "nan", "list", "tuple"] + (["scalar"] if scalars else [])))
        if what == "none":
            cells.append(None)
        elif what == "nan":
            cells.append(float("nan"))
        elif what == "scalar":
            cells.append(draw(st.sampled_from(pool)))
        else:
            labels = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=4,
                                   unique=what in ("set", "frozenset")))
            if nan_inside and draw(st.integers(0, 9)) == 0:
                labels = [*labels, float("nan")]
            cells.append(cell_of(what, labels))
    if cells and draw(st.booleans()):  # repeat some cells as they are (equal objects)
        cells += draw(st.lists(st.sampled_from(cells), max_size=6))
    return cells


@given(columns())
def test_codes_equal_the_reference(cells):
    same(run(cells), naive_set_codes(cells))


@given(columns(nan_inside=True, scalars=True))
def test_errors_equal_the_reference(cells):
    """Mixed sets and single labels, missing values inside sets, a label twice: the
    same error, naming the same (first) cell."""
    same(run(cells), naive_set_codes(cells))


@pytest.mark.parametrize("cells", [
    [["b", "a"], {"a", "b"}, None, ("c",)],
    [["a"], []],
    [(), ["a"], set()],
    [["a", "a"], ("b", "b")],
    [("a", "a"), ("a", "a"), ["b"]],
    [["a"], ("x", float("nan"))],
    [["a"], pd.NA, pd.NaT, None, float("nan"), np.float64("nan")],
    [["a"], "b"],
    [("a", 1), (1.0, "a"), (True, "a")],
    [[1, "x"], ("y", 2)],
    [np.array(["b", "a"]), ["a", "b"], pd.Series(["a"])],
    [[np.int64(3), 1], {3, 1}],
    [frozenset(["a", "b"]), frozenset(["b", "a"]), ("b", "a"), ["a", "b"]],
    [list(range(40)), list(range(39, -1, -1)), [5]],  # a set of > 16 labels
])
def test_edge_cases_equal_the_reference(cells):
    same(run(cells), naive_set_codes(cells))


def test_wide_sets_take_the_matrix_path():
    """Sets too long to pack into one integer key (40 labels of 2,000): the rows path."""
    rng = np.random.default_rng(0)
    cells = [list(rng.choice(2000, size=40, replace=False)) for _ in range(30)]
    cells += [list(reversed(c)) for c in cells[:5]]
    same(run(cells), naive_set_codes(cells))


def test_unhashable_label_names_missing_first():
    def codes(cells):
        return label_set_codes(pd.Series(cells, dtype=object), "column 'tags'", None, str)

    with pytest.raises(InputError, match="missing value inside a label set"):
        codes([["b"], [["a"], float("nan")]])
    with pytest.raises(InputError, match="cannot be categories"):
        codes([["b"], [["a"], "b"]])
    with pytest.raises(InputError, match="cannot be categories"):
        codes([("b",), (["a"], "b")])


@given(columns(scalars=True))
def test_cell_kinds_equal_the_reference(cells):
    want = [naive_kind(v) for v in cells]
    assert cell_kinds(pd.Series(cells, dtype=object)).tolist() == want


# --- alpha against nltk ----------------------------------------------------------------------

def _frame(n_items: int, seed: int) -> tuple[pd.DataFrame, list]:
    """3 raters an item, cells of every kind (lists in any order, tuples, sets), some
    missing; unicode and numbers as labels."""
    rng = np.random.default_rng(seed)
    labels = np.array(["joy", "épée", "日本", 7, 2.5], dtype=object)
    rows, triples = [], []
    for i in range(n_items):
        truth = rng.random(5) < 0.4
        for r in range(3):
            if rng.random() < 0.1:
                rows.append((i, r, None))
                continue
            keep = np.where(rng.random(5) < 0.8, truth, rng.random(5) < 0.4)
            chosen = list(labels[keep]) or [labels[rng.integers(5)]]
            rng.shuffle(chosen)
            kind = ["list", "tuple", "set", "frozenset"][rng.integers(4)]
            rows.append((i, r, cell_of(kind, chosen)))
            triples.append((f"r{r}", f"i{i}", frozenset(chosen)))
    return pd.DataFrame(rows, columns=["item", "rater", "tags"]), triples


@pytest.mark.parametrize(("level", "distance"), [("masi", masi_distance),
                                                 ("jaccard", jaccard_distance)])
@pytest.mark.parametrize("seed", [0, 1])
def test_alpha_equals_nltk(level, distance, seed):
    df, triples = _frame(150, seed)
    got = float(np.asarray(xa.irr(df, level=level, labels=["tags"])).ravel()[0])
    want = AnnotationTask(data=triples, distance=distance).alpha()
    assert math.isclose(got, want, rel_tol=0, abs_tol=1e-12)


@settings(max_examples=25)
@given(st.integers(0, 2**31))
def test_alpha_equals_nltk_random(seed):
    df, triples = _frame(12, seed)
    per_item = df.dropna().groupby("item").size()
    values = {t[2] for t in triples if per_item.get(int(t[1][1:]), 0) >= 2}
    if len(values) < 2:  # nltk gives 1.0 where ours is NaN with a warning
        return
    got = float(np.asarray(xa.irr(df, level="masi", labels=["tags"])).ravel()[0])
    want = AnnotationTask(data=triples, distance=masi_distance).alpha()
    assert math.isclose(got, want, rel_tol=0, abs_tol=1e-12)
