"""Set-valued annotations: one or more labels per (item, rater), primary first.

Two layouts are read into one canonical form, :class:`LabelSets`:

* **sets**: one row per annotation, the labels in one cell as a list or tuple
  (ordered: the primary label first) or a set / frozenset (unordered);
* **long**: one row per (item, rater, label), with an optional rank column
  (1 = primary, 2 = secondary, ...; ranks may also start at 0). Without a
  rank column the labels of an annotation are unordered.

The canonical form holds integer codes for items, raters and categories and
the labels of every annotation as a CSR array (``offsets`` into ``members``),
in rank order for ordered annotations and in code order for unordered ones.
Any number of labels per annotation is kept, so coefficients that weight
labels by rank (Rosenberg & Binkowski's augmented kappa) and set distances
(Jaccard, MASI) read the same form. Nothing here modifies its input; bad
input raises :class:`~xrr_accessor.errors.InputError` naming the column and
the fix.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from ..errors import DroppedDataWarning, InputError, RoleError, warn
from .roles import ROLE_ALIASES, check_given, find_role, norm
from .tables import Ids, show

__all__ = ["LAYOUTS", "LabelSets", "read_sets", "set_roles"]

#: How a frame of set-valued annotations is laid out (``"auto"``: from the values).
LAYOUTS = ("auto", "sets", "long")

#: Column names recognised as the rank of a label in the long layout.
RANK_ALIASES = ("rank", "labelrank", "rankid")

#: Column names recognised as the labels of an annotation (besides the value role's).
LABEL_ALIASES = ("label", "labels", "category", "categories", "tag", "tags", "choice",
                 "choices", "labelset", "labelsets")

ORDERED, UNORDERED, SCALAR, MISSING = 0, 1, 2, 3


@dataclass(frozen=True)
class LabelSets:
    """Set-valued annotations in canonical form: codes, one CSR row per annotation.

    Attributes
    ----------
    item, rater : ndarray of int64, shape (A,)
        Codes into ``items`` and ``raters`` of each annotation (one per
        (item, rater) pair).
    offsets : ndarray of int64, shape (A + 1,)
        The labels of annotation ``a`` are ``members[offsets[a]:offsets[a + 1]]``.
    members : ndarray of int64, shape (M,)
        Category codes into ``categories``: primary first for an ordered
        annotation, in code order for an unordered one. Never empty per
        annotation, never repeated within one.
    ordered : ndarray of bool, shape (A,)
        Whether the annotation's labels are ranked (list / tuple cells, or a
        rank column) or a plain set.
    items, raters, categories : pandas.Index
        What the codes stand for.
    source : str
        Where the labels came from, for messages (``"column 'labels'"``).
    column : hashable, optional
        The column of labels it was read from.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"item": [1, 1, 2], "rater": ["A", "B", "A"],
    ...                    "labels": [["x", "y"], {"y", "x"}, ["y"]]})
    >>> sets = read_sets(df)
    >>> sets.to_frame()
       item rater  labels  ordered
    0     1     A  (x, y)     True
    1     1     B  (x, y)    False
    2     2     A    (y,)     True
    >>> codes, distinct = sets.distinct()  # each distinct set as one category
    >>> codes.tolist(), distinct
    ([0, 0, 1], [(0, 1), (1,)])
    """

    item: np.ndarray
    rater: np.ndarray
    offsets: np.ndarray
    members: np.ndarray
    ordered: np.ndarray
    items: pd.Index
    raters: pd.Index
    categories: pd.Index
    source: str = "the labels"
    column: Hashable | None = None

    @property
    def n_annotations(self) -> int:
        """A, the number of annotations."""
        return len(self.item)

    @property
    def sizes(self) -> np.ndarray:
        """Number of labels of each annotation, shape (A,)."""
        return np.diff(self.offsets)

    @property
    def annotation_of_member(self) -> np.ndarray:
        """The annotation each member belongs to, shape (M,)."""
        return np.repeat(np.arange(self.n_annotations, dtype=np.int64), self.sizes)

    @property
    def rank_of_member(self) -> np.ndarray:
        """0 for a primary label, 1 for a secondary, ..., shape (M,)."""
        return np.arange(len(self.members), dtype=np.int64) - np.repeat(
            self.offsets[:-1], self.sizes)

    def describe(self, a: int) -> str:
        """Names annotation ``a`` in messages: ``(item=1, rater='A')``."""
        return (f"(item={show(self.items[self.item[a]])}, "
                f"rater={show(self.raters[self.rater[a]])})")

    def tuples(self) -> list[tuple[int, ...]]:
        """The category codes of each annotation as a tuple (primary first)."""
        members = self.members.tolist()
        bounds = self.offsets.tolist()
        return [tuple(members[bounds[a]:bounds[a + 1]]) for a in range(self.n_annotations)]

    def to_frame(self) -> pd.DataFrame:
        """One row per annotation: item, rater, the labels (a tuple) and ``ordered``."""
        cats = self.categories
        return pd.DataFrame({
            "item": self.items[self.item],
            "rater": self.raters[self.rater],
            "labels": [tuple(cats[list(t)]) for t in self.tuples()],
            "ordered": self.ordered,
        })

    def padded(self, ordered: bool = True) -> np.ndarray:
        """The members as an (A, k_max) matrix, ``-1`` after an annotation's last label.

        With ``ordered=False`` each row is sorted by code, so equal sets give
        equal rows whatever their ranks.
        """
        sizes = self.sizes
        width = int(sizes.max()) if len(sizes) else 0
        out = np.full((self.n_annotations, width), -1, dtype=np.int64)
        out[self.annotation_of_member, self.rank_of_member] = self.members
        if not ordered and width > 1:
            big = np.iinfo(np.int64).max
            out = np.sort(np.where(out < 0, big, out), axis=1)
            out[out == big] = -1
        return out

    def distinct(self, ordered: bool = False) -> tuple[np.ndarray, list[tuple[int, ...]]]:
        """Each distinct label set as one code: (code per annotation (A,), the sets).

        With ``ordered=False`` (the default) ``[a, b]`` and ``[b, a]`` are the
        same set; with ``True`` they differ. The sets are tuples of category
        codes. This turns set-valued annotations into ordinary categories, so
        the existing kernels run on them and a set distance supplies D.
        """
        if self.n_annotations == 0:
            return np.empty(0, dtype=np.int64), []
        rows = self.padded(ordered)
        uniq, inverse = np.unique(rows, axis=0, return_inverse=True)
        sets = [tuple(int(c) for c in row if c >= 0) for row in uniq]
        return np.asarray(inverse, dtype=np.int64).reshape(-1), sets


def set_roles(roles: dict[str, Any], what: str) -> dict[str, Any]:
    """The roles a set-valued reader takes (item, rater, value), from accessor roles.

    ``labels=`` naming one column is read as ``value=``. Other roles are
    refused with a message naming ``what`` (the function) and the way round.
    """
    out = {k: roles.get(k) for k in ("item", "rater", "value")}
    labels = roles.get("labels")
    if labels is not None:
        if out["value"] is not None:
            raise RoleError("give value= or labels= for the column of labels, not both.")
        if not isinstance(labels, str) and isinstance(labels, Sequence):
            if len(labels) != 1:
                raise RoleError(
                    f"{what} reads one column of labels (a list per annotation, or one "
                    f"label per row); got labels={list(labels)!r}. Name one column with "
                    "value='<column>'.")
            labels = labels[0]
        out["value"] = labels
    left = sorted(k for k, v in roles.items() if k not in ("item", "rater", "value", "labels")
                  and v not in (None, False, "error"))
    if left:
        raise RoleError(
            f"{what} does not take {', '.join(f'{k}=' for k in left)}: it reads one "
            "question of set-valued annotations (item, rater, the labels). Select one "
            "replication or question first (e.g. df[df['pool'] == 'A']) and name the "
            "columns with item=, rater= and value=.")
    return out


def read_sets(
    data: Any, *, item: Hashable | None = None, rater: Hashable | None = None,
    value: Hashable | None = None, rank: Hashable | None = None, layout: str = "auto",
) -> LabelSets:
    """Read set-valued annotations into :class:`LabelSets`.

    Parameters
    ----------
    data : DataFrame
        Either one row per annotation with the labels in one cell (a list or
        tuple, primary first; a set or frozenset when unordered), or one row
        per (item, rater, label) with an optional rank column. Missing cells
        (None, NaN) are missing annotations and are skipped.
    item, rater : column name, optional
        Found by name when not given (``item``/``item_id``/..., ``rater``/
        ``annotator``/``worker``/...; see :data:`~.roles.ROLE_ALIASES`).
    value : column name, optional
        The column of labels. When not given: the only column left once item,
        rater and rank are taken, or else the one named like labels
        (``label``, ``labels``, ``category``, ``tags``, ``value``, ...).
    rank : column name, optional
        Long layout only: the rank of each label within its annotation, 1
        (primary), 2, ... without gaps or repeats (0, 1, ... is accepted too
        when the column starts at 0). Found by name (``rank``) when not given.
        Without one, the labels of an annotation are unordered.
    layout : {"auto", "sets", "long"}
        ``"sets"`` requires label sets in the cells (a column of scalars is an
        error), ``"long"`` one label per row; ``"auto"`` decides from the cells.

    Returns
    -------
    LabelSets

    Raises
    ------
    InputError
        Naming the column and the fix: empty label sets, a label repeated in
        one annotation, missing labels inside a set, a rank column with gaps,
        repeated or non-integer ranks, scalars where sets are required, a mix
        of sets and scalars, repeated annotations of one (item, rater).

    Examples
    --------
    Table 1 of Rosenberg & Binkowski (2004): annotator A's labels of five
    messages, primary first.

    >>> import pandas as pd
    >>> df = pd.DataFrame({"item": [1, 2, 3, 4, 5], "rater": "A",
    ...                    "labels": [["a", "b"], ["b", "a"], ["b"], ["c"], ["c", "b"]]})
    >>> sets = read_sets(df)
    >>> sets.tuples()
    [(0, 1), (1, 0), (1,), (2,), (2, 1)]
    >>> list(sets.categories)
    ['a', 'b', 'c']

    The same annotations in the long layout, one row per label with its rank:

    >>> long = df.explode("labels").rename(columns={"labels": "label"})
    >>> long["rank"] = long.groupby(["item", "rater"]).cumcount() + 1
    >>> read_sets(long).tuples() == sets.tuples()
    True
    """
    if not isinstance(data, pd.DataFrame):
        raise TypeError(
            f"set-valued annotations are read from a pandas DataFrame, not "
            f"{type(data).__name__}; e.g. pd.DataFrame({{'item': ..., 'rater': ..., "
            "'labels': [[...], ...]}}).")
    if layout not in LAYOUTS:
        raise InputError(f"layout={layout!r} is not a layout; use one of "
                         f"{', '.join(map(repr, LAYOUTS))}.")
    if data.columns.has_duplicates:
        rep = data.columns[data.columns.duplicated()].unique().tolist()
        raise InputError(f"column name(s) {rep} appear more than once; give every column "
                         "its own name before reading annotations.")
    cols = list(data.columns)
    item_col = role_column(cols, "item", item)
    rater_col = role_column(cols, "rater", rater)
    if item_col == rater_col:
        raise RoleError(f"column {item_col!r} cannot be both the item and the rater.")
    rank_col = rank
    if rank_col is not None:
        check_given(cols, "rank", rank_col, "column")
    else:
        found = [c for c in cols if norm(c) in RANK_ALIASES and c not in (item_col, rater_col)]
        rank_col = found[0] if len(found) == 1 else None
    value_col = value_column(cols, value, {item_col, rater_col, rank_col})
    if value_col in (item_col, rater_col, rank_col):
        raise RoleError(f"column {value_col!r} cannot be both a role and the labels.")
    if len(data) == 0:
        raise InputError("the frame has no rows: there are no annotations to read.")
    where = f"column {value_col!r}"
    values = data[value_col]
    kinds = cell_kinds(values)
    present = kinds != MISSING
    n_sets = int(np.count_nonzero((kinds == ORDERED) | (kinds == UNORDERED)))
    n_scalars = int(np.count_nonzero(kinds == SCALAR))
    if n_sets and n_scalars:
        first = int(np.flatnonzero(kinds == SCALAR)[0])
        raise InputError(
            f"{where} mixes label sets with {n_scalars} single label(s) (e.g. "
            f"{show(values.iloc[first])} in row {first}); make every cell a list, e.g. "
            f"df[{value_col!r}].map(lambda v: v if isinstance(v, (list, tuple, set)) "
            "or pd.isna(v) else [v]) (NaN cells stay missing annotations).")
    if layout == "auto":
        layout = "sets" if n_sets else "long"
    if layout == "sets" and n_scalars:
        raise InputError(
            f"{where} holds single labels (e.g. {show(values[present].iloc[0])}), not "
            "label sets, and layout='sets' requires a list, tuple or set per annotation. "
            "A frame with one label per row is read with layout='long' (add a rank "
            f"column for primary/secondary), or wrap each cell: df[{value_col!r}]"
            ".map(lambda v: [v]).")
    if layout == "long" and n_sets:
        raise InputError(
            f"{where} holds label sets (lists / sets), but layout='long' reads one label "
            f"per row; use layout='sets', or df.explode({value_col!r}) first.")
    if not present.any():
        raise InputError(f"{where} has no annotations (every cell is missing).")
    keep = np.flatnonzero(present)
    items = Ids.factorize(data[item_col].iloc[keep], f"column {item_col!r}", item_col)
    raters = Ids.factorize(data[rater_col].iloc[keep], f"column {rater_col!r}", rater_col)
    cells = values.iloc[keep]
    if layout == "sets":
        if rank_col is not None and rank is not None:
            raise InputError(
                f"rank={rank_col!r} numbers the labels of a long frame (one row per label); "
                f"the lists in {where} are ordered already (primary first). Drop rank=.")
        out = _read_set_cells(cells, kinds[keep], items, raters, where,
                              (item_col, rater_col))
    else:
        out = _read_long_rows(data, cells, keep, items, raters, where, rank_col,
                              (item_col, rater_col, value_col))
    return replace(out, column=value_col)


def role_column(cols: list[Hashable], role: str, given: Hashable | None) -> Hashable:
    if given is not None:
        check_given(cols, role, given, "column")
        return given
    found = find_role(cols, role)
    if found is None:
        names = ", ".join(ROLE_ALIASES[role])
        raise RoleError(
            f"no column for the {role} role: looked for {names} (case, '_' and spaces "
            f"ignored) among {cols}. Name it with {role}='<column>'.")
    return found


def value_column(cols: list[Hashable], value: Hashable | None,
                  used: set[Hashable | None]) -> Hashable:
    if value is not None:
        check_given(cols, "value", value, "column")
        return value
    rest = [c for c in cols if c not in used]
    if len(rest) == 1:
        return rest[0]
    if not rest:
        raise RoleError(f"no column of labels: every column of {cols} plays a role. Name "
                        "the labels with value='<column>'.")
    named = [c for c in rest if norm(c) in (*LABEL_ALIASES, *ROLE_ALIASES["value"])]
    if len(named) != 1:
        raise RoleError(
            f"several columns could hold the labels: {rest}. Name the one with the labels "
            f"with value={rest[0]!r} (or drop the others).")
    left = [c for c in rest if c != named[0]]
    warn(f"column {named[0]!r} is read as the labels (found by its name); column(s) "
         f"{', '.join(map(repr, left[:6]))}{' ...' if len(left) > 6 else ''} are not used. "
         "To silence this, name it with value= and drop the columns you do not need.",
         DroppedDataWarning)
    return named[0]


def _kind(v: Any) -> int:
    if isinstance(v, list | tuple | np.ndarray | pd.Series):
        return ORDERED
    if isinstance(v, set | frozenset):
        return UNORDERED
    if v is None or v is pd.NA or v is pd.NaT or (isinstance(v, float) and v != v):
        return MISSING
    return SCALAR


def cell_kinds(values: pd.Series) -> np.ndarray:
    """Per row: ordered set, unordered set, scalar label or missing."""
    if not pd.api.types.is_object_dtype(values.dtype):
        # a typed column holds scalars (or missing values) only
        return np.where(values.isna().to_numpy(), MISSING, SCALAR).astype(np.int64)
    return np.fromiter(map(_kind, values.to_numpy()), dtype=np.int64, count=len(values))


def set_categories(flat: Any, where: str) -> tuple[np.ndarray, pd.Index]:
    """Category codes of every label (sorted categories when they sort)."""
    try:
        try:
            codes, cats = pd.factorize(flat, sort=True)
        except TypeError:  # labels of several types: first appearance
            codes, cats = pd.factorize(flat, sort=False)
    except TypeError as exc:
        raise InputError(
            f"{where} holds labels that cannot be categories ({exc}); a label must be a "
            "hashable scalar such as a string or an integer.") from exc
    return np.asarray(codes, dtype=np.int64), pd.Index(cats)


def _read_set_cells(cells: pd.Series, kinds: np.ndarray, items: Ids, raters: Ids,
                    where: str, id_cols: tuple[Hashable, Hashable]) -> LabelSets:
    objs = cells.to_numpy()
    sizes = np.fromiter(map(len, objs), dtype=np.int64, count=len(objs))
    if (sizes == 0).any():
        a = int(np.flatnonzero(sizes == 0)[0])
        raise InputError(
            f"{where} has {int((sizes == 0).sum())} empty label set(s) (e.g. at "
            f"(item={items.show(a)}, rater={raters.show(a)})); an annotation needs at least "
            "one label. Use NaN (None) for 'no annotation', or give the label the "
            "annotator meant (e.g. a 'none' category).")
    flat = np.empty(int(sizes.sum()), dtype=object)
    flat[:] = [v for cell in objs for v in cell]
    missing = pd.isna(flat)
    if missing.any():
        m = int(np.flatnonzero(missing)[0])
        a = int(np.searchsorted(np.cumsum(sizes), m, side="right"))
        raise InputError(
            f"{where} has missing values inside a label set (e.g. at (item={items.show(a)}, "
            f"rater={raters.show(a)})); drop them from the set, or use NaN for the whole "
            "cell when there is no annotation.")
    codes, cats = set_categories(flat, where)
    _no_duplicate_annotations(items, raters, where, id_cols)
    offsets = np.zeros(len(sizes) + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    ordered = kinds == ORDERED
    return _finish(items, raters, offsets, codes, ordered, cats, where,
                   "give each label once per annotation (list(dict.fromkeys(labels)) keeps "
                   "the first of each)")


def _read_long_rows(data: pd.DataFrame, cells: pd.Series, keep: np.ndarray, items: Ids,
                    raters: Ids, where: str, rank_col: Hashable | None,
                    id_cols: tuple[Hashable, Hashable, Hashable]) -> LabelSets:
    codes, cats = set_categories(cells.to_numpy(), where)
    key = items.codes * max(len(raters.uniques), 1) + raters.codes
    ann, first = pd.factorize(key)
    ann = np.asarray(ann, dtype=np.int64)
    n_ann = len(first)
    first_row = np.zeros(n_ann, dtype=np.int64)
    first_row[ann[::-1]] = np.arange(len(ann) - 1, -1, -1)  # first row of each annotation
    if rank_col is None:
        order = np.lexsort((codes, ann))
        ordered = np.zeros(n_ann, dtype=bool)
    else:
        by = list(id_cols[:2])
        ranks, base = _ranks(data[rank_col].iloc[keep], rank_col, items, raters, by)
        order = np.lexsort((ranks, ann))
        ordered = np.ones(n_ann, dtype=bool)
        _check_ranks(ranks[order], ann[order], base, rank_col, items, raters, order, by)
    sizes = np.bincount(ann, minlength=n_ann).astype(np.int64)
    offsets = np.zeros(n_ann + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    fix = ("keep one row per (item, rater, label), e.g. "
           f"df.drop_duplicates(subset={list(id_cols)!r})")
    return _finish(items.take(first_row), raters.take(first_row), offsets, codes[order],
                   ordered, cats, where, fix)


def _ranks(values: pd.Series, column: Hashable, items: Ids, raters: Ids,
           by: list[Hashable]) -> tuple[np.ndarray, int]:
    """Ranks counted from 0, and the column's first rank (0 or 1)."""
    where = f"rank column {column!r}"
    fix = (f"number each annotation's labels 1, 2, ... (1 = primary), e.g. df[{column!r}] = "
           f"df.groupby({by!r}).cumcount() + 1")
    if not (pd.api.types.is_numeric_dtype(values.dtype)
            and not pd.api.types.is_bool_dtype(values.dtype)):
        raise InputError(f"{where} holds {values.dtype} values, not integer ranks; {fix}.")
    arr = values.to_numpy(dtype=float, na_value=np.nan)
    bad = ~np.isfinite(arr) | (arr != np.floor(arr))
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise InputError(
            f"{where} has {int(bad.sum())} missing or non-integer rank(s) (e.g. "
            f"{values.iloc[row]!r} at (item={items.show(row)}, rater={raters.show(row)})); "
            f"{fix}.")
    ranks = arr.astype(np.int64)
    base = int(ranks.min())
    if base not in (0, 1):
        raise InputError(f"{where} starts at {base}; ranks start at 1 (primary) or 0. {fix}.")
    return ranks - base, base


