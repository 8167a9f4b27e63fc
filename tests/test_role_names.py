"""Results keep the user's names of the item and rater columns (issue 21)."""

from __future__ import annotations

import warnings

import pandas as pd
import xarray as xr

import xrr_accessor as xrr


def _df() -> pd.DataFrame:
    return pd.DataFrame({"text_id": [1, 1, 2, 2, 3, 3, 4, 4] * 2,
                         "annotator": ["a", "b"] * 8,
                         "joy": [1, 1, 0, 1, 0, 0, 1, 1] * 2,
                         "pool": ["x"] * 8 + ["y"] * 8})


def test_rater_and_item_levels_keep_the_column_names():
    df = _df()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        raters = xrr.rater_agreement(df, item="text_id", rater="annotator")
        items = xrr.item_disagreement(df, item="text_id", rater="annotator")
        bound = df.xrr(item="text_id", rater="annotator").rater_agreement()
    assert raters.index.names == ["label", "replication", "annotator"]
    assert items.index.names == ["label", "replication", "text_id"]
    assert sorted(raters.index.get_level_values("annotator").unique()) == ["a", "b"]
    assert sorted(items.index.get_level_values("text_id").unique()) == [1, 2, 3, 4]
    pd.testing.assert_frame_equal(bound, raters)


def test_default_names_and_xarray_dims():
    df = _df().rename(columns={"text_id": "item", "annotator": "rater"})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert xrr.rater_agreement(df).index.names == ["label", "replication", "rater"]
        da = xr.DataArray([[1, 1], [0, 1], [0, 0], [1, 1]], dims=("video", "coder"),
                          coords={"video": [1, 2, 3, 4], "coder": ["a", "b"]}, name="joy")
        out = xrr.rater_agreement(da.to_dataset(), item="video", rater="coder")
    assert "coder" in out.dims and "rater" not in out.dims


def test_a_label_named_value_keeps_its_label_level_when_named_a_label() -> None:
    """Found by a new-user trial (multipico's column ``value``): a lone column named like
    a value is the one unnamed label (irr gives a number), but with labels=["value"] it
    is a label like any other, in every function's shape."""
    import numpy as np

    rng = np.random.default_rng(0)
    df = pd.DataFrame({"item": np.repeat(np.arange(30), 3), "rater": np.tile(list("abc"), 30),
                       "value": rng.integers(0, 3, 90)})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        bare = xrr.irr(df)
        named = xrr.irr(df, labels=["value"])
        raters = xrr.rater_agreement(df, labels=["value"])
        items = xrr.item_disagreement(df, labels=["value"], level="nominal")
    assert isinstance(bare, float)
    assert named.index.tolist() == ["value"] and named.iloc[0] == bare
    assert raters.index.names[0] == "label" and items.index.names[0] == "label"
