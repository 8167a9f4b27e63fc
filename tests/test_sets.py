"""Set-valued annotations (schema/sets.py): both layouts, the canonical form, bad input.

The canonical form is checked against plain Python: every annotation's labels,
primary first (or sorted, when unordered), as tuples of category values.
"""

from __future__ import annotations

import copy

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import xrr_accessor as xa
from xrr_accessor.errors import DroppedDataWarning, InputError, RoleError
from xrr_accessor.schema.readsets import read_sets, set_roles

TABLE1 = [["a", "b"], ["b", "a"], ["b"], ["c"], ["c", "b"]]


def table1() -> pd.DataFrame:
    return pd.DataFrame({"item": [1, 2, 3, 4, 5], "rater": "A", "labels": TABLE1})


def labels_of(sets) -> list[tuple]:
    return list(sets.to_frame()["labels"])


def long_of(df: pd.DataFrame, col: str = "labels", base: int = 1) -> pd.DataFrame:
    out = df.explode(col).rename(columns={col: "label"})
    out["rank"] = out.groupby(["item", "rater"]).cumcount() + base
    return out.reset_index(drop=True)


# --- reading ------------------------------------------------------------------------


def test_lists_are_ordered_primary_first():
    sets = read_sets(table1())
    assert list(sets.categories) == ["a", "b", "c"]
    assert sets.tuples() == [(0, 1), (1, 0), (1,), (2,), (2, 1)]
    assert labels_of(sets) == [tuple(x) for x in TABLE1]
    assert sets.ordered.all()
    assert sets.column == "labels" and sets.source == "column 'labels'"
    assert sets.sizes.tolist() == [2, 2, 1, 1, 2]
    assert sets.rank_of_member.tolist() == [0, 1, 0, 1, 0, 0, 0, 1]


def test_tuples_arrays_and_sets():
    df = pd.DataFrame({"item": [1, 2, 3, 4], "rater": "A",
                       "labels": [("b", "a"), np.array(["c", "a"]), {"c", "b"},
                                  frozenset({"a"})]})
    sets = read_sets(df)
    assert labels_of(sets) == [("b", "a"), ("c", "a"), ("b", "c"), ("a",)]
    assert sets.ordered.tolist() == [True, True, False, False]


def test_long_layout_with_ranks_equals_the_sets_layout():
    df = table1()
    for base in (1, 0):
        long = long_of(df, base=base).sample(frac=1.0, random_state=3)  # row order is free
        got = read_sets(long)
        assert sorted(labels_of(got)) == sorted(tuple(x) for x in TABLE1)
        by_item = dict(zip(got.items[got.item], labels_of(got), strict=True))
        assert by_item == {i: tuple(x) for i, x in zip(df["item"], TABLE1, strict=True)}
        assert got.ordered.all()


def test_long_layout_without_rank_is_unordered():
    long = long_of(table1()).drop(columns="rank")
    got = read_sets(long)
    assert labels_of(got) == [("a", "b"), ("a", "b"), ("b",), ("c",), ("b", "c")]
    assert not got.ordered.any()


def test_scalar_column_is_one_label_per_annotation():
    df = pd.DataFrame({"item": [1, 1, 2], "rater": ["x", "y", "x"], "label": [3, 1, 2]})
    got = read_sets(df)
    assert labels_of(got) == [(3,), (1,), (2,)]
    assert list(got.categories) == [1, 2, 3]


def test_missing_cells_are_missing_annotations():
    df = pd.DataFrame({"item": [1, 1, 2, 2], "rater": ["x", "y", "x", "y"],
                       "labels": [["a"], None, np.nan, ["b", "a"]]})
    got = read_sets(df)
    assert got.n_annotations == 2
    assert labels_of(got) == [("a",), ("b", "a")]
    long = pd.DataFrame({"item": [1, 1, 2], "rater": ["x", "y", "x"],
                         "label": ["a", None, "b"]})
    assert labels_of(read_sets(long)) == [("a",), ("b",)]


def test_roles_by_name_and_given():
    df = pd.DataFrame({"video": [1, 2], "worker": ["w", "w"], "tags": [["a"], ["b"]],
                       "note": ["x", "y"]})
    got = read_sets(df, item="video", value="tags")
    assert labels_of(got) == [("a",), ("b",)]
    with pytest.warns(DroppedDataWarning, match="'note'"):
        read_sets(df, item="video")  # 'tags' found by name, 'note' left out
    with pytest.raises(RoleError, match="value="):
        read_sets(df.rename(columns={"tags": "stuff"}), item="video")
    with pytest.raises(RoleError, match="item"):
        read_sets(df)


def test_distinct_sets_become_codes():
    df = pd.DataFrame({"item": [1, 2, 3, 4], "rater": "A",
                       "labels": [["a", "b"], ["b", "a"], ["a"], ["a", "b"]]})
    sets = read_sets(df)
    codes, found = sets.distinct()
    assert codes[0] == codes[1] == codes[3] != codes[2]
    assert sorted(found) == [(0,), (0, 1)]
    codes, found = sets.distinct(ordered=True)
    assert codes[0] == codes[3] != codes[1]
    assert len(found) == 3


def test_set_roles_from_accessor_roles():
    assert set_roles({"labels": ["tags"]}, "f")["value"] == "tags"
    with pytest.raises(RoleError, match="one column of labels"):
        set_roles({"labels": ["a", "b"]}, "f")
    with pytest.raises(RoleError, match="replication="):
        set_roles({"replication": "pool"}, "f")


# --- bad input: InputError naming the column and the fix ----------------------------


def test_empty_label_set():
    df = table1()
    df.at[2, "labels"] = []
    with pytest.raises(InputError, match=r"column 'labels' has 1 empty label set.*NaN"):
        read_sets(df)


