"""What the diagnostics share: reading, grouping by (item, replication), D, labeled tables.

Every diagnostic reads its input through :func:`xrr_accessor.engine.pipeline.annotations`
(the roles, layouts and checks of :func:`~xrr_accessor.irr`), groups the
annotations by (item, replication) with one counting sort, runs its kernels
label by label and returns a table: a DataFrame from pandas input, a Dataset
(the same table, its index levels as dimensions) from xarray input.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr
from pandas.api.extensions import ExtensionDtype

from ..engine.levels import Level, distance_matrix, resolve_level, standardized
from ..engine.pipeline import annotations as canonical
from ..engine.pipeline import kind_of
from ..engine.staged import Staged
from ..errors import InputError, UndefinedWarning, warn
from ..kernels.accumulate import item_order
from ..schema import Annotations
from ..schema.roles import need_rater_ids

try:  # pandas >= 3: a DataFrame over given blocks
    from pandas.api.internals import create_dataframe_from_blocks as _from_blocks
except ImportError:  # pragma: no cover - pandas < 3
    _from_blocks = None
try:  # its two steps, the manager's check of blocks built right here left out
    from pandas._libs.internals import BlockPlacement as _Placement
    from pandas.core.arrays.masked import BaseMaskedArray as _Masked
    from pandas.core.internals.api import _make_block
    from pandas.core.internals.blocks import ExtensionBlock as _ExtensionBlock
    from pandas.core.internals.blocks import NumpyBlock as _NumpyBlock
    from pandas.core.internals.managers import BlockManager as _Manager
except ImportError:  # pragma: no cover - a pandas without them: the public function
    _make_block = _Manager = None

__all__ = [
    "Read",
    "blocks",
    "dist_for",
    "finish",
    "frame_of",
    "group_codes",
    "read",
    "unbind",
    "warn_undefined_rows",
]

#: Largest per-rater table (cells) a leave-one-out or pair pass builds for one label.
MAX_CELLS = 20_000_000


class Read:
    """One call's encoded annotations, level and the caller's kind of object."""

    def __init__(self, ann: Annotations, level: Level, kind: str) -> None:
        self.ann = ann
        self.level = level
        self.kind = kind
        self._groups: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        self._grouped: tuple[np.ndarray, np.ndarray] | None = None
        self._values: dict[int, np.ndarray | None] = {}

    def groups(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(offsets, order, group of each annotation) for groups (item, replication),
        group ``item * n_rep + replication``; computed once per call."""
        if self._groups is None:
            self._groups = group_codes(self.ann.item, self.ann.replication,
                                       len(self.ann.items), len(self.ann.replications))
        return self._groups

    def grouped(self) -> tuple[np.ndarray, np.ndarray]:
        """(offsets, order) of the (item, replication) groups as :meth:`groups`, but
        ``order`` empty when the rows already come in group order (the kernels then
        read them in place): no arrays of the size of the data when one replication's
        rows come grouped by item."""
        if self._grouped is None:
            ann = self.ann
            n_rep = len(ann.replications)
            self._grouped = (item_order(ann.item, len(ann.items)) if n_rep == 1
                             else self.groups()[:2])
        return self._grouped

    def values(self, label: int) -> np.ndarray | None:
        """The numbers label ``label``'s categories stand for (found once a call, the
        same array each time: callers read it, numba's kernels too, which would compile
        another signature for a read-only one), or None when they are not numbers."""
        if label in self._values:
            return self._values[label]
        cats = self.ann.categories[label]
        vals = None
        dtype = cats.dtype
        if isinstance(dtype, np.dtype) and dtype.kind in "biuf":  # finite (encode checks)
            vals = np.asarray(cats._values).astype(float)  # a copy, without to_numpy's
            # dispatch
        elif pd.api.types.is_numeric_dtype(dtype) or pd.api.types.is_bool_dtype(dtype):
            vals = cats.to_numpy(dtype=float, copy=True)
            vals = vals if np.isfinite(vals).all() else None
        self._values[label] = vals
        return vals

    def codes(self, label: int) -> np.ndarray:
        return np.ascontiguousarray(self.ann.codes[label], dtype=np.int64)

    def n_cat(self, label: int) -> int:
        return max(len(self.ann.categories[label]), 1)


