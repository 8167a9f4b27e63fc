"""The bit-mask passes of label-set encoding, each against a reference written from
its definition, and the lone-column check that skips reading a list column as text.

:func:`~xrr_accessor.kernels.sets.text_masks` makes each cell's text labels one bit
mask while coding them from their bytes; :func:`~xrr_accessor.kernels.sets.
number_masks` numbers masks (or any int64 keys) in order of first appearance, by a
direct table up to ``1 << 16`` and a hashed one above. A lone label column is
refused as free text only when every value is text: a column whose first value is
a list is not read through ``infer_dtype`` at all.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import xrr_accessor as xa
from xrr_accessor.errors import RoleError
from xrr_accessor.kernels.sets import number_masks, text_masks
from xrr_accessor.schema.labels import FREE_TEXT_LENGTH, infer_labels
from xrr_accessor.schema.setcells import label_set_codes

SEP = "\x1f"
POOL = ["a", "b", "joy", "épée", "日本", "😀", "", " a", "A", "ab", "ba"]


def masks_reference(cells: list[list[str]]) -> tuple[list[int], list[int], int]:
    """(masks, first, cell) read one label at a time: labels numbered as they first
    appear; stop at a cell holding a label twice, or at a 63rd distinct label (-2)."""
    code: dict[str, int] = {}
    first: list[int] = []
    masks: list[int] = []
    i = 0
    for c, cell in enumerate(cells):
        mask = 0
        for label in cell:
            if label not in code:
                if len(code) == 62:
                    return masks, first, -2
                code[label] = len(code)
                first.append(i)
            if mask >> code[label] & 1:
                return masks, first, c
            mask |= 1 << code[label]
            i += 1
        masks.append(mask)
    return masks, first, -1


def run_text_masks(cells: list[list[str]]) -> tuple[list[int], list[int], int]:
    """The kernel on the cells' labels joined as setcodes joins them (masks only
    meaningful when the cell returned is -1)."""
    sizes = [len(c) for c in cells]
    offsets = np.r_[0, np.cumsum(sizes)].astype(np.int64)
    buf = np.frombuffer(SEP.join(x for c in cells for x in c).encode(), dtype=np.uint8)
    masks, first, cell = text_masks(buf, ord(SEP), offsets)
    return masks.tolist(), first.tolist(), int(cell)


@settings(max_examples=25)
@given(st.lists(st.lists(st.sampled_from(POOL), min_size=1, max_size=4), min_size=1,
                max_size=40))
def test_text_masks_equal_the_reference(cells):
    masks, first, cell = run_text_masks(cells)
    want_masks, want_first, want_cell = masks_reference(cells)
    assert (first, cell) == (want_first, want_cell)
    if cell == -1:
        assert masks == want_masks


def test_text_masks_stop_past_62_labels_and_at_a_label_twice():
    many = [[f"w{k}", f"v{k}"] for k in range(40)]  # 80 distinct labels
    assert run_text_masks(many)[2] == masks_reference(many)[2] == -2
    twice = [["a", "b"], ["c", "é", "c"], ["a"]]
    assert run_text_masks(twice)[2] == masks_reference(twice)[2] == 1
    exactly = [[f"x{k}"] for k in range(62)] + [["x0", "x61"]]  # 62 labels: masks made
    masks, first, cell = run_text_masks(exactly)
    assert cell == -1 and masks[-1] == 1 | 1 << 61 and first == list(range(62))


def number_reference(keys: list[int]) -> tuple[list[int], list[int]]:
    seen: dict[int, int] = {}
    codes = [seen.setdefault(k, len(seen)) for k in keys]
    return codes, [codes.index(k) for k in range(len(seen))]


@settings(max_examples=25)
@given(st.lists(st.integers(0, (1 << 16) - 1), min_size=1, max_size=300),
       st.integers(0, 1 << 46))
def test_number_masks_equal_first_appearance(keys, shift):
    direct = number_masks(np.array(keys, dtype=np.int64), 16)  # the direct table
    wide = [k + shift for k in keys]  # the same keys past 1 << 16: the hashed table
    hashed = number_masks(np.array(wide, dtype=np.int64), 63)
    want = number_reference(keys)
    assert (direct[0].tolist(), direct[1].tolist()) == want
    assert (hashed[0].tolist(), hashed[1].tolist()) == want


def test_number_masks_grow_the_hashed_table():
    rng = np.random.default_rng(0)
    keys = rng.integers(0, 1 << 62, 5_000)  # thousands of distinct keys: many rehashes
    keys = np.concatenate([keys, keys[::-1]])
    codes, first = number_masks(keys, 63)
    want = pd.factorize(keys)[0]
    assert np.array_equal(codes, want) and np.array_equal(keys[first], pd.unique(keys))


# --- the benchmark's shape end to end -----------------------------------------------------

def masi(a: frozenset, b: frozenset) -> float:
    """1 - Jaccard x monotonicity (Passonneau 2006), from the definition."""
    jac = len(a & b) / len(a | b)
    m = 1 if a == b else 2 / 3 if a <= b or b <= a else 1 / 3 if a & b else 0
    return 1 - jac * m


def alpha_reference(cells: list[frozenset], raters: int, dist) -> float:
    """Krippendorff's alpha from pairable values, every item rated by ``raters``."""
    units = [cells[i:i + raters] for i in range(0, len(cells), raters)]
    n = len(cells)
    do = sum(dist(a, b) for u in units for i, a in enumerate(u) for j, b in enumerate(u)
             if i != j) / (raters - 1) / n
    de = sum(dist(a, b) for a in cells for b in cells) / n / (n - 1)
    return 1 - do / de


