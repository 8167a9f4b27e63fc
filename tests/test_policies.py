"""The documented policies for awkward but legal input (docs/definitions.md)."""

from __future__ import annotations

import uuid
import warnings

import numpy as np
import pandas as pd
import pytest
import xarray as xr

import xrr_accessor  # noqa: F401  (registers .xrr)
from xrr_accessor.errors import (
    DroppedDataWarning,
    InputError,
    LevelError,
    UndefinedWarning,
    XRRWarning,
)

import naive
from helpers import quietly, units


def base(values, pools=None):
    n = len(values) // 2
    df = pd.DataFrame({"item": np.repeat(np.arange(n), 2), "rater": ["a", "b"] * n,
                       "joy": values})
    if pools is not None:
        df["pool"] = pools
    return df


REFERENCE = base([0.0, 1.0, 1.0, 1.0, np.nan, 0.0, 2.0, 2.0, 0.0, 0.0, 1.0, np.nan])


@pytest.mark.parametrize("convert", [
    lambda s: s.astype(object),
    lambda s: s.astype(object).where(s.notna(), None),
    lambda s: s.astype("Int64"),
    lambda s: s.astype("Float64"),
    lambda s: s.astype(object).where(s.notna(), pd.NA),
    lambda s: s.map({0.0: "zero", 1.0: "one", 2.0: "two"}).astype("string"),
    lambda s: pd.Categorical(s),
])
def test_missing_markers_and_nullable_dtypes(convert):
    """NaN, None and pd.NA are missing, in numpy, object, nullable and categorical dtypes."""
    want = REFERENCE.xrr.irr()["joy"]
    got = REFERENCE.assign(joy=convert(REFERENCE["joy"])).xrr.irr()["joy"]
    assert got == pytest.approx(want, abs=1e-12)


def test_boolean_and_nullable_boolean():
    values = [True, False, True, True, None, True, False, False]
    want = base([1.0, 0.0, 1.0, 1.0, np.nan, 1.0, 0.0, 0.0]).xrr.irr(level="interval")["joy"]
    for joy in (pd.array(values, dtype="boolean"), pd.Series(values, dtype=object)):
        assert base(joy).xrr.irr(level="interval")["joy"] == pytest.approx(want)


def test_blank_strings_are_missing_and_reported():
    df = base(["x", "y", "y", "y", "", "x", "x", "x", "  ", "y"])
    want = base(["x", "y", "y", "y", None, "x", "x", "x", None, "y"]).xrr.irr()["joy"]
    with pytest.warns(DroppedDataWarning, match=r"column 'joy': 2 empty or blank"):
        got = df.xrr.irr()["joy"]
    assert got == pytest.approx(want)


@pytest.mark.parametrize(("values", "words"), [
    ([1, "1", 2, 2], ["mixes value types", "int", "str", "pd.to_numeric"]),
    ([True, 1, 0, False], ["mixes value types", "bool", "int"]),
    ([{"a": 1}, {"a": 2}, {"a": 1}, {"a": 2}], ["dict", "one value", "list or set"]),
])
def test_mixed_or_unhashable_values_are_errors(values, words):
    with pytest.raises(LevelError) as info:
        base(pd.Series(values, dtype=object)).xrr.irr()
    for w in words:
        assert w in str(info.value)


def test_unhashable_ids_are_errors():
    df = base([0, 1, 1, 1]).assign(item=pd.Series([[1], [1], [2], [2]], dtype=object))
    with pytest.raises(InputError, match="'item' holds values that cannot be ids"):
        df.xrr.irr()


def test_numbers_as_strings():
    """Fine for nominal; ordinal/interval refuse to guess and say how to convert."""
    nums = base([1, 2, 2, 2, 10, 10, 1, 1])
    strs = nums.assign(joy=nums["joy"].astype(str))
    assert strs.xrr.irr()["joy"] == pytest.approx(nums.xrr.irr()["joy"])
    with pytest.raises(LevelError, match=r"look like numbers written as text: pd.to_numeric"):
        strs.xrr.irr(level="ordinal")
    with pytest.raises(LevelError, match=r"pd\.to_numeric"):
        strs.xrr.irr(level="interval")


