"""Reading a DataFrame, Dataset or DataArray into a :class:`~.tables.Table` (ids, raw values)."""

from __future__ import annotations

import weakref
from collections.abc import Callable, Hashable, Sequence
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from ..errors import DataTypeError, DroppedDataWarning, InputError, RoleError, warn
from ..kernels.threads import concurrently
from .duplicates import dedupe, first_positions, key_codes
from .labels import infer_labels, unused_message
from .read_xarray import is_annotation_layout, read_xarray
from .roles import ROLE_ALIASES, Roles, check_given, find_role, norm, resolve_roles
from .roles import anonymous_raters as _anonymous
from .roles import is_slot as _is_slot
from .tables import ALL_ROWS, COLUMNS_FIX, Ids, Table, distinct_text, integer_ids, integer_pair_ids

__all__ = ["column_array", "column_names", "column_series", "inference_candidates",
           "is_annotation_layout", "read"]


def read(data: Any, roles: Roles | None = None) -> Table:
    """Read a DataFrame, Dataset or DataArray into a :class:`Table`."""
    roles = roles or Roles()
    if isinstance(data, pd.DataFrame):
        return _read_wide(data, roles) if roles.wide else _read_long(data, roles)
    if isinstance(data, xr.Dataset | xr.DataArray):
        return read_xarray(data, roles, _read_long)
    if type(data).__module__.startswith("dask"):
        raise DataTypeError(
            f"this function does not take dask-backed data ({type(data).__module__}."
            f"{type(data).__name__}): irr, cross_kappa, normalized, summary, report, "
            "agreement_table, rater_agreement, item_disagreement and validity do, lazily. "
            "Bring the data into memory first (ddf.compute()), or a sample of its items.")
    raise DataTypeError(f"cannot read annotations from {type(data).__name__}; pass a pandas "
                    "DataFrame or an xarray Dataset/DataArray" + ("; for a polars frame, call "
                    "its method instead: df.xrr.irr(), df.xrr.cross_kappa(), ..." if type(
                        data).__module__.startswith("polars") else "."))


def inference_candidates(df: Any, roles: Roles
                         ) -> tuple[list[Hashable], Hashable, Hashable] | None:
    """The columns :func:`~.labels.infer_labels` would choose the labels from (and the
    item and rater columns), or None when the labels are not inferred (named with
    labels= or value=, a value column, a wide frame, not a frame, or a frame the
    reader refuses: it says why)."""
    if not isinstance(df, pd.DataFrame) or roles.wide or roles.labels is not None \
            or roles.value is not None or df.columns.has_duplicates \
            or isinstance(df.columns, pd.MultiIndex):
        return None
    cols = list(df.columns)
    try:
        found = resolve_roles(cols, roles, "column")
        if find_role(cols, "value") is not None:
            return None
    except (InputError, RoleError):
        return None
    used = {found["item"], found["rater"], found["replication"]}
    candidates = [c for c in cols if c not in used]
    return (candidates, found["item"], found["rater"]) if candidates else None


#: Rows from which item and rater ids are factorized in two threads, where they are not
#: narrow integers of fewer than :data:`PAIR_MAX_ROWS` rows (text ids at 5e4 rows: 1.9
#: ms against 2.3 on one thread; pandas' hashing and the integer kernel release the GIL).
FACTORIZE_PARALLEL_ROWS = 50_000


#: Rows up to which narrow integer item and rater ids are coded in one pass over both
#: columns; from here each column in a thread of its own is faster (1e6 rows: the whole
#: item_disagreement 17.4 ms against 19.2; 3e5: 3.6 against 3.2).
PAIR_MAX_ROWS = 500_000


def _factorize_both(df: pd.DataFrame, item: Hashable, rater: Hashable
                    ) -> tuple[Ids, Ids, int]:
    """The item and rater ids factorized, and whether an (item, rater) pair occurs
    twice (1, 0, or -1 not known). Narrow integer ids of fewer than
    :data:`PAIR_MAX_ROWS` rows in one pass over both columns
    (:func:`.tables.integer_pair_ids`, which also answers the question); others one
    after the other, side by side in threads on a large frame. An error names the item
    column first, as one after the other would."""
    both = (integer_pair_ids(column_array(df, item), column_array(df, rater), (item, rater))
            if len(df) < PAIR_MAX_ROWS else None)
    if both is not None:
        return both
    if len(df) < FACTORIZE_PARALLEL_ROWS:  # one after the other: no thread to pay for
        return _column_ids(df, item), _column_ids(df, rater), -1

    def ids(col: Hashable) -> Callable[[], Ids]:
        return lambda: _column_ids(df, col)

    item_ids, rater_ids = concurrently([ids(item), ids(rater)])
    return item_ids, rater_ids, -1


