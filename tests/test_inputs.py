"""Input forms reach one canonical form; bad input fails clearly; inputs stay unchanged."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
import xarray as xr

import xrr_accessor as xa
from xrr_accessor.datasets import simulate
from xrr_accessor.errors import (
    DroppedDataWarning,
    InputError,
    LevelError,
    RoleError,
    UndefinedWarning,
    XRRWarning,
)


@pytest.fixture(scope="module")
def irep():
    return simulate(n_items=300, labels=["joy", "awe", "love"], seed=7)


def test_role_detection_irep_schema(irep):
    """IRep's columns (Item_ID, Annotator_pool, Rater) are found by name."""
    df = irep.rename(columns={"item_id": "Item_ID", "pool": "Annotator_pool", "rater": "Rater"})
    got = df.xrr.irr()
    assert isinstance(got, pd.DataFrame)
    assert list(got.index) == ["joy", "awe", "love"]
    assert list(got.columns) == ["Budapest", "Kuala Lumpur", "Mexico City"]
    pd.testing.assert_frame_equal(got, irep.xrr.irr())


def test_explicit_roles_equal_detected(irep):
    renamed = irep.rename(columns={"item_id": "video", "pool": "city", "rater": "slot"})
    got = renamed.xrr(item="video", rater="slot", replication="city").cross_kappa()
    want = irep.xrr.cross_kappa()
    np.testing.assert_allclose(got.to_numpy(), want.to_numpy())


def test_label_value_layout_equals_column_per_label(irep):
    long = irep.melt(id_vars=["item_id", "pool", "rater"], var_name="label", value_name="value")
    np.testing.assert_allclose(long.xrr.irr().to_numpy(), irep.xrr.irr().to_numpy())
    np.testing.assert_allclose(long.xrr.cross_kappa().to_numpy(),
                               irep.xrr.cross_kappa().to_numpy())


def test_value_subset_selects_labels(irep):
    got = irep.xrr(value=["awe"]).irr()
    assert list(got.index) == ["awe"]
    assert got.loc["awe"].tolist() == irep.xrr.irr().loc["awe"].tolist()


def test_xarray_roundtrip_and_same_numbers(irep):
    ds = irep.xrr.to_xarray()
    assert set(ds.data_vars) == {"joy", "awe", "love"}
    assert set(ds.dims) == {"item", "rater", "replication"}
    got = ds.xrr.irr()
    assert got.dims == ("label", "replication")
    np.testing.assert_allclose(got.values, irep.xrr.irr().to_numpy())
    kx = ds.xrr.cross_kappa()
    assert kx.dims == ("label", "pair")
    np.testing.assert_allclose(kx.values, irep.xrr.cross_kappa().to_numpy())
    assert "n_unpairable" in kx.coords
    one = kx.sel(replication="Budapest", replication_other="Mexico City")
    assert one.dims == ("label",)
    da = ds.to_dataarray(dim="label")
    np.testing.assert_allclose(da.xrr.irr().values, got.values)
    back = ds.xrr.to_frame()
    assert set(back.columns) == {"item", "rater", "replication", "joy", "awe", "love"}
    assert len(back) == len(irep)
    np.testing.assert_allclose(back.xrr.irr().to_numpy(), got.values)


def test_wide_frame_and_multiindex_columns():
    rng = np.random.default_rng(0)
    vals = rng.integers(0, 3, size=(20, 4)).astype(float)
    wide = pd.DataFrame(vals, columns=["a", "b", "c", "d"])
    long = wide.stack().rename_axis(["item", "rater"]).rename("v").reset_index()
    assert wide.xrr(wide=True).irr() == pytest.approx(long.xrr.irr())
    mi = pd.DataFrame(vals, columns=pd.MultiIndex.from_tuples(
        [("X", "a"), ("X", "b"), ("Y", "a"), ("Y", "b")]))
    kx = mi.xrr(wide=True).cross_kappa()
    assert kx.index.names == ["replication", "replication_other"]
    x = pd.DataFrame({"item": range(20), "r": "a", "v": vals[:, 0]})
    assert kx.iloc[0] == pytest.approx(
        pd.concat([x, x.assign(r="b", v=vals[:, 1])]).xrr(rater="r").cross_kappa(
            pd.concat([x.assign(v=vals[:, 2]), x.assign(r="b", v=vals[:, 3])]))
    )


