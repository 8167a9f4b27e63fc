"""The reader's numba passes against pandas: integer ids coded in order of first
appearance (``pd.factorize``) and the repeat check of (item, rater, replication) keys
(``pd.Index.duplicated``), on random ids including negative and wide ranges."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from xrr_accessor.kernels.encode import first_seen_codes, has_repeat, pair_codes
from xrr_accessor.schema.tables import Ids, integer_pair_ids

INTS = arrays(np.int64, st.integers(0, 300), elements=st.integers(-50, 10**6))


@settings(max_examples=200, deadline=None)
@given(values=INTS)
def test_first_seen_codes_equal_factorize(values):
    codes = np.empty(len(values), dtype=np.int64)
    ok, uniques = first_seen_codes(values, 10**7, codes)
    assert ok
    want_codes, want_uniques = pd.factorize(values)
    np.testing.assert_array_equal(codes, want_codes)
    np.testing.assert_array_equal(uniques, want_uniques)


def test_first_seen_codes_refuse_a_range_wider_than_the_span():
    ok, _ = first_seen_codes(np.array([0, 10**9], dtype=np.int64), 1024,
                             np.empty(2, dtype=np.int64))
    assert not ok


@settings(max_examples=200, deadline=None)
@given(values=INTS, dtype=st.sampled_from(["int8", "int32", "int64", "uint16"]))
def test_integer_ids_equal_factorize_whatever_the_range(values, dtype):
    series = pd.Series(values).clip(np.iinfo(dtype).min, np.iinfo(dtype).max).astype(dtype)
    ids = Ids.factorize(series, "column 'item'")
    want_codes, want_uniques = pd.factorize(series)
    np.testing.assert_array_equal(ids.codes, want_codes)
    pd.testing.assert_index_equal(ids.uniques, pd.Index(want_uniques))


@settings(max_examples=200, deadline=None)
@given(keys=arrays(np.int64, st.integers(0, 300), elements=st.integers(0, 999)))
def test_has_repeat_equals_duplicated(keys):
    """Keys item * 10 + rater in arbitrary row order: the byte-per-key pass."""
    found = has_repeat(keys // 10, keys % 10, 100, 10, 1000)
    assert found == int(pd.Index(keys).duplicated().any())


@settings(max_examples=200, deadline=None)
@given(items=arrays(np.int64, st.integers(0, 200), elements=st.integers(-5, 60)),
       raters=st.data(), span=st.sampled_from([10, 10**7]))
def test_pair_codes_equal_factorize_and_duplicated(items, raters, span):
    """Both columns coded as ``pd.factorize`` codes them, and the repeat answer that of
    ``duplicated`` on the (item, rater) pairs: known (0 or 1) where a byte per possible
    pair fits in 8 bytes a row, -1 otherwise; nothing at all past ``span``."""
    rater = raters.draw(arrays(np.int64, len(items), elements=st.integers(-3, 400)))
    i_codes, r_codes = np.empty(len(items), np.int64), np.empty(len(items), np.int64)
    ok, i_uniq, r_uniq, repeat = pair_codes(items, rater, span, i_codes, r_codes)
    wide = len(items) and max(np.ptp(items), np.ptp(rater)) > span
    assert ok == (not wide)
    if wide:
        return
    for codes, uniq, col in ((i_codes, i_uniq, items), (r_codes, r_uniq, rater)):
        want_codes, want_uniq = pd.factorize(col)
        np.testing.assert_array_equal(codes, want_codes)
        np.testing.assert_array_equal(uniq, want_uniq)
    dup = int(pd.MultiIndex.from_arrays([items, rater]).duplicated().any()) if len(items) \
        else 0
    space = (np.ptp(items) + 1) * (np.ptp(rater) + 1) if len(items) else 0
    assert repeat == (dup if space <= 8 * len(items) else -1)


def test_integer_pair_ids_keep_the_dtypes_and_decline_other_ids():
    item, rater, repeat = integer_pair_ids(np.array([5, 2, 5], dtype=np.int16),
                                           pd.Series([1, 2, 1], dtype="uint8"), ("i", "r"))
    assert item.uniques.dtype == np.int16 and rater.uniques.dtype == np.uint8
    assert (item.column, rater.column, repeat) == ("i", "r", 1)
    assert integer_pair_ids(np.array(["a", "b"], dtype=object), np.array([1, 2]),
                            ("i", "r")) is None
    assert integer_pair_ids(np.array([1, 2], dtype=np.uint64), np.array([1, 2]),
                            ("i", "r")) is None
    assert integer_pair_ids(np.array([0, 10**12]), np.array([1, 2]), ("i", "r")) is None


@pytest.mark.parametrize("duplicates", ["first", "last"])
def test_a_repeated_annotation_is_still_found_with_integer_ids(duplicates):
    import xrr_accessor as xa

    df = pd.DataFrame({"item": [1, 1, 2, 2, 1], "rater": [7, 8, 7, 8, 7],
                       "joy": [0, 1, 1, 0, 1]})
    with pytest.raises(xa.InputError, match="more than once"):
        xa.irr(df)
    got = df.xrr(duplicates=duplicates).irr()
    assert got.attrs["n_duplicates"] == 1


@settings(max_examples=200, deadline=None)
@given(items=arrays(np.int64, st.integers(0, 60), elements=st.integers(0, 11)),
       grouped=st.booleans(), extra=st.integers(0, 3))
def test_item_order_is_a_stable_sort_by_item(items, grouped, extra):
    """The counting sort by item, and its shortcut for rows already grouped in item
    order (empty ``order``, offsets where the item changes; items with no row,
    inside the range or after it, have empty slices), against numpy's stable argsort."""
    from xrr_accessor.kernels.accumulate import item_order

    if grouped:
        items = np.sort(items)
    n_item = int(items.max(initial=-1)) + 1 + extra
    offsets, order = item_order(items, n_item)
    want_order = np.argsort(items, kind="stable")
    np.testing.assert_array_equal(offsets, np.r_[0, np.cumsum(np.bincount(items,
                                                                          minlength=n_item))])
    if order.size == 0:
        assert (np.diff(items) >= 0).all()
        np.testing.assert_array_equal(want_order, np.arange(len(items)))
    else:
        np.testing.assert_array_equal(order, want_order)


