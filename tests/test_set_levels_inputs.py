"""Set levels: the long layout (set_cells), the canonical form, nominal on set cells,
other input kinds (xarray, wide, dask) and every bad-input error."""

from __future__ import annotations

import copy
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_set_levels import SET_LEVELS, d_masi, scalar, set_frames

import xrr_accessor as xa
from xrr_accessor.engine import pipeline
from xrr_accessor.errors import InputError, LevelError, RoleError
from xrr_accessor.schema.setcells import is_label_sets, label_set_codes, set_cells

import naive
from helpers import assert_close_or_both_nan, quietly

# --- the long layout, the canonical form, nominal on sets -------------------------------


def test_set_cells_keeps_replications_and_equals_set_cells_input():
    rng = np.random.default_rng(3)
    rows = []
    for pool in ("A", "B"):
        for item in range(12):
            for rater in range(3):
                for lab in rng.choice(list("xyz"), int(rng.integers(1, 4)), replace=False):
                    rows.append({"item": item, "pool": pool, "rater": rater, "tag": lab})
    long = pd.DataFrame(rows)
    before = long.copy()
    cells = set_cells(long)
    pd.testing.assert_frame_equal(long, before)  # input unmodified
    assert list(cells.columns) == ["item", "pool", "rater", "tag"]
    assert len(cells) == 2 * 12 * 3
    want = long.groupby(["item", "pool", "rater"])["tag"].agg(frozenset)
    got = cells.set_index(["item", "pool", "rater"])["tag"]
    assert got.sort_index().map(frozenset).equals(want.sort_index())
    kx = scalar(xa.cross_kappa(cells, level="masi", labels=["tag"]))
    x, y = ({i: [frozenset(v) for v in g["tag"]] for i, g in cells[cells.pool == p]
             .groupby("item")} for p in ("A", "B"))
    assert kx == pytest.approx(naive.kappa_x(x, y, d_masi), abs=1e-12)


def test_set_cells_rank_and_label_sets_input():
    long = pd.DataFrame({"item": [1, 1, 2], "rater": ["a", "a", "a"],
                         "label": ["y", "x", "x"], "rank": [2, 1, 1]})
    cells = set_cells(long)  # 'label' would be the question's name to .xrr: 'labels'
    assert cells["labels"].tolist() == [("x", "y"), ("x",)]  # ranked: tuples, primary first
    again = set_cells(xa.read_sets(long))
    assert again["labels"].tolist() == [("x", "y"), ("x",)]
    pd.testing.assert_frame_equal(cells, again)
    with pytest.raises(InputError, match="appears twice"):
        set_cells(pd.DataFrame({"item": [1, 1], "rater": [0, 0], "label": ["x", "x"]}))
    with pytest.raises(InputError, match=r"column 'pool' \(by=\) has missing"):
        set_cells(pd.DataFrame({"item": [1], "rater": [0], "label": ["x"], "pool": [None]}))
    with pytest.raises(RoleError, match="'grp' given as by"):
        set_cells(long, by="grp")


MANY = [f"l{k:02d}" for k in range(40)]


@given(cells=st.lists(st.one_of(st.none(), st.frozensets(st.sampled_from(MANY), min_size=1,
                                                          max_size=30)), max_size=30))
def test_set_codes_equal_sorted_tuples(cells):
    """Each distinct set is one category, the categories sorted tuples in sorted order,
    also for sets too large to pack into one integer (30 labels of 40)."""
    cells = [*cells, frozenset(MANY[:25])]
    codes, cats = label_set_codes(pd.Series(cells, dtype=object), "tags", None, str)
    want = sorted({tuple(sorted(c)) for c in cells if c is not None})
    assert list(cats) == want
    assert [None if k < 0 else cats[k] for k in codes] == [
        None if c is None else tuple(sorted(c)) for c in cells]


def test_categories_are_readable_sorted_tuples():
    df = pd.DataFrame({"item": [1, 1, 2, 2], "rater": [0, 1, 0, 1],
                       "tags": [["b", "a"], {"a", "b"}, ("c",), np.array(["a"])]})
    ann, level = xa.annotations(df, level="masi")
    assert list(ann.categories[0]) == [("a",), ("a", "b"), ("c",)]
    assert ann.codes[0].tolist() == [1, 1, 2, 0]
    assert level.name == "masi"


@given(df=set_frames(max_reps=1))
def test_nominal_on_sets_is_exact_set_match(df):
    """level='nominal' on set cells: agreement only on identical sets (order ignored),
    the same as coding each set as one string."""
    keyed = df.assign(tags=df["tags"].map(
        lambda v: ",".join(sorted(v)) if isinstance(v, list | tuple | set | frozenset)
        else None))
    got, _ = quietly(xa.irr, df, labels=["tags"], level="nominal")  # (default: masi)
    want, _ = quietly(xa.irr, keyed, labels=["tags"], level="nominal")
    assert_close_or_both_nan(scalar(got), scalar(want))


def test_inputs_unmodified_and_cell_types_agree():
    rng = np.random.default_rng(1)
    sets = [frozenset(rng.choice(list("abc"), int(rng.integers(1, 4)), replace=False))
            for _ in range(30)]
    base = pd.DataFrame({"item": np.repeat(np.arange(10), 3), "rater": np.tile([0, 1, 2], 10),
                         "tags": sets})
    as_lists = base.assign(tags=[sorted(s, reverse=True) for s in sets])
    snapshot = copy.deepcopy(as_lists)
    for level in SET_LEVELS:
        assert scalar(xa.irr(as_lists, level=level)) == scalar(xa.irr(base, level=level))
    pd.testing.assert_frame_equal(as_lists, snapshot)