def test_categories_types_and_ordinal_order():
    base = pd.DataFrame({"item": [1, 1, 2, 2, 3, 3, 4, 4], "rater": ["a", "b"] * 4})
    ints = base.assign(value=[0, 1, 1, 1, 2, 2, 0, 0])
    bools = base.assign(value=[False, True, True, True, True, True, False, False])
    strs = base.assign(value=["lo", "mid", "mid", "mid", "hi", "hi", "lo", "lo"])
    floats = ints.assign(value=ints["value"] * 0.5)
    assert ints.xrr.irr(level="nominal") == pytest.approx(strs.xrr.irr())
    assert ints.xrr.irr(level="nominal") == pytest.approx(floats.xrr.irr(level="nominal"))
    assert bools.xrr.irr(level="interval") == pytest.approx(
        bools.assign(value=bools["value"].astype(int)).xrr.irr(level="interval"))
    order = ["lo", "mid", "hi"]
    want = ints.xrr.irr(level="ordinal")
    assert strs.xrr(categories=order).irr(level="ordinal") == pytest.approx(want)
    cat = strs.assign(value=pd.Categorical(strs["value"], categories=order, ordered=True))
    assert cat.xrr.irr(level="ordinal") == pytest.approx(want)
    assert strs.xrr(categories={"value": order}).irr(level="ordinal") == pytest.approx(want)


def test_custom_matrix_level():
    df = pd.DataFrame({"item": np.repeat(np.arange(30), 2), "rater": ["a", "b"] * 30,
                       "value": np.random.default_rng(1).integers(0, 3, 60)})
    interval = df.xrr.irr(level="interval")
    vals = np.arange(3.0)
    matrix = np.subtract.outer(vals, vals) ** 2
    assert df.xrr.irr(level=matrix) == pytest.approx(interval)
    frame = pd.DataFrame(matrix, index=[0, 1, 2], columns=[0, 1, 2])
    assert df.xrr.irr(level=frame) == pytest.approx(interval)
    assert df.xrr.irr(level=lambda a, b: (a - b) ** 2) == pytest.approx(interval)
    assert df.xrr.cross_kappa(df.assign(rater=df["rater"] + "2"), level=matrix) == (
        pytest.approx(df.xrr.cross_kappa(df.assign(rater=df["rater"] + "2"), level="interval")))


@pytest.mark.filterwarnings("ignore:normalized kappa_x exceeds 1")  # on other item sets
def test_self_other_and_reference(irep):
    crowd = irep[irep["pool"] == "Budapest"].drop(columns="pool")
    experts = irep[irep["pool"] == "Mexico City"].drop(columns="pool")
    got = crowd.xrr.cross_kappa(experts)
    assert isinstance(got, pd.Series) and list(got.index) == ["joy", "awe", "love"]
    want = irep.xrr.cross_kappa()[("Budapest", "Mexico City")]
    np.testing.assert_allclose(got.to_numpy(), want.to_numpy())
    by_ref = crowd.xrr.normalized(experts, reference="other")
    alpha_ref = irep.xrr.irr()["Mexico City"]
    # two inputs without replication columns: one value per label, with or without reference
    assert isinstance(by_ref, pd.Series) and by_ref.attrs["reference"] == "other"
    np.testing.assert_allclose(by_ref.to_numpy(), (got / alpha_ref).to_numpy())
    by_name = irep.xrr.normalized(reference="Budapest")
    # pairs keep cross_kappa's orientation; the reference is named in attrs
    assert list(by_name.columns) == [("Budapest", "Kuala Lumpur"), ("Budapest", "Mexico City")]
    assert by_name.attrs["reference"] == "Budapest"
    kx = irep.xrr.cross_kappa()
    np.testing.assert_allclose(
        by_name.to_numpy(),
        (kx[by_name.columns].to_numpy() / irep.xrr.irr()[["Budapest"]].to_numpy()))
    by_self = crowd.xrr.normalized(experts, reference="self")
    assert list(by_self.index) == list(crowd.xrr.normalized(experts).index)
    np.testing.assert_allclose(by_self.to_numpy(),
                               (got / irep.xrr.irr()["Budapest"]).to_numpy())
    # another frame whose roles are named differently, bound through the accessor call
    other = experts.rename(columns={"rater": "worker_slot"})
    np.testing.assert_allclose(
        crowd.xrr.cross_kappa(other.xrr(rater="worker_slot")).to_numpy(), got.to_numpy())


