"""item_disagreement's table as its own object: columns, index names, modes (issue 35).

The table is built from blocks with a column Index made once per set of names
(:func:`~xrr_accessor.diagnostics._common.frame_of`), its index renamed only when a
name changes (:func:`~xrr_accessor.diagnostics._common.finish`) and its modes taken
from the categories with numpy: each table must still be a frame of its own, keep
the user's role names where they do not collide with a column, and hold each
item's most frequent value (the smallest on ties) in the input's dtype.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import xrr_accessor as xrr
from xrr_accessor.diagnostics.items import COLUMNS


def _quiet(*args, **kwargs) -> pd.DataFrame:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return xrr.item_disagreement(*args, **kwargs)


def _frame(seed: int, n_item: int = 40) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    n = rng.integers(1, 6, n_item)
    return pd.DataFrame({"item": np.repeat(np.arange(n_item), n),
                         "rater": np.concatenate([np.arange(k) for k in n]),
                         "score": rng.integers(0, 4, n.sum()).astype(float)})


def test_each_table_has_its_own_column_index():
    df = _frame(0)
    first = _quiet(df, level="interval")
    first.columns.name = "changed"
    first.columns = [c.upper() for c in first.columns]
    second = _quiet(df, level="interval")
    assert second.columns.name is None
    assert list(second.columns) == list(COLUMNS)
    text = df.assign(score=df["score"].map("v{}".format))
    third = _quiet(text, level="nominal")  # not numbers: five columns
    assert list(third.columns) == list(COLUMNS[:5])


@pytest.mark.parametrize(("name", "level", "want"), [
    ("doc", "interval", "doc"),  # the user's name of the item column, kept
    ("item", "interval", "item"),
    ("mean", "interval", "item"),  # a column of the table is called so: not renamed
    ("mean", "nominal", "mean"),  # text has no mean column: the user's name
])
def test_index_takes_the_users_item_name_unless_a_column_has_it(name, level, want):
    df = _frame(1).rename(columns={"item": name})
    if level == "nominal":
        df["score"] = df["score"].map("v{}".format)
    out = _quiet(df, level=level, item=name)
    assert out.index.names == ["label", want]  # a named value column is a label
    assert sorted(out.index.get_level_values(want)) == sorted(df[name].unique())


def _naive_modes(df: pd.DataFrame, col: str) -> dict:
    """Each item's most frequent value, the smallest on ties, counted by hand."""
    out = {}
    for item, values in df.groupby("item")[col]:
        counts: dict = {}
        for v in values:
            counts[v] = counts.get(v, 0) + 1
        top = max(counts.values())
        out[item] = min(v for v, c in counts.items() if c == top)
    return out


