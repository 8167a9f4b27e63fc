"""The short cuts of the per-call path (issue 35) give what the long way gives."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import xarray as xr

import xrr_accessor as xa
from xrr_accessor.errors import RoleError
from xrr_accessor.schema.evidence import evidence
from xrr_accessor.schema.labels import decide


def _frame(seed: int = 0, n_items: int = 40, n_raters: int = 4) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"item": np.repeat(np.arange(n_items), n_raters),
                       "rater": np.tile(np.arange(n_raters), n_items),
                       "score": rng.integers(0, 4, n_items * n_raters)})
    return df.sample(frac=0.8, random_state=seed)  # missing rows, shuffled, a gappy index


@pytest.mark.parametrize("column", [
    [1, 2, 1, 2], [1.5, 2.0, np.nan, 2.0], ["a", "b", "a", None], [["x"], ["x", "y"], None, ["y"]],
    ["one value per item"] * 4, pd.Categorical(["lo", "hi", "lo", "lo"]),
])
def test_a_lone_candidate_is_decided_as_with_the_evidence(column: list) -> None:
    df = pd.DataFrame({"item": [1, 1, 2, 2], "rater": [1, 2, 1, 2], "c": column})
    from xrr_accessor.schema.labels import _lone

    assert _lone(df["c"], "c") == decide(evidence(df, ["c"], "item", "rater"))


def test_a_lone_free_text_column_is_refused_by_name() -> None:
    df = pd.DataFrame({"item": [1, 1, 2, 2], "rater": [1, 2, 1, 2],
                       "comment": ["a long comment that no one would call a label " * 2] * 4})
    with pytest.raises(RoleError, match="'comment' \\(free text\\)"):
        xa.irr(df)


@pytest.mark.parametrize("roles", [{"labels": ["joy", "joy"]}, {"value": ["joy", "joy"]}])
def test_a_label_column_named_twice_is_refused_by_name(roles: dict) -> None:
    df = pd.DataFrame({"item": [1, 1, 2, 2], "rater": [1, 2, 1, 2], "joy": [1, 1, 0, 1]})
    with pytest.raises(RoleError, match="'joy' is named more than once"):
        xa.irr(df, **roles)


def test_renaming_a_results_label_index_does_not_reach_the_next_call() -> None:
    df = pd.DataFrame({"item": [1, 1, 2, 2], "rater": [1, 2, 1, 2], "joy": [1, 1, 0, 1],
                       "awe": [0, 1, 1, 1]})
    first = xa.irr(df)
    first.index.name = "renamed"
    assert xa.irr(df).index.name == "label"


def test_an_index_that_is_not_0_to_n_gives_the_result_of_a_reset_one() -> None:
    df = _frame()
    want = xa.irr(df.reset_index(drop=True), level="ordinal")
    for got in (xa.irr(df, level="ordinal"), xa.irr(df.set_index(df.index + 7), level="ordinal")):
        pd.testing.assert_series_equal(got, want, rtol=0, atol=1e-15)
        assert got.attrs == want.attrs


def test_a_dataset_whose_only_dask_variable_is_a_coordinate_is_lazy() -> None:
    da = pytest.importorskip("dask.array")
    from xrr_accessor.lazy import is_lazy

    ds = xr.Dataset({"v": (("item", "rater"), np.zeros((3, 2)))},
                    coords={"w": ("item", da.zeros(3, chunks=1))})
    assert is_lazy(ds) and is_lazy(ds["v"]) and not is_lazy(ds.compute())


def test_xarray_results_keep_every_coordinate_and_count() -> None:
    rng = np.random.default_rng(1)
    da = xr.DataArray(rng.integers(0, 3, (2, 6, 3, 4)).astype(float),
                      dims=("label", "item", "rater", "replication"),
                      coords={"label": ["a", "b"], "replication": list("wxyz")})
    got = da.xrr.irr()
    assert got.dims == ("label", "replication")
    assert list(got["label"].values) == ["a", "b"]
    assert list(got["replication"].values) == list("wxyz")
    assert got["n_items"].dims == ("label", "replication")
    frame = da.to_dataframe(name="v").reset_index()
    want = frame.xrr(value="v", label="label", replication="replication").irr()
    np.testing.assert_allclose(got.values, want.to_numpy(), rtol=0, atol=1e-12)
    pairs = da.xrr.cross_kappa()
    assert pairs.dims == ("label", "pair")
    assert set(pairs.indexes["pair"].names) == {"replication", "replication_other"}
    assert "n_items" in pairs.coords


def test_the_icc_reads_one_continuous_label_as_numbers_and_gives_the_factorized_result() -> None:
    from xrr_accessor.coefficients import lookup
    from xrr_accessor.engine.pipeline import run
    from xrr_accessor.schema.encode import NUMBERS

    rng = np.random.default_rng(3)
    df = pd.DataFrame({"item": np.repeat(np.arange(30), 3), "rater": np.tile(np.arange(3), 30),
                       "score": rng.normal(size=90).round(3)})
    icc, alpha = lookup("icc"), lookup("alpha")
    numbers = run(df, [icc], level="interval")  # as irr(metric="icc") runs it
    assert numbers.ann.categories[0].name == NUMBERS  # not factorized
    factorized = run(df, [icc], ann=run(df, [alpha], level="interval").ann,
                     lvl=numbers.level)
    assert factorized.ann.categories[0].name != NUMBERS
    for form in ("1,1", "2,1", "3,k"):
        assert numbers.estimate(icc, form=form).value == pytest.approx(
            factorized.estimate(icc, form=form).value, rel=1e-12)
    two = run(df.assign(other=df["score"] * 2), [icc], level="interval")  # factorized
    assert all(c.name != NUMBERS for c in two.ann.categories)


@pytest.mark.parametrize("values", [
    [3, 5, 7], [0.5, np.nan, 2.0], [True, False, True], np.array([1, 2, 3], dtype=np.uint8),
    pd.to_datetime(["2020-01-01", "2021-06-01", "2022-01-01"]), pd.array([1, None, 3], "Int64"),
    ["a", "b", "c"],
], ids=["int", "float", "bool", "uint8", "datetime", "Int64", "text"])
@pytest.mark.parametrize("kind", [pd.Index, pd.Series])
def test_numpy_values_are_what_to_numpy_gives(values, kind) -> None:
    """The reader's short cut for ``to_numpy()``: the same values and dtype, read-only
    where pandas' is (a kernel compiled for one would compile again for the other), and
    never a writable view of the caller's own memory."""
    from xrr_accessor.schema.tables import numpy_values

    obj = kind(values)
    got, want = numpy_values(obj), obj.to_numpy()
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
    if not want.flags.writeable:
        assert not got.flags.writeable
    if np.shares_memory(got, np.asarray(obj._values)):
        assert not got.flags.writeable