def test_scalar_results():
    df = pd.DataFrame({"item": [1, 1, 2, 2, 3, 3], "rater": ["a", "b"] * 3,
                       "value": [1, 1, 0, 0, 1, 0]})
    assert isinstance(df.xrr.irr(), float)
    da = xr.DataArray([[1, 0, 1], [1, 0, 0]], dims=("rater", "item"))
    out = da.xrr.irr()
    assert isinstance(out, xr.DataArray) and out.ndim == 0
    assert out.attrs["metric"] == "alpha"


# ------------------------------------------------------------------ bad input


def _frame():
    return pd.DataFrame({"item": [1, 1, 2, 2], "rater": ["a", "b", "a", "b"],
                         "pool": ["X", "X", "Y", "Y"], "joy": [0, 1, 1, 1]})


@pytest.mark.parametrize(("call", "error", "words"), [
    (lambda df: df.drop(columns="item").xrr.irr(), RoleError, ["item", "wide=True"]),
    (lambda df: df.drop(columns="rater").xrr.irr(), RoleError, ["rater", ".xrr(rater="]),
    (lambda df: df.xrr(annotator="rater"), RoleError, ["annotator", "rater="]),
    (lambda df: df.xrr(itm="item"), RoleError, ["itm", "item"]),
    (lambda df: df.xrr(item="video").irr(), RoleError, ["video", "item"]),
    (lambda df: pd.concat([df, df.iloc[:1]]).xrr.irr(), InputError,
     ["duplicate", "item=1", "rater='a'", "drop_duplicates(subset=['item', 'rater', 'pool'])"]),
    (lambda df: df.xrr.cross_kappa(df.rename(columns={"joy": "awe"})), InputError,
     ["different labels", "joy", "awe"]),
    (lambda df: df.assign(joy=["a", "b", "a", "c"]).xrr.irr(level="interval"), LevelError,
     ["column 'joy'", "pd.to_numeric"]),
    (lambda df: df.assign(joy=["a", "b", "a", "c"]).xrr.irr(level="ordinal"), LevelError,
     ["column 'joy'", "categories="]),
    (lambda df: df.xrr.irr(level="nominl"), InputError, ["nominl", "nominal"]),
    (lambda df: df.xrr.irr(metric="kappa"), InputError, ["kappa", "alpha"]),
    (lambda df: df.drop(columns="pool").xrr.cross_kappa(), InputError, ["replication", "other="]),
    (lambda df: df.assign(item=[1, None, 2, 2]).xrr.irr(), InputError, ["item", "missing"]),
    (lambda df: df.xrr.irr(level=np.ones((3, 3))), InputError, ["3 x 3", "2 categories"]),
    (lambda df: df.xrr.irr(level=np.array([[0, 1], [2, 0]])), InputError, ["symmetric"]),
    (lambda df: df.assign(joy=[0, 1, 2, 5]).xrr(categories=[0, 1, 2]).irr(), InputError,
     ["[5]", "categories="]),
    (lambda df: df.xrr.normalized(reference="Z"), InputError, ["'Z'", "X"]),
    (lambda df: df.assign(joy=[-1, 1, 1, 1]).xrr.irr(level="ratio"), InputError,
     ["negative", "interval"]),
])
def test_bad_input_names_column_and_fix(call, error, words):
    with pytest.raises(error) as info:
        call(_frame())
    for w in words:
        assert w in str(info.value), (w, str(info.value))


def test_cohen_with_three_raters_errors():
    df = pd.DataFrame({"item": [1, 1, 1], "rater": ["a", "b", "c"], "joy": [0, 1, 1]})
    with pytest.raises(InputError, match=r"exactly 2 raters.*'iota'"):
        df.xrr.irr(metric="cohen")


def test_xarray_bad_dims():
    da = xr.DataArray(np.zeros((2, 2, 2)), dims=("item", "rater", "session"))
    with pytest.raises(InputError, match="session"):
        da.xrr.irr()
    with pytest.raises(RoleError, match="item"):
        xr.DataArray(np.zeros((2, 2)), dims=("video", "rater")).xrr.irr()
    named = xr.DataArray(np.eye(3), dims=("video", "rater")).xrr(item="video").irr()
    assert float(named) == float(xr.DataArray(np.eye(3), dims=("item", "rater")).xrr.irr())