def _check_ranks(ranks: np.ndarray, ann: np.ndarray, base: int, column: Hashable,
                 items: Ids, raters: Ids, order: np.ndarray, by: list[Hashable]) -> None:
    """Within each annotation (rows sorted by annotation, then rank) ranks are 0..k-1."""
    start = np.ones(len(ann), dtype=bool)
    start[1:] = ann[1:] != ann[:-1]
    first = np.maximum.accumulate(np.where(start, np.arange(len(ann)), 0))
    position = np.arange(len(ann)) - first
    dup = np.zeros(len(ann), dtype=bool)
    dup[1:] = ~start[1:] & (ranks[1:] == ranks[:-1])
    gap = (ranks != position) & ~dup
    fix = (f"number each annotation's labels {base}, {base + 1}, ... without gaps or repeats "
           f"({base} = primary), e.g. df[{column!r}] = df.sort_values({column!r})"
           f".groupby({by!r}).cumcount() + {base}")
    for bad, what in ((dup, "a repeated rank"), (gap, "a gap in its ranks")):
        if bad.any():
            s = int(np.flatnonzero(bad)[0])
            row = int(order[s])
            shown = (ranks[ann == ann[s]] + base).tolist()
            raise InputError(
                f"rank column {column!r}: the annotation (item={items.show(row)}, "
                f"rater={raters.show(row)}) has {what} (ranks {shown}); {fix}.")


