"""The short cuts of issue 35's second overhead pass give what the general way gives.

* alpha of one label in one replication finalized in Python floats
  (:func:`~xrr_accessor.coefficients.alpha._one_cell`) equals the general finalize
  (value to the last bit, counts, reasons) at every level, with missing values and in
  the undefined cases, and equals alpha written from the formula here;
* a :class:`~xrr_accessor.engine.additive.Meta`'s shapes and statistics size, found
  once per layout, are those computed afresh (and each caller gets its own dict);
* index names listed once per values of an Index, views included
  (:func:`~xrr_accessor.schema.read.column_names`), are ``list(index)``, and a frame
  whose columns change is read with its new names;
* the repeat check's key space as Python integers equals numpy's object product, past
  the int64 range too;
* integer ids coded in the order they first appear equal ``pd.factorize``, their
  uniques table sized by the range or the rows, whichever is smaller;
* a result's variables built without xarray's checks (numbers and booleans) are the
  variables xarray builds, and results from xarray hold alpha from the formula, their
  labels and counts;
* one label column of whole numbers coded by one kernel call
  (:func:`~xrr_accessor.schema.blocks._one_column`) gives the codes and categories of
  the block of one column, for every integer type and booleans, and leaves alone the
  ranges the block leaves alone;
* the zero-size statistics of the groups a call does not compute, shared between calls,
  leave every pass's statistics as fresh zeros give them;
* a warning's frames, judged inside the package once per file, still point at the
  caller's line, call after call; a relative file is judged from the working directory;
* irr with the default interval options (no ``Uncertainty`` built) is irr as before, and
  a bad option is still refused; an input's one replication is a fresh RangeIndex.
"""

from __future__ import annotations

import inspect
import itertools
import os
import warnings

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from hypothesis import given, settings
from hypothesis import strategies as st

from xrr_accessor.coefficients import alpha as alpha_mod
from xrr_accessor.coefficients import lookup
from xrr_accessor.engine import statistics
from xrr_accessor.engine.additive import GROUPS, Meta
from xrr_accessor.engine.pipeline import annotations, run
from xrr_accessor.engine.results import _variable
from xrr_accessor.errors import UndefinedWarning, _inside
from xrr_accessor.kernels.encode import first_seen_codes
from xrr_accessor.schema import blocks
from xrr_accessor.schema.duplicates import key_codes
from xrr_accessor.schema.read import column_names
from xrr_accessor.schema.tables import Ids

ALPHA = lookup("alpha")


def _frame(values: list[float | None], n_raters: int) -> pd.DataFrame:
    n_items = len(values) // n_raters
    return pd.DataFrame({"item": np.repeat(np.arange(n_items), n_raters),
                         "rater": np.tile(np.arange(n_raters), n_items),
                         "value": np.array(values[:n_items * n_raters], dtype=float)})


def _both(df: pd.DataFrame, level: str, monkeypatch: pytest.MonkeyPatch):
    stats_run = run(df, [ALPHA], level=level)
    taken = []
    real = alpha_mod._one_cell

    def spy(*args):
        got = real(*args)
        taken.append(got is not None)
        return got

    monkeypatch.setattr(alpha_mod, "_one_cell", spy)
    fast = alpha_mod.alpha(stats_run.stats, stats_run.ctx)
    monkeypatch.setattr(alpha_mod, "_one_cell", lambda *args: None)
    slow = alpha_mod.alpha(stats_run.stats, stats_run.ctx)
    return fast, slow, taken


def _same(fast, slow) -> None:
    np.testing.assert_array_equal(fast.value, slow.value)  # NaN where NaN, else every bit
    assert fast.value.dtype == slow.value.dtype and fast.value.shape == slow.value.shape
    assert fast.reason.dtype == slow.reason.dtype and fast.reason.tolist() == slow.reason.tolist()
    assert list(fast.counts) == list(slow.counts)
    for name in slow.counts:
        np.testing.assert_array_equal(fast.counts[name], slow.counts[name])
        assert fast.counts[name].dtype == slow.counts[name].dtype
    assert fast.extras == slow.extras