def test_missing_label_inside_a_set():
    df = table1()
    df.at[0, "labels"] = ["a", None]
    with pytest.raises(InputError, match="column 'labels' has missing values inside"):
        read_sets(df)


def test_label_repeated_in_one_annotation():
    df = table1()
    df.at[0, "labels"] = ["a", "a"]
    with pytest.raises(InputError, match=r"label 'a' appears twice.*dict.fromkeys"):
        read_sets(df)
    long = pd.DataFrame({"item": [1, 1], "rater": ["x", "x"], "label": ["a", "a"]})
    with pytest.raises(InputError, match="drop_duplicates"):
        read_sets(long)


def test_rank_column_with_gaps():
    long = long_of(table1())
    long.loc[long["rank"] == 2, "rank"] = 3  # ranks 1, 3 with no 2
    with pytest.raises(InputError, match=r"rank column 'rank'.*gap.*\[1, 3\].*without gaps"):
        read_sets(long)


def test_rank_column_with_repeats_or_non_integers():
    long = long_of(table1())
    dup = long.copy()
    dup.loc[dup["rank"] == 2, "rank"] = 1
    with pytest.raises(InputError, match=r"rank column 'rank'.*repeated rank.*\[1, 1\]"):
        read_sets(dup)
    frac = long.astype({"rank": float})
    frac.loc[0, "rank"] = 1.5
    with pytest.raises(InputError, match="rank column 'rank' has 1 missing or non-integer"):
        read_sets(frac)
    text = long.astype({"rank": str})
    with pytest.raises(InputError, match="not integer ranks"):
        read_sets(text, rank="rank")
    late = long.assign(rank=long["rank"] + 1)
    with pytest.raises(InputError, match="starts at 2"):
        read_sets(late)


def test_scalar_data_where_sets_are_required():
    df = pd.DataFrame({"item": [1, 2], "rater": "A", "labels": ["a", "b"]})
    with pytest.raises(InputError,
                       match=r"column 'labels' holds single labels.*layout='long'.*\[v\]"):
        read_sets(df, layout="sets")


def test_sets_mixed_with_scalars():
    df = pd.DataFrame({"item": [1, 2], "rater": "A", "labels": [["a", "b"], "c"]})
    with pytest.raises(InputError, match=r"column 'labels' mixes label sets.*isinstance"):
        read_sets(df)


def test_layout_long_refuses_sets_and_rank_goes_with_long():
    with pytest.raises(InputError, match=r"layout='long'.*explode"):
        read_sets(table1(), layout="long")
    df = table1().assign(rank=1)
    with pytest.raises(InputError, match="Drop rank="):
        read_sets(df, rank="rank", value="labels")
    with pytest.raises(InputError, match="layout='wide' is not a layout"):
        read_sets(table1(), layout="wide")


def test_duplicate_annotations_and_unhashable_labels():
    df = pd.concat([table1(), table1().iloc[:1]], ignore_index=True)
    with pytest.raises(InputError, match=r"duplicate annotation.*\(item=1, rater='A'\)"):
        read_sets(df)
    bad = table1()
    bad.at[0, "labels"] = [{"x": 1}]
    with pytest.raises(InputError, match="cannot be categories"):
        read_sets(bad)
    with pytest.raises(TypeError, match="DataFrame"):
        read_sets(table1().to_xarray())
    with pytest.raises(InputError, match="missing id"):
        read_sets(table1().assign(item=[1, None, 3, 4, 5]))


# --- properties ---------------------------------------------------------------------


@st.composite
def set_frames(draw, max_items: int = 8, max_raters: int = 4, max_labels: int = 4):
    n_items = draw(st.integers(1, max_items))
    n_raters = draw(st.integers(1, max_raters))
    cats = ["p", "q", "r", "s", "t"]
    rows = []
    for i in range(n_items):
        for r in range(n_raters):
            if draw(st.booleans()) or (i == 0 and r == 0):
                k = draw(st.integers(1, max_labels))
                labs = draw(st.permutations(cats))[:k]
                kind = draw(st.sampled_from(["list", "tuple", "set"]))
                cell = {"list": list, "tuple": tuple, "set": frozenset}[kind](labs)
                rows.append((i * 10, f"r{r}", cell))
    return pd.DataFrame(rows, columns=["item", "rater", "labels"])


@settings(max_examples=80, deadline=None)
@given(df=set_frames())
def test_canonical_form_round_trips(df):
    before = copy.deepcopy(df)
    sets = read_sets(df)
    want = [tuple(c) if not isinstance(c, frozenset) else tuple(sorted(c))
            for c in df["labels"]]
    got = labels_of(sets)
    assert got == want
    assert sets.ordered.tolist() == [not isinstance(c, frozenset) for c in df["labels"]]
    frame = sets.to_frame()
    assert frame["item"].tolist() == df["item"].tolist()
    assert frame["rater"].tolist() == df["rater"].tolist()
    pd.testing.assert_frame_equal(df, before)  # input not modified
    for a, b in zip(df["labels"], before["labels"], strict=True):
        assert type(a) is type(b) and list(a) == list(b)
    # the long layout with ranks reads the same ordered annotations
    ordered = df[[not isinstance(c, frozenset) for c in df["labels"]]]
    if len(ordered):
        long = long_of(ordered.assign(labels=ordered["labels"].map(list)))
        again = read_sets(long)
        assert dict(zip(zip(again.items[again.item], again.raters[again.rater],
                            strict=True), labels_of(again), strict=True)) == {
            (i, r): tuple(c) for i, r, c in ordered.itertuples(index=False)}


def test_package_exports_the_reader():
    assert xa.read_sets is read_sets
    assert isinstance(xa.read_sets(table1()), xa.LabelSets)
