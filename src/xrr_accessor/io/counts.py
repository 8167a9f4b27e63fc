"""Count tables: per item, how many raters chose each category (Fleiss's input).

:func:`from_counts` turns an item x category table of counts (an MTurk-style
summary, ChaosNLI's label counts, the table Fleiss' kappa is defined on) into the
long frame every function reads: one row per rating, with a ``slot`` column
numbering the ratings within their item. The raters of a count table are
anonymous: the reader reads a column named ``slot`` as the rater role with one
rater per rating (slot 1 of item A and slot 1 of item B are two raters), so the
coefficients of counts (percent, Fleiss, Gwet's AC, Brennan-Prediger, alpha) are
those of the table, and nothing pairs ratings across items by slot.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

import numpy as np
import pandas as pd

from ..errors import DroppedDataWarning, InputError, per_call, warn
from ..schema.tables import show

__all__ = ["SLOT", "from_counts"]

#: The name of the column numbering the ratings within an item (1, 2, ...): read as
#: anonymous raters (:mod:`xrr_accessor.schema.read`), never as raters across items.
SLOT = "slot"


def _item_ids(table: pd.DataFrame, item: Hashable | None) -> tuple[pd.Series, Hashable]:
    """The item ids (one per row) and their column's name: ``item=``, a column found
    by name, or the index."""
    from ..schema.roles import check_given, find_role

    cols = list(table.columns)
    if item is None:
        item = find_role(cols, "item")
    if item is None:
        name = table.index.name if table.index.name is not None else "item"
        return pd.Series(table.index, copy=False), name
    if item not in cols and item == table.index.name:
        return pd.Series(table.index, copy=False), item
    check_given(cols, "item", item, "column")
    return table[item].reset_index(drop=True), item


def _count_columns(table: pd.DataFrame, item: Hashable | None,
                   categories: Sequence[Hashable] | None) -> list[Hashable]:
    """The count columns: ``categories=``, or every numeric column but the item's
    (others left out with a warning naming them)."""
    if categories is not None:
        cats = list(categories)
        missing = [c for c in cats if c not in table.columns]
        if missing:
            raise InputError(f"categories= names {missing}, which are not columns of the "
                             f"table; it has {list(table.columns)}.")
        if len(set(cats)) < len(cats) or not cats:
            raise InputError("categories= must name each count column once (at least one).")
        return cats
    rest = [c for c in table.columns if c != item]
    cats = [c for c in rest if pd.api.types.is_numeric_dtype(table[c].dtype)
            and not pd.api.types.is_bool_dtype(table[c].dtype)]
    if not cats:
        raise InputError(f"no numeric columns of counts among {rest}; counts written as "
                         f"text are read once converted, e.g. df[{rest!r}] = "
                         f"df[{rest!r}].apply(pd.to_numeric).")
    values = table[cats].to_numpy(dtype=float, na_value=np.nan)
    whole = values.sum(axis=1)
    totals = [c for j, c in enumerate(cats) if len(cats) > 2 and _total_name(c) and bool(
        np.array_equal(2 * values[:, j], whole))]  # named so, and the sum of the others
    cats = [c for c in cats if c not in totals]
    left = [c for c in rest if c not in cats]
    if left:
        why = ", ".join([f"{c!r} (the sum of the others: a total)" for c in totals]
                        + [f"{c!r} (not numbers)" for c in left if c not in totals])
        warn(f"from_counts: column(s) {why} are not counts of a category and are left "
             f"out; the categories are {cats}. Name the count columns with "
             "categories=[...] to say so.", DroppedDataWarning)
    return cats


def _as_numbers(cats: list[Hashable]) -> pd.Index:
    """The categories: the count columns' names, as numbers when every one reads as a
    number (a CSV header ``1,2,3,4,5`` is text: its ratings are the numbers 1 to 5, so
    the level is inferred from them as from any ratings, and the ICC reads them).

    Examples
    --------
    >>> _as_numbers(["1", "2", "3"]).tolist(), _as_numbers(["no", "yes"]).tolist()
    ([1, 2, 3], ['no', 'yes'])
    >>> _as_numbers(["1", "inf"]).tolist()
    ['1', 'inf']
    """
    values = pd.to_numeric(pd.Series([str(c).strip() for c in cats]), errors="coerce")
    if values.isna().any() or not len(values) or not np.isfinite(values).all():
        return pd.Index(cats, dtype=object)  # "inf" names a category: no rating is infinite
    if (values == values.round()).all():
        return pd.Index(values.astype(np.int64).to_numpy())
    return pd.Index(values.to_numpy(dtype=float))


#: Names of a count table's total column (with the count columns' sum in it).
TOTAL_NAMES = ("total", "totals", "n", "count", "sum", "n_ratings", "n_raters",
               "n_judgments", "n_annotations", "num_ratings", "judgments", "ratings")


def _total_name(column: Hashable) -> bool:
    """Whether ``column`` is named like a total (it is left out only when it also holds
    the sum of the others: a category may well sum its neighbours by chance)."""
    name = str(column).strip().lower().replace(" ", "_").replace("-", "_")
    return name in TOTAL_NAMES or name.startswith(("total_", "n_"))


def _counts(table: pd.DataFrame, cats: list[Hashable], ids: pd.Series) -> np.ndarray:
    """The counts as an items x categories int64 matrix; a count that is not a whole
    number >= 0 is an error naming its column, an item and the fix."""
    out = np.empty((len(table), len(cats)), dtype=np.int64)
    for j, c in enumerate(cats):
        col = table[c]
        if not pd.api.types.is_numeric_dtype(col.dtype) or pd.api.types.is_bool_dtype(
                col.dtype):
            raise InputError(f"count column {c!r} holds {col.dtype} values, not counts; "
                             "give whole numbers >= 0 (or leave it out of categories=).")
        values = col.to_numpy(dtype=float, na_value=np.nan)
        for bad, what, fix in (
                (np.isnan(values), "missing counts",
                 f"fill them with 0 if none chose it: table.fillna({{{c!r}: 0}})"),
                (values < 0, "negative counts", "counts are whole numbers >= 0"),
                (values != np.floor(values), "counts that are not whole numbers",
                 "counts are whole numbers >= 0; a table of shares is not a count table "
                 "(multiply by the number of raters)")):
            if bad.any():
                first = int(np.flatnonzero(bad)[0])
                raise InputError(
                    f"count column {c!r} has {int(bad.sum())} {what} (e.g. item "
                    f"{show(ids.iloc[first])}: {show(col.iloc[first])}); {fix}.")
        out[:, j] = values.astype(np.int64)
    return out


@per_call
def from_counts(table: pd.DataFrame, item: Hashable | None = None,
                categories: Sequence[Hashable] | None = None, *, name: Hashable = "value",
                ordered: bool = False) -> pd.DataFrame:
    """A count table (items x categories) as the long annotations frame.

    Parameters
    ----------
    table : pandas.DataFrame
        One row per item, one column per category holding how many raters chose
        it (whole numbers >= 0); no rater ids, as in an MTurk summary or the
        table of Fleiss (1971).
    item : column name, optional
        The item ids: a column, or the index's name. Default: a column named like
        an item (``item``, ``question``, ``text_id``, ... as everywhere), else the
        index.
    categories : list of column names, optional
        The count columns, in the order of the categories (kept in the result's
        categorical). Default: every numeric column but the item's; other columns
        are left out with a :class:`~xrr_accessor.errors.DroppedDataWarning`.
    name : column name, default "value"
        The name of the column of categories (a lone column named ``value`` is
        read as the one unnamed label, so ``irr`` returns a number).
    ordered : bool, default False
        Make the categorical ordered (ordinal categories, lowest first).

    Returns
    -------
    pandas.DataFrame
        One row per rating: the item column (its name kept when the reader finds
        it by name, else ``item``), :data:`SLOT` (1, 2, ... within each
        item: anonymous raters, never the same rater across items) and ``name``
        (a categorical with the categories in order). ``attrs`` holds
        ``n_items``, ``n_items_empty`` (no rating: no rows) and
        ``n_items_single`` (one rating: no pair to compare); both are reported
        in a DroppedDataWarning when not 0.

    Raises
    ------
    InputError
        A count that is missing, negative or not a whole number (naming the
        column, an item and the fix); categories that are not columns.

    Notes
    -----
    The rater role of the result is the slot column read as anonymous raters:
    one rater per rating. The coefficients defined on a count table (percent
    agreement, Fleiss' kappa, Gwet's AC1/AC2, Brennan-Prediger, alpha) are
    unchanged by rater ids; those that need raters who rate several items
    (Cohen, Conger, Light, pairwise agreement, a rater's agreement, the two-way
    ICC) have no such rater here, as a count table has none.

    Examples
    --------
    >>> import pandas as pd
    >>> import xrr_accessor as xa
    >>> t = pd.DataFrame({"question": ["q1", "q2", "q3"], "yes": [3, 0, 2],
    ...                   "no": [0, 3, 1]})
    >>> long = xa.from_counts(t, categories=["yes", "no"])
    >>> long.head(4)
      question  slot value
    0       q1     1   yes
    1       q1     2   yes
    2       q1     3   yes
    3       q2     1    no
    >>> round(xa.irr(long, metric="fleiss", level="nominal"), 4)  # statsmodels: 0.55
    0.55
    """
    if not isinstance(table, pd.DataFrame):
        raise InputError(f"from_counts reads a pandas DataFrame of counts, not "
                         f"{type(table).__name__}; e.g. pd.DataFrame(counts, "
                         "columns=categories).")
    from ..schema.roles import ROLE_ALIASES, named_like, norm

    ids, item_name = _item_ids(table, item)
    cats = _count_columns(table, item_name if item_name in table.columns else None,
                          categories)
    if item_name in cats:
        raise InputError(f"column {item_name!r} is the item and cannot be a category too.")
    if not named_like(item_name, "item"):  # a name the reader finds: bare calls read it
        item_name = "item"
    if name in (SLOT, item_name) or any(norm(name) in ROLE_ALIASES[r] for r in (
            "item", "rater", "replication", "label")):
        raise InputError(f"name={name!r} is the name of a role's column; the categories "
                         "need another, e.g. name='value' (the default) or 'diagnosis'.")
    counts = _counts(table, cats, ids)
    totals = counts.sum(axis=1)
    n_items, k = counts.shape
    rows = np.repeat(np.arange(n_items), totals)
    codes = np.repeat(np.tile(np.arange(k), n_items), counts.reshape(-1))
    starts = np.cumsum(totals) - totals
    slot = np.arange(len(rows), dtype=np.int64) - np.repeat(starts, totals) + 1
    out = pd.DataFrame({
        item_name: ids.iloc[rows].reset_index(drop=True),
        SLOT: slot,
        name: pd.Categorical.from_codes(codes, categories=_as_numbers(cats),
                                        ordered=ordered),
    })
    empty, single = int((totals == 0).sum()), int((totals == 1).sum())
    out.attrs.update(n_items=n_items, n_items_empty=empty, n_items_single=single)
    if empty or single:
        parts = [f"{n} item(s) with {what} ({how}; e.g. "
                 f"{show(ids.iloc[int(np.flatnonzero(m)[0])])})"
                 for n, m, what, how in (
                     (empty, totals == 0, "no rating", "not in the frame"),
                     (single, totals == 1, "one rating", "no pair to compare: left out "
                                                         "of agreement"))
                 if n]
        warn(f"from_counts: {' and '.join(parts)}, of {n_items} items; counted in "
             "attrs['n_items_empty'] and attrs['n_items_single'].", DroppedDataWarning)
    return out
