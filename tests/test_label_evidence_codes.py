"""Label inference grouped by the reader's codes (issue 35: a frame with metadata columns).

An export often carries item metadata (a split, a domain) and rater metadata beside the
labels. Inference leaves out a column holding one value within every item or rater.
The reader's call groups the columns by the item and rater codes it makes anyway, in
one pass per column (:func:`~xrr_accessor.kernels.groups.varies_within`); the
mergeable route (dask partitions) sorts the rows and hashes the ids. Both must see the
same: each group's size and whether a column varies in it, for every kind of column,
missing values included, and so the same labels kept and left out.
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import xrr_accessor as xa
from xrr_accessor.kernels.groups import varies_within
from xrr_accessor.schema.evidence import evidence
from xrr_accessor.schema.labels import decide
from xrr_accessor.schema.read import _factorize_both


def _naive_varies(group: np.ndarray, n_group: int, values: np.ndarray) -> list[bool]:
    """Straight from the definition: a group varies when two of its rows differ."""
    seen: dict[int, set[int]] = {}
    for g, v in zip(group.tolist(), values.tolist(), strict=True):
        seen.setdefault(g, set()).add(v)
    return [len(seen.get(g, ())) > 1 for g in range(n_group)]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 6), st.integers(-1, 3)), max_size=40),
       st.integers(0, 3))
def test_varies_within_equals_the_definition(rows, extra) -> None:
    group = np.array([g for g, _ in rows], dtype=np.int64)
    values = np.array([v for _, v in rows], dtype=np.int64)
    n_group = (int(group.max()) + 1 if len(group) else 0) + extra  # empty groups too
    assert varies_within(group, n_group, values).tolist() == _naive_varies(group, n_group,
                                                                           values)


def _frame(seed: int) -> pd.DataFrame:
    """Items x raters with a label that varies, item metadata (text, numbers, a
    categorical), rater metadata, free text, missing values and a column of lists."""
    rng = np.random.default_rng(seed)
    n_item, n_rater = int(rng.integers(3, 30)), int(rng.integers(2, 7))
    df = pd.DataFrame({"item": np.repeat([f"i{k}" for k in range(n_item)], n_rater),
                       "rater": np.tile([f"r{k}" for k in range(n_rater)], n_item)})
    df = df.sample(frac=float(rng.uniform(0.5, 1.0)), random_state=seed)
    items = df["item"].str[1:].astype(int).to_numpy()
    raters = df["rater"].str[1:].astype(int).to_numpy()
    n = len(df)
    df["stance"] = rng.integers(0, 3, n)
    df["split"] = np.where(items % 3 == 0, "train", "test")  # one value per item
    df["domain"] = pd.Categorical(np.array(["a", "b", "c"])[items % 3])
    df["year"] = 2000 + items * 37  # an id-like number, one per item
    df["group"] = np.where(raters % 2 == 0, "x", "y")  # one value per rater
    noisy = rng.random(n) < 0.3
    df["note"] = np.where(noisy, None, df["split"].to_numpy())  # with missing values
    if seed % 2:
        df["mix"] = np.where(rng.random(n) < 0.5, "p", "q")  # varies: a label
    if seed % 3 == 0:
        df["tags"] = [["t"] if k % 2 else ["t", "u"] for k in range(n)]  # unhashable
    return df


def _columns(ev: dict) -> dict:
    """What decide() reads of each column: kind, numbers, text, how many distinct
    values (up to two), and per group of the items and the raters the sizes and
    whether the column varies."""
    out = {}
    for col, e in ev.items():
        groups = {}
        for name, g in (("item", e.by_item), ("rater", e.by_rater)):
            groups[name] = None if g is None else (
                sorted(zip(g.n.tolist(), g.varies.tolist(), strict=True)), g.describes())
        # decide() asks only whether two values are seen (parts merged keep any two)
        out[col] = (e.kind, e.lo, e.hi, e.whole, e.n_chars, e.n_text, len(e.distinct),
                    groups)
    return out


@pytest.mark.parametrize("seed", range(12))
def test_coded_evidence_equals_the_mergeable_evidence(seed: int) -> None:
    df = _frame(seed)
    candidates = [c for c in df.columns if c not in ("item", "rater")]
    item, rater, _ = _factorize_both(df, "item", "rater")
    asked = []

    def ids():
        asked.append(1)
        return item.codes, len(item.uniques), rater.codes, len(rater.uniques)

    coded = evidence(df, candidates, "item", "rater", ids)
    merged = evidence(df, candidates, "item", "rater")
    assert asked == [1]  # the codes are asked for once
    assert _columns(coded) == _columns(merged)
    assert decide(coded) == decide(merged)
    kept, _ = decide(coded)
    assert "stance" in kept and all(c not in kept for c in ("split", "domain", "group"))


def test_the_reader_factorizes_the_ids_once_for_inference_and_reading(monkeypatch) -> None:
    import importlib

    read = importlib.import_module("xrr_accessor.schema.read")  # the module, not read()
    calls = []
    real = read._factorize_both
    monkeypatch.setattr(read, "_factorize_both",
                        lambda *a: calls.append(a[1:]) or real(*a))
    df = _frame(4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = xa.irr(df, level="nominal")
    assert calls == [("item", "rater")]
    assert "stance" in got.index and not {"split", "domain", "group"} & set(got.index)
    calls.clear()
    want = xa.irr(df, level="nominal", labels=list(got.index))  # named: no inference
    assert calls == [("item", "rater")]
    pd.testing.assert_series_equal(got, want, check_exact=True)


def test_all_numbers_take_no_grouping_and_no_ids() -> None:
    """Candidates that are all narrow numbers are decided on their ranges: the ids are
    not asked for (no factorizing for nothing)."""
    df = pd.DataFrame({"item": [1, 1, 2, 2], "rater": [1, 2, 1, 2], "a": [0, 1, 1, 1],
                       "b": [2.0, 3.0, 2.0, np.nan]})

    def ids():
        raise AssertionError("asked for the ids")

    ev = evidence(df, ["a", "b"], "item", "rater", ids)
    assert decide(ev) == (["a", "b"], [])


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("parts", [2, 3])
def test_coded_evidence_decides_as_partitions_merged(seed: int, parts: int) -> None:
    """The dask route: each partition's evidence (rows cut anywhere, an item's rows in
    several parts) merged, against the whole frame grouped by the reader's codes."""
    from xrr_accessor.schema.evidence import merge_evidence

    df = _frame(seed)
    candidates = [c for c in df.columns if c not in ("item", "rater")]
    item, rater, _ = _factorize_both(df, "item", "rater")
    coded = evidence(df, candidates, "item", "rater",
                     lambda: (item.codes, len(item.uniques), rater.codes, len(rater.uniques)))
    cuts = np.linspace(0, len(df), parts + 1).astype(int)
    merged = merge_evidence([evidence(df.iloc[a:b], candidates, "item", "rater")
                             for a, b in itertools.pairwise(cuts)])
    assert _columns(coded) == _columns(merged)
    assert decide(coded) == decide(merged)