def test_duplicate_column_names():
    df = pd.DataFrame([[1, "a", 0, 1]], columns=["item", "rater", "joy", "joy"])
    with pytest.raises(InputError, match=r"\['joy'\] appear more than once"):
        df.xrr.irr()


DUP = pd.DataFrame({"item": [1, 1, 1, 2, 2, 3, 3], "rater": ["a", "b", "a", "a", "b", "a", "b"],
                    "joy": [0.0, 1.0, 4.0, 1.0, 1.0, 2.0, 0.0]})


@pytest.mark.parametrize(("policy", "first_value"), [("first", 0.0), ("last", 4.0),
                                                     ("mean", 2.0)])
def test_duplicates_policies(policy, first_value):
    want_df = DUP.drop(index=2).assign(joy=lambda d: d["joy"].where(d.index != 0, first_value))
    # the policy is the user's explicit choice: no warning, the count rides in attrs
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = DUP.xrr(duplicates=policy).irr(level="interval")
    assert result.attrs["n_duplicates"] == 1
    assert result["joy"] == pytest.approx(want_df.xrr.irr(level="interval")["joy"])
    assert "n_duplicates" not in want_df.xrr.irr(level="interval").attrs


def test_duplicates_policy_validation():
    with pytest.raises(InputError, match=r"duplicate annotation.*duplicates='first'"):
        DUP.xrr.irr()
    with pytest.raises(InputError, match="'keep' is not a policy"):
        DUP.xrr(duplicates="keep")
    with pytest.raises(LevelError, match="duplicates='mean' averages numbers"):
        DUP.assign(joy=list("abcdefg")).xrr(duplicates="mean").irr()
    long = DUP.melt(id_vars=["item", "rater"], var_name="label")
    got = long.xrr(duplicates="last").irr(level="interval")
    assert got.attrs["n_duplicates"] == 1
    assert got["joy"] == pytest.approx(DUP.xrr(duplicates="last").irr(level="interval")["joy"])


@pytest.mark.parametrize("make_id", [
    lambda i: np.iinfo(np.int64).max - i,
    lambda i: str(uuid.UUID(int=i * 7919 + 1)),
    lambda i: -(2**62) + i,
])
def test_huge_and_uuid_ids(make_id):
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"item": np.repeat(np.arange(40), 4), "rater": ["a", "b", "c", "d"] * 40,
                       "pool": np.tile(["X", "X", "Y", "Y"], 40), "joy": rng.integers(0, 3, 160)})
    relabeled = df.assign(item=df["item"].map(make_id))
    pd.testing.assert_frame_equal(relabeled.xrr.cross_kappa(), df.xrr.cross_kappa())
    pd.testing.assert_frame_equal(relabeled.xrr.irr(), df.xrr.irr())


@pytest.mark.parametrize("frame", [
    pd.DataFrame({"item": pd.Series([], dtype=int), "rater": pd.Series([], dtype=str),
                  "joy": pd.Series([], dtype=float)}),
    pd.DataFrame({"item": [1], "rater": ["a"], "joy": [1.0]}),
    pd.DataFrame({"item": [1, 1, 2], "rater": ["a", "b", "a"], "joy": [np.nan] * 3}),
])
@pytest.mark.parametrize("metric", ["alpha", "iota", "cohen"])
def test_zero_one_item_and_all_missing_are_nan_with_warning(frame, metric):
    with pytest.warns(UndefinedWarning):
        out = frame.xrr.irr(metric=metric)
    assert np.isnan(out["joy"])


def test_empty_replications_pair():
    df = pd.DataFrame({"item": [1, 1], "rater": ["a", "b"], "pool": ["X", "Y"],
                       "joy": [np.nan, np.nan]})
    with pytest.warns(UndefinedWarning, match="annotated in both"):
        assert np.isnan(df.xrr.cross_kappa().iloc[0, 0])


