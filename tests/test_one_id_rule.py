"""One identity rule for ids in every path (issue 36, part 3).

Ids of different types that are equal in Python (``True`` and ``1``, ``1`` and
``1.0`` in an object column) or print alike (``1`` and ``"1"``) are refused with
the rows named, in memory, on dask (``dd.from_pandas``, partitions of different
kinds) and through ``read_annotations(lazy=True)``; the lazy path refuses exactly
what the eager path refuses (property test below).
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import xrr_accessor as xa
from xrr_accessor.io import read_annotations
from xrr_accessor.schema.ids import id_kind, one_kind_per_id

dask = pytest.importorskip("dask")
dd = pytest.importorskip("dask.dataframe")

IDS = [1, "1", 1.0, True, 0, False, 2, "a", "True"]


def _frame(items: list[Any], raters: list[Any] | None = None) -> pd.DataFrame:
    n = len(items)
    raters = raters if raters is not None else ["r1", "r2"] * (n // 2) + ["r1"] * (n % 2)
    return pd.DataFrame({"item": pd.Series(items, dtype=object),
                         "rater": pd.Series(raters, dtype=object),
                         "y": [i % 3 for i in range(n)]})


@pytest.mark.parametrize(("a", "b"), [(True, 1), (0, False), (True, 1.0), (1, 1.0)])
@pytest.mark.parametrize("role", ["item", "rater"])
def test_equal_ids_of_different_types_are_refused_naming_both_rows(a, b, role):
    items = [a, b, 2, 2, 3, 3]
    df = _frame(items) if role == "item" else _frame([1, 1, 2, 2, 3, 3], [a, b] * 3)
    with pytest.raises(xa.InputError, match=rf"column '{role}'.*equal in Python "
                       rf"\({a!r} in row 0 and {b!r} in row 1\)"):
        xa.irr(df)
    with pytest.raises(xa.InputError, match=rf"column '{role}'.*equal in Python"):
        xa.irr(dd.from_pandas(df, npartitions=2)).compute()


def test_ids_of_one_kind_pass_and_numbers_in_a_numeric_column_are_one_id():
    assert id_kind(np.int64(3)) == id_kind(3) == "integer"
    df = _frame([1, 1.0, 2, 2, 3, 3])  # an object column: refused
    with pytest.raises(xa.InputError):
        xa.irr(df)
    num = df.assign(item=df["item"].astype(float))  # one float column: 1.0 twice
    assert xa.irr(num).tolist() == xa.irr(num.assign(item=[1, 1, 2, 2, 3, 3])).tolist()
    one_kind_per_id(pd.Series([1, "a", 2], dtype=object), np.array([0, 1, 2]),
                    pd.Index([1, "a", 2], dtype=object), "x")  # no pair: no error


def test_text_and_number_that_print_alike_name_their_rows():
    with pytest.raises(xa.InputError, match=r"\(1 and '1'\) \(rows 2 and 3\)"):
        xa.irr(_frame([2, 2, 1, "1", 3, 3]))


def test_partitions_of_different_kinds_are_checked_together():
    a = pd.DataFrame({"item": [1, 1, 2, 2], "rater": ["a", "b"] * 2, "y": [1, 1, 0, 0]})
    b = pd.DataFrame({"item": ["1", "1", "3", "3"], "rater": ["c", "d"] * 2, "y": [0, 1, 1, 1]})
    ddf = dd.concat([dd.from_pandas(a, npartitions=1), dd.from_pandas(b, npartitions=1)])
    with pytest.raises(xa.InputError, match=r"item ids .*across partitions.*read the same"):
        xa.irr(ddf).compute()
    c = b.assign(item=pd.Series([True, True, 5, 5], dtype=object))
    with dask.config.set({"dataframe.convert-string": False}):  # objects stay objects
        ddf = dd.concat([dd.from_pandas(a, npartitions=1), dd.from_pandas(c, npartitions=1)])
    with pytest.raises(xa.InputError, match=r"equal in Python \(1 in partition 0 and True "
                       r"in partition 1\)"):
        xa.irr(ddf).compute()
    r = a.assign(rater=[1, 2, 1, 2])
    s = a.assign(item=[5, 5, 6, 6], rater=pd.Series([True, 2, True, 2], dtype=object))
    with dask.config.set({"dataframe.convert-string": False}):
        ddf = dd.concat([dd.from_pandas(r, npartitions=1), dd.from_pandas(s, npartitions=1)])
    with pytest.raises(xa.InputError, match=r"rater ids .*equal in Python"):
        xa.irr(ddf).compute()


def _outcome(call: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            out = call()
            out = out.compute() if hasattr(out, "compute") else out
        except xa.InputError:
            return "InputError"
        except (xa.LevelError, xa.RoleError) as exc:
            return type(exc).__name__
    return tuple(None if v != v else v  # NaN as None: NaN != NaN in a tuple
                 for v in np.round(np.asarray(out, dtype=float), 12).tolist())


def _jsonl(path: Path, df: pd.DataFrame) -> None:
    with open(path, "w") as fh:
        for rec in df.to_dict("records"):
            fh.write(json.dumps(rec) + "\n")


@settings(max_examples=12, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(items=st.lists(st.sampled_from(IDS), min_size=4, max_size=10),
       raters=st.lists(st.sampled_from(["x", "y", 1, True, "1"]), min_size=4, max_size=10),
       split=st.integers(1, 3))
def test_lazy_refuses_exactly_what_eager_refuses(tmp_path_factory, items, raters, split):
    n = min(len(items), len(raters))
    df = _frame(items[:n], raters[:n])
    eager = _outcome(lambda: xa.irr(df))
    assert _outcome(lambda: xa.irr(dd.from_pandas(df, npartitions=split))) == eager
    tmp = tmp_path_factory.mktemp("ids")
    _jsonl(tmp / "a.jsonl", df)
    from_file = _outcome(lambda: xa.irr(read_annotations(tmp / "a.jsonl")))
    assert _outcome(lambda: xa.irr(read_annotations(tmp / "a.jsonl", lazy=True))) == from_file
    # the same rows in two files: the eager glob and the lazy glob agree
    cut = max(1, n // 2)
    _jsonl(tmp / "p1.jsonl", df.iloc[:cut])
    _jsonl(tmp / "p2.jsonl", df.iloc[cut:])
    glob = str(tmp / "p*.jsonl")
    lazy = _outcome(lambda: xa.irr(read_annotations(glob, lazy=True)))
    eager = _outcome(lambda: xa.irr(read_annotations(glob)))
    parts = [read_annotations(tmp / f) for f in ("p1.jsonl", "p2.jsonl")]
    if lazy != eager and _text_beside_numbers(parts):
        # The one documented difference: files whose ids are all text beside files of
        # numbers are made text together eagerly (a CSV's ids meet a Parquet file's);
        # the lazy path cannot see every file's kind first, and refuses instead.
        assert lazy == "InputError" and eager != "InputError"
    else:
        assert lazy == eager


def _text_beside_numbers(parts: list[pd.DataFrame]) -> bool:
    for col in ("item", "rater"):
        text = [all(isinstance(v, str) for v in p[col]) for p in parts]
        numbers = [pd.api.types.is_numeric_dtype(p[col]) for p in parts]
        if any(text) and any(numbers):
            return True
    return False
