"""item_disagreement's records and count patterns (issue 35, part 6).

Where each (item, replication) group's record is a function of its count pattern
(:func:`~xrr_accessor.kernels.item_sums.group_bags_into`), the records are those of
the distinct patterns, each written once, and each group's number among them, not a
record per group: at 250,000 items, 2 MiB of numbers instead of 16 MiB of records
to write, fault in and read back. :func:`~xrr_accessor.kernels.placing.ranked_rows`
reads the records through the numbers. A table of one thread's work takes these steps
in one compiled call (:func:`pattern_rows`); the helpers both routes share (the form,
the scaled values, the item ids, the modes' values) are here too.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
from pandas.api.extensions import ExtensionDtype

from ..kernels.item_sums import (
    MATRIX,
    MOMENTS,
    MOST_PATTERNS,
    NOMINAL,
    bag_patterns,
    group_bags_into,
)
from ..kernels.item_table import DONE, pattern_table
from ..kernels.within import PACKED_CATEGORIES
from ..schema.tables import numpy_values
from ._common import Read, blocks

__all__ = ["by_pattern", "category_bits", "count_patterns", "form_of", "item_ids", "modes",
           "pattern_rows", "records", "scaled", "table_rows", "with_replication"]


def form_of(read_: Read) -> int:
    """The kernels' form of the call's level: moments (interval), 0/1 (nominal) or a
    K x K matrix (the others)."""
    name = read_.level.name
    return MOMENTS if name == "interval" else NOMINAL if name == "nominal" else MATRIX


def scaled(vals: np.ndarray, form: int) -> tuple[np.ndarray, float]:
    """``(values / 2^shift, 2^shift)``: at the interval level the values divided by a
    power of two (exact) so the squared differences neither overflow (values near
    1e154) nor underflow (near 1e-200), scaled back by the kernels. Ratings are at most
    2^1022 in size (larger ones are refused on reading: ``schema.values.LIMIT``), so
    2^shift is a double."""
    if form != MOMENTS or not vals.size:
        big = 0.0
    else:  # a short scale in Python floats (numpy's calls cost more than they save)
        big = max(map(abs, vals.tolist())) if vals.size <= 64 else float(np.abs(vals).max())
    shift = math.frexp(big)[1] if big > 0 and math.isfinite(big) else 0
    if -1022 <= shift <= 1023:  # 2^-shift a double: the product is ldexp's, correctly
        return vals * 2.0**-shift, 2.0**shift  # rounded both (faster than ldexp's cast)
    return np.ldexp(vals, -shift), 2.0**shift


def with_replication(read_: Read) -> bool:
    """Whether the table has a replication column (several, or the input named one)."""
    return len(read_.ann.replications) > 1 or read_.ann.has_replication


def item_ids(read_: Read, with_rep: bool) -> np.ndarray:
    """The items' int64 ids when the item is the only index level (the kernels then
    write ids, not codes), else none."""
    ann = read_.ann
    alone = not (ann.has_label or with_rep)
    return numpy_values(ann.items) if alone and ann.items.dtype == np.int64 else np.zeros(0, int)


def category_bits(cats: pd.Index) -> tuple[bool, np.ndarray]:
    """Whether the categories are int64 or float64 numbers, and then their bits (the
    kernels write the modes' values), else none."""
    bits = isinstance(cats.dtype, np.dtype) and cats.dtype in (np.int64, np.float64)
    return bits, numpy_values(cats).view(np.int64) if bits else np.zeros(0, np.int64)


def modes(cats: pd.Index, bits: bool, out_ints: np.ndarray) -> Any:
    """The modes' values: None when the categories are int64 (``out_ints[1]`` holds
    them), a float64 view of that row when they are float64 (the kernel wrote their
    bits), else taken from the categories by code."""
    return (None if cats.dtype == np.int64 else out_ints[1].view(np.float64) if bits
            else cats.take(out_ints[1]).array if isinstance(cats.dtype, ExtensionDtype)
            else cats.to_numpy().take(out_ints[1]))


def table_rows(numeric: bool, with_rep: bool, n: int
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The item table's rows for ``n`` groups, one block of memory (:func:`._common.blocks`):
    ``floats`` (D, mode share[, mean, spread] for numbers), ``ints`` (annotations, mode,
    rank, item id or code[, replication]) and ``undefined`` (D is NaN), its last row."""
    n_floats = 4 if numeric else 2
    rows = blocks(n_floats + (5 if with_rep else 4) + 1, n)
    return rows[:n_floats].view(np.float64), rows[n_floats:-1], rows[-1].view(np.bool_)[:n]


def pattern_rows(read_: Read, label: int, numeric: bool, min_block: int
                 ) -> dict[str, Any] | None:
    """One label's rows as the steps one at a time give them (the item table's rows
    of :mod:`.items`), made in one compiled call
    (:func:`~xrr_accessor.kernels.item_table.pattern_table`) where the table is one
    thread's work (fewer than two blocks of ``min_block`` groups) and its groups are
    count patterns; None elsewhere (and where the call declines), for the steps."""
    ann = read_.ann
    form, k, n_rep = form_of(read_), read_.n_cat(label), len(ann.replications)
    n_group = len(ann.items) * n_rep
    if form == MATRIX or k > PACKED_CATEGORIES or n_group >= 2 * min_block:
        return None
    values = read_.values(label)
    vals, scale = scaled(np.zeros(0) if values is None else values, form)
    with_rep = with_replication(read_)
    cats = ann.categories[label]
    bits, cat_values = category_bits(cats)
    out_floats, out_ints, undefined = table_rows(numeric, with_rep, n_group)
    status, m = pattern_table(
        ann.item, ann.replication, read_.codes(label), n_rep, k, vals, form, scale,
        item_ids(read_, with_rep), cat_values, blocks(2, n_group), out_floats, out_ints,
        undefined)
    if status != DONE:
        return None
    out_ints = out_ints[:, :m]  # the first m columns: the groups with annotations
    return {"floats": out_floats[:, :m], "ints": out_ints, "undefined": undefined[:m],
            "mode": modes(cats, bits, out_ints), "label": label}


def by_pattern(bags: np.ndarray) -> tuple[np.ndarray | None, np.ndarray, int]:
    """``(pid, distinct, m)``: each group's number ``pid`` (G,) among the distinct
    count patterns ``distinct`` of ``bags`` (G,) (``distinct[0]`` = 0: a group
    without annotations; :func:`~xrr_accessor.kernels.item_sums.bag_patterns`) and
    ``m`` the groups with annotations; ``(None, bags, 0)`` past
    :data:`~xrr_accessor.kernels.item_sums.MOST_PATTERNS` distinct patterns.

    Examples
    --------
    >>> pid, distinct, m = by_pattern(np.array([0x200, 0, 0x101, 0x200], np.uint64))
    >>> pid.tolist(), distinct.tolist(), m
    ([1, 0, 2, 1], [0, 512, 257], 3)
    """
    pid = blocks(1, len(bags))[0]
    distinct = np.empty(MOST_PATTERNS + 1, dtype=np.uint64)
    used, m = bag_patterns(bags, pid, distinct)
    return (None, bags, 0) if used < 0 else (pid, distinct[:used], m)


def count_patterns(read_: Read, codes: np.ndarray, k: int, n_group: int) -> np.ndarray | None:
    """Each group's count pattern (:func:`~xrr_accessor.kernels.item_sums.group_bags_into`:
    one pass over the annotations in their order, no grouping), or None where a
    pattern cannot hold the counts (more than PACKED_CATEGORIES categories, a group
    of 255 rows or more): then the groups are read through the grouping."""
    if k > PACKED_CATEGORIES:
        return None
    ann = read_.ann
    bags = blocks(1, n_group)[0].view(np.uint64)
    most = group_bags_into(ann.item, ann.replication, codes, len(ann.replications), bags)
    return bags if most < 255 else None


def records(n_group: int) -> tuple[np.ndarray, np.ndarray]:
    """(ints (4, G), floats (4, G)): per group n, mode, mode count, modes tied and D
    (or its sum over pairs), lo, hi, mean, in one huge-page-aligned block
    (:func:`._common.blocks`)."""
    both = blocks(8, n_group)
    return both[:4], both[4:].view(np.float64)
