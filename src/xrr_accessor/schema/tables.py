"""The canonical form: factorized ids, read tables and encoded :class:`Annotations`."""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

try:  # pandas' manager of one column (array_series)
    from pandas.core.internals import SingleBlockManager as _SingleBlockManager
except ImportError:  # pragma: no cover - every supported pandas has it
    _SingleBlockManager = None

from ..errors import InputError, LevelError
from ..kernels.encode import first_seen_codes, pair_codes
from .ids import one_kind_per_id
from .text import factorize_text


@dataclass(frozen=True)
class Ids:
    """Factorized ids of one role: ``uniques[codes[row]]`` is the id of ``row``."""

    codes: np.ndarray
    uniques: pd.Index
    #: The user's name of the column or dimension the ids came from (None: none).
    column: Hashable | None = None

    @classmethod
    def factorize(cls, values: Any, where: str, column: Hashable | None = None) -> Ids:
        """Factorize once; missing or unhashable ids are an error naming ``where``."""
        fast = integer_ids(values, column)
        if fast is not None:
            return fast
        try:
            codes, uniques = factorize_text(values, where, column)
        except TypeError as exc:
            raise InputError(
                f"{where} holds values that cannot be ids ({exc}); ids must be hashable "
                "scalars such as strings or integers."
            ) from exc
        n_missing = int((codes < 0).sum())
        if n_missing:
            raise InputError(
                f"{where} has {n_missing} missing id(s); every annotation needs one. "
                "Drop or fill those rows first"
                + (f" (e.g. df.dropna(subset=[{column!r}]))." if column is not None else ".")
            )
        uniques = pd.Index(uniques)
        one_kind_per_id(values, codes, uniques, where, column)
        distinct_text(uniques, where, column, codes)
        return cls(np.asarray(codes, dtype=np.int64), uniques, column)

    @classmethod
    def tiled(cls, values: Any, n: int, where: str) -> Ids:
        """Ids of a wide frame's columns, repeated for each of its ``n`` rows."""
        names = np.asarray(values, dtype=object)
        codes, uniques = factorize_text(names, where)
        one_kind_per_id(names, codes, pd.Index(uniques, dtype=object), where)
        distinct_text(pd.Index(uniques, dtype=object), where, fix=COLUMNS_FIX)
        return cls(np.tile(np.asarray(codes, dtype=np.int64), n), pd.Index(uniques))

    def __len__(self) -> int:
        return len(self.codes)

    def take(self, rows: np.ndarray) -> Ids:
        return Ids(self.codes[rows], self.uniques, self.column)

    def show(self, row: int) -> str:
        return show(self.uniques[self.codes[row]])


def integer_ids(values: Any, column: Hashable | None = None) -> Ids | None:
    """Integer ids over a narrow range: codes in order of first appearance from one
    numba pass with a lookup table (what ``pd.factorize`` gives, without hashing);
    None for other values (hashed by :meth:`Ids.factorize`). ``column`` names them.

    Examples
    --------
    >>> ids = integer_ids(np.array([7, 3, 7]))
    >>> ids.codes.tolist(), ids.uniques.tolist()
    ([0, 1, 0], [7, 3])
    """
    found = _int64_ids(values)
    if found is None:
        return None
    ints, dtype = found
    codes = np.empty(len(ints), dtype=np.int64)
    ok, uniques = first_seen_codes(ints, max(1024, 4 * len(ints)), codes)
    if not ok:
        return None
    return Ids(codes, array_index(uniques.astype(dtype)), column)


def _int64_ids(values: Any) -> tuple[np.ndarray, np.dtype] | None:
    """Integer ids as int64 (no copy when they are) with their own dtype; None for other
    values (uint64 too: it does not fit int64)."""
    dtype = getattr(values, "dtype", None)
    if not isinstance(dtype, np.dtype) or dtype.kind not in "iu" or (
            dtype.kind == "u" and dtype.itemsize == 8):
        return None
    raw = values.to_numpy() if isinstance(values, pd.Series) else np.asarray(values)
    return raw.astype(np.int64, copy=False), dtype


