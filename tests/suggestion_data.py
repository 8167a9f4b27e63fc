"""Small frames for tests/test_suggestions_work.py: each a realistic shape of data on
which a call goes wrong (words on an ordinal scale, two pools, label sets, sessions)."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd


def long(values: list[Any], raters: tuple[str, ...] = ("a", "b", "c"), column: str = "joy",
         **extra: Any) -> pd.DataFrame:
    """Items 0, 1, ... each rated by every rater in turn."""
    n = len(values) // len(raters)
    return pd.DataFrame({"item": np.repeat(np.arange(n), len(raters)),
                         "rater": list(raters) * n, column: values, **extra})


def words() -> pd.DataFrame:
    return long(["low", "mid", "high", "mid", "mid", "high", "low", "low", "mid",
                 "high", "high", "mid"])


def numbers() -> pd.DataFrame:
    return long([1, 2, 3, 2, 2, 3, 1, 1, 2, 3, 3, 2, 4, 4, 3])


def label_sets() -> pd.DataFrame:
    return long([["a", "b"], ["a"], ["b"], ["a"], ["a", "b"], ["b"], ["a"], ["a"], ["b"],
                 ["b"], ["a", "b"], ["a"]])


def two_pools() -> pd.DataFrame:
    a = many().assign(pool="A")
    return pd.concat([a, a.assign(pool="B", joy=a["joy"].sample(frac=1, random_state=0)
                                  .to_numpy())], ignore_index=True)


def sourced() -> pd.DataFrame:
    """Two pools with their own raters, told apart by a column named 'source'."""
    d = two_pools().rename(columns={"pool": "source"})
    return d.assign(rater=d["rater"] + d["source"])


def gold_of_a() -> pd.Series:
    d = two_pools()
    return d[(d.pool == "A") & (d.rater == "a")].set_index("item")["joy"]


def one_human() -> pd.DataFrame:
    d = two_pools()
    return d[(d.pool == "B") | (d.rater == "a")]


def many() -> pd.DataFrame:
    """Twelve items, enough for a bootstrap interval."""
    return long([1, 2, 3, 2, 2, 3, 1, 1, 2, 3, 3, 2] * 3)


def sessions() -> pd.DataFrame:
    """Each rater rates every item twice (round 1, round 2), in pools A and B."""
    one = pd.concat([many().assign(round=1),
                     many().assign(round=2, joy=many()["joy"][::-1].to_numpy())])
    return pd.concat([one.assign(pool="A"), one.assign(pool="B")], ignore_index=True)


def three_pools() -> pd.DataFrame:
    """Humans (A), a gold pool (B, one rater) and a model (C)."""
    a = many().assign(pool="A")
    b = a[a.rater == "a"].assign(pool="B", rater="expert")
    return pd.concat([a, b, b.assign(pool="C", rater="model", joy=b["joy"][::-1].to_numpy())],
                     ignore_index=True)


def yes_no() -> pd.DataFrame:
    d = two_pools()
    return d.assign(joy=np.where(d["joy"] > 2, "yes", "no"))


def sets_of(cells: list[Any]) -> pd.DataFrame:
    """Annotations of items 0, 0, 1, 1, ... by raters a, b in turn."""
    return pd.DataFrame({"item": np.arange(len(cells)) // 2, "rater": ["a", "b"] * (
        len(cells) // 2), "labels": cells})


def csv_file(text: str) -> str:
    """A CSV file holding ``text``, in a directory removed at exit."""
    path = Path(_FILES.name) / f"f{len(list(Path(_FILES.name).iterdir()))}.csv"
    path.write_text(text)
    return str(path)


_FILES = tempfile.TemporaryDirectory()