def column_array(df: pd.DataFrame, col: Hashable) -> Any:
    """The stored values of column ``col`` (numpy or extension array), read only: no
    Series built (a tenth of ``df[col]``'s time; a frame's column is not modified)."""
    get = getattr(df, "_get_column_array", None)  # pandas' own reader of a block
    if get is None:  # pragma: no cover - every supported pandas has it
        return df[col].array
    return get(df.columns.get_loc(col))


def column_series(df: pd.DataFrame, col: Hashable) -> pd.Series:
    """``df[col]`` of a column name that appears once, built from the frame's own block
    manager (half the time: pandas' ``__getitem__`` looks the name up again, which
    costs microseconds with text names in pandas 3). The Series is pandas' own view
    of the column: copy-on-write keeps the frame from any change made to it.

    Examples
    --------
    >>> df = pd.DataFrame({"item": [1, 2], "joy": [0.5, 1.0]})
    >>> column_series(df, "joy").equals(df["joy"])
    True
    """
    loc = df.columns.get_loc(col)
    if not isinstance(loc, int):  # a name that appears more than once: pandas' frame
        return df[col]
    try:  # pandas' internals (2.2 and 3.x): the column's manager, as df[col] builds it
        mgr = df._mgr.iget(loc)
        out = pd.Series._from_mgr(mgr, mgr.axes)
        out._name = col  # a column's name: hashable (the setter checks it again)
    except (AttributeError, TypeError):  # pragma: no cover - a pandas without them
        return df[col]
    if df.attrs or not df.flags.allows_duplicate_labels:  # carried over, as df[col] does
        out = out.__finalize__(df)
    return out


def _column_ids(df: pd.DataFrame, col: Hashable) -> Ids:
    """``Ids.factorize(df[col])``; integer ids read from the column's array directly."""
    fast = integer_ids(column_array(df, col), col)
    if fast is not None:
        return fast
    return Ids.factorize(column_series(df, col), f"column {col!r}", col)


#: Names of the indexes listed lately, by the id of their values: (a weak reference to
#: the values, the names); cleared when large.
_NAMES: dict[int, tuple[Any, tuple[Hashable, ...]]] = {}


def column_names(columns: pd.Index) -> list[Hashable]:
    """``list(columns)``, listed once per values of an Index (an Index and its views
    share them; they never change): text names are an Arrow array in pandas 3, whose
    iteration costs microseconds a name (a frame read again, a call's labels).

    Examples
    --------
    >>> column_names(pd.Index(["item", "rater", "joy"]))
    ['item', 'rater', 'joy']
    """
    values = getattr(columns, "_values", columns)
    got = _NAMES.get(id(values))
    if got is not None and got[0]() is values:
        return list(got[1])
    found = list(columns)
    try:
        ref = weakref.ref(values)
    except TypeError:  # pragma: no cover - pandas' arrays take weak references
        return found
    if len(_NAMES) >= 64:
        _NAMES.clear()
    _NAMES[id(values)] = (ref, tuple(found))
    return found


