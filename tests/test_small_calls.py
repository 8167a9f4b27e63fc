"""The short cuts of the per-call path (issue 35) give what the long way gives."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import xarray as xr

import xrr_accessor as xa
from xrr_accessor.errors import RoleError
from xrr_accessor.schema.labels import decide, evidence


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


def test_an_index_that_is_not_0_to_n_gives_the_result_of_a_reset_one() -> None:
    df = _frame()
    want = xa.irr(df.reset_index(drop=True), level="ordinal")
    for got in (xa.irr(df, level="ordinal"), xa.irr(df.set_index(df.index + 7), level="ordinal")):
        pd.testing.assert_series_equal(got, want, rtol=0, atol=1e-15)
        assert got.attrs == want.attrs


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