def integer_pair_ids(items: Any, raters: Any, columns: tuple[Hashable, Hashable]
                     ) -> tuple[Ids, Ids, int] | None:
    """:func:`integer_ids` of the item and rater columns in one pass
    (:func:`~..kernels.encode.pair_codes`), with whether an (item, rater) pair occurs
    twice (1, 0, or -1 not known); None where either column is not narrow integers.

    Examples
    --------
    >>> item, rater, repeat = integer_pair_ids(np.array([7, 3, 7]), np.array([1, 1, 1]),
    ...                                        ("item", "rater"))
    >>> item.codes.tolist(), rater.uniques.tolist(), repeat
    ([0, 1, 0], [1], 1)
    """
    item, rater = _int64_ids(items), _int64_ids(raters)
    if item is None or rater is None:
        return None
    codes = np.empty((2, len(item[0])), dtype=np.int64)
    ok, item_u, rater_u, repeat = pair_codes(item[0], rater[0], max(1024, 4 * len(item[0])),
                                             codes[0], codes[1])
    if not ok:
        return None
    return (Ids(codes[0], array_index(item_u.astype(item[1])), columns[0]),
            Ids(codes[1], array_index(rater_u.astype(rater[1])), columns[1]), repeat)


def array_index(values: np.ndarray, name: Hashable = None) -> pd.Index:
    """``pd.Index(values, name=name)`` of a fresh 1-d numpy array (numbers, booleans)
    that nothing else holds: wrapped as it is, without pandas' checks and copy (a
    twentieth of the time; the same Index).

    Examples
    --------
    >>> array_index(np.array([3, 5])).equals(pd.Index([3, 5]))
    True
    >>> array_index(np.array([3, 5]), name="item").name
    'item'
    """
    simple = getattr(pd.Index, "_simple_new", None)  # pandas' own constructor of a view
    if simple is None or values.ndim != 1 or values.dtype.kind not in "biuf":
        return pd.Index(values, name=name)  # pragma: no cover - every supported pandas has it
    return simple(values, name=name)


def numpy_values(obj: pd.Index | pd.Series) -> np.ndarray:
    """``obj.to_numpy()`` of an Index or Series of numpy numbers or booleans as pandas 3
    gives it (a read-only view of the values: the kernels' compiled type), without its
    dispatch (microseconds in a call).

    Examples
    --------
    >>> v = numpy_values(pd.Index([3, 5]))
    >>> v.tolist(), v.flags.writeable
    ([3, 5], False)
    """
    values = obj._values
    if type(values) is not np.ndarray or values.dtype.kind not in "biuf":
        values = obj.to_numpy()  # dates, extension arrays: pandas' own conversion
        if not values.flags.writeable:
            return values
    out = values.view()
    out.flags.writeable = False
    return out


def range_index(n: int) -> pd.RangeIndex:
    """``pd.RangeIndex(n)``, built by pandas' own constructor of a range (a quarter of
    the time: the public one checks its arguments first).

    Examples
    --------
    >>> range_index(3).equals(pd.RangeIndex(3))
    True
    """
    simple = getattr(pd.RangeIndex, "_simple_new", None)
    if simple is None:  # pragma: no cover - every supported pandas has it
        return pd.RangeIndex(n)
    return simple(range(n))


def array_series(values: np.ndarray) -> pd.Series:
    """``pd.Series(values, copy=False)`` of a 1-d numpy array, on a RangeIndex and
    without a copy (the reader only reads it): built on pandas' own single-block
    manager (half the time: the constructor checks and converts its input first), the
    same Series.

    Examples
    --------
    >>> array_series(np.array([2.0, 3.5])).equals(pd.Series([2.0, 3.5]))
    True
    """
    try:  # pandas' internals (2.2 and 3.x), as the constructor ends up building
        mgr = _SingleBlockManager.from_array(values, range_index(len(values)))
        out = pd.Series._from_mgr(mgr, mgr.axes)
        out._name = None
    except (ImportError, AttributeError, TypeError):  # pragma: no cover - other pandas
        return pd.Series(values, copy=False)
    return out