def test_label_present_in_one_replication_only():
    df = pd.DataFrame({"item": np.repeat([1, 2, 3], 4), "rater": ["a", "b"] * 6,
                       "pool": (["X", "X", "Y", "Y"] * 3),
                       "joy": [0, 1, 0, 1, 1, 1, 1, 0, 0, 0, 0, 1],
                       "awe": [0, 1, np.nan, np.nan, 1, 1, np.nan, np.nan, 0, 0, np.nan, np.nan]})
    with pytest.warns(UndefinedWarning, match="label 'awe', Y: no item has two or more"):
        irr = df.xrr.irr()
    assert np.isnan(irr.loc["awe", "Y"]) and np.isfinite(irr.loc["awe", "X"])
    with pytest.warns(UndefinedWarning, match="label 'awe'.*annotated in both"):
        kx = df.xrr.cross_kappa()
    assert np.isfinite(kx.loc["joy"]).all() and np.isnan(kx.loc["awe"]).all()


def test_category_present_in_one_replication_only():
    df = pd.DataFrame({"item": np.repeat([1, 2, 3, 4], 4), "rater": ["a", "b"] * 8,
                       "pool": ["X", "X", "Y", "Y"] * 4,
                       "value": ["p", "q", "p", "p", "q", "q", "r", "r",
                                 "p", "p", "p", "r", "q", "p", "q", "q"]})
    got = df.xrr.cross_kappa().iloc[0]
    assert got == pytest.approx(naive.kappa_x(units(df, "X"), units(df, "Y")), abs=1e-12)


def test_multiindex_columns_policy():
    wide = pd.DataFrame(np.eye(3), columns=pd.MultiIndex.from_tuples(
        [("X", "a"), ("X", "b"), ("Y", "a")]))
    with pytest.raises(InputError, match=r"MultiIndex columns.*wide=True"):
        wide.xrr.irr()
    out, _ = quietly(lambda: wide.xrr(wide=True).irr())
    assert list(out.index) == ["X", "Y"]


def test_results_never_alias_inputs():
    """Writing into a result never reaches the input, and the other way round."""
    df = base([0.0, 1.0, 1.0, 1.0, 0.0, 0.0])
    ds = df.xrr.to_xarray()
    ds["joy"].values[0, 0] = 99.0
    assert 99.0 not in df["joy"].to_numpy()
    back = ds.xrr.to_frame()
    back.loc[0, "joy"] = -5.0
    assert -5.0 not in ds["joy"].to_numpy()
    da = xr.DataArray(np.array([[1.0, 0.0], [1.0, 1.0]]), dims=("item", "rater"))
    out = da.xrr.to_frame()
    out.iloc[0, -1] = 42.0
    assert 42.0 not in da.values


def test_no_numpy_runtime_warnings_leak():
    """Degenerate data warn with our class only, never numpy's RuntimeWarning."""
    frames = [base([1, 1, 1, 1]), base([0.0, np.nan, 1.0, np.nan]),
              base([0, 1, 0, 1], pools=["X", "X", "Y", "Y"])]
    for df in frames:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for level in ("nominal", "ordinal", "interval", "ratio"):
                for metric in ("alpha", "iota"):
                    df.xrr.irr(metric=metric, level=level)
                if "pool" in df:
                    df.xrr.cross_kappa(level=level)
                    df.xrr.normalized(level=level)
        leaked = [w for w in caught if not issubclass(w.category, XRRWarning)]
        assert not leaked, [str(w.message) for w in leaked]


@pytest.mark.parametrize("dtype", ["int8", "int16", "int64", "uint8", "uint32", "bool"])
def test_small_integer_encoding_equals_factorize(dtype):
    """The lookup-table path for small-range integers gives factorize's codes."""
    from xrr_accessor.schema import label_categories

    rng = np.random.default_rng(3)
    lo = 0 if dtype.startswith("u") or dtype == "bool" else -5
    hi = 2 if dtype == "bool" else 9
    values = pd.Series(rng.integers(lo, hi, 500).astype(dtype))
    codes, cats = label_categories(values, "column 'x'", None)
    want_codes, want_cats = pd.factorize(values, sort=True)
    np.testing.assert_array_equal(codes, want_codes)
    pd.testing.assert_index_equal(cats, pd.Index(want_cats), exact=False)
    assert cats.dtype == want_cats.dtype
    wide = pd.Series(np.array([0, 10**9, 5], dtype="int64"))  # wide range: hashing path
    codes, cats = label_categories(wide, "column 'x'", None)
    assert codes.tolist() == [0, 2, 1] and cats.tolist() == [0, 5, 10**9]