@settings(max_examples=300, deadline=None)
@given(n=st.integers(0, 40), n_item=st.integers(1, 6), n_rater=st.integers(1, 4),
       n_rep=st.integers(0, 3), grouped=st.booleans(), seed=st.integers(0, 2**16))
def test_has_repeats_equals_pandas(n, n_item, n_rater, n_rep, grouped, seed):
    """The repeat check of (item, rater[, replication]) keys: one pass with a rater table
    when the rows come grouped by item (runs in any item order), else the byte per key;
    the same answer as hashing the combined keys."""
    from xrr_accessor.schema.duplicates import has_repeats, key_codes

    rng = np.random.default_rng(seed)
    item = rng.integers(0, n_item, n)
    if grouped:  # each item's rows together, the items in a shuffled order
        item = rng.permutation(n_item)[np.sort(item)]
    parts = [item, rng.integers(0, n_rater, n)] + ([rng.integers(0, n_rep, n)] if n_rep else [])
    ids = [Ids(p.astype(np.int64), pd.Index(range(int(p.max(initial=-1)) + 1))) for p in parts]
    keys = key_codes(ids)
    want = pd.Index(keys.codes).has_duplicates
    assert has_repeats(keys) == want
    # the kernel alone, with no room for a byte per key: rows in runs are still answered
    items = max(len(ids[0].uniques), 1)
    n_sub = keys.space // items
    found = has_repeat(item, keys.codes - item * n_sub, items, n_sub, 0)
    runs = all(item[k] == item[k - 1] or item[k] not in item[:k] for k in range(1, n))
    if runs:
        assert found == int(want)
    else:  # unknown, unless a repeat was met before the rows left their runs
        assert found == -1 or (found == 1 and want)


@pytest.mark.parametrize("shape", [(1, 0), (0, 3), (2, 0, 3), (3, 2, 0), (1, 1, 1), (4, 3, 2)])
def test_grid_positions_with_empty_dimensions(shape):
    """A raters x items grid read item-major: every cell one row, the positions of each
    dimension in that order (np.indices), empty dimensions included."""
    import xarray as xr

    from xrr_accessor.schema import Roles, read

    dims = ("item", "rater", "replication")[:len(shape)]
    da = xr.DataArray(np.arange(int(np.prod(shape)), dtype=float).reshape(shape), dims=dims)
    table = read(da, Roles())
    order = ("item", "replication", "rater")[:len(shape)] if len(shape) == 3 else dims
    grid = np.indices([da.sizes[d] for d in order]).reshape(len(order), -1)
    for role, row in zip(order, grid, strict=True):
        ids = getattr(table, role)
        np.testing.assert_array_equal(ids.codes, row)


@pytest.mark.parametrize("values", [
    [1, 2, 3], [0.5, np.nan, 2.0], ["a", "b", None], pd.Categorical(["u", "v", "u"]),
    pd.array([1, None, 3], dtype="Int64"), [True, False, True],
    pd.to_datetime(["2024-01-01", "2024-01-02", None]), [{"a"}, {"b"}, set()]])