#: The fix for column names of different types that read the same.
COLUMNS_FIX = "rename the columns to text, e.g. df.columns = df.columns.astype(str)"


def distinct_text(uniques: pd.Index, where: str, column: Hashable | None = None,
                  codes: np.ndarray | None = None, fix: str | None = None) -> None:
    """An :class:`InputError` naming ``where`` when two ids print the same (``1`` and ``"1"``).

    Every output shows ids as text (tables, HTML, CSV, JSON keys), where two
    such ids would look like one: a report would show one column and lose a
    replication's values. Refused rather than merged: they may be different
    things, which only the caller knows. Only ids of mixed types can collide.
    With ``codes`` (the factorized rows), the message names a row of each.

    Examples
    --------
    >>> distinct_text(pd.Index([1, "1"], dtype=object), "column 'pool'", "pool")
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    xrr_accessor.errors.InputError: column 'pool' holds ids of different types that read ...
    """
    if uniques.dtype != object or len(uniques) < 2:
        return
    text = pd.Index([str(v) for v in uniques])
    if not text.has_duplicates:
        return
    dup = text[text.duplicated()][0]
    a, b = [v for v, t in zip(uniques, text, strict=True) if t == dup][:2]
    rows = ""
    if codes is not None:
        ia, ib = uniques.get_loc(a), uniques.get_loc(b)
        rows = (f" (rows {int(np.flatnonzero(codes == ia)[0])} and "
                f"{int(np.flatnonzero(codes == ib)[0])})")
    if fix is None:
        fix = (f"df[{column!r}] = df[{column!r}].astype(str)" if column is not None
               else "convert them with .astype(str)")
    raise InputError(
        f"{where} holds ids of different types that read the same ({a!r} and {b!r}){rows}, which "
        f"every table, page and file would show as one. Make them one type, e.g. {fix} "
        "(or map them to distinct names).")


#: ``rows`` of a label that has a value in every row, in row order (no index array).
ALL_ROWS = slice(None)


def label_rows(rows: np.ndarray | slice, n_rows: int) -> np.ndarray:
    """The row numbers of a label as an array (``ALL_ROWS`` expanded)."""
    return np.arange(n_rows, dtype=np.int64) if isinstance(rows, slice) else rows