def _naive_alpha(df: pd.DataFrame, level: str) -> float:
    """Krippendorff's alpha from its definition: pairable values, every ordered pair of an
    item's values weighted 1 / (m - 1), D nominal, ordinal (ranks over the pairable
    values) or interval."""
    groups = [g.dropna().to_numpy() for _, g in df.groupby("item")["value"]]
    groups = [g for g in groups if len(g) >= 2]
    values = np.concatenate(groups) if groups else np.zeros(0)
    cats, counts = np.unique(values, return_counts=True)

    def d(a: float, b: float) -> float:
        if level == "nominal":
            return float(a != b)
        if level == "interval":
            return (a - b) ** 2
        i, j = sorted((np.searchsorted(cats, a), np.searchsorted(cats, b)))
        return (counts[i:j + 1].sum() - (counts[i] + counts[j]) / 2) ** 2

    n = len(values)
    observed = sum(d(a, b) / (len(g) - 1) for g in groups
                   for x, a in enumerate(g) for y, b in enumerate(g) if x != y)
    expected = sum(d(a, b) for a, b in itertools.product(values, values))
    return 1 - (n - 1) * observed / expected


@settings(max_examples=25, deadline=None)
@given(level=st.sampled_from(["nominal", "ordinal", "interval"]),
       n_raters=st.integers(2, 4),
       values=st.lists(st.one_of(st.none(), st.integers(0, 3)), min_size=4, max_size=24))