def test_degenerate_gives_nan_with_reason():
    one_cat = pd.DataFrame({"item": [1, 1, 2, 2], "rater": ["a", "b"] * 2, "joy": [1, 1, 1, 1]})
    with pytest.warns(UndefinedWarning, match="same value"):
        assert np.isnan(one_cat.xrr.irr()["joy"])
    singles = pd.DataFrame({"item": [1, 2], "rater": ["a", "b"], "joy": [0, 1]})
    with pytest.warns(UndefinedWarning, match="two or more annotations"):
        assert np.isnan(singles.xrr.irr()["joy"])
    disjoint = pd.DataFrame({"item": [1, 1, 2, 2], "rater": ["a", "b"] * 2,
                             "pool": ["X", "X", "Y", "Y"], "joy": [0, 1, 0, 1]})
    with pytest.warns(UndefinedWarning, match="annotated in both"):
        assert np.isnan(disjoint.xrr.cross_kappa().iloc[0, 0])
    neg = pd.DataFrame({"item": np.repeat([1, 2, 3, 4], 2).tolist() * 2,
                        "rater": ["a", "b"] * 8, "pool": ["X"] * 8 + ["Y"] * 8,
                        "joy": [0, 1, 1, 0, 0, 1, 1, 0] * 2})
    with pytest.warns(UndefinedWarning, match=r"IRR \(alpha\) of X is -0.75, Y is -0.75, not > 0"):
        assert np.isnan(neg.xrr.normalized().iloc[0, 0])


INPUTS = {
    "long": lambda: simulate(n_items=50, labels=["joy", "awe"], seed=2),
    "wide": lambda: pd.DataFrame(np.random.default_rng(0).integers(0, 3, (20, 3)),
                                 columns=list("abc")),
    "categorical": lambda: _frame().assign(joy=pd.Categorical(["lo", "hi", "hi", "hi"],
                                                              categories=["lo", "hi"],
                                                              ordered=True)),
}


@pytest.mark.parametrize("name", INPUTS)
def test_inputs_are_never_modified(name):
    df = INPUTS[name]()
    df.attrs["source"] = "test"
    before = df.copy(deep=True)
    dtypes, index, attrs = df.dtypes.copy(), df.index.copy(), dict(df.attrs)
    acc = df.xrr(wide=True) if name == "wide" else df.xrr
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", XRRWarning)
        acc.irr()
        acc.irr(metric="iota", level="ordinal")
        acc.to_xarray()
        if "pool" in df:
            acc.cross_kappa()
            acc.normalized()
            acc.summary()
    pd.testing.assert_frame_equal(df, before)
    pd.testing.assert_series_equal(df.dtypes, dtypes)
    pd.testing.assert_index_equal(df.index, index)
    assert df.attrs == attrs