def _read_long(df: pd.DataFrame, roles: Roles) -> Table:
    cols = column_names(df.columns)
    if df.columns.has_duplicates:
        rep = df.columns[df.columns.duplicated()].unique().tolist()
        raise InputError(
            f"column name(s) {rep} appear more than once; give every column its own name "
            "(e.g. df.columns = [...]) before reading annotations."
        )
    if isinstance(df.columns, pd.MultiIndex):
        raise InputError(
            "the frame has MultiIndex columns; a long frame needs flat column names "
            "(flatten with df.columns = ['_'.join(map(str, c)) for c in df.columns]), "
            "and a wide frame is read with .xrr(wide=True)."
        )
    found = resolve_roles(cols, roles, "column")
    value: Any = roles.value
    if roles.labels is not None:
        if value is not None:
            raise RoleError("give labels=[...] or value=..., not both (labels= names the "
                            "label columns of a frame with one column per label).")
        value = (list(roles.labels) if pd.api.types.is_list_like(roles.labels)
                 else [roles.labels])  # one column's name: a str, or 0 for column 0
        if not value:
            raise RoleError("labels= is empty; name at least one label column.")
    value_cols: list[Hashable]
    if value is None:
        v = find_role(cols, "value")
        value_cols = [v] if v is not None else []
    elif isinstance(value, str) or not isinstance(value, Sequence):
        value_cols = [value]
    else:
        value_cols = list(value)
    for v in value_cols:
        check_given(cols, "value" if roles.labels is None else "a label (labels=)", v,
                     "column")
    used = {found["item"], found["rater"], found["replication"]}
    label_col = found["label"] if value_cols else None
    if label_col is not None and len(value_cols) != 1:
        raise RoleError(
            f"a label column ({label_col!r}) goes with exactly one value column; got "
            f"{value_cols}. Pass value='<column>'."
        )
    both: list[tuple[Ids, Ids, int]] = []  # the ids, factorized once: when the labels'
    # inference groups columns by item and rater, it groups them by these codes

    def id_codes() -> tuple[np.ndarray, int, np.ndarray, int]:
        if not both:
            both.append(_factorize_both(df, found["item"], found["rater"]))
        items, raters, _ = both[0]
        return items.codes, len(items.uniques), raters.codes, len(raters.uniques)

    if not value_cols:
        value_cols = [c for c in cols if c not in used]
        has_label = True
        if not value_cols:
            raise RoleError(
                f"no value columns: every column of {cols} plays a role. Add the "
                "annotations, or name them with .xrr(labels=[...])."
            )
        value_cols = infer_labels(df, value_cols, found["item"], found["rater"], id_codes)
    else:
        # a lone column named like a value ("value", "rating") is the one unnamed
        # label, unless labels= names it a label
        has_label = label_col is not None or roles.labels is not None or (
            value is not None and not (
                len(value_cols) == 1 and norm(value_cols[0]) in ROLE_ALIASES["value"]))
    found_by_name = value is None and bool(value_cols) and not has_label
    if found_by_name or label_col is not None:  # one value column: say what else is unused
        _warn_left_out(cols, used | {label_col, *value_cols}, value_cols[0],
                       "by its name" if value is None else "as given")
    if len(set(value_cols)) < len(value_cols):
        twice = next(c for c in value_cols if value_cols.count(c) > 1)
        raise RoleError(f"column {twice!r} is named more than once in "
                        f"{'labels=' if roles.labels is not None else 'value='}; name each "
                        "label column once.")
    if not all(type(c) is str for c in value_cols):  # names of one type cannot collide
        distinct_text(pd.Index(value_cols, dtype=object), "the label columns", fix=COLUMNS_FIX)
    dup_roles = [c for c in value_cols if c in used or c == label_col]
    if dup_roles:
        raise RoleError(f"column {dup_roles[0]!r} cannot be both a role and a value column.")
    item, rater, repeat = both[0] if both else _factorize_both(df, found["item"], found["rater"])
    if _is_slot(found["rater"]):
        rater, repeat = _anonymous(item, rater), -1
    rep = None
    if found["replication"] is not None:
        rep = Ids.factorize(column_series(df, found["replication"]),
                            f"column {found['replication']!r}",
                            found["replication"])
    lab = None
    if label_col is not None:
        lab = Ids.factorize(column_series(df, label_col), f"column {label_col!r}", label_col)
    key_names = [found["item"], found["rater"]]
    keys = [item, rater]
    for ids, name in ((rep, found["replication"]), (lab, label_col)):
        if ids is not None:
            keys.append(ids)
            key_names.append(name)

    def describe(i: int) -> str:
        parts = [f"item={item.show(i)}", f"rater={rater.show(i)}"]
        parts += [f"replication={rep.show(i)}"] if rep is not None else []
        parts += [f"label={lab.show(i)}"] if lab is not None else []
        return "(" + ", ".join(parts) + ")"

    plain = isinstance(df.index, pd.RangeIndex) and df.index.start == 0 and df.index.step == 1
    values = {c: column_series(df, c) if plain else df[c].reset_index(drop=True)
              for c in value_cols}
    keep, values = dedupe(key_codes(keys), roles.duplicates, describe,
                           "columns " + ", ".join(map(repr, key_names)), key_names, values,
                           repeats=None if repeat < 0 or len(keys) > 2 else bool(repeat))
    n_duplicates = 0 if keep is None else len(item) - len(keep)
    if keep is not None:
        item, rater = item.take(keep), rater.take(keep)
        rep = None if rep is None else rep.take(keep)
        lab = None if lab is None else lab.take(keep)
    table = Table(
        item=item, rater=rater, replication=rep, labels={}, source={}, has_label=has_label,
        categories=roles.categories,
        notes={"n_duplicates": n_duplicates} if n_duplicates else {},
    )
    if lab is None:
        for c in value_cols:
            table.labels[c] = (ALL_ROWS, values[c])
            table.source[c] = f"column {c!r}"
        return table
    # one label column + one value column: pivot to one row per (item, rater, replication)
    value_col = value_cols[0]
    label_order = np.arange(len(lab.uniques))  # first appearance, or the Categorical's order
    label_dtype = column_array(df, label_col).dtype
    if isinstance(label_dtype, pd.CategoricalDtype):
        cats = label_dtype.categories
        label_order = np.argsort(cats.get_indexer(lab.uniques), kind="stable")
    row_of, first = pd.factorize(
        key_codes([item, rater] + ([rep] if rep is not None else [])).codes)
    row_of = np.asarray(row_of, dtype=np.int64)
    first_pos = first_positions(row_of, len(first))
    table.item = item.take(first_pos)
    table.rater = rater.take(first_pos)
    table.replication = None if rep is None else rep.take(first_pos)
    by_label = np.argsort(lab.codes, kind="stable")
    bounds = np.searchsorted(lab.codes[by_label], np.arange(len(lab.uniques) + 1))
    # rows and values put in label order once, a label's a slice of them; its values keep
    # the index ``.iloc[its rows]`` gives (index[rows]: a range where evenly spaced)
    column, rows = values[value_col], row_of[by_label]
    by_rows = bool((by_label == np.arange(len(by_label))).all())  # rows already by label
    ordered = column if by_rows else column.iloc[by_label]
    data = ordered.to_numpy(copy=True) if isinstance(ordered.dtype, np.dtype) else ordered.array
    for j in label_order:
        lo, hi = bounds[j], bounds[j + 1]
        name = lab.uniques[j]
        got = column.iloc[lo:hi] if by_rows and hi > lo else pd.Series(
            data[lo:hi], index=column.index[by_label[lo:hi]], dtype=column.dtype,
            name=column.name, copy=False)
        if got.attrs != column.attrs:
            got = got.__finalize__(column)
        table.labels[name] = (rows[lo:hi], got)
        table.source[name] = f"column {value_col!r} (label {name!r})"
    return table


