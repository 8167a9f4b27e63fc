"""Encoding read tables together into :class:`~.tables.Annotations` (integer codes)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..errors import DroppedDataWarning, InputError, LevelError, StrayValueWarning, warn
from ..kernels.encode import small_integer_codes, whole_float_codes
from ..kernels.label_codes import number_positions
from .blocks import block_codes
from .setcells import is_label_sets, label_set_codes, scalar_level_error
from .tables import Annotations, Ids, Table, label_rows, show
from .text import NAMES_FIX, first_lone_surrogate, text_error
from .values import check_value_text, check_values


def _clean_values(values: pd.Series, where: str) -> pd.Series:
    """Apply the value policy: one kind of value per column, blank strings missing.

    Returns ``values`` itself or a new Series (never modifies it).
    """
    dtype = values.dtype
    is_object = pd.api.types.is_object_dtype(dtype)
    if is_object:
        kind = pd.api.types.infer_dtype(values, skipna=True)
        if kind in ("mixed", "mixed-integer"):
            sample = values.dropna().iloc[:100_000]
            kinds = sorted({type(v).__name__ for v in sample})
            unhashable = [k for k in kinds if k in ("list", "dict", "set", "ndarray")]
            if unhashable:
                raise LevelError(
                    f"{where} holds {unhashable[0]} values; an annotation is one value, or a "
                    "list or set of labels (level='jaccard' or 'masi'). Turn the cells into "
                    "one of those first."
                )
            raise LevelError(
                f"{where} mixes value types ({', '.join(kinds)}), so equal-looking values "
                "(1 and '1', True and 1) would be different or merged categories. Make the "
                "column one type, e.g. pd.to_numeric(df[col]) or df[col].astype(str)."
            )
    if is_object or pd.api.types.is_string_dtype(dtype):
        if pd.api.types.infer_dtype(values, skipna=True) == "string":
            _warn_stray(values, where)
        if pd.api.types.infer_dtype(values, skipna=True) in ("string", "empty"):
            blank = values.str.strip().eq("").fillna(False).to_numpy(dtype=bool)
            if blank.any():
                warn(
                    f"{where}: {int(blank.sum())} empty or blank string(s) read as missing "
                    "annotations.",
                    DroppedDataWarning,
                )
                return values.mask(blank)
    return values


#: Share of annotations at or below which text among numbers is called stray.
STRAY_SHARE = 0.05


def _warn_stray(values: pd.Series, where: str) -> None:
    """Warn when a column of numbers written as text holds a few values that are not
    numbers ("No" among "0" and "1"): each would be a category of its own."""
    distinct = pd.Series(pd.unique(values.dropna()))
    blank = distinct.str.strip().eq("")
    numeric = pd.to_numeric(distinct, errors="coerce").notna()
    odd = distinct[~numeric & ~blank]
    if odd.empty or numeric.sum() < 2:
        return
    n_odd = int(values.isin(odd).sum())
    if n_odd <= STRAY_SHARE * int(values.notna().sum()):
        shown = ", ".join(f"{v!r} x{n}" for v, n in values[values.isin(odd)]
                          .value_counts().head(3).items())
        warn(f"{where} holds numbers written as text and {n_odd} other value(s) ({shown}); "
             "each is read as a category of its own. Recode them (e.g. df[col].replace("
             f"{{{odd.iloc[0]!r}: '<number>'}})) or make them missing "
             "(pd.to_numeric(df[col], errors='coerce')).",
             StrayValueWarning)


def _numeric_strings_hint(cats: pd.Index) -> str:
    if pd.api.types.is_object_dtype(cats.dtype) or pd.api.types.is_string_dtype(cats.dtype):
        if len(cats) and pd.to_numeric(pd.Series(cats), errors="coerce").notna().all():
            return " The values look like numbers written as text: pd.to_numeric(df[col])."
    return ""


def label_categories(
    values: pd.Series, where: str, order: Sequence[Any] | None, out: np.ndarray | None = None,
    numbers: bool = False, small: bool = True,
) -> tuple[np.ndarray, pd.Index]:
    """Codes (-1 = missing) and ordered categories of one label's values.

    ``out`` (int64, one per value) may receive the codes (the result is then
    ``out`` itself), saving a copy. ``numbers``: a column of numbers that are not
    few whole ones is not factorized: its categories are its numbers in row order,
    repeats kept (:data:`NUMBERS`), for a call that reads them only as numbers.
    ``small=False``: the caller found already that they are not few whole numbers.

    Examples
    --------
    >>> codes, cats = label_categories(pd.Series([2.5, 0.5, 2.5]), "x", None)
    >>> codes.tolist(), cats.tolist()
    ([1, 0, 1], [0.5, 2.5])
    >>> codes, cats = label_categories(pd.Series([2.5, 0.5, 2.5]), "x", None, numbers=True)
    >>> codes.tolist(), cats.tolist(), cats.name == NUMBERS
    ([0, 1, 2], [2.5, 0.5, 2.5], True)
    """
    values = _clean_values(values, where)
    if order is not None:
        cats = pd.Index(list(order))
        if cats.has_duplicates:
            raise InputError(f"categories= for {where} lists a category twice: {list(order)}")
        codes = np.asarray(cats.get_indexer(values), dtype=np.int64)
        unknown = (codes < 0) & values.notna().to_numpy()
        if unknown.any():
            bad = ", ".join(show(v) for v in pd.unique(values[unknown])[:3])
            raise InputError(
                f"{where} holds [{bad}] not among categories={list(order)}; add them "
                "to categories= or clean the column."
            )
        return codes, cats
    dtype = values.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        codes = np.asarray(values.cat.codes, dtype=np.int64)
        return codes, pd.Index(dtype.categories)
    found = _small_integers(values, out) if small else None
    if found is not None:
        return found
    dtype = values.dtype
    if numbers and isinstance(dtype, np.dtype) and (
            dtype.kind in ("f", "i") or (dtype.kind == "u" and dtype.itemsize < 8)):
        codes = np.empty(len(values), dtype=np.int64) if out is None else out
        kept = number_positions(values.to_numpy(dtype=np.float64), codes)
        return codes, pd.Index(kept, name=NUMBERS)
    try:
        codes, cats = pd.factorize(values, sort=True)
    except TypeError as exc:
        kinds = sorted({type(v).__name__ for v in values.dropna()})
        raise LevelError(
            f"{where} mixes value types ({', '.join(kinds)}) that cannot be ordered. "
            "Make the column one type (e.g. .astype(str) or pd.to_numeric)."
        ) from exc
    return np.asarray(codes, dtype=np.int64), pd.Index(cats)


#: The name of a label's categories that are its numbers in row order (``numbers=True``).
NUMBERS = "numbers in row order"


def _small_integers(values: pd.Series, out: np.ndarray | None = None
                    ) -> tuple[np.ndarray, pd.Index] | None:
    """Fast codes for numpy integer, boolean or whole-number float ratings.

    A lookup table over [min, max] replaces hashing: the common case of
    Likert scales and 0/1 labels (as floats when missing values made them
    float). None when it does not apply.
    """
    arr = values.to_numpy() if isinstance(values.dtype, np.dtype) else None
    if arr is None or arr.size == 0 or arr.dtype.kind not in "iubf":
        return None
    if arr.dtype.kind == "u" and arr.dtype.itemsize == 8:  # may not fit in int64
        return None
    span = max(1024, 4 * arr.size)
    codes = np.empty(arr.size, dtype=np.int64) if out is None else out
    if arr.dtype.kind == "f":
        ok, fcats = whole_float_codes(arr.astype(np.float64, copy=False), span, codes)
        if not ok:
            return None
        return codes, pd.Index(fcats.astype(arr.dtype))
    ok, cats = small_integer_codes(arr.astype(np.int64, copy=False), span, codes)
    if not ok:
        return None
    if values.dtype.kind == "b":
        return codes, pd.Index(cats.astype(bool))
    return codes, pd.Index(cats.astype(values.dtype))


def is_ordered(values: pd.Series, cats: pd.Index, explicit: bool) -> bool:
    if explicit:
        return True
    if isinstance(values.dtype, pd.CategoricalDtype) and values.dtype.ordered:
        return True
    if pd.api.types.is_bool_dtype(cats.dtype) or pd.api.types.is_numeric_dtype(cats.dtype):
        return True
    return all(isinstance(c, (bool, int, float, np.number)) for c in cats)


def same_label(tables: list[Table]) -> None:
    """Two tables of one label each hold the same label, even named differently (a wide
    table's label is called ``value``): the second takes the first's name (in place)."""
    if len(tables) != 2 or not len(tables[0].labels) == len(tables[1].labels) == 1:
        return
    (mine,), (theirs,) = tables[0].labels, tables[1].labels
    if mine != theirs:
        t = tables[1]
        t.labels = {mine: t.labels[theirs]}
        t.source = {mine: t.source.get(theirs, repr(theirs))}


def encode(tables: Sequence[Table], ordinal: bool = False,
           numbers: bool = False, said: dict[str, Any] | None = None) -> Annotations:
    """Encode one or more tables together into :class:`Annotations`.

    Items, raters and replications are factorized jointly, so the same item id
    in two tables is the same item. Categories of a label are the union over
    tables. With ``ordinal=True`` every label must have an order (numbers,
    an ordered Categorical, or ``categories=``). With ``numbers=True`` (a call
    reading the ratings only as numbers: the ICC) the continuous ratings of a single
    label are not factorized (see :func:`label_categories`; with several labels each
    would have as many categories as rows, and the values table of every label would be
    labels x rows). The label columns of numbers
    with few whole values (Likert scales, 0/1) of one table are coded together,
    one block per kind of number (:func:`.blocks.block_codes`). ``said``: the
    result's :attr:`~.tables.Annotations.said`.
    """
    first = tables[0]
    names = list(first.labels)
    for t in tables[1:]:
        if list(t.labels) != names and set(t.labels) != set(names):
            raise InputError(
                f"the two inputs have different labels: {sorted(map(str, names))} vs "
                f"{sorted(map(str, t.labels))}. Select the common labels first "
                "(or rename them to match)."
            )
    offsets = [0]
    for t in tables:
        offsets.append(offsets[-1] + len(t.item))
    item_codes, items = _joint([t.item for t in tables])
    rater_codes, raters = _joint([t.rater for t in tables])
    has_rep = any(t.replication is not None for t in tables)
    if len(tables) > 1:
        rep_codes, reps = _joint_replications(tables)
    elif first.replication is not None:
        rep_codes, reps = _sorted(first.replication)
    else:
        rep_codes = np.zeros(len(first.item), dtype=np.int64)
        reps = _ONE_REPLICATION.view()  # a view: a caller may rename its result's index
    n_rows = offsets[-1]
    every_row = len(tables) == 1 and all(
        isinstance(rows, slice) for rows, _ in first.labels.values())
    # every label in every row: each row of codes is written whole (no -1 fill first)
    shape = (len(names), n_rows)
    codes = np.empty(shape, dtype=np.int64) if every_row else np.full(shape, -1, np.int64)
    cats_all: list[pd.Index] = []
    source = dict(first.source)
    by_label = isinstance(first.categories, Mapping)
    orders = [first.categories.get(name) if by_label else first.categories for name in names]
    # ASCII names hold no lone surrogate: the check only for the others
    ascii_names = all(type(name) is str and name.isascii() for name in names)
    bad_name = None if ascii_names else first_lone_surrogate(names)
    if bad_name is not None:
        raise text_error("a label's column name", "", bad_name[1], NAMES_FIX)
    # ranges in Python floats: one near 1e308 overflows to inf without a warning
    blocked = block_codes([(j, first.labels[name][1]) for j, name in enumerate(names)
                           if orders[j] is None], codes) if every_row else {}
    for j, name in enumerate(names):
        found = blocked.get(j)
        if found is not None:
            cats_all.append(found)
            continue
        if len(tables) == 1:
            rows, vals = first.labels[name]
        else:
            rows = np.concatenate([label_rows(t.labels[name][0], len(t.item)) + off
                                   for t, off in zip(tables, offsets, strict=False)])
            vals = pd.concat([t.labels[name][1] for t in tables], ignore_index=True)
        order = orders[j]
        where = source.get(name, repr(name))
        dest = codes[j] if every_row else None  # written in place when it can be
        namer = _namer(rows, item_codes, items, rater_codes, raters)
        try:
            sets = label_set_codes(vals, where, order, namer)
            c, cats = sets if sets is not None else label_categories(
                vals, where, order, out=dest, numbers=numbers and len(names) == 1,
                small=j not in blocked)
        except UnicodeEncodeError:  # pandas 3 cannot hold a lone surrogate: name it
            check_value_text(pd.Index(vals.to_numpy(dtype=object), dtype=object), vals,
                             where, namer)
            raise
        check_value_text(cats, vals, where, namer)
        check_values(cats, c, where, namer)
        if ordinal and is_label_sets(cats):
            raise scalar_level_error(where, cats, "the ordinal level (or linear / quadratic "
                                     "weights)")
        if ordinal and not is_ordered(vals, cats, order is not None):
            raise LevelError(
                f"{where} holds unordered categories ({', '.join(map(repr, cats[:4]))}"
                f"{', ...' if len(cats) > 4 else ''}); the ordinal level and linear or "
                "quadratic weights need their order. "
                "Pass categories=[lowest, ..., highest] to .xrr(...), or make the column "
                "an ordered pd.Categorical." + _numeric_strings_hint(cats)
            )
        if c is not dest:
            codes[j, rows] = c
        cats_all.append(cats)
    return Annotations(
        item=item_codes,
        rater=rater_codes,
        replication=rep_codes,
        codes=codes,
        items=items,
        raters=raters,
        replications=reps if reps.name == "replication" and isinstance(reps, pd.RangeIndex)
        else pd.Index(reps, name="replication"),
        labels=_label_index(names),
        categories=tuple(cats_all),
        has_label=first.has_label,
        has_replication=has_rep or len(tables) > 1,
        source=source,
        notes={k: sum(t.notes.get(k, 0) for t in tables)
               for k in {k for t in tables for k in t.notes}},
        role_names={role: ids.column for role, ids in (
            ("item", first.item), ("rater", first.rater), ("replication", first.replication))
            if ids is not None and ids.column is not None and isinstance(ids.column, str)
            and len(tables) == 1},
        inputs=tuple(
            (1 if t.replication is None else len(t.replication.uniques),
             t.replication is not None)
            for t in tables
        ),
        said=said or {},
    )


#: The replications of an input without any: one, numbered 0.
_ONE_REPLICATION = pd.RangeIndex(1, name="replication")


@functools.lru_cache(maxsize=64)
def _cached_labels(names: tuple[Hashable, ...], types: tuple[type, ...]) -> pd.Index:
    return pd.Index(list(names), name="label")  # types: 1 and True are equal keys


def _label_index(names: list[Hashable]) -> pd.Index:
    """``pd.Index(names, name="label")``: built once per set of names (an index of text
    is an Arrow array in pandas 3, tens of microseconds a call), a new object each call
    (a view: a caller may rename its result's index)."""
    try:
        return _cached_labels(tuple(names), tuple(map(type, names))).view()
    except TypeError:  # pragma: no cover - labels are dict keys, so hashable
        return pd.Index(names, name="label")


def _namer(rows: np.ndarray | slice, item_codes: np.ndarray, items: pd.Index,
           rater_codes: np.ndarray, raters: pd.Index) -> Callable[[int], str]:
    """Names the annotation of a label's ``i``-th value in messages."""
    def name(i: int) -> str:
        r = int(label_rows(rows, len(item_codes))[i])
        return f"(item={show(items[item_codes[r]])}, rater={show(raters[rater_codes[r]])})"
    return name


def _joint(ids: list[Ids]) -> tuple[np.ndarray, pd.Index]:
    """Codes over the union of several inputs' ids (the same id is the same code)."""
    if len(ids) == 1:
        return ids[0].codes, ids[0].uniques
    codes, uniques = pd.factorize(pd.concat([pd.Series(i.uniques) for i in ids],
                                            ignore_index=True))
    starts = np.cumsum([0] + [len(i.uniques) for i in ids])
    joint = [np.asarray(codes, dtype=np.int64)[start + i.codes]
             for start, i in zip(starts, ids, strict=False)]
    return np.concatenate(joint), pd.Index(uniques)


def _sorted(ids: Ids) -> tuple[np.ndarray, pd.Index]:
    """Codes renumbered so that the uniques are sorted (when they can be)."""
    try:
        order = np.argsort(np.asarray(ids.uniques), kind="stable")
    except TypeError:
        return ids.codes, ids.uniques
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    return rank[ids.codes], ids.uniques[order]


def _joint_replications(tables: Sequence[Table]) -> tuple[np.ndarray, pd.Index]:
    """Replication codes when comparing separate inputs (``self`` vs ``other``)."""
    defaults = ("self", "other")
    names: list[Hashable] = []
    out: list[np.ndarray] = []
    per = [[defaults[k] if k < 2 else f"input{k}"] if t.replication is None
           else list(t.replication.uniques) for k, t in enumerate(tables)]
    seen = [n for names_k in per for n in names_k]
    clash = {n for n in seen if seen.count(n) > 1}
    for k, (t, names_k) in enumerate(zip(tables, per, strict=True)):
        tag = defaults[k] if k < 2 else f"input{k}"
        codes = (np.zeros(len(t.item), dtype=np.int64) if t.replication is None
                 else t.replication.codes)
        out.append(codes + len(names))
        names.extend(f"{n} ({tag})" if n in clash else n for n in names_k)
    return np.concatenate(out), pd.Index(names, name="replication")