def test_range_index_is_pandas_range_index() -> None:
    from xrr_accessor.schema.tables import range_index

    for n in (0, 1, 7):
        got = range_index(n)
        assert type(got) is pd.RangeIndex and got.name is None
        pd.testing.assert_index_equal(got, pd.RangeIndex(n), exact=True)


@pytest.mark.parametrize("exponent", [-1074, -1060, -1023, -1022, -700, -3, 0, 3, 700, 1020,
                                      1022])
def test_interval_values_scaled_as_ldexp_scales_them(exponent: int) -> None:
    """item_disagreement divides interval values by a power of two (products, not
    ldexp, where 2^-shift is a double): bit for bit ldexp's, subnormal results included."""
    import math

    from xrr_accessor.diagnostics.item_patterns import scaled
    from xrr_accessor.kernels.item_sums import MOMENTS

    rng = np.random.default_rng(exponent + 2000)
    vals = np.ldexp(rng.random(9) + 0.5, exponent) * rng.choice([-1.0, 1.0], 9)
    got, scale = scaled(vals, MOMENTS)
    shift = math.frexp(float(np.abs(vals).max()))[1]
    assert scale == 2.0**shift
    np.testing.assert_array_equal(got.view(np.int64), np.ldexp(vals, -shift).view(np.int64))
