"""Many labels in one table: rater_agreement and item_disagreement build their tables
once over every label (arrays joined, one constructor), not a frame per label and a
concat; the tables equal the per-label calls' tables, concatenated, to the last bit
(values, dtypes, index and attrs)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import xrr_accessor as xa

N_LABELS = 30


def wide_labels(seed: int = 0, kinds: str = "float") -> pd.DataFrame:
    """8 items x 4 raters, 30 label columns, about 15% missing; ``kinds``: "float"
    (0 to 1, ..., 0 to 4, and NaN), "text" (words) or "mixed" (int, float and text)."""
    rng = np.random.default_rng(seed)
    n_item, n_rater = 8, 4
    df = pd.DataFrame({"item": np.repeat([f"i{k}" for k in range(n_item)], n_rater),
                       "rater": np.tile([f"r{k}" for k in range(n_rater)], n_item)})
    for j in range(N_LABELS):
        v = rng.integers(0, 2 + j % 4, len(df)).astype(float)  # 2 to 5 categories
        v[rng.random(len(df)) < 0.15] = np.nan
        kind = kinds if kinds != "mixed" else ("int", "float", "text")[j % 3]
        if kind == "int":
            col = pd.Series(np.nan_to_num(v, nan=1).astype(np.int64))
        elif kind == "text":
            col = pd.Series(np.array(["no", "maybe", "yes", "yes!", "no!"], dtype=object)[
                np.nan_to_num(v, nan=0).astype(int)]).where(~np.isnan(v))
        else:
            col = pd.Series(v)
        df[f"lab{j:02d}"] = col
    return df


def long_labels(seed: int = 1) -> pd.DataFrame:
    """The same shape as a long frame: a label column, two replications, gaps."""
    rng = np.random.default_rng(seed)
    # labels interleaved (each label's rows spread over the frame), the items and raters
    # in the same order of first appearance in every label as in the whole frame
    rows = [(f"i{i}", f"r{r}", rep, f"L{j}") for rep in (0, 1) for i in range(6)
            for r in range(3) for j in range(N_LABELS)]
    df = pd.DataFrame(rows, columns=["item", "rater", "rep", "label"])
    df["value"] = rng.integers(0, 4, len(df)).astype(float)
    df.loc[rng.random(len(df)) < 0.2, "value"] = np.nan
    return df


def quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


SUMMED = ("n_below_min_items", "n_undefined")


def per_label(fn, parts: list[tuple[pd.DataFrame, dict]], **kwargs) -> pd.DataFrame:
    """``fn`` of each part (one label each), concatenated; the counts in attrs summed."""
    outs = [quiet(fn, p, **named, **kwargs) for p, named in parts]
    want = pd.concat(outs)
    want.attrs = dict(outs[0].attrs)
    for k in SUMMED:
        if k in want.attrs:
            want.attrs[k] = sum(o.attrs[k] for o in outs)
    return want


def same(got: pd.DataFrame, want: pd.DataFrame) -> None:
    pd.testing.assert_frame_equal(got, want, check_exact=True)
    assert got.index.names == want.index.names
    assert got.attrs == want.attrs


def wide_parts(df: pd.DataFrame) -> list[tuple[pd.DataFrame, dict]]:
    """One label each, named as a label (``labels=[name]``: the label index level)."""
    return [(df[["item", "rater", c]], {"labels": [c]}) for c in df.columns[2:]]


def long_parts(df: pd.DataFrame) -> list[pd.DataFrame]:
    return [(df[df["label"] == lab], {}) for lab in df["label"].unique()]


@pytest.mark.parametrize("kwargs", [
    {},
    {"metric": "alpha"},
    {"min_items": 5},
    {"level": "ordinal"},
    {"level": "interval"},
    {"level": "interval", "min_items": 6, "metric": "alpha"},
    {"ci": 0.9, "n_boot": 30, "seed": 7, "interval": "percentile"},
])
def test_rater_agreement_equals_per_label(kwargs):
    df = wide_labels()
    cols = list(df.columns[2:])
    got = quiet(xa.rater_agreement, df, labels=cols, **kwargs)
    same(got, per_label(xa.rater_agreement, wide_parts(df), **kwargs))
    assert len(got.index.get_level_values("label").unique()) == N_LABELS


def test_rater_agreement_mixed_labels_equals_per_label():
    df = wide_labels(kinds="mixed")
    got = quiet(xa.rater_agreement, df, labels=list(df.columns[2:]))
    same(got, per_label(xa.rater_agreement, wide_parts(df)))


@pytest.mark.parametrize("kwargs", [{}, {"metric": "alpha", "min_items": 3}])
def test_rater_agreement_long_equals_per_label(kwargs):
    df = long_labels()
    got = quiet(xa.rater_agreement, df, replication="rep", **kwargs)
    same(got, per_label(xa.rater_agreement, long_parts(df), replication="rep", **kwargs))
    assert got.index.names == ["label", "replication", "rater"]


@pytest.mark.parametrize(("kinds", "level"), [
    ("float", "interval"), ("float", "nominal"), ("float", "ordinal"),
    ("text", "nominal"), ("mixed", "nominal")])
def test_item_disagreement_equals_per_label(kinds, level):
    df = wide_labels(kinds=kinds)
    cols = list(df.columns[2:])
    got = quiet(xa.item_disagreement, df, labels=cols, level=level)
    same(got, per_label(xa.item_disagreement, wide_parts(df), level=level))
    assert got.attrs["n_undefined"] > 0  # items with one annotation, in several labels


def test_item_disagreement_long_equals_per_label():
    df = long_labels()
    got = quiet(xa.item_disagreement, df, replication="rep")
    same(got, per_label(xa.item_disagreement, long_parts(df), replication="rep"))
    assert got.index.names == ["label", "replication", "item"]


def test_undefined_warning_counts_every_label():
    df = long_labels()
    with pytest.warns(xa.errors.UndefinedWarning, match=r"label 'L\d+'") as got:
        out = xa.item_disagreement(df, replication="rep")
    n = out["disagreement"].isna().sum()
    assert n == out.attrs["n_undefined"] > 0
    assert any(f"for {n} of {len(out)} row(s)" in str(w.message) for w in got)


@pytest.mark.parametrize("layout", ["by_label", "interleaved", "gaps", "shuffled"])
@pytest.mark.parametrize("kind", ["float", "object", "str", "category"])
def test_long_read_slices_equal_iloc(layout, kind):
    """Each label's (rows, values) of a long frame, cut from the rows put in label order
    once, equal ``values.iloc[that label's rows]``: dtype, name, attrs and index (a
    RangeIndex where the label's rows are evenly spaced, their numbers otherwise)."""
    from xrr_accessor.schema.read import read
    from xrr_accessor.schema.roles import Roles

    rows = [(i, r, f"L{j}") for j in range(7) for i in range(5) for r in range(3)]
    df = pd.DataFrame(rows, columns=["item", "rater", "label"])
    if layout != "by_label":
        df = df.sort_values(["item", "rater", "label"], kind="stable")
    if layout == "gaps":
        df = df.iloc[[k for k in range(len(df)) if k % 11 != 3]]
    if layout == "shuffled":
        df = df.sample(frac=1.0, random_state=0)
    df = df.reset_index(drop=True)
    v = np.random.default_rng(0).integers(0, 3, len(df))
    df["value"] = {"float": pd.Series(v.astype(float)),
                   "object": pd.Series(v.astype(str), dtype=object),
                   "str": pd.Series(v.astype(str)), "category": pd.Series(pd.Categorical(v))}[kind]
    df.index.name = "row"
    df.attrs = {"source": "test"}
    table = read(df, Roles.from_kwargs({}))
    assert sorted(table.labels) == [f"L{j}" for j in range(7)]
    for name, (got_rows, got) in table.labels.items():
        pos = np.flatnonzero(df["label"].to_numpy() == name)
        want = df["value"].iloc[pos]
        pd.testing.assert_series_equal(got, want, check_exact=True, check_index_type=True)
        assert type(got.index) is type(want.index) and got.attrs == want.attrs
        if isinstance(want.index, pd.RangeIndex):
            assert got.index.equals(want.index) and got.index.step == want.index.step
        assert len(got_rows) == len(pos)