def test_xarray_input_never_modified():
    ds = simulate(n_items=40, labels=["joy"], seed=4).xrr.to_xarray()
    before = ds.copy(deep=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", XRRWarning)
        ds.xrr.irr()
        ds.xrr.cross_kappa()
        ds.xrr.normalized()
    xr.testing.assert_identical(ds, before)


def test_results_do_not_share_memory_with_inputs():
    ds = xr.DataArray(np.array([[1.0, 0.0, 1.0], [1.0, 0.0, 0.0]]), dims=("rater", "item"))
    out = ds.xrr.irr()
    assert not np.shares_memory(out.values, ds.values)


def test_results_concatenate_and_counts_rebuild(irep):
    """attrs hold plain dicts, so pandas operations that compare attrs keep working."""
    kx = irep.xrr.cross_kappa()
    pair = kx[("Budapest", "Mexico City")].sort_values()
    both = pd.concat([pair.head(1), pair.tail(1)])
    assert len(both) == 2
    assert pd.concat([kx, kx]).shape == (6, 3)
    counts = pd.DataFrame(kx.attrs["n_items"])
    assert counts.shape == kx.shape
    assert (counts.loc["joy"] > 0).all()


def test_iota_listwise_deletion_is_counted_and_warned():
    """3 raters: an item rated by 2 of them loses a pair -> n_dropped and a warning;
    an item rated once has no pair -> n_unpairable, silently (as in alpha)."""
    df = pd.DataFrame({
        "item": [1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 5],
        "rater": ["a", "b", "c"] * 3 + ["a", "b", "c"],
        "joy": [0, 0, 1, 1, 1, 1, 0, 1, 0, 1, 0, 1],
    })
    from xrr_accessor.errors import DroppedDataWarning

    with pytest.warns(DroppedDataWarning, match="up to 1 items per label"):
        out = df.xrr.irr(metric="iota")
    assert out.attrs["n_items"]["joy"] == 3
    assert out.attrs["n_dropped"]["joy"] == 1
    assert out.attrs["n_unpairable"]["joy"] == 1
    complete = df[df["item"] <= 3]
    assert out["joy"] == pytest.approx(complete.xrr.irr(metric="iota")["joy"])


def test_too_many_categories_is_a_clear_error(monkeypatch):
    from xrr_accessor.engine import additive

    monkeypatch.setattr(additive, "MAX_STAT_CELLS", 1000)
    df = pd.DataFrame({"item": np.repeat(np.arange(30), 2), "rater": ["a", "b"] * 30,
                       "score": np.arange(60) * 0.5})
    assert np.isfinite(df.xrr.irr()["score"])  # nominal: no K x K matrix, any K
    with pytest.raises(InputError, match=r"60 categories \(column 'score'\).*level='interval'"):
        df.xrr.irr(level="ordinal")  # 60 x 60 x 3 strata > 1,000 cells
    assert np.isfinite(df.xrr.irr(level="interval")["score"])


@pytest.mark.parametrize("irr", ["icc", "fleiss", "light", "kappa"])
def test_normalizing_irr_is_validated(irr, irep):
    """Only IRRs defined at every level can normalize kappa_x; others fail clearly."""
    for fn in (irep.xrr.normalized, irep.xrr.summary):
        with pytest.raises(InputError, match=rf"irr='{irr}' cannot normalize.*alpha, iota"):
            fn(irr=irr)


def test_a_value_column_found_by_name_reports_the_columns_it_leaves_out():
    # 'rating' is a value alias: the frame is read as one label, and the other
    # annotation-like column must not vanish without a word
    df = pd.DataFrame({"item": [1, 1, 2, 2], "rater": ["a", "b"] * 2,
                       "rating": [1, 2, 1, 1], "offensive": [0, 1, 0, 0]})
    with pytest.warns(DroppedDataWarning, match=r"'rating' is read as .*'offensive'"):
        df.xrr.irr()
    both = df.xrr(labels=["rating", "offensive"]).irr()  # the fix the warning names
    assert list(both.index) == ["rating", "offensive"]
    df[["item", "rater", "rating"]].xrr.irr()  # nothing left out: quiet


def test_stray_text_among_numbers_written_as_text_warns():
    # hs_brexit's 'offensive' column holds three "No" among "0"/"1" (a new user's trial)
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"item": np.repeat(np.arange(60), 2), "rater": ["a", "b"] * 60,
                       "off": rng.choice(["0", "1"], 120)})
    before = df.copy()
    assert not _caught(lambda: df.xrr.irr())
    df.loc[[3, 8, 9], "off"] = "No"
    with pytest.warns(xa.StrayValueWarning, match=r"column 'off' holds numbers written as "
                                                   r"text and 3 other value\(s\) \('No' x3\)"
                                                   r".*replace\(\{'No': '<number>'\}\)"):
        with_no = df.xrr.irr()["off"]
    want = df.assign(off=df["off"].replace({"No": "7"})).xrr.irr()["off"]
    assert with_no == pytest.approx(want)  # still read, as a category of its own
    words = df.assign(off=rng.choice(["yes", "no", "1"], 120))  # text, not numbers: quiet
    assert not _caught(lambda: words.xrr.irr())
    many = df.copy()
    many.loc[:20, "off"] = "No"  # 21 of 120: a real category, not a stray value
    assert not _caught(lambda: many.xrr.irr())
    pd.testing.assert_frame_equal(before.drop(columns="off"), df.drop(columns="off"))


def _caught(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn()
    return [w for w in caught if issubclass(w.category, xa.StrayValueWarning)]