def test_alpha_of_one_cell_equals_the_general_finalize(level, n_raters, values):
    df = _frame([np.nan if v is None else v for v in values], n_raters)
    with pytest.MonkeyPatch.context() as mp:
        fast, slow, taken = _both(df, level, mp)
    assert taken == [True]
    _same(fast, slow)
    if not fast.reason[0, 0]:
        assert fast.value[0, 0] == pytest.approx(_naive_alpha(df, level), rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval"])
def test_alpha_of_one_cell_equals_the_general_finalize_to_the_bit(seed, level, monkeypatch):
    # fractions and many distinct sums: a rounding done in another order shows here
    rng = np.random.default_rng(seed)
    values = rng.normal(0, 3, 60).round(1) if level == "interval" else rng.integers(0, 7, 60)
    values = np.where(rng.random(60) < 0.2, np.nan, values)
    fast, slow, taken = _both(_frame(list(values), 3), level, monkeypatch)
    assert taken == [True]
    _same(fast, slow)


@pytest.mark.parametrize("values, reason", [
    ([1, np.nan, 2, np.nan, 3, np.nan], "no item has two or more annotations"),
    ([2, 2, 2, 2, 2, 2], "every pairable annotation has the same value"),
])
@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval"])
def test_alpha_of_one_cell_says_why_it_is_undefined_as_the_general_way(values, reason, level,
                                                                       monkeypatch):
    fast, slow, taken = _both(_frame(values, 2), level, monkeypatch)
    assert taken == [True]
    _same(fast, slow)
    assert np.isnan(fast.value[0, 0]) and fast.reason[0, 0].startswith(reason)


def test_alpha_of_one_cell_takes_the_rounding_rule_of_numbers(monkeypatch):
    # a constant far from 0 whose sums of squares leave rounding: undefined by scale
    fast, slow, taken = _both(_frame([1e8 + 0.1] * 6, 2), "interval", monkeypatch)
    assert taken == [True]
    _same(fast, slow)


def test_alpha_of_several_cells_takes_the_general_way(monkeypatch):
    df = _frame([0, 1, 1, 1, 2, 2, 0, 0], 2)
    df["other"] = df["value"][::-1].to_numpy()
    result = run(df, [ALPHA], level="nominal", labels=["value", "other"])
    monkeypatch.setattr(alpha_mod, "_one_cell", lambda *a: pytest.fail("taken"))
    est = alpha_mod.alpha(result.stats, result.ctx)
    assert est.value.shape == (2, 1)
    for j, column in enumerate(["value", "other"]):
        assert est.value[j, 0] == pytest.approx(_naive_alpha(
            df[["item", "rater"]].assign(value=df[column]), "nominal"))


def test_alpha_of_one_cell_with_a_sum_not_finite_takes_the_general_way():
    sums = alpha_mod.WithinSums(np.array([[np.inf]]), np.array([[1.0]]),
                                np.array([[4.0]]), None)
    assert alpha_mod._one_cell(np.array([[[0.0, 0.0, 2.0]]]), sums) is None


@pytest.mark.parametrize("form", ["vector", "matrix", "moments", "ranks"])
def test_meta_shapes_found_once_are_the_shapes_computed_afresh(form):
    meta = Meta(n_label=2, n_rep=3, n_rater=4, n_category=5, n_categories=(5, 3),
                form=form, groups=frozenset(GROUPS), top=4,
                pairs=np.array([[0, 1], [0, 2]], dtype=np.int64))
    first = meta.shapes()
    assert first == meta._shapes()
    first["m_hist"] = (0,)  # a caller's own dict: the next caller is not misled
    assert meta.shapes() == meta._shapes()
    assert meta.n_cells() == sum(int(np.prod(s)) for s in meta._shapes().values())
    assert meta.n_cells() == meta.n_cells()
    other = Meta(n_label=1, n_rep=1, n_rater=2, n_category=2, n_categories=(2,),
                 form=form, groups=frozenset({"within"}))
    assert other.shapes() == other._shapes() != meta.shapes()  # per layout, not per class
    loose = Meta(n_label=2, n_rep=3, n_rater=4, n_category=5, n_categories=(5, 3),
                 form=form, groups=set(GROUPS), top=4,  # a set: no key, computed each time
                 pairs=np.array([[0, 1], [0, 2]], dtype=np.int64))
    assert loose.shapes() == meta._shapes() and loose.n_cells() == meta.n_cells()


def test_column_names_listed_once_per_index_are_its_names():
    df = pd.DataFrame({"item": [1, 2], "rater": [1, 1], "joy": [0, 1]})
    first = column_names(df.columns)
    assert first == list(df.columns) == ["item", "rater", "joy"]
    first.append("mine")  # each caller its own list
    assert column_names(df.columns) == ["item", "rater", "joy"]
    df.columns = ["item", "coder", "joy"]  # a new Index: listed again
    assert column_names(df.columns) == ["item", "coder", "joy"]
    df["anger"] = 1
    assert column_names(df.columns) == ["item", "coder", "joy", "anger"]
    assert column_names(pd.Index([3, True, 1.5])) == [3, True, 1.5]
    labels = pd.Index(["joy", "fear"], name="label")
    assert column_names(labels) == column_names(labels.view()) == ["joy", "fear"]
    many = [pd.Index([f"c{k}", "x"]) for k in range(200)]  # past the cache's size
    assert all(column_names(ix) == [f"c{k}", "x"] for k, ix in enumerate(many))
    assert all(column_names(ix) == [f"c{k}", "x"] for k, ix in enumerate(many))


def test_irr_reads_a_frame_whose_columns_were_renamed_between_calls():
    df = pd.DataFrame({"item": [1, 1, 2, 2, 3, 3], "rater": [1, 2] * 3,
                       "joy": [0, 0, 1, 1, 1, 0]})
    first = df.xrr.irr(level="nominal")
    assert first.index.tolist() == ["joy"]
    df.columns = ["item", "rater", "fear"]
    got = df.xrr.irr(level="nominal")
    assert got.index.tolist() == ["fear"] and got.tolist() == first.tolist()
    df.columns = ["unit", "coder", "fear"]
    assert df.xrr.irr(level="nominal").tolist() == first.tolist()
    assert df.xrr.irr(level="nominal").attrs["n_items"] == {"fear": 3}


@pytest.mark.parametrize("sizes", [(3, 2), (2_000, 5, 7), (1, 1), (2**40, 2**30, 2**10)])
def test_key_space_in_python_integers_is_numpys_object_product(sizes):
    parts = tuple(Ids(np.zeros(1, dtype=np.int64), pd.RangeIndex(n)) for n in sizes)
    want = int(np.prod([max(n, 1) for n in sizes], dtype=object))
    assert key_codes(list(parts)).space == want


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(-50, 50), min_size=1, max_size=40))
def test_first_seen_codes_with_a_table_sized_by_the_range_equal_factorize(values):
    arr = np.array(values, dtype=np.int64)
    codes = np.empty(len(arr), dtype=np.int64)
    ok, uniques = first_seen_codes(arr, 1024, codes)
    want_codes, want_uniques = pd.factorize(arr)
    assert ok
    np.testing.assert_array_equal(codes, want_codes)
    np.testing.assert_array_equal(uniques, want_uniques)


@pytest.mark.parametrize("data", [
    np.asarray(0.25), np.asarray(7), np.array([1, 2], dtype=np.int32), np.array([True]),
    np.array([[1.5, np.nan]]), np.array(["a", "b"], dtype=object),
    np.array(["2020-01-01"], dtype="datetime64[ns]"), np.ma.masked_array([1.0, 2.0]),
])
def test_a_variable_without_xarrays_checks_is_the_variable_xarray_builds(data):
    dims = [f"d{j}" for j in range(data.ndim)]
    got, want = _variable(dims, data), xr.Variable(dims, data)
    assert got.identical(want) and got.dtype == want.dtype
    assert type(got.data) is type(want.data)


