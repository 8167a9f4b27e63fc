"""Columns of lists (or sets) of text labels: the fast path of label-set encoding.

A column whose cells are all lists (or all sets) skips classifying cells by type
(one pass of ``list.__len__`` finds the sizes); when every label is a ``str``
the labels are joined into one text and coded from its bytes
(:func:`~xrr_accessor.kernels.sets.text_labels`), and the sets are sorted,
checked and numbered in one pass (:func:`~xrr_accessor.kernels.sets.distinct_sets`).
Checked here against a reference that reads one cell at a time, written from the
definition (sorted labels, sets ordered lexicographically by their sorted
labels, errors naming the first bad cell), including the labels that must send
a column the general way (a label holding the separator, numbers, missing
values, a lone surrogate); and alpha against nltk.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from nltk.metrics.agreement import AnnotationTask
from nltk.metrics.distance import jaccard_distance, masi_distance

import xrr_accessor as xa
from xrr_accessor.errors import InputError
from xrr_accessor.kernels.sets import (
    canonical_sets,
    distinct_sets,
    label_masks,
    text_labels,
)
from xrr_accessor.schema.setcells import label_set_codes

# --- the reference: one cell at a time ----------------------------------------------------


def reference(cells):
    """(codes, categories) or ("error", what, cell)."""
    for i, c in enumerate(cells):
        if c is None:
            continue
        if len(c) == 0:
            return ("error", "empty", i)
    present = [i for i, c in enumerate(cells) if c is not None]
    flat = [x for i in present for x in cells[i]]
    seen = {}  # label -> the first object equal to it (the one kept as the category)
    for x in flat:
        seen.setdefault(x, x)
    firsts = np.empty(len(seen), dtype=object)
    firsts[:] = list(seen)
    try:  # the labels' order is pandas' (numbers before text when mixed)
        labels = list(pd.factorize(firsts, sort=True)[1])
    except TypeError:  # labels that do not sort: first appearance
        labels = list(seen)
    rank = {x: k for k, x in enumerate(labels)}
    held = pd.Index(labels).to_numpy(dtype=object)  # as pandas holds them (text as str)
    for i in present:
        ranks = sorted(rank[x] for x in cells[i])
        if len(set(ranks)) < len(ranks):
            return ("error", "twice", i)
    key = {i: tuple(sorted(rank[x] for x in cells[i])) for i in present}
    sets = sorted(set(key.values()))
    codes = [sets.index(key[i]) if c is not None else -1 for i, c in enumerate(cells)]

    def plain(x):
        return x.item() if isinstance(x, np.generic) else x

    return codes, [tuple(plain(held[k]) for k in s) for s in sets]


def ours(cells):
    try:
        got = label_set_codes(pd.Series(cells, dtype=object), "column 'tags'", None,
                              lambda i: f"row {i}")
    except InputError as exc:
        row = int(re.search(r"at row (\d+)", str(exc)).group(1))
        what = "empty" if "empty label set" in str(exc) else "twice"
        assert what == "empty" or "appears twice" in str(exc)
        return ("error", what, row)
    codes, cats = got
    assert cats.name == "label set"
    return codes.tolist(), list(cats)


def check(cells):
    want, got = reference(cells), ours(cells)
    assert got == want
    if want[0] != "error":  # the same types: np.str_ and str subclasses read as str
        for g, w in zip(got[1], want[1], strict=True):
            assert [type(x) for x in g] == [type(x) for x in w]


# --- random columns of text labels -----------------------------------------------------------

class Tag(str):
    """A str subclass: text held as pandas holds it."""


TEXT = ["a", "b", "joy", "épée", "日本", "😀", "", " a", "A", "a\x1fb", "\x1f", "b\x1f"]


def label_of(draw, text):
    wrap = draw(st.sampled_from(["str", "str", "np", "tag"]))
    return {"str": str, "np": np.str_, "tag": Tag}[wrap](text)


@st.composite
def text_columns(draw, kind="list", separator=False, empty=False):
    pool = [t for t in TEXT if separator or "\x1f" not in t]
    pool = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=7, unique=True))
    cells = []
    for _ in range(draw(st.integers(1, 16))):
        labels = draw(st.lists(st.sampled_from(pool), min_size=0 if empty else 1,
                               max_size=4, unique=kind == "set"))
        cells.append({"list": list, "set": set}[kind](label_of(draw, x) for x in labels))
    return cells


@settings(max_examples=25)
@given(text_columns())
def test_lists_of_text_equal_the_reference(cells):
    check(cells)


@settings(max_examples=25)
@given(text_columns(kind="set"))
def test_sets_of_text_equal_the_reference(cells):
    check(cells)


@settings(max_examples=25)
@given(text_columns(separator=True, empty=True))
def test_separator_inside_a_label_and_empty_sets_equal_the_reference(cells):
    """A label holding the byte that joins labels is read the general way; an empty
    list is named."""
    check(cells)


@pytest.mark.parametrize("cells", [
    [["a\x1fb"], ["a", "b"]],  # the same text joined: told apart by the count
    [["a", "b"], ["a\x1fb"], ["b", "a"]],
    [["b", "a"], ["a", "b"], ["a"]],
    [["a", "a"]],
    [["b"], ["a", "c", "a"]],
    [["a"], []],
    [[Tag("a"), "b"], ["a"]],  # text held as pandas holds it
    [["a", "b"], [Tag("a")]],
    [[np.str_("x"), "y"], ["x"]],
    [["a"], [1, "b"]],  # a number among text: the general way
    [["a"], ["b", None]],  # a missing label: the general way (an error there)
    [["a"], None, ["b"]],  # a missing cell: classified cell by cell
    [["a"], ("b", "a"), ["a", "b"]],  # a tuple among lists
    [{"a"}, {"a", "b"}, frozenset({"b"})],
    [[str(k) for k in range(40)], [str(k) for k in range(39, -1, -1)], ["5"]],  # > 16 a set
])
def test_edge_cases_equal_the_reference(cells):
    if any(c is not None and any(x is None for x in c) for c in cells):
        with pytest.raises(InputError, match=r"missing value inside a label set \(at row 1\)"):
            label_set_codes(pd.Series(cells, dtype=object), "column 'tags'", None,
                            lambda i: f"row {i}")
        return
    check(cells)


def test_wide_text_sets_take_the_matrix_path():
    """Sets too long to pack into one integer key (40 labels of 2,000), as text."""
    rng = np.random.default_rng(0)
    cells = [[f"t{k}" for k in rng.choice(2000, size=40, replace=False)] for _ in range(30)]
    cells += [list(reversed(c)) for c in cells[:5]]
    check(cells)


def test_many_text_labels_take_the_key_path():
    """More than 62 distinct labels (no bit masks): sorted keys, the labels ranked."""
    rng = np.random.default_rng(1)
    cells = [[f"w{k}" for k in rng.choice(150, size=rng.integers(1, 4), replace=False)]
             for _ in range(400)]
    check(cells)
    check([*cells, ["w1", "w2", "w1"]])  # a label twice named at its cell


def test_lone_surrogate_is_read_as_before():
    """A label with no UTF-8 form goes the general way: the same outcome as a column
    that never took the text path (a tuple cell first)."""
    lists = [["a", "\ud800"], ["a"]]
    tupled = [("a", "\ud800"), ["a"]]

    def outcome(cells):
        try:
            codes, cats = label_set_codes(pd.Series(cells, dtype=object), "c", None, str)
        except Exception as exc:  # the kind of failure is compared
            return type(exc)
        return codes.tolist(), list(cats)

    assert outcome(lists) == outcome(tupled)


# --- the kernels ----------------------------------------------------------------------------

@settings(max_examples=25)
@given(st.lists(st.text(alphabet=st.characters(blacklist_characters="\x1f",
                                               blacklist_categories=("Cs",)),
                        max_size=5), min_size=1, max_size=300))
def test_text_labels_equal_factorize(labels):
    buf = np.frombuffer("\x1f".join(labels).encode(), dtype=np.uint8)
    codes, first = text_labels(buf, 0x1f, len(labels))
    want, uniques = pd.factorize(np.array(labels, dtype=object))
    assert codes.tolist() == want.tolist()
    assert [labels[f] for f in first] == list(uniques)


def test_text_labels_grow_their_table():
    """Thousands of distinct labels (the table doubles many times), each repeated."""
    rng = np.random.default_rng(3)
    labels = [f"label {k}" for k in rng.integers(0, 5000, 40000)]
    buf = np.frombuffer("\x1f".join(labels).encode(), dtype=np.uint8)
    codes, first = text_labels(buf, 0x1f, len(labels))
    want, uniques = pd.factorize(np.array(labels, dtype=object))
    assert np.array_equal(codes, want) and [labels[f] for f in first] == list(uniques)


@settings(max_examples=25)
@given(st.lists(st.lists(st.integers(0, 9), min_size=1, max_size=5, unique=True),
                min_size=1, max_size=200), st.booleans())
def test_distinct_sets_number_the_sets_as_factorize(sets, twice):
    if twice:
        sets = [*sets, [sets[0][0], sets[0][0]]]
    offsets = np.r_[0, np.cumsum([len(s) for s in sets])]
    members = np.array([x for s in sets for x in s], dtype=np.int64)
    out, keys, cell, code = canonical_sets(offsets, members, 11, 5)
    out2, codes, first, distinct, cell2, code2 = distinct_sets(offsets, members, 11, 5)
    assert (cell2, code2) == (cell, code)
    if cell >= 0:
        return
    want, uniques = pd.factorize(keys)
    assert np.array_equal(out2, out) and np.array_equal(codes, want)
    assert np.array_equal(distinct, uniques)
    assert first.tolist() == [int(np.flatnonzero(want == k)[0]) for k in range(len(uniques))]


@settings(max_examples=25)
@given(st.lists(st.lists(st.integers(0, 61), min_size=1, max_size=5), min_size=1,
                max_size=200))
def test_label_masks_number_the_sets_by_first_appearance(sets):
    offsets = np.r_[0, np.cumsum([len(s) for s in sets])]
    members = np.array([x for s in sets for x in s], dtype=np.int64)
    codes, first, masks, cell = label_masks(offsets, members)
    twice = [i for i, s in enumerate(sets) if len(set(s)) < len(s)]
    assert cell == (twice[0] if twice else -1)
    if twice:
        return
    seen: dict[frozenset, int] = {}
    want = [seen.setdefault(frozenset(s), len(seen)) for s in sets]
    assert codes.tolist() == want
    assert first.tolist() == [want.index(k) for k in range(len(seen))]
    assert masks.tolist() == [sum(1 << x for x in fs) for fs in seen]


# --- alpha against nltk ----------------------------------------------------------------------

def _frame(items: int, seed: int) -> tuple[pd.DataFrame, list]:
    """3 raters an item, a list of text labels each (the benchmark's shape)."""
    rng = np.random.default_rng(seed)
    labels = ["joy", "anger", "épée", "日本", "fear", "b"]
    cells = [[x for x, keep in zip(labels, rng.random(6) < 0.35, strict=True) if keep]
             or ["joy"] for _ in range(3 * items)]
    df = pd.DataFrame({"item": np.repeat(np.arange(items), 3),
                       "rater": np.tile(np.arange(3), items), "tags": cells})
    triples = [(str(r), str(i), frozenset(c))
               for i, r, c in zip(df["item"], df["rater"], cells, strict=True)]
    return df, triples


@pytest.mark.parametrize(("level", "distance"), [("masi", masi_distance),
                                                 ("jaccard", jaccard_distance)])
def test_alpha_on_lists_of_text_equals_nltk(level, distance):
    df, triples = _frame(400, 7)
    got = float(np.asarray(xa.irr(df, level=level)).ravel()[0])
    want = AnnotationTask(data=triples, distance=distance).alpha()
    assert math.isclose(got, want, rel_tol=0, abs_tol=1e-12)