@dataclass
class Table:
    """One input read into raw ids and raw values, not yet encoded.

    ``labels`` maps each label to ``(rows, values)``: the row numbers (into
    ``item``/``rater``/``replication``) that carry a value for that label, or
    :data:`ALL_ROWS` when every row does, in order, and the values themselves.
    ``source`` names, per label, where it came from, for error messages.
    """

    item: Ids
    rater: Ids
    replication: Ids | None
    labels: dict[Hashable, tuple[np.ndarray | slice, pd.Series]]
    source: dict[Hashable, str]
    has_label: bool
    categories: Any = None
    #: Counts reported with every result (e.g. ``n_duplicates`` merged by the policy).
    notes: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class Annotations:
    """The canonical form: one row per (item, rater, replication) annotation.

    Attributes
    ----------
    item, rater, replication : ndarray of int64, shape (N,)
        Codes into ``items``, ``raters``, ``replications``.
    codes : ndarray of int64, shape (L, N)
        Category code of each annotation for each label; ``-1`` = missing.
    items, raters, replications, labels : pandas.Index
        What the codes stand for.
    categories : tuple of pandas.Index
        Per label, its categories in order (code ``k`` is ``categories[l][k]``).
    has_label, has_replication : bool
        Whether the input had those dimensions (for shaping results).
    """

    item: np.ndarray
    rater: np.ndarray
    replication: np.ndarray
    codes: np.ndarray
    items: pd.Index
    raters: pd.Index
    replications: pd.Index
    labels: pd.Index
    categories: tuple[pd.Index, ...]
    has_label: bool
    has_replication: bool
    source: dict[Hashable, str] = field(default_factory=dict)
    #: Replications contributed by each input (one entry per input read), and
    #: whether that input had a replication column or dimension.
    inputs: tuple[tuple[int, bool], ...] = ()
    #: Counts reported with every result (``n_duplicates``: annotations merged).
    notes: dict[str, int] = field(default_factory=dict)
    #: Per-replication counts carried by a skeleton of dask-backed annotations
    #: (whose codes stay in the partitions); None in memory (see :mod:`.tally`).
    tally: Any = None
    #: The user's names of the role columns, by role (``{"rater": "annotator"}``), for
    #: results indexed by item, rater or replication (see :func:`role_name`).
    role_names: dict[str, Hashable] = field(default_factory=dict)
    #: What every result of the call says in its attrs about how it was read: the
    #: ``level`` used and whether it was inferred (``level_inferred``), set by
    #: :func:`xrr_accessor.engine.pipeline.annotations`.
    said: dict[str, Any] = field(default_factory=dict)
    #: :meth:`values`, found once (a fresh one with each copy made by ``replace``).
    _numbers: dict[str, np.ndarray] = field(default_factory=dict, init=False, repr=False,
                                            compare=False)

    def role_name(self, role: str) -> Hashable:
        """The user's name for ``role`` ("item", "rater", "replication"), or ``role``."""
        return self.role_names.get(role, role)

    def where(self, label: int, replication: int | None = None) -> str:
        """Names a label (and replication) in messages: "column 'joy' in replication 'X'"."""
        out = self.source.get(self.labels[label], repr(self.labels[label]))
        if replication is not None and self.has_replication:
            out += f" in replication {self.replications[replication]!r}"
        return out

    @property
    def n_category(self) -> int:
        """Largest number of categories of any label (at least 1)."""
        return max([1, *(len(c) for c in self.categories)])

    def values(self, level_name: str) -> np.ndarray:
        """Numeric value of each category, shape (L, K), NaN-padded.

        Raises :class:`LevelError` naming the column if a label's categories are
        not numbers (interval and ratio levels need numbers). Found once; each call
        returns a copy of its own.
        """
        found = self._numbers.get("values")
        if found is None:
            found = np.full((len(self.categories), self.n_category), np.nan)
            for j, cats in enumerate(self.categories):
                dtype = cats.dtype  # numpy numbers: read directly, the label named on error
                plain = isinstance(dtype, np.dtype) and dtype.kind in "biuf"
                vals = cats.to_numpy(dtype=float) if plain else None
                if vals is None or not np.isfinite(vals).all():
                    label = self.labels[j]
                    vals = numeric_categories(cats, self.source.get(label, repr(label)),
                                              level_name)
                found[j, : len(cats)] = vals
            self._numbers["values"] = found
        return found.copy()


def numeric_categories(cats: pd.Index, where: str, level_name: str) -> np.ndarray:
    """The categories as float64, or a :class:`LevelError` naming ``where``."""
    if cats.dtype == bool or pd.api.types.is_bool_dtype(cats.dtype):
        return cats.to_numpy(dtype=float)
    if pd.api.types.is_numeric_dtype(cats.dtype):
        vals = cats.to_numpy(dtype=float)
    else:
        try:
            vals = np.array([float(c) if isinstance(c, (int, float, np.number, bool))
                             else np.nan for c in cats], dtype=float)
        except (TypeError, ValueError):  # pragma: no cover - defensive
            vals = np.full(len(cats), np.nan)
        if np.isnan(vals).any():
            bad = [c for c, v in zip(cats, vals, strict=True) if np.isnan(v)][:3]
            raise LevelError(
                f"{where} holds non-numeric values ({', '.join(map(repr, bad))}); "
                f"level={level_name!r} needs numbers. Convert the column with "
                f"pd.to_numeric, or use level='nominal' (or 'ordinal' with categories=)."
            )
    if not np.isfinite(vals).all():
        raise LevelError(
            f"{where} holds infinite values; level={level_name!r} needs finite numbers. "
            "Replace them (e.g. with NaN for missing) first."
        )
    return vals



def show(value: Any) -> str:
    """repr of a value as a user typed it (no ``np.int64(...)`` wrappers)."""
    return repr(value.item() if isinstance(value, np.generic) else value)