@pytest.mark.parametrize("labels", [["joy"], ["joy", "fear"]])
def test_results_from_xarray_are_the_dataarrays_xarray_builds(labels):
    rng = np.random.default_rng(4)
    da = xr.DataArray(rng.integers(0, 3, (len(labels), 3, 6)), dims=("label", "rater", "item"),
                      coords={"label": labels})
    got = da.xrr.irr(level="nominal")
    values = np.array([_naive_alpha(pd.DataFrame({
        "item": np.tile(np.arange(6), 3), "value": da.sel(label=lab).to_numpy().ravel()}),
        "nominal") for lab in labels])
    want = xr.DataArray(values, dims=["label"], coords={"label": labels}, name="alpha")
    np.testing.assert_allclose(got.to_numpy(), want.to_numpy(), rtol=1e-12)
    assert got.dims == want.dims and got.label.to_numpy().tolist() == labels
    assert got.n_items.dtype == np.int64 and got.n_items.to_numpy().tolist() == [6] * len(labels)


def test_a_warning_points_at_the_callers_line_call_after_call():
    df = pd.DataFrame({"item": [1, 1, 2, 2, 3, 3], "rater": [1, 2] * 3,
                       "joy": ["a"] * 6})  # one value: alpha undefined, a warning
    for _ in range(3):  # the frames' answers found once, then reused
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            df.xrr.irr(level="nominal")
            line = inspect.currentframe().f_lineno - 1
        notes = [w for w in caught if issubclass(w.category, UndefinedWarning)]
        assert notes and all(w.filename == __file__ and w.lineno == line for w in notes)


def test_inside_is_abspath_startswith_and_follows_the_working_directory(tmp_path):
    inner = str(tmp_path / "pkg")
    skip = (inner,)
    assert _inside(os.path.join(inner, "a.py"), skip)
    assert not _inside(str(tmp_path / "other" / "a.py"), skip)
    assert _inside(os.path.join(inner, "a.py"), skip)  # the answer kept
    here = os.getcwd()
    try:
        os.chdir(tmp_path)
        assert _inside(os.path.join("pkg", "b.py"), skip)
        os.chdir(here)
        assert not _inside(os.path.join("pkg", "b.py"), skip) or here == str(tmp_path)
    finally:
        os.chdir(here)


@settings(max_examples=25, deadline=None)
@given(dtype=st.sampled_from(["int8", "int16", "int32", "int64", "uint8", "uint16",
                              "uint32", "bool"]),
       values=st.lists(st.integers(-2**40, 2**40), min_size=1, max_size=30),
       spread=st.sampled_from([1, 3, 100, 5000, 2**40]))
def test_one_column_of_whole_numbers_is_coded_as_its_block(dtype, values, spread):
    info = np.iinfo(dtype) if dtype != "bool" else None
    raw = np.array(values, dtype=np.int64) % spread
    if info is not None:
        raw = np.clip(raw, info.min, info.max)
    arr = raw.astype(dtype)
    kind = "int8" if dtype in ("int8", "bool") else "int64"
    fast, slow = np.full((1, len(arr)), -7), np.full((1, len(arr)), -7)
    got = blocks._one_column(arr, fast[0])
    want = blocks._coded_block(kind, [(0, arr)], slow)[0]
    np.testing.assert_array_equal(fast, slow)  # written alike, or both left alone
    if want is None:
        assert got is None
    else:
        pd.testing.assert_index_equal(got, want, exact=True)
        np.testing.assert_array_equal(np.asarray(want)[fast[0]], arr)  # codes name values


@pytest.mark.parametrize("values", [[2**52, 2**52 - 3], [-2**52 - 1, -2**52], [0, 2**53]])
def test_one_column_beyond_2_to_the_52_is_left_alone_as_its_block(values):
    arr = np.array(values, dtype=np.int64)
    fast, slow = np.full((1, 2), -7), np.full((1, 2), -7)
    got, want = blocks._one_column(arr, fast[0]), blocks._coded_block("int64", [(0, arr)], slow)
    np.testing.assert_array_equal(fast, slow)
    assert (got is None) == (want[0] is None)


def test_one_column_takes_the_one_kernel_and_two_the_block(monkeypatch):
    calls = []
    real = blocks._one_column
    monkeypatch.setattr(blocks, "_one_column", lambda *a: calls.append(1) or real(*a))
    codes = np.zeros((2, 3), dtype=np.int64)
    one = blocks.block_codes([(1, pd.Series([5, 3, 5]))], codes)
    assert calls == [1] and one[1].tolist() == [3, 5] and codes[1].tolist() == [1, 0, 1]
    two = blocks.block_codes([(0, pd.Series([1, 0, 1])), (1, pd.Series([7, 7, 9]))], codes)
    assert calls == [1] and two[0].tolist() == [0, 1] and two[1].tolist() == [7, 9]
    assert codes.tolist() == [[1, 0, 1], [0, 0, 1]]
    mixed = blocks.block_codes([(0, pd.Series([0.5, 1.0, 0.0])), (1, pd.Series([2, 2, 4]))],
                               codes)
    assert calls == [1] and mixed[0] is None and mixed[1].tolist() == [2, 4]