@pytest.mark.parametrize("level", ["masi", "jaccard"])
def test_lists_of_numpy_text_equal_plain_text_and_the_reference(level):
    """Cells as the benchmark builds them, once with numpy's str_ labels: the same
    alpha as from the definition, and categories of plain str."""
    rng = np.random.default_rng(5)
    labels = np.array(list("abcdef"))
    picks = [labels[rng.random(6) < 0.35] for _ in range(3 * 40)]
    picks = [p if len(p) else labels[:1] for p in picks]
    frame = pd.DataFrame({"item": np.repeat(np.arange(40), 3), "rater": np.tile([0, 1, 2], 40)})
    plain = frame.assign(tags=[sorted(p.tolist()) for p in picks])
    numpy_ = frame.assign(tags=[list(p) for p in picks])  # np.str_ labels
    dist = masi if level == "masi" else (lambda a, b: 1 - len(a & b) / len(a | b))
    want = alpha_reference([frozenset(p.tolist()) for p in picks], 3, dist)
    for df in (plain, numpy_):
        got = float(np.asarray(xa.irr(df, level=level)).ravel()[0])
        assert math.isclose(got, want, rel_tol=0, abs_tol=1e-12)
    codes, cats = label_set_codes(numpy_["tags"], "column 'tags'", None, str)
    assert codes.tolist() == label_set_codes(plain["tags"], "column 'tags'", None, str)[0].tolist()
    assert all(type(x) is str for s in cats for x in s)


# --- a lone label column: free text or not --------------------------------------------------

LONG = "a long piece of free text about the item, longer than a label " * 2
VALUES = st.sampled_from([["x", "y"], ["x"], "x", LONG, None, math.nan, 3])


@settings(max_examples=25)
@example([None, LONG, LONG])  # the first value missing: the others still read as text
@example([LONG, ["x"], LONG])
@example([["x"], LONG, LONG])
@given(st.lists(VALUES, min_size=1, max_size=8))
def test_lone_column_is_refused_exactly_when_free_text(values):
    df = pd.DataFrame({"item": range(len(values)), "rater": 0,
                       "c": pd.Series(values, dtype=object)})
    known = [v for v in values if not (v is None or (isinstance(v, float) and v != v))]
    free = (bool(known) and all(isinstance(v, str) for v in known)
            and sum(map(len, known)) / len(known) > FREE_TEXT_LENGTH)
    if free:
        with pytest.raises(RoleError, match="'c' \\(free text\\)"):
            infer_labels(df, ["c"], "item", "rater")
    else:
        assert infer_labels(df, ["c"], "item", "rater") == ["c"]