def test_xarray_and_wide_inputs():
    df = pd.DataFrame({"item": [1, 1, 2, 2, 3, 3], "rater": ["a", "b"] * 3,
                       "tags": [["x", "y"], ["x"], ["y"], ["y"], ["z"], ["x", "z"]]})
    want = scalar(xa.irr(df, level="masi"))
    assert scalar(df.xrr.to_xarray().xrr.irr(level="masi")) == pytest.approx(want)
    wide = df.pivot(index="item", columns="rater", values="tags")
    assert scalar(xa.irr(wide, level="masi", wide=True)) == pytest.approx(want)


# --- bad input --------------------------------------------------------------------------

SETS = pd.DataFrame({"item": [1, 1, 2, 2], "rater": [0, 1, 0, 1],
                     "tags": [["a", "b"], ["a"], ["b"], ["b", "c"]]})


@pytest.mark.parametrize("level", SET_LEVELS)
def test_set_level_on_single_labels(level):
    df = pd.DataFrame({"item": [1, 1], "rater": [0, 1], "tags": ["a", "b"]})
    with pytest.raises(LevelError, match=r"column 'tags' holds single labels.*set_cells"):
        xa.irr(df, level=level)


def test_lists_written_as_text_are_named():
    """What a CSV file (or dask's string conversion) makes of list cells."""
    df = pd.DataFrame({"item": [1, 1], "rater": [0, 1], "tags": ["['a', 'b']", "['a']"]})
    with pytest.raises(LevelError, match=r"lists written as text.*ast.literal_eval"):
        xa.irr(df, level="masi")


def test_label_sets_known_by_their_tuples_once_indexes_were_combined():
    """A union of partitions' categories may lose the index name; tuples remain."""
    _, cats = label_set_codes(pd.Series([["a"], ["a", "b"]]), "tags", None, str)
    combined = cats.union(pd.Index([], dtype=object), sort=False)
    assert combined.name is None and is_label_sets(combined)
    assert not is_label_sets(pd.Index(["a"], dtype=object))
    assert not is_label_sets(pd.Index([], dtype=object))


def test_dask_partitions_equal_in_memory():
    dask = pytest.importorskip("dask")
    dd = pytest.importorskip("dask.dataframe")
    rng = np.random.default_rng(4)
    cells = [list(rng.choice(list("abcd"), int(rng.integers(1, 3)), replace=False))
             for _ in range(160)]
    cells[:8] = [None] * 8  # no annotation on the first two items
    df = pd.DataFrame({"item": np.repeat(np.arange(40), 4), "rater": np.tile([0, 1, 0, 1], 40),
                       "pool": np.tile(["A", "A", "B", "B"], 40), "tags": cells})
    with dask.config.set({"dataframe.convert-string": False}):  # keep the lists
        ddf = dd.from_pandas(df, npartitions=4, sort=False)
        for level in SET_LEVELS:
            want, _ = quietly(xa.summary, df, level=level)
            got, _ = quietly(lambda lvl=level: ddf.xrr.summary(level=lvl).compute())
            pd.testing.assert_frame_equal(got, want, rtol=1e-10)
        single = dd.from_pandas(df.assign(tags=[c and c[0] for c in cells]), npartitions=2,
                                sort=False)
        with pytest.raises(LevelError, match=r"column 'tags' holds single labels"):
            single.xrr.irr(level="masi").compute()


@pytest.mark.parametrize(("kwargs", "what"), [
    ({"level": "ordinal"}, "ordinal level"), ({"level": "interval"}, "level='interval'"),
    ({"level": "ratio"}, "level='ratio'"),
    ({"metric": "gwet", "weights": "quadratic"}, "quadratic weights")])
def test_scalar_levels_on_label_sets(kwargs, what):
    with pytest.raises(LevelError, match=rf"column 'tags' holds label sets.*{what}.*jaccard"):
        xa.irr(SETS, **kwargs)


@pytest.mark.parametrize(("cells", "match"), [
    ([["a"], [], ["b"], ["b"]], r"column 'tags' has 1 empty label set.*item=1, rater=1"),
    ([["a"], "a", ["b"], ["b"]], r"column 'tags' mixes label sets with 1 single label"),
    ([["a", None], ["a"], ["b"], ["b"]], r"missing value inside a label set.*item=1, rater=0"),
    ([["a", "a"], ["a"], ["b"], ["b"]], r"the label 'a' appears twice.*item=1, rater=0"),
])
def test_bad_set_cells(cells, match):
    with pytest.raises(InputError, match=match):
        xa.irr(SETS.assign(tags=cells), level="masi")


def test_categories_order_refused_for_sets():
    with pytest.raises(InputError, match="categories= orders single labels"):
        xa.irr(SETS, categories=["a", "b"], level="masi")


def test_long_frame_with_a_set_level_points_to_set_cells():
    long = pd.DataFrame({"item": [1, 1, 1], "rater": [0, 0, 1], "tags": ["a", "b", "a"]})
    with pytest.raises(InputError, match=r"duplicate annotation.*set_cells\(df\)"):
        xa.irr(long, level="masi")


def test_too_many_distinct_sets(monkeypatch):
    monkeypatch.setattr(pipeline, "MAX_MATRIX_CATEGORIES", 3)
    with pytest.raises(InputError, match=r"column 'tags' has 4 categories; level='masi'"):
        xa.irr(SETS, level="masi")
    assert not math.isnan(scalar(xa.irr(SETS, level="nominal")))  # no matrix: any K


def test_unknown_level_lists_the_set_levels():
    with pytest.raises(InputError, match="jaccard, masi"):
        xa.irr(SETS, level="dice")
