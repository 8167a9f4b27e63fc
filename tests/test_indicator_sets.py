"""set_cells(columns=[...]): one 0/1 column per label -> one label set per row."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import xrr_accessor as xa
from xrr_accessor.errors import DroppedDataWarning, InputError

EMO = ["joy", "awe", "fear", "anger"]


def _wide(seed: int = 0, n: int = 60) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n):
        base = rng.random(len(EMO)) < 0.35
        for r in ("r1", "r2", "r3"):
            flip = rng.random(len(EMO)) < 0.15
            rows.append({"item": i, "pool": "A", "rater": r,
                         **dict(zip(EMO, (base ^ flip).astype(int), strict=True))})
    return pd.DataFrame(rows)


def test_sets_are_the_columns_holding_1():
    df = _wide()
    before = df.copy()
    cells = xa.set_cells(df, columns=EMO)
    pd.testing.assert_frame_equal(df, before)  # the input is not modified
    assert list(cells.columns) == ["item", "pool", "rater", "labels"]
    for (_, row), got in zip(df.iterrows(), cells["labels"], strict=True):
        want = {e for e in EMO if row[e] == 1} or {"none"}
        assert got == frozenset(want)


def test_masi_from_indicators_equals_masi_from_the_long_form():
    df = _wide()
    cells = xa.set_cells(df, columns=EMO)
    long = df.melt(id_vars=["item", "pool", "rater"], value_vars=EMO, var_name="label",
                   value_name="on")
    long = long[long["on"] == 1].drop(columns="on")
    none = df[df[EMO].sum(axis=1) == 0][["item", "pool", "rater"]].assign(label="none")
    via_long = xa.set_cells(pd.concat([long, none], ignore_index=True))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = xa.irr(cells, level="masi")
        b = xa.irr(via_long, level="masi")
    assert float(np.asarray(a).ravel()[0]) == pytest.approx(float(np.asarray(b).ravel()[0]),
                                                            abs=1e-12)


def test_bools_names_and_empty_rows():
    df = _wide(n=5)
    df[EMO] = df[EMO].astype(bool)
    df.loc[0, EMO] = False
    out = xa.set_cells(df, columns=EMO, name="emotions", empty="neutral")
    assert out.loc[0, "emotions"] == frozenset({"neutral"})
    with pytest.raises(InputError, match=r"1 row\(s\) hold no label.*empty="):
        xa.set_cells(df, columns=EMO, empty=None)


def test_bad_indicator_values_are_refused_by_column():
    df = _wide(n=5)
    df["awe"] = df["awe"].astype(object)
    df.loc[3, "awe"] = "yes"
    with pytest.raises(InputError, match=r"column 'awe' \(columns=\) holds 'yes'"):
        xa.set_cells(df, columns=EMO)
    df = _wide(n=5).astype({"fear": float})
    df.loc[2, "fear"] = 2.0
    with pytest.raises(InputError, match=r"column 'fear' \(columns=\) holds 2\.0"):
        xa.set_cells(df, columns=EMO)
    with pytest.raises(InputError, match="'feer'"):
        xa.set_cells(df, columns=["joy", "feer"])


def test_missing_rows():
    df = _wide(n=5).astype({e: float for e in EMO})
    df.loc[1, EMO] = np.nan
    with pytest.warns(DroppedDataWarning, match="left out 1 row"):
        out = xa.set_cells(df, columns=EMO)
    assert len(out) == len(df) - 1
    df.loc[2, "joy"] = np.nan
    with pytest.raises(InputError, match=r"1 row\(s\) miss some indicator columns.*'joy'"):
        xa.set_cells(df.drop(index=1), columns=EMO)