def read(data: Any, level: Any, roles: dict[str, Any], what: str) -> Read:
    """Read ``data`` as :func:`~xrr_accessor.irr` does, at ``level``."""
    data, roles = unbind(data, roles)
    ann, lvl = canonical(data, level=None if level is None else resolve_level(level),
                         **roles)
    if len(ann.item) == 0 and not isinstance(data, Staged):
        raise InputError(f"{what}: the data hold no annotations.")
    if what in FOLLOW_RATERS:  # a count table's slots are no raters to follow
        need_rater_ids(ann.role_names.get("rater"), what)
    return Read(ann, lvl, kind_of(data))


#: The diagnostics that follow each rater across items.
FOLLOW_RATERS = ("pairwise", "rater_agreement")


def unbind(data: Any, roles: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    """``df.xrr(rater="w")`` passed as data: the object and its roles merged with
    ``roles`` (the call's own win)."""
    bound = data._xrr_bound if hasattr(type(data), "_xrr_bound") else None
    if bound is None:
        return data, roles
    return bound[0], {**bound[1], **roles}


def group_codes(item: np.ndarray, rep: np.ndarray, n_item: int,
                n_rep: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Counting sort of annotations by ``item * n_rep + rep``: (offsets, order, key)."""
    key = np.ascontiguousarray(item * n_rep + rep, dtype=np.int64)
    offsets, order = item_order(key, n_item * n_rep)
    if order.size == 0:  # already grouped
        order = np.arange(len(key), dtype=np.int64)
    return offsets, order, key


def dist_for(read_: Read, label: int, marginals: np.ndarray | None) -> np.ndarray:
    """D(c, d) over label ``label``'s categories at the call's level (K x K)."""
    ann = read_.ann
    values = read_.values(label) if read_.level.numeric else None
    return np.ascontiguousarray(distance_matrix(
        read_.level, ann.categories[label], values, marginals, ann.where(label)),
        dtype=np.float64)


def centered(values: np.ndarray) -> np.ndarray:
    """``values`` minus the midpoint of their range, divided by a power of two near
    their half range (:func:`~xrr_accessor.engine.pipeline.standardized`): ratios of
    sums of squares do not change, and the squares neither overflow nor underflow."""
    if values.size == 0:
        return values
    return np.ascontiguousarray(standardized(values.reshape(1, -1)).reshape(values.shape))


def finish(frame: pd.DataFrame, read_: Read, attrs: dict[str, Any],
           renames: dict[str, str] | None = None) -> Any:
    """Drop the index levels the input did not have, name them, attach ``attrs``;
    a Dataset for xarray input."""
    ann = read_.ann
    drop = [n for n, had in (("label", ann.has_label), ("replication", ann.has_replication))
            if not had and n in (frame.index.names or [])]
    if drop and frame.index.nlevels > len(drop):
        frame = frame.droplevel(drop)
    names = list(frame.index.names)
    user = {role: ann.role_name(role) for role in ("item", "rater")}
    taken: set[Any] | None = None  # the names in use, looked up only when needed
    for k, n in enumerate(names):  # the user's names of the role columns, kept
        new = (renames or {}).get(n, n)
        if new in user and user[new] != new:
            if taken is None:
                taken = set(frame.index.names) | set(frame.columns)
            if user[new] not in taken:
                new = user[new]
        names[k] = new
    if names != list(frame.index.names):  # rename_axis costs a new frame
        frame = frame.rename_axis(index=names)
    attrs = {**ann.said, **attrs, **ann.notes}
    if read_.kind == "xarray":
        ds = frame.to_xarray() if len(frame) else xr.Dataset.from_dataframe(frame)
        ds.attrs.update(attrs)
        return ds
    frame.attrs.update(attrs)
    return frame


#: Bytes of a huge page (Linux on x86-64 and arm64).
HUGE_PAGE = 2 << 20


def blocks(rows: int, n: int) -> np.ndarray:
    """Uninitialized int64 rows (``rows``, ``n``) (view rows as float64 with
    ``.view``), starting on a huge-page boundary when they span half of one or more.

    Fresh memory is faulted in page by page, and the kernels' outputs are fresh
    at every call: numpy asks the kernel for huge pages for arrays of 4 MiB and
    more, which cover only the 2 MiB-aligned part of an allocation; aligned and
    rounded up (to 4 MiB at least), every page of the rows is a huge one (one
    fault per 2 MiB instead of 512). Where the system gives no huge pages this
    costs at most 4 MiB more address space; where it does, rows of 1 MiB hold a
    2 MiB page.

    Examples
    --------
    >>> b = blocks(3, 200_000)
    >>> b.shape, b.dtype, b.ctypes.data % HUGE_PAGE
    ((3, 200000), dtype('int64'), 0)
    """
    nbytes = rows * n * 8
    if nbytes < HUGE_PAGE // 2:
        return np.empty((rows, n), dtype=np.int64)
    raw = np.empty(-(-nbytes // HUGE_PAGE) * HUGE_PAGE + HUGE_PAGE, dtype=np.uint8)
    start = -raw.ctypes.data % HUGE_PAGE
    return raw[start:start + nbytes].view(np.int64).reshape(rows, n)


def frame_of(blocks: Sequence[tuple[Any, Sequence[str]]], columns: Sequence[str],
             index: pd.Index) -> pd.DataFrame:
    """A DataFrame with ``columns`` from ``blocks``: (2-D ndarray, the names of its
    rows) or (1-D array, [its name]), taken as they are (pandas' blocks, no copy:
    the constructor would copy every column into new memory).

    Examples
    --------
    >>> block = np.array([[1.0, 2.0], [3.0, 4.0]])
    >>> frame_of([(block, ["a", "c"]), (np.array([5, 6]), ["b"])], ["a", "b", "c"],
    ...          pd.Index(["x", "y"]))
         a  b    c
    x  1.0  5  3.0
    y  2.0  6  4.0
    """
    places = _places(tuple(columns), tuple(tuple(names) for _, names in blocks))
    parts = []
    for (values, _), place in zip(blocks, places, strict=True):
        if isinstance(values, pd.Index):
            values = values.array if isinstance(values.dtype, ExtensionDtype) \
                else values.to_numpy()
        if isinstance(values, np.ndarray) and values.ndim == 1:
            values = values.reshape(1, -1)
        parts.append((values, place))
    if _from_blocks is None:  # pandas < 3
        cols = {}
        for values, place in parts:
            for k, p in enumerate(place):
                cols[columns[p]] = values[k] if isinstance(values, np.ndarray) else values
        return pd.DataFrame({c: cols[c] for c in columns}, index=index)
    names = _column_index(tuple(columns)).view()
    if _make_block is not None and _Manager is not None:
        try:  # create_dataframe_from_blocks without the manager's integrity check (the
            # shapes and places are right by construction): a third less in a call
            mgr = _Manager([_block(v, p) for v, p in parts], [names, index],
                           verify_integrity=False)
            return pd.DataFrame._from_mgr(mgr, mgr.axes)
        except TypeError:  # pragma: no cover - a manager that takes other arguments
            pass
    return _from_blocks(parts, index=index, columns=names)


def _block(values: Any, place: np.ndarray) -> Any:
    """pandas' block of ``values`` (2-D numpy, or a 1-D extension array) at columns
    ``place``, as ``create_dataframe_from_blocks`` makes it: numpy numbers and booleans
    and masked arrays (``Int64``) built straight away (its dispatch on the dtype and
    its coercion of dates cost as much as the block in a call), the rest by its own
    ``_make_block``."""
    if isinstance(values, np.ndarray) and values.dtype.kind in ("b", "i", "u", "f"):
        return _NumpyBlock(values, ndim=2, placement=_Placement(place))
    if isinstance(values, _Masked):
        return _ExtensionBlock(values, ndim=2, placement=_Placement(place))
    return _make_block(values, place)


@functools.lru_cache(maxsize=64)
def _places(columns: tuple[str, ...], names: tuple[tuple[str, ...], ...]
            ) -> tuple[np.ndarray, ...]:
    """Each block's column positions (read-only intp arrays, as pandas' blocks take
    them), found once per layout of a table."""
    at = {name: k for k, name in enumerate(columns)}
    out = []
    for block in names:
        place = np.array([at[n] for n in block], dtype=np.intp)
        place.flags.writeable = False
        out.append(place)
    return tuple(out)


@functools.lru_cache(maxsize=64)
def _column_index(columns: tuple[str, ...]) -> pd.Index:
    """The Index of ``columns``, built once (tens of microseconds with text names);
    :func:`frame_of` gives each frame a view of it, whose name is its own."""
    return pd.Index(list(columns))


def multi_index(parts: Sequence[tuple[str, pd.Index, np.ndarray]]) -> pd.MultiIndex:
    """A MultiIndex from (name, level values, codes) without hashing the values."""
    return pd.MultiIndex(levels=[p[1] for p in parts], codes=[p[2] for p in parts],
                         names=[p[0] for p in parts], verify_integrity=False)


def ranks(group: np.ndarray, score: np.ndarray) -> pd.arrays.IntegerArray:
    """Competition ranks (1, 2, 2, 4) within runs of equal ``group``, rows already sorted
    by (group, score); ties share the better rank, so the ranks do not depend on the
    order of the input's rows. <NA> where ``score`` is NaN."""
    n = len(group)
    pos = np.arange(n)
    new_group = np.r_[True, group[1:] != group[:-1]] if n else np.zeros(0, bool)
    new_score = new_group | np.r_[True, score[1:] != score[:-1]] if n else new_group
    group_start = np.maximum.accumulate(np.where(new_group, pos, 0)) if n else pos
    run_start = np.maximum.accumulate(np.where(new_score, pos, 0)) if n else pos
    return pd.arrays.IntegerArray((run_start - group_start + 1).astype(np.int64),
                                  np.isnan(score))


def warn_undefined_rows(what: str, n_bad: int, n_all: int, why: str,
                        where: dict[str, int]) -> None:
    """One :class:`UndefinedWarning`: ``n_bad`` of ``n_all`` rows are NaN, and why."""
    if n_bad == 0:
        return
    shown = "; ".join(f"{k}: {v}" for k, v in list(where.items())[:3])
    more = f" (and {len(where) - 3} more)" if len(where) > 3 else ""
    warn(f"{what} is undefined (NaN) for {n_bad} of {n_all} row(s): {why}"
         + (f" ({shown}{more})" if shown else "") + ".", UndefinedWarning)


def where_counts(read_: Read, label: np.ndarray, rep: np.ndarray | None) -> dict[str, int]:
    """Counts of rows per (label, replication) as the messages name them."""
    ann = read_.ann
    keys = label.astype(np.int64) * len(ann.replications) + (0 if rep is None else rep)
    uniq, counts = np.unique(keys, return_counts=True)
    out = {}
    for k, n in zip(uniq, counts, strict=True):
        lab, r = divmod(int(k), len(ann.replications))
        parts = [f"label {ann.labels[lab]!r}"] if ann.has_label else []
        if rep is not None and ann.has_replication:
            parts.append(f"replication {ann.replications[r]!r}")
        out[", ".join(parts) or "the data"] = int(n)
    return out


def check_cells(cells: int, what: str, fix: str) -> None:
    """Refuse a per-rater or per-pair table too large for memory, naming the fix."""
    if cells > MAX_CELLS:
        raise InputError(f"{what} would need a table of {cells:,} cells (over "
                         f"{MAX_CELLS:,}); {fix}")
