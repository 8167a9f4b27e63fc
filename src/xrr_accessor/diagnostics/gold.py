"""Reading the gold of :func:`~xrr_accessor.diagnostics.validity`: one value per item and label.

The gold comes as a column of the data (constant within an item), a mapping
label -> column, a Series item -> gold or a DataFrame item x label. Whatever
the form, it becomes a frame ``__item__, __rater__ ("gold"), <one column per
label>`` read as a second input, so items and categories are encoded jointly
with the annotations.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import Any

import pandas as pd
import xarray as xr

from ..errors import InputError
from ..schema import Roles, Table
from ..schema import read as read_table
from ..schema.roles import find_role, resolve_roles
from ..schema.tables import show

__all__ = ["given", "gold_table"]


def _names(obj: Any) -> list[Hashable]:
    if isinstance(obj, pd.DataFrame):
        return list(obj.columns)
    if isinstance(obj, xr.Dataset):
        return list(obj.data_vars)
    return []


def _missing(gold: Hashable, obj: Any) -> InputError:
    names = _names(obj)
    return InputError(f"gold={gold!r} is not a column of the data (it has {names[:12]}); "
                      "pass the name of the column holding each item's gold label, a "
                      "Series item -> gold, or a DataFrame indexed by item with one column "
                      "per label.")


def _constant(rows: pd.DataFrame, keys: list[str], what: str) -> pd.DataFrame:
    """First gold value per (item, label); an error naming the items whose rows disagree."""
    rows = rows.dropna(subset=["gold"])
    grouped = rows.groupby(keys, sort=False)["gold"]
    counts = grouped.nunique()
    bad = counts[counts > 1]
    if len(bad):
        values = grouped.unique()
        several = rows["label"].nunique() > 1
        shown = [f"{show(item)}{f' (label {label!r})' if several else ''}: "
                 + ", ".join(show(v) for v in values.loc[(item, label)][:3])
                 for item, label in bad.index[:3]]
        raise InputError(
            f"{what} takes different values within {len(bad)} item(s) ({'; '.join(shown)}); "
            "gold is one value per item. Fix those rows, or pass gold as a Series "
            "item -> label.")
    return grouped.first().reset_index()


def _from_column(data: Any, gold: Hashable, label: Hashable | None, roles: Roles
                 ) -> tuple[Any, pd.DataFrame]:
    """``rest`` of the data and rows (item[, label], gold) from column ``gold``."""
    if isinstance(data, xr.Dataset):
        if gold not in data.data_vars:
            raise _missing(gold, data)
        var = data[gold]
        item_dim = resolve_roles(list(data.dims), roles, "dimension")["item"]
        if var.dims != (item_dim,):
            raise InputError(f"gold variable {gold!r} has dims {var.dims}; it needs the item "
                             f"dimension {item_dim!r} only (one gold value per item).")
        series = var.to_series()
        return data.drop_vars([gold]), pd.DataFrame({"item": series.index,
                                                   "gold": series.to_numpy()})
    if not isinstance(data, pd.DataFrame) or gold not in data.columns:
        raise _missing(gold, data)
    rest = data.drop(columns=[gold])
    if roles.wide:
        return rest, pd.DataFrame({"item": data.index, "gold": data[gold].to_numpy()})
    cols = list(rest.columns)
    found = resolve_roles(cols, roles, "column")
    out = {"item": data[found["item"]].to_numpy()}
    label_col = found["label"]
    if label is None and label_col is not None and (roles.value is not None
                                                    or find_role(cols, "value") is not None):
        out["label"] = data[label_col].to_numpy()  # long: gold per (item, label)
    out["gold"] = data[gold].to_numpy()
    return rest, pd.DataFrame(out)


def given(gold: pd.DataFrame | pd.Series, labels: list[Hashable], item: Hashable = None
          ) -> tuple[pd.DataFrame, str]:
    """A gold Series or DataFrame as rows (item, label, gold), one per item and label
    with a gold value, and its name for messages. A frame with a plain row index and a
    column named as the data's item column (``item``), or as an item column is found
    (``item``, ``item_id``, ...), is indexed by it (a frame from polars, or one not yet
    indexed)."""
    if isinstance(gold, pd.DataFrame) and isinstance(gold.index, pd.RangeIndex) \
            and gold.index.name is None:
        col = item if item is not None and item in gold.columns else find_role(
            list(gold.columns), "item")
        if col is not None:
            gold = gold.set_index(col)
    frame = gold.to_frame(labels[0]) if isinstance(gold, pd.Series) else gold
    if isinstance(gold, pd.Series) and len(labels) != 1:
        raise InputError(f"gold is a Series but the data have {len(labels)} labels "
                         f"({labels[:6]}); pass a DataFrame indexed by item with one "
                         "column per label, or select one label with .xrr(labels=[...]).")
    what = "the gold Series" if isinstance(gold, pd.Series) else "the gold frame"
    rows = frame.rename_axis("item").reset_index().melt(
        id_vars="item", var_name="label", value_name="gold")
    if isinstance(gold, pd.DataFrame):
        _check_columns(list(gold.columns), labels)
    return _constant(rows, ["item", "label"], what), what


def gold_table(data: Any, gold: Any, roles: dict[str, Any], own_items: bool = False
               ) -> tuple[Table, Table, str]:
    """(the data's table, the gold's table, a name for messages). ``own_items``: a
    gold Series or DataFrame restricted to the data's items (one partition's)."""
    r = Roles.from_kwargs(roles)
    if isinstance(gold, pd.DataFrame | pd.Series):
        table = read_table(data, r)
        labels = list(table.labels)
        wide, what = given(gold, labels, table.item.column)
        if own_items:
            wide = wide[wide["item"].isin(table.item.uniques)]
    else:
        columns = dict(gold) if isinstance(gold, Mapping) else {None: gold}
        rest, parts = data, []
        for label, col in columns.items():
            rest, rows = _from_column(rest, col, label, r)
            if label is not None:
                rows["label"] = label
            parts.append(rows)
        table = read_table(rest, r)
        labels = list(table.labels)
        what = (f"gold column {gold!r}" if not isinstance(gold, Mapping)
                else f"gold columns {list(columns.values())}")
        if isinstance(gold, Mapping):
            _check_columns(list(columns), labels)
        elif "label" not in parts[0].columns:
            if len(labels) != 1:
                raise InputError(
                    f"gold={gold!r} is one column but the data have {len(labels)} labels "
                    f"({labels[:6]}); pass gold={{label: column, ...}}, or select one label "
                    "with .xrr(labels=[...]).")
            parts[0]["label"] = labels[0]
        wide = _constant(pd.concat(parts, ignore_index=True), ["item", "label"], what)
    table_gold = wide.pivot(index="item", columns="label", values="gold")
    table_gold = table_gold.reindex(columns=labels)
    out = pd.DataFrame({"__item__": table_gold.index, "__rater__": "gold"})
    for k, lab in enumerate(labels):  # by position: a label may share a role's name
        out[f"__label{k}__"] = table_gold[lab].to_numpy()
    read_gold = read_table(out, Roles(item="__item__", rater="__rater__",
                                      labels=[f"__label{k}__" for k in range(len(labels))],
                                      categories=r.categories))
    read_gold.labels = {lab: read_gold.labels[f"__label{k}__"] for k, lab in enumerate(labels)}
    read_gold.source = {lab: what for lab in labels}
    return table, read_gold, what


def _check_columns(given: list[Hashable], labels: list[Hashable]) -> None:
    missing = [lab for lab in labels if lab not in given]
    extra = [c for c in given if c not in labels]
    if missing or extra:
        raise InputError(
            f"the gold's labels {given[:6]} do not match the data's labels {labels[:6]}"
            + (f" (no gold for {missing[:4]})" if missing else "")
            + (f" ({extra[:4]} are not labels of the data)" if extra else "")
            + "; give gold for every label, or select labels with .xrr(labels=[...]).")

