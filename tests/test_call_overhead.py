"""The per-call short cuts of issue 35 give what the long way gives, and are taken.

* integer ids and few whole numbers wrapped as an Index without pandas' copy
  (:func:`~xrr_accessor.schema.tables.array_index`) equal ``pd.Index``;
* a long frame's id columns read from the stored array
  (:func:`~xrr_accessor.schema.read.column_array`) equal ``df[col]``;
* roles found once per set of names (:func:`~xrr_accessor.schema.roles.find_role`,
  :func:`~xrr_accessor.schema.roles.resolve_roles`) answer as the search does, and
  refuse again each time;
* a registry entry looked up once per name, and forgotten when it leaves the registry;
* a DataArray read on its variable (no Dataset) gives the table the Dataset gives, and
  its values over any order of dimensions;
* a single value labeled as a DataArray without building indexes is identical to
  xarray's own constructor;
* a label's numbers (:meth:`Annotations.values`) found once, each caller its own copy;
* a result's counts as plain dicts (:func:`~xrr_accessor.engine.results.plain_counts`)
  equal pandas' ``to_dict`` of the Series or DataFrame they would be;
* every layout (long frame, DataArray, polars) gives krippendorff's alpha and a naive
  alpha written from the formula here.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from hypothesis import given, settings
from hypothesis import strategies as st

import xrr_accessor as xa
from xrr_accessor.coefficients import registry
from xrr_accessor.engine.pipeline import annotations
from xrr_accessor.engine.results import _labeled_array, plain_counts
from xrr_accessor.errors import InputError, RoleError
from xrr_accessor.schema import Roles, read, roles
from xrr_accessor.schema.read import column_array
from xrr_accessor.schema.read_xarray import _item_major
from xrr_accessor.schema.tables import array_index

NAMES = ["item", "rater", "coder", "unit_id", "worker_ids", "joy", "value", "pool", "label",
         "slot", "Item", 3, True, 1.5, "score"]


@pytest.mark.parametrize("dtype", ["int8", "int64", "uint16", "float32", "float64", "bool"])
def test_array_index_is_the_index_pandas_builds_without_a_copy(dtype):
    values = np.array([3, 0, 1], dtype=dtype)
    got = array_index(values)
    want = pd.Index(values)
    pd.testing.assert_index_equal(got, want, exact=True)
    assert got.name is None and type(got) is type(want)
    assert np.shares_memory(got.to_numpy(), values)  # taken: pandas' constructor copies
    assert not np.shares_memory(want.to_numpy(), values)


def test_column_array_is_the_column_without_a_series():
    df = pd.DataFrame({"item": np.arange(5), "f": np.linspace(0, 1, 5),
                       "s": list("abcde"), "c": pd.Categorical(list("xyxyx"))})
    for col in df.columns:
        got, want = column_array(df, col), df[col].array
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
        assert type(got) is type(df[col].values)
    assert np.shares_memory(column_array(df, "item"), df["item"].to_numpy())


@settings(max_examples=25, deadline=None)
@given(names=st.lists(st.sampled_from(NAMES), min_size=1, max_size=6, unique=True),
       role=st.sampled_from(["item", "rater", "replication", "label", "value"]))
def test_a_role_found_once_is_the_role_the_search_finds(names, role):
    def search():
        try:
            return ("found", roles._find_role(names, role))
        except RoleError as exc:
            return ("refused", str(exc))

    def cached():
        try:
            return ("found", roles.find_role(names, role))
        except RoleError as exc:
            return ("refused", str(exc))

    assert cached() == search()
    assert cached() == search()  # answered from the cache (or refused again)


@settings(max_examples=25, deadline=None)
@given(names=st.lists(st.sampled_from(NAMES), min_size=1, max_size=6, unique=True),
       given_rater=st.sampled_from([None, "coder", "joy", "missing"]))
def test_roles_resolved_once_are_the_roles_resolved_each_time(names, given_rater):
    kind = Roles(rater=given_rater)

    def outcome(fn):
        try:
            return ("found", fn(names, kind, "column"))
        except RoleError as exc:
            return ("refused", str(exc))

    first = outcome(roles.resolve_roles)
    assert first == outcome(roles._resolve_roles)
    assert outcome(roles.resolve_roles) == first  # a second call: from the cache


def test_the_roles_cache_is_used_and_gives_each_caller_its_own_dict():
    names = ["item", "coder", "joy"]
    roles._RESOLVED.clear()
    found = roles.resolve_roles(names, Roles(), "column")
    assert len(roles._RESOLVED) == 1  # taken
    found["rater"] = "changed"
    assert roles.resolve_roles(names, Roles(), "column")["rater"] == "coder"
    # names equal to others but of another type are their own key: the caller's name back
    assert type(roles.find_role(["item", "coder"], "rater")) is str
    assert type(roles.find_role(["item", np.str_("coder")], "rater")) is np.str_
    # an unhashable name cannot be a key: searched each time, with the same answer
    assert roles.find_role([["a"], "coder"], "rater") == "coder"
    assert roles.resolve_roles([["a"], "item", "coder"], Roles(), "column")["rater"] == "coder"


def test_a_lookup_is_remembered_and_forgotten_with_its_entry(monkeypatch):
    registry._FOUND.clear()
    alpha = registry.lookup("Krippendorff")
    assert alpha is registry._lookup("krippendorff", "irr") is registry.lookup("alpha")
    assert ("Krippendorff", str, "irr") in registry._FOUND  # taken
    fake = registry.Coefficient(
        "twice", "irr", lambda stats, ctx: None, frozenset({"within"}), "level",
        ("nominal",), "nobody", "for this test", aliases=("double",))
    monkeypatch.setitem(registry.REGISTRY, "twice", fake)
    assert registry.lookup("double") is fake
    monkeypatch.delitem(registry.REGISTRY, "twice")
    with pytest.raises(InputError, match="unknown metric 'double'"):
        registry.lookup("double")


@pytest.mark.parametrize("dims", list(itertools.permutations(["item", "rater", "replication"])))
def test_values_over_the_item_major_order_equal_xarray_transpose(dims):
    rng = np.random.default_rng(1)
    sizes = {"item": 4, "rater": 3, "replication": 2}
    var = xr.Variable(dims, rng.integers(0, 5, [sizes[d] for d in dims]))
    order = ["item", "replication", "rater"]
    np.testing.assert_array_equal(_item_major(var, sizes, order),
                                  var.set_dims(sizes).transpose(*order).values)
    lacking = xr.Variable(dims[:2], rng.integers(0, 5, [sizes[d] for d in dims[:2]]))
    np.testing.assert_array_equal(_item_major(lacking, sizes, order),
                                  lacking.set_dims(sizes).transpose(*order).values)


@pytest.mark.parametrize("dims", [("rater", "item"), ("item", "rater"),
                                  ("rater", "pool", "item")])
def test_a_dataarray_is_read_as_its_dataset(dims):
    rng = np.random.default_rng(2)
    shape = [{"rater": 3, "item": 5, "pool": 2}[d] for d in dims]
    values = rng.integers(0, 4, shape).astype(float)
    values[rng.random(shape) < 0.2] = np.nan
    da = xr.DataArray(values, dims=dims, name="joy",
                      coords={"item": [f"i{k}" for k in range(5)]})
    got = read(da, Roles())
    want = read(da.to_dataset(), Roles())  # the Dataset route (one variable per label)
    assert not got.has_label and want.has_label
    for a, b in ((got.item, want.item), (got.rater, want.rater)):
        np.testing.assert_array_equal(a.codes, b.codes)
        pd.testing.assert_index_equal(a.uniques, b.uniques)
    np.testing.assert_array_equal(got.labels["joy"][1].to_numpy(),
                                  want.labels["joy"][1].to_numpy())


def test_an_extra_dimension_is_named_as_before():
    da = xr.DataArray(np.zeros((2, 3, 2)), dims=("rater", "item", "wave"))
    with pytest.raises(InputError, match=r"unexpected dimension\(s\) \['wave'\]"):
        xa.irr(da)


def test_a_single_value_is_the_dataarray_xarray_builds():
    counts = {"n_items": np.asarray(7), "n_unpairable": np.asarray(1)}
    got = _labeled_array(np.asarray(0.25), [], counts, None, None, "alpha")
    want = xr.DataArray(np.asarray(0.25), dims=[], name="alpha",
                        coords={k: xr.Variable([], v) for k, v in counts.items()})
    assert got.identical(want)
    assert dict(got.xindexes) == {} and got.n_items.dtype == np.int64


def test_a_labels_numbers_are_found_once_and_each_caller_gets_a_copy():
    df = pd.DataFrame({"item": [1, 1, 2, 2], "rater": [1, 2, 1, 2], "v": [1, 2, 3, 3]})
    ann, _ = annotations(df, level="interval")
    first = ann.values("interval")
    first[0, 0] = 99.0
    assert ann.values("interval").tolist() == [[1.0, 2.0, 3.0]]
    assert "values" in ann._numbers  # taken


def _naive_alpha(mat: np.ndarray) -> float:
    """Nominal alpha from the coincidence matrix, raters x items, NaN missing."""
    cats = np.unique(mat[~np.isnan(mat)])
    o = np.zeros((len(cats), len(cats)))
    for col in mat.T:
        vals = col[~np.isnan(col)]
        m = len(vals)
        if m < 2:
            continue
        for a, b in itertools.permutations(range(m), 2):
            o[np.searchsorted(cats, vals[a]), np.searchsorted(cats, vals[b])] += 1 / (m - 1)
    n_c = o.sum(axis=1)
    n = n_c.sum()
    d_o = o.sum() - np.trace(o)
    d_e = (n * n - (n_c**2).sum()) / (n - 1)
    return float(1 - d_o / d_e)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10**6), n_items=st.integers(3, 30), n_raters=st.integers(2, 5))
def test_every_layout_gives_krippendorff_and_the_naive_alpha(seed, n_items, n_raters):
    import krippendorff
    import polars as pl

    rng = np.random.default_rng(seed)
    mat = rng.integers(0, 3, (n_raters, n_items)).astype(float)
    mat[rng.random(mat.shape) < 0.2] = np.nan
    mat[:, 0] = [0, 1] + [np.nan] * (n_raters - 2)  # two values at least: defined
    long = pd.DataFrame({"item": np.tile(np.arange(n_items), n_raters),
                         "rater": np.repeat(np.arange(n_raters), n_items),
                         "value": mat.reshape(-1)}).dropna()
    want = _naive_alpha(mat)
    assert want == pytest.approx(krippendorff.alpha(reliability_data=mat,
                                                    level_of_measurement="nominal"), abs=1e-12)
    got = [long.xrr.irr(level="nominal"),
           xr.DataArray(mat, dims=("rater", "item")).xrr.irr(level="nominal"),
           pl.from_pandas(long).xrr.irr(level="nominal")]
    assert isinstance(got[1], xr.DataArray) and got[1].ndim == 0
    for value in got:
        assert float(value) == pytest.approx(want, abs=1e-12)


@pytest.mark.parametrize("index", [pd.Index(["joy", "anger"], name="label"),
                                   pd.Index([3, 1]), pd.Index([True, False]),
                                   pd.MultiIndex.from_tuples([("A", "B"), ("A", "C")])])
def test_plain_counts_are_pandas_to_dict(index):
    counts = np.array([[4, 0, 7], [2, 5, 1]])
    columns = pd.Index(["x", 2, "z"], dtype=object)
    one = np.asarray(counts[:, 0], dtype=object)
    want = pd.Series(one, index=index).to_dict()
    got = plain_counts(one, index, None)
    assert got == want and list(got) == list(want)
    assert [type(v) for v in got.values()] == [type(v) for v in want.values()]
    two = np.asarray(counts, dtype=object)
    want2 = pd.DataFrame(two, index=index, columns=columns).to_dict()
    got2 = plain_counts(two, index, columns)
    assert got2 == want2 and list(got2) == list(want2)


def test_a_table_of_results_keeps_its_counts_as_frames_would_give_them():
    rng = np.random.default_rng(4)
    df = pd.DataFrame({"item": np.repeat(np.arange(12), 3), "rater": np.tile([1, 2, 3], 12),
                       "pool": np.repeat(["A", "B"], 18), "joy": rng.integers(0, 3, 36),
                       "anger": rng.integers(0, 2, 36)})
    table = xa.irr(df, level="nominal", replication="pool")  # labels x pools
    series = xa.irr(df.drop(columns="pool"), level="nominal")  # one value per label
    for got in (table, series):
        for name in ("n_items", "n_unpairable", "n_values"):
            counts = got.attrs[name]
            frame = pd.DataFrame(counts) if got.ndim == 2 else pd.Series(counts)
            assert frame.to_dict() == counts
            assert list(frame.index) == list(got.index)
    assert table.attrs["n_items"] == {"A": {"joy": 6, "anger": 6}, "B": {"joy": 6, "anger": 6}}