def _no_duplicate_annotations(items: Ids, raters: Ids, where: str,
                              id_cols: tuple[Hashable, Hashable]) -> None:
    key = pd.Index(items.codes * max(len(raters.uniques), 1) + raters.codes)
    dup = key.duplicated()
    if dup.any():
        a = int(np.flatnonzero(dup)[0])
        raise InputError(
            f"{int(dup.sum())} duplicate annotation(s) in {where}: (item={items.show(a)}, "
            f"rater={raters.show(a)}) has more than one row. One row holds all the labels "
            f"of an annotation; keep one, e.g. df.drop_duplicates(subset={list(id_cols)!r}).")


def _finish(items: Ids, raters: Ids, offsets: np.ndarray, members: np.ndarray,
            ordered: np.ndarray, cats: pd.Index, where: str, fix: str) -> LabelSets:
    """Sort unordered annotations by code; refuse a label repeated in one annotation."""
    n = len(offsets) - 1
    sizes = np.diff(offsets)
    ann = np.repeat(np.arange(n, dtype=np.int64), sizes)
    unordered = ~ordered[ann]
    members = members.copy()
    if unordered.any():
        # within unordered annotations, members sorted by code (stable across rows)
        idx = np.flatnonzero(unordered)
        members[idx] = members[idx][np.lexsort((members[idx], ann[idx]))]
    check = np.lexsort((members, ann))
    repeat = (ann[check][1:] == ann[check][:-1]) & (members[check][1:] == members[check][:-1])
    if repeat.any():
        a = int(ann[check][np.flatnonzero(repeat)[0]])
        raise InputError(
            f"{where}: the label {show(cats[members[check][np.flatnonzero(repeat)[0]]])} "
            f"appears twice in the annotation (item={items.show(a)}, "
            f"rater={raters.show(a)}); {fix}.")
    return LabelSets(item=items.codes, rater=raters.codes, offsets=offsets, members=members,
                     ordered=np.asarray(ordered, dtype=bool), items=items.uniques,
                     raters=raters.uniques, categories=cats, source=where)
