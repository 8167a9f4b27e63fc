"""Model outputs in the shapes people have them, as candidates beside the humans.

Three shapes are read without reshaping by hand:

* a long frame (item, rater, label), each rater a model (or a replication column with
  one candidate per replication, its raters its prompts) -- read as ``other`` as it is;
* a table with a row per item and a column per model (or a model x item table, its
  transpose): ``other.xrr(wide=True)`` (``models.T.xrr(wide=True)``), each column a model;
* one column per model beside the humans' own long table, holding each item's model
  label on every row of the item: ``other=["gpt4", "gpt35"]``, the columns' names
  (:func:`beside`).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import pandas as pd

from ..errors import InputError
from ..schema import Roles, read
from ..schema.roles import resolve_roles
from ..schema.tables import show

__all__ = ["beside", "is_column_list"]


def is_column_list(data: Any, other: Any) -> bool:
    """Whether ``other`` names columns of the DataFrame ``data`` (models beside humans)."""
    if not isinstance(data, pd.DataFrame) or not isinstance(other, list | tuple):
        return False
    return len(other) > 0 and all(isinstance(c, Hashable) and c in data.columns for c in other)


def beside(data: pd.DataFrame, columns: Sequence[Hashable], roles: dict[str, Any]
           ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The humans' rows without the model columns, and a long frame of the models: per
    model column, one row per item with the model's label (item, rater = the column's
    name, the label column), the label constant within each item (else an error naming
    the column and the items)."""
    r = Roles.from_kwargs(roles)
    rest = data.drop(columns=list(columns))
    found = resolve_roles(list(rest.columns), r, "column")
    item, rater = found["item"], found["rater"]
    if found["label"] is not None or r.value is not None:
        raise InputError(
            f"other={list(columns)} (models as columns beside the humans) need one label "
            "column; with a label and a value column (one row per label), pass the models "
            "as a frame of their own (item, model, label, value).")
    firsts = []
    for col in columns:  # each model's label per item, checked before the humans are read
        rows = data[[item, col]].dropna(subset=[col])
        per = rows.groupby(item, sort=False)[col]
        counts = per.nunique()
        bad = counts[counts > 1]
        if len(bad):
            shown = "; ".join(f"{show(i)}: " + ", ".join(show(v) for v in per.unique()[i][:3])
                              for i in bad.index[:3])
            raise InputError(
                f"model column {col!r} takes different values within {len(bad)} item(s) "
                f"({shown}); a model's label is one value per item. Fix those rows, or "
                "pass the models as a frame of their own (item, model, label).")
        firsts.append((col, per.first()))
    labels = list(read(rest, r).labels)
    if len(labels) != 1:
        raise InputError(
            f"other={list(columns)} (models as columns beside the humans) need one label "
            f"column, but the humans' frame has {len(labels)} ({labels[:5]}); select it "
            "with .xrr(labels=[...]), or pass the models as a frame of their own.")
    label = labels[0]
    parts = [pd.DataFrame({item: first.index, rater: str(col), label: first.to_numpy()})
             for col, first in firsts]
    return rest, pd.concat(parts, ignore_index=True)