def test_groups_of_the_readers_codes_refuse_to_merge() -> None:
    """They carry no hashes of the ids: merging them would lose every group."""
    from xrr_accessor.schema.evidence import Groups, Rows

    rows = Rows.coded(np.array([0, 0, 1]), 2)
    g = Groups.of_codes(rows, np.array([0, 1, 0]), np.array(["a", "b"], dtype=object))
    with pytest.raises(ValueError, match="no hashes"):
        Groups.merge([g, g])


@pytest.mark.parametrize("column", ["split", "note"])
def test_a_lone_surrogate_in_a_metadata_column_is_refused_by_both_routes(column) -> None:
    from xrr_accessor.errors import InputError

    df = _frame(2)
    df[column] = df[column].astype(object)
    df.loc[df.index[1], column] = "tr\ud800ain"
    candidates = [c for c in df.columns if c not in ("item", "rater")]
    item, rater, _ = _factorize_both(df, "item", "rater")
    with pytest.raises(InputError, match=column):
        evidence(df, candidates, "item", "rater",
                 lambda: (item.codes, len(item.uniques), rater.codes, len(rater.uniques)))
    with pytest.raises(InputError, match=column):
        evidence(df, candidates, "item", "rater")
    with pytest.raises(InputError, match=column), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        xa.irr(df, level="nominal")


@pytest.mark.parametrize("values", [
    ["a", "bb", None, "a", "ccc"], pd.array(["a", None, "dd", "a"], dtype="string"),
    pd.Categorical(["x", None, "y", "x"]), ["a", 1, None, 2.5], [True, False, None, True],
    [None, None, None], [], ["long text " * 9, "short", "long text " * 9, np.nan],
    [b"bytes", b"more", None, b"bytes"], ["é😀", "e", "é😀", None],
    pd.array(["a", "b"], dtype="str"), [("t",), ("u", "v"), None, ("t",)],
], ids=lambda v: type(v).__name__ + str(len(v)))
def test_text_facts_from_distinct_values_equal_those_from_every_value(values) -> None:
    """The kind, characters and known values of a column: from its distinct values and
    their counts (a factorized column) as read value by value."""
    from xrr_accessor.schema.evidence import _factorized_or_none, _text_facts

    col = pd.Series(values, dtype=object) if isinstance(values, list) else pd.Series(values)
    found = _factorized_or_none(col)
    assert found is not None
    assert _text_facts(col, found) == _text_facts(col, None)