@pytest.mark.parametrize("metric, level", [("alpha", "nominal"), ("alpha", "ordinal"),
                                           ("fleiss", "nominal"), ("iota", "interval"),
                                           ("conger", "nominal")])
def test_shared_zero_size_statistics_change_no_pass(metric, level, monkeypatch):
    rng = np.random.default_rng(2)
    df = pd.DataFrame({"item": np.repeat(np.arange(30), 3), "rater": np.tile([0, 1, 2], 30),
                       "wave": np.repeat([0, 1], 45), "value": rng.integers(0, 4, 90)})
    df["value"] = df["value"].where(rng.random(90) > 0.1)
    entry = lookup(metric)
    shared = run(df, [entry], level=level, replication="wave")
    again = run(df, [entry], level=level, replication="wave")  # the shared arrays reused
    monkeypatch.setattr(statistics, "_zeros", np.zeros)
    fresh = run(df, [entry], level=level, replication="wave")
    for got in (shared, again):
        assert list(got.stats.arrays) == list(fresh.stats.arrays)
        for name, arr in fresh.stats.arrays.items():
            np.testing.assert_array_equal(got.stats[name], arr)
            assert got.stats[name].shape == arr.shape
    empty = [k for k, v in shared.stats.arrays.items() if v.size == 0]
    assert empty and all(shared.stats[k] is again.stats[k] for k in empty)
    np.testing.assert_array_equal(shared.estimate(entry).value, fresh.estimate(entry).value)


def test_the_one_replication_of_an_input_is_a_fresh_range_index_each_call():
    df = pd.DataFrame({"item": [1, 1, 2, 2], "rater": [1, 2, 1, 2], "joy": [0, 1, 1, 1]})
    first, _ = annotations(df)
    pd.testing.assert_index_equal(first.replications, pd.RangeIndex(1, name="replication"),
                                  exact=True)
    first.replications.name = "mine"  # a caller renaming its own
    again, _ = annotations(df)
    assert again.replications is not first.replications
    pd.testing.assert_index_equal(again.replications, pd.RangeIndex(1, name="replication"),
                                  exact=True)


@pytest.mark.parametrize("kwargs", [{}, {"interval": "percentile"}, {"seed": 3},
                                    {"ci": 0.9}])
def test_irr_with_the_default_interval_options_is_irr_as_before(kwargs, monkeypatch):
    from xrr_accessor import api
    from xrr_accessor.uncertainty.orchestration import Uncertainty

    df = pd.DataFrame({"item": np.repeat(np.arange(6), 2), "rater": [0, 1] * 6,
                       "joy": [0, 0, 1, 1, 2, 1, 0, 0, 2, 2, 1, 0]})
    built = []
    monkeypatch.setattr(api, "Uncertainty", lambda *a: built.append(a) or Uncertainty(*a))
    got = api.irr(df, level="nominal", **kwargs)
    assert bool(built) == bool(kwargs)  # only the defaults take the short cut
    monkeypatch.setattr(api, "NO_INTERVAL", Uncertainty(n_boot=7))  # no short cut
    want = api.irr(df, level="nominal", **kwargs)
    if isinstance(got, pd.DataFrame):  # ci: the interval's table
        pd.testing.assert_frame_equal(got, want)
        estimate = got["estimate"].iloc[0]
    else:
        pd.testing.assert_series_equal(got, want)
        estimate = got["joy"]
    assert got.attrs == want.attrs
    assert estimate == pytest.approx(_naive_alpha(df.rename(columns={"joy": "value"}),
                                                  "nominal"))


def test_a_bad_interval_option_is_refused_without_an_interval():
    from xrr_accessor import irr
    from xrr_accessor.errors import InputError

    df = pd.DataFrame({"item": [1, 1, 2, 2], "rater": [1, 2, 1, 2], "joy": [0, 1, 1, 1]})
    for n_boot in (0, 1000.0, True):  # of the wrong kind, even at the default's value
        with pytest.raises(InputError, match="n_boot"):
            irr(df, level="nominal", n_boot=n_boot)
