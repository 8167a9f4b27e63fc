"""What a new user tripped on with real crowd data, each fixed and checked here.

Shapes modelled on the real sets in shared/data/real (HS-Brexit's ``split`` and
``rater_group``, MD-Agreement's ``domain`` and 800+ raters, POPQUORN's free
text); the frames are built here, so the tests need no external files.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import xrr_accessor  # noqa: F401  (registers .xrr)
from xrr_accessor.errors import DroppedDataWarning, InputError, RoleError


def _crowd(n_items: int = 60, n_raters: int = 150, per_item: int = 5, seed: int = 0):
    """Items rated by 5 of 150 raters, a binary label, and item/rater metadata."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n_items):
        truth = rng.random() < 0.4
        for r in rng.choice(n_raters, per_item, replace=False):
            rows.append({"item": f"i{i}", "split": "train" if i % 3 else "test",
                         "domain": ["Elections", "Covid", "BLM"][i % 3],
                         "rater": f"w{r}", "group": "A" if r % 2 else "B",
                         "text": f"a long piece of free text about item number {i} " * 2,
                         "offensive": int(truth if rng.random() < 0.8 else not truth)})
    return pd.DataFrame(rows)


def test_metadata_columns_are_not_labels():
    df = _crowd()
    with pytest.warns(DroppedDataWarning) as record:
        out = df.xrr.irr()
    message = str(record[0].message)
    for col, why in (("split", "item metadata"), ("domain", "item metadata"),
                     ("group", "rater metadata"), ("text", "free text")):
        assert f"'{col}' (" in message and why in message
    assert "labels=[...]" in message
    assert list(out.index) == ["offensive"]
    chosen = df.xrr(labels=["offensive"]).irr()  # explicit: no warning
    assert chosen["offensive"] == pytest.approx(out["offensive"])
    with pytest.raises(RoleError, match=r"labels=.*value=.*not both"):
        df.xrr(labels=["offensive"], value="offensive").irr()


def test_numeric_ids_are_not_labels():
    df = _crowd().assign(post_id=lambda d: d["item"].str[1:].astype(int) * 7919 + 10_000)
    with pytest.warns(DroppedDataWarning, match=r"'post_id' \(one number per item: an id\?\)"):
        out = df.xrr.irr()
    assert list(out.index) == ["offensive"]


def test_a_label_everyone_agrees_on_is_kept_when_alone():
    df = pd.DataFrame({"item": [1, 1, 2, 2], "rater": ["a", "b"] * 2,
                       "colour": ["red", "red", "blue", "blue"]})
    assert df.xrr.irr()["colour"] == pytest.approx(1.0)


def test_agreement_table_on_crowd_data_comes_back():
    """Light's kappa cannot average 11,175 rater pairs: NaN with its reason."""
    df = _crowd()
    table = df.xrr(labels=["offensive"]).agreement_table()
    light = table.xs("light", level="metric").iloc[0]
    assert np.isnan(light["estimate"]) and "more than 100 raters" in light["reason"]
    others = table.drop("light", level="metric")
    assert others["estimate"].notna().all()
    assert (others["reason"] == "").all()


def test_sparse_crowd_data_stay_sparse_in_xarray():
    df = _crowd(n_items=200, n_raters=800)
    acc = df.xrr(labels=["offensive"])
    ds = acc.to_xarray()
    assert tuple(ds.sizes) == ("annotation",) and ds.sizes["annotation"] == len(df)
    dense = acc.to_xarray(layout="dense")
    assert dense.sizes["rater"] * dense.sizes["item"] > 100 * ds.sizes["annotation"]
    want = acc.irr()["offensive"]
    assert float(ds.xrr.irr().sel(label="offensive")) == pytest.approx(want, abs=1e-12)
    assert float(dense.xrr.irr().sel(label="offensive")) == pytest.approx(want, abs=1e-12)
    pools = df.assign(pool=np.where(df["rater"].str[1:].astype(int) % 2, "P", "Q"))
    both = pools.xrr(labels=["offensive"], replication="pool")
    sparse = both.to_xarray()
    assert "replication" in sparse.coords and tuple(sparse.sizes) == ("annotation",)
    np.testing.assert_allclose(sparse.xrr.cross_kappa().values.ravel(),
                               both.cross_kappa().to_numpy().ravel(), atol=1e-12)
    with pytest.raises(InputError, match="layout="):
        acc.to_xarray(layout="sparse")