def _read_wide(df: pd.DataFrame, roles: Roles) -> Table:
    cols = df.columns
    if isinstance(cols, pd.MultiIndex):
        if cols.nlevels != 2:
            raise InputError(
                f"a wide frame's columns are raters, or (replication, rater) pairs; got "
                f"a MultiIndex with {cols.nlevels} levels."
            )
        reps = cols.get_level_values(0)
        raters = cols.get_level_values(1)
    else:
        reps, raters = None, cols
    n, b = df.shape
    name = roles.value if isinstance(roles.value, str) else "value"
    dtypes = df.dtypes.unique()
    if len(dtypes) == 1 and isinstance(dtypes[0], pd.CategoricalDtype):
        flat = pd.Series(pd.Categorical.from_codes(
            np.column_stack([df[c].cat.codes for c in df.columns]).reshape(-1),
            dtype=dtypes[0]), copy=False)
    else:
        flat = pd.Series(df.to_numpy().reshape(-1), copy=False)
    rows = Ids.factorize(df.index, "the index (items)")
    item = Ids(np.repeat(rows.codes, b), rows.uniques)
    rater = Ids.tiled(raters, n, "the columns (raters) of the wide frame")
    rep = None if reps is None else Ids.tiled(
        reps, n, "the first column level (replications) of the wide frame")
    keep, values = dedupe(
        key_codes([item, rater] + ([rep] if rep is not None else [])),
        roles.duplicates,
        lambda i: f"(item={item.show(i)}, rater={rater.show(i)})",
        "the index and columns of the wide frame", None, {name: flat},
    )
    n_duplicates = 0 if keep is None else n * b - len(keep)
    if keep is not None:
        item, rater, flat = item.take(keep), rater.take(keep), values[name]
        rep = None if rep is None else rep.take(keep)
    return Table(
        item=item, rater=rater, replication=rep,
        labels={name: (ALL_ROWS, flat)},
        source={name: "the wide frame's cells"}, has_label=False,
        categories=roles.categories,
        notes={"n_duplicates": n_duplicates} if n_duplicates else {},
    )


def _warn_left_out(cols: list[Hashable], used: set[Hashable], value: Hashable,
                   how: str) -> None:
    """A long frame read with one value column: say which other columns are unused."""
    left = [c for c in cols if c not in used]
    if left:
        warn(unused_message(value, left, how), DroppedDataWarning)