@pytest.mark.parametrize("kind", ["float", "int", "bool", "object", "category"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_modes_equal_a_count_by_hand_in_the_inputs_dtype(kind, seed):
    df = _frame(seed)
    scores = df["score"].astype(int)
    df["score"] = {"float": scores * 0.5, "int": scores, "bool": scores > 1,
                   "object": scores.map("v{}".format).astype(object),
                   "category": scores.map("c{}".format).astype("category")}[kind]
    level = "nominal" if kind in ("object", "category", "bool") else "interval"
    out = _quiet(df, level=level)
    got = out["mode"]
    want = _naive_modes(df, "score")
    items = out.index.get_level_values("item")
    assert dict(zip(items, got, strict=True)) == want
    if kind in ("float", "int", "bool", "object"):
        assert got.dtype == df["score"].dtype


def test_undefined_rows_counted_per_label_in_the_warning():
    df = _frame(3)
    df["other"] = df["score"][::-1].to_numpy()
    single = int((df.groupby("item").size() == 1).sum())
    with pytest.warns(xrr.errors.UndefinedWarning) as rec:
        out = xrr.item_disagreement(df, labels=["score", "other"], level="interval")
    message = str(rec[0].message)
    assert f"for {2 * single} of {len(out)} row(s)" in message
    assert f"label 'score': {single}" in message and f"label 'other': {single}" in message
    assert out.attrs["n_undefined"] == 2 * single
    assert out.index.names == ["label", "item"]
    assert (out.index.get_level_values("label") == "score").sum() == len(out) // 2
    assert out.attrs["n_undefined"] == int(out["disagreement"].isna().sum())


def test_frame_of_builds_the_frame_pandas_public_constructor_builds():
    """frame_of skips the block manager's integrity check (its blocks are right by
    construction): the frame must equal pandas' own, pass that check when it is run,
    and behave as any frame (a column set, a copy, consolidation)."""
    from xrr_accessor.diagnostics._common import frame_of

    rng = np.random.default_rng(5)
    n = 7
    floats = rng.random((2, n))
    ints = rng.integers(0, 9, (2, n))
    rank = pd.arrays.IntegerArray(np.arange(1, n + 1), np.arange(n) % 3 == 0)
    modes = pd.Categorical(list("abcabca"))
    blocks = [(floats, ["d", "share"]), (rank, ["rank"]), (ints, ["n", "code"]),
              (modes, ["mode"])]
    columns = ["d", "rank", "n", "mode", "code", "share"]
    index = pd.Index(rng.permutation(n) + 100, name="item")
    got = frame_of(blocks, columns, index)
    want = pd.DataFrame({"d": floats[0], "rank": rank, "n": ints[0], "mode": modes,
                         "code": ints[1], "share": floats[1]}, index=index)
    pd.testing.assert_frame_equal(got, want, check_exact=True)
    got._mgr._verify_integrity()  # the check frame_of leaves out passes
    if hasattr(pd.api, "internals"):  # pandas >= 3: its public constructor, same frame
        from pandas.api.internals import create_dataframe_from_blocks

        places = [np.array([columns.index(c) for c in names]) for _, names in blocks]
        public = create_dataframe_from_blocks(
            [(v.reshape(1, -1) if isinstance(v, np.ndarray) and v.ndim == 1 else v, p)
             for (v, _), p in zip(blocks, places, strict=True)],
            index=index, columns=pd.Index(columns))
        pd.testing.assert_frame_equal(got, public, check_exact=True)
    got["extra"] = 1.0  # a frame like any other: a new column, a set value, a copy
    got.loc[index[0], "d"] = -1.0
    assert got.loc[index[0], "d"] == -1.0 and got["extra"].sum() == n
    pd.testing.assert_frame_equal(got.copy()._consolidate(), got, check_exact=True)


@pytest.mark.parametrize("values", [
    np.array([[1.5, 2.5]]), np.array([[1, 2]]), np.array([[True, False]]),
    np.array([[1, 2]], dtype=np.uint8), np.array([["a", None]], dtype=object),
    np.array([["2020-01-01", "2021-01-01"]], dtype="datetime64[ns]"),
    pd.array([1, None], dtype="Int64"), pd.array([True, None], dtype="boolean"),
    pd.array([0.5, None], dtype="Float64"), pd.Categorical(["a", "b"]),
    pd.array(["a", "b"], dtype="string"),
], ids=lambda v: str(v.dtype))
def test_frame_of_blocks_are_the_blocks_pandas_makes(values):
    """Each kind of column goes in the block pandas' own constructor gives it (dates
    coerced to their array, masked arrays in extension blocks): same class, same dtype."""
    internals = pytest.importorskip("pandas.core.internals.api")
    if not hasattr(internals, "_make_block"):  # pandas < 3: frame_of takes the public way
        pytest.skip("pandas < 3 has no _make_block (frame_of builds the frame by columns)")
    _make_block = internals._make_block

    from xrr_accessor.diagnostics._common import _block

    place = np.array([0], dtype=np.intp)
    got, want = _block(values, place), _make_block(values, place)
    assert type(got) is type(want)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert list(got.mgr_locs) == list(want.mgr_locs)
