"""Repeated annotations of one (item, rater[, replication]): found with one numba pass
over the ids (:func:`has_repeats`, :func:`~xrr_accessor.kernels.encode.has_repeat`), then
the ``duplicates=`` policy applied (:func:`dedupe`): an error naming the first repeat,
or the first, last or mean annotation kept."""

from __future__ import annotations

import math
from collections.abc import Hashable
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
import pandas as pd

from ..errors import InputError, LevelError
from ..kernels.encode import has_repeat
from .tables import Ids

__all__ = ["MAX_MARK_SPACE", "Keys", "dedupe", "first_positions", "has_repeats", "key_codes",
           "set_duplicates"]


@dataclass(frozen=True)
class Keys:
    """The ids of each row (item first, then rater and the others), combined into one
    int64 key per row (:attr:`codes`, built when first read) out of :attr:`space`
    possible keys (the product of the ids' counts)."""

    parts: tuple[Ids, ...]

    @property
    def space(self) -> int:
        return math.prod(max(len(ids.uniques), 1) for ids in self.parts)  # Python ints

    @cached_property
    def codes(self) -> np.ndarray:
        key = np.zeros(len(self.parts[0]), dtype=np.int64)
        for ids in self.parts:
            key = key * max(len(ids.uniques), 1) + ids.codes
        return key


def key_codes(parts: list[Ids]) -> Keys:
    """The combined key of each row (see :class:`Keys`)."""
    return Keys(tuple(parts))


def has_repeats(keys: Keys) -> bool:
    """Whether a key occurs twice: one numba pass
    (:func:`~xrr_accessor.kernels.encode.has_repeat`: the raters' last item when the
    rows come grouped by item, else a byte per key), or hashing when the key space is
    too large for a byte per key."""
    item, rest = keys.parts[0], keys.parts[1:]
    if not len(item):
        return False
    sub = np.zeros(len(item), dtype=np.int64) if not rest else rest[0].codes
    for ids in rest[1:]:
        sub = sub * max(len(ids.uniques), 1) + ids.codes
    n_sub = math.prod(max(len(ids.uniques), 1) for ids in rest)  # Python ints: no overflow
    found = has_repeat(np.ascontiguousarray(item.codes, dtype=np.int64),
                       np.ascontiguousarray(sub, dtype=np.int64),
                       max(len(item.uniques), 1), n_sub,
                       max(MAX_MARK_SPACE, 8 * len(item)))
    if found >= 0:
        return bool(found)
    return bool(pd.Index(keys.codes).has_duplicates)


#: Largest key space checked for repeats with a byte per key (else pandas hashes).
MAX_MARK_SPACE = 1 << 27


def first_positions(codes: np.ndarray, n: int) -> np.ndarray:
    """Row of the first occurrence of each code 0..n-1."""
    _, first = np.unique(codes, return_index=True)
    assert len(first) == n
    return first.astype(np.int64)


def dedupe(
    keys: Keys,
    policy: str,
    describe: Any,
    where: str,
    columns: list[Hashable] | None,
    values: dict[Hashable, pd.Series],
    repeats: bool | None = None,
) -> tuple[np.ndarray | None, dict[Hashable, pd.Series]]:
    """Apply the ``duplicates=`` policy to rows sharing ``key``.

    Returns the rows kept (None when there are no duplicates) and the values
    of those rows: the first or last annotation, or the mean of numeric
    values. The policy is the user's explicit choice, so it does not warn; the
    count is reported in the result's ``attrs["n_duplicates"]``. ``repeats``:
    whether a key repeats, when the caller knows already (else :func:`has_repeats`).
    """
    if not (has_repeats(keys) if repeats is None else repeats):
        return None, values
    key = keys.codes
    index = pd.Index(key)
    dup = index.duplicated()
    if not dup.any():
        return None, values
    n = int(dup.sum())
    if policy == "error":
        i = int(np.flatnonzero(dup)[0])
        fix = (f"df.drop_duplicates(subset={list(columns)!r})" if columns
               else "dropping the repeated index labels")
        raise InputError(
            f"{n} duplicate annotation(s) in {where}: {describe(i)} appears more than "
            f"once in one replication. Keep one annotation each, e.g. with {fix}, or "
            "choose a policy: .xrr(duplicates='first'), 'last' or 'mean'; if the rows are "
            "two pools, name the column telling them apart with .xrr(replication="
            "'<column>')."
        )
    if policy in ("first", "last"):
        keep = np.flatnonzero(~index.duplicated(keep=policy))
        out = {k: v.iloc[keep].reset_index(drop=True) for k, v in values.items()}
        what = f"kept the {policy}"
    else:
        group, uniq = pd.factorize(key)
        keep = first_positions(np.asarray(group, dtype=np.int64), len(uniq))
        out = {}
        for k, v in values.items():
            if not (pd.api.types.is_numeric_dtype(v.dtype) or pd.api.types.is_bool_dtype(v.dtype)):
                raise LevelError(
                    f"duplicates='mean' averages numbers, but column {k!r} holds "
                    f"{v.dtype} values; use duplicates='first' or 'last'."
                )
            out[k] = v.astype(float).groupby(group).mean().reset_index(drop=True)
        what = "averaged each"
    del what  # chosen explicitly: reported in the result's attrs (n_duplicates), no warning
    return keep, out


def set_duplicates(message: str, level: str) -> InputError:
    """The error of repeated (item, rater) rows read at a set level: each row must hold
    all the labels of one annotation, so dropping repeated rows is not the fix."""
    return InputError(
        f"{message.split(' Keep one annotation')[0]} At level={level!r} each row holds all "
        "the labels of one annotation (a list or set); a long frame with one row per label "
        "becomes one with xrr_accessor.set_cells(df) (dropping the repeated rows would "
        "leave single labels); if the rows are two pools, name the column telling them "
        "apart with .xrr(replication='<column>').")