def test_column_series_equals_getitem(values):
    """The reader's column Series is ``df[col]``: values, dtype, index and name; and with
    copy-on-write (pandas 3) a write into it leaves the frame as it was."""
    from xrr_accessor.schema.read import column_series

    df = pd.DataFrame({"item": [1, 2, 3], "label": values}, index=[10, 20, 30])
    got = column_series(df, "label")
    pd.testing.assert_series_equal(got, df["label"])
    df.attrs = {"source": "test"}
    df.flags.allows_duplicate_labels = False
    got = column_series(df, "label")
    assert got.attrs == df["label"].attrs == {"source": "test"}
    assert got.flags.allows_duplicate_labels is False
    if int(pd.__version__.split(".")[0]) >= 3:
        before = df.copy()
        got.iloc[0] = got.iloc[1]
        pd.testing.assert_frame_equal(df, before)


@pytest.mark.parametrize("ids", [
    [np.iinfo(np.int64).min, np.iinfo(np.int64).max],  # max - min wraps to -1
    [np.iinfo(np.int64).min + 5, np.iinfo(np.int64).max - 3],  # wraps below -1
    [-(2**62), 2**62 + 1]])  # a span of 2**63 + 1: wraps too
def test_ids_over_the_whole_int64_range_are_hashed_not_tabled(ids):
    """A range of ids wider than int64 holds (64-bit hashes as ids) wraps when the kernels
    subtract its ends: they decline it (hashed instead) rather than build a table of a
    negative size or write past it; the coefficient equals the one on ids 0 and 1."""
    import xrr_accessor as xa

    values = np.array(ids, dtype=np.int64)
    out = np.empty(2, dtype=np.int64)
    assert not first_seen_codes(values, 10**9, out)[0]
    assert not pair_codes(values, np.zeros(2, np.int64), 10**9, out, out.copy())[0]
    assert not pair_codes(np.zeros(2, np.int64), values, 10**9, out, out.copy())[0]
    df = pd.DataFrame({"item": np.repeat(values, 2), "rater": [0, 1, 0, 1],
                       "value": [0, 0, 1, 1]})
    small = df.assign(item=[0, 0, 1, 1])

    def one(x):
        return float(np.asarray(x, dtype=float).reshape(-1)[0])

    assert one(xa.irr(df, level="nominal")) == one(xa.irr(small, level="nominal")) == 1.0
    raters = pd.DataFrame({"item": [0, 0, 1, 1], "rater": np.tile(values, 2),
                           "value": [0, 0, 1, 1]})  # the same ids as raters
    assert one(xa.irr(raters, level="nominal")) == 1.0
    pools = pd.DataFrame({"item": [0, 0, 1, 1], "rater": [0, 0, 0, 0],
                          "pool": np.tile(values, 2), "value": [0, 0, 1, 1]})
    assert one(xa.cross_kappa(pools, replication="pool")) == 1.0  # and as replications


@pytest.mark.parametrize("duplicated", [False, True])
def test_large_frames_route_equals_the_one_pass_route(monkeypatch, duplicated):
    """From PAIR_MAX_ROWS rows integer ids are coded column by column in threads and the
    repeat check runs on its own: the same codes, the same coefficient, and a repeated
    (item, rater) pair still refused naming it."""
    import importlib

    import xrr_accessor as xa

    read_mod = importlib.import_module("xrr_accessor.schema.read")
    rng = np.random.default_rng(1)
    df = pd.DataFrame({"item": np.repeat(np.arange(60), 3) * 7 - 50,
                       "rater": np.tile([3, 9, 4], 60).astype(np.int16),
                       "value": rng.integers(0, 4, 180)})
    if duplicated:
        df.loc[5, "rater"] = df.loc[4, "rater"]
    routes = []
    real = read_mod.integer_pair_ids
    monkeypatch.setattr(read_mod, "integer_pair_ids",
                        lambda *a: routes.append(1) or real(*a))

    def both():
        if duplicated:
            with pytest.raises(xa.InputError, match="more than once"):
                xa.irr(df, level="nominal")
            return None
        return xa.irr(df, level="nominal")

    one_pass = both()
    assert routes  # the one pass was taken
    routes.clear()
    monkeypatch.setattr(read_mod, "PAIR_MAX_ROWS", 0)
    monkeypatch.setattr(read_mod, "FACTORIZE_PARALLEL_ROWS", 0)  # and in threads
    by_column = both()
    assert not routes
    if not duplicated:
        assert float(np.asarray(one_pass).reshape(-1)[0]) == float(
            np.asarray(by_column).reshape(-1)[0])
