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

from collections.abc import Hashable
from dataclasses import dataclass
from itertools import repeat
from operator import is_
from typing import Any

import numpy as np
import pandas as pd

from ..errors import DroppedDataWarning, InputError, RoleError, warn
from .roles import ROLE_ALIASES, check_given, find_role, norm
from .tables import show

__all__ = ["LAYOUTS", "LabelSets"]

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
    >>> from xrr_accessor import read_sets
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


#: Cells of these types hold labels in order (primary first) / as a plain set.
_ORDERED_TYPES = (list, tuple, np.ndarray, pd.Series)
_UNORDERED_TYPES = (set, frozenset)
_CHECK_FLOAT, _CHECK_SINGLETON = -1, -2  # decided per cell: NaN or not; NA / NaT or not


def _type_kind(kind: type) -> int:
    """What a cell of type ``kind`` is, or how to decide it cell by cell."""
    if issubclass(kind, _ORDERED_TYPES):
        return ORDERED
    if issubclass(kind, _UNORDERED_TYPES):
        return UNORDERED
    if kind is type(None):
        return MISSING
    if issubclass(kind, float):
        return _CHECK_FLOAT
    if kind is type(pd.NA) or kind is type(pd.NaT):
        return _CHECK_SINGLETON
    return SCALAR


def cell_kinds(values: pd.Series) -> np.ndarray:
    """Per row: ordered set, unordered set, scalar label or missing.

    Ordered: a list, tuple, array or Series; unordered: a set or frozenset;
    missing: None, NaN, ``pd.NA`` or ``pd.NaT``; anything else a scalar label.

    Examples
    --------
    >>> cells = pd.Series([["a"], {"a"}, ("a",), None, float("nan"), 1.5, "a", pd.NA])
    >>> cell_kinds(cells).tolist()
    [0, 1, 0, 3, 3, 2, 2, 3]
    """
    if not pd.api.types.is_object_dtype(values.dtype):
        # a typed column holds scalars (or missing values) only
        return np.where(values.isna().to_numpy(), MISSING, SCALAR).astype(np.int64)
    return typed_kinds(values.to_numpy())[0]


def typed_kinds(objs: np.ndarray) -> tuple[np.ndarray, np.ndarray, list[type]]:
    """:func:`cell_kinds` of an object array, with each cell's type as a code into
    the distinct types: (kinds (n,), type code (n,), types).

    Decided per distinct type of cell (one ``type`` per cell in a C loop, then
    those not of the first cell's type factorized), and cell by cell only for
    floats (NaN or not) and ``pd.NA`` / ``pd.NaT``'s types.

    Examples
    --------
    >>> kinds, which, types = typed_kinds(np.array([["a"], None, ["b"]], dtype=object))
    >>> kinds.tolist(), which.tolist(), types
    ([0, 3, 0], [0, 1, 0], [<class 'list'>, <class 'NoneType'>])
    """
    types = np.fromiter(map(type, objs), dtype=object, count=len(objs))
    if not len(types):
        return np.zeros(0, np.int64), np.zeros(0, np.int64), []
    head = np.empty((), dtype=object)
    head[()] = types[0]  # compared as an object (numpy would read a class of arrays)
    same = types == head  # a column of one type of cell: no hashing of types
    which = np.zeros(len(types), dtype=np.int64)
    distinct = [types[0]]
    if not same.all():
        rest = np.flatnonzero(~same)
        codes, others = pd.factorize(types[rest])
        which[rest] = codes + 1
        distinct += list(others)
    kinds = np.array([_type_kind(t) for t in distinct], dtype=np.int64)[which]
    floats = np.flatnonzero(kinds == _CHECK_FLOAT)
    if len(floats):
        nan = np.isnan(objs[floats].astype(np.float64))
        kinds[floats] = np.where(nan, MISSING, SCALAR)
    singles = np.flatnonzero(kinds == _CHECK_SINGLETON)
    if len(singles):
        cells = objs[singles]
        na = np.fromiter(map(is_, cells, repeat(pd.NA)), dtype=bool, count=len(cells)) | \
            np.fromiter(map(is_, cells, repeat(pd.NaT)), dtype=bool, count=len(cells))
        kinds[singles] = np.where(na, MISSING, SCALAR)
    return kinds, which, distinct


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
