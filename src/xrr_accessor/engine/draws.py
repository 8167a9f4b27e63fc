"""Bootstrap item weights keyed by item id, and what one set of items adds under them.

A replicate's weights are a function of (seed, replicate, item key) alone
(:func:`item_keys`, :func:`.kernels.resample.poisson_weights`), so any set of
items (a dask partition, one input of two) computes its share of every
replicate's statistics on its own (:func:`draw_columns`), and the shares add
(:mod:`.additive`). :mod:`.resample` finalizes them into replicates.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from ..errors import InputError
from ..kernels.midranks import mid_ranks
from ..kernels.resample import (
    group_weights,
    hash_integers,
    hash_text,
    jackknife_groups,
    poisson_weights,
)
from .additive import Meta
from .statistics import Rows, columns, rank_pairable

__all__ = ["JACKKNIFE_GROUPS", "Draws", "Sampled", "block_size", "check_options",
           "draw_columns", "item_keys", "rank_columns", "seeds"]

#: Leave-one-out jackknife up to this many items; above, this many groups of items.
JACKKNIFE_GROUPS = 200

#: Memory for one block of replicates (statistics and item weights), in bytes.
BLOCK_BYTES = 64 * 2**20

#: Most replicates per block (more gains little: the additions dominate).
MAX_BLOCK = 64


#: The bootstrap's intervals.
INTERVALS = ("bca", "percentile")


def check_options(n_boot: Any, interval: Any) -> None:
    """Refuse bad ``n_boot=`` and ``interval=`` (in memory and before a dask graph)."""
    if isinstance(n_boot, bool) or not isinstance(n_boot, int | np.integer) or n_boot < 2:
        raise InputError(f"n_boot={n_boot!r} is the number of bootstrap replicates, an "
                         "integer >= 2 (1000 or more for 95% intervals).")
    if interval not in INTERVALS:
        raise InputError(f"interval={interval!r}; choose 'bca' (bias-corrected "
                         "and accelerated, the default) or 'percentile'.")


def seeds(seed: Any, n_boot: int) -> tuple[np.ndarray, int]:
    """One 64-bit seed per replicate from ``seed`` (None: fresh entropy), and the entropy."""
    if isinstance(seed, np.random.SeedSequence):
        seq = seed
    else:
        if seed is not None and not (isinstance(seed, int | np.integer) and seed >= 0):
            raise InputError(f"seed={seed!r} is a non-negative integer (or None for a "
                             "fresh one, reported in the result's attrs).")
        seq = np.random.SeedSequence(None if seed is None else int(seed))
    entropy = seq.entropy
    assert isinstance(entropy, int)
    return seq.generate_state(n_boot, dtype=np.uint64), entropy


#: Items whose weights one block holds at a time: a call with more items reads them in
#: chunks of this many (:func:`weighted_columns`), so the replicates per block, and with
#: them the replicates that share one read of the annotations, do not shrink as the
#: items grow (at 5e6 items they would be 1: a pass over every annotation per replicate).
CHUNK_ITEMS = BLOCK_BYTES // (12 * MAX_BLOCK)


def block_size(n_items: int, meta: Meta) -> int:
    """Replicates per block: as many as fit :data:`BLOCK_BYTES` (weights of at most
    :data:`CHUNK_ITEMS` items at a time), at most :data:`MAX_BLOCK`."""
    cells = sum(int(np.prod(s)) for s in meta.shapes().values())
    items = min(n_items, CHUNK_ITEMS)
    per_replicate = 8 * (cells + items) + 4 * items
    return int(max(1, min(MAX_BLOCK, BLOCK_BYTES // max(per_replicate, 1))))


def weighted_columns(r: Rows, meta: Meta, weight_of: Callable[[int, int], np.ndarray]
                     ) -> dict[str, np.ndarray]:
    """:func:`~.statistics.columns` under the weights ``weight_of(a, b)`` (items a to
    b - 1, one column per replicate or group), :data:`CHUNK_ITEMS` items at a time
    (their statistics add), so no weight matrix of every item is held."""
    out: dict[str, np.ndarray] = {}
    if meta.form == "ranks" and meta.ranks is None and r.n_items > CHUNK_ITEMS:
        meta = replace(meta, ranks=rank_columns(r, meta, weight_of))  # one set per column
    for a in range(0, max(r.n_items, 1), CHUNK_ITEMS):
        b = min(r.n_items, a + CHUNK_ITEMS)
        part = columns(r.items(a, b) if (a, b) != (0, r.n_items) else r, meta,
                       weight_of(a, b), parallel=False)
        out = part if not out else {k: out[k] + v for k, v in part.items()}
    return out


def rank_columns(r: Rows, meta: Meta, weight_of: Callable[[int, int], np.ndarray]
                 ) -> np.ndarray:
    """The mid-ranks (L, R, K, C) of each weight column over every item, for the
    ``"ranks"`` form's chunks (:attr:`~.additive.Meta.ranks`): a pass over the counts."""
    total = None
    for a in range(0, max(r.n_items, 1), CHUNK_ITEMS):
        b = min(r.n_items, a + CHUNK_ITEMS)
        w = np.asarray(weight_of(a, b), dtype=np.float64)
        w2 = np.ascontiguousarray(w if w.ndim == 2 else w[:, None])
        part = rank_pairable(r.items(a, b), meta, w2)[1][:, :, 2:].sum(axis=2)
        total = part if total is None else total + part
    assert total is not None
    return mid_ranks(total)


def item_keys(items: Any) -> np.ndarray:
    """A stable 64-bit key per item id: equal ids, equal keys, whatever the dtype path.

    Text ids (object, ``str``, pyarrow or categorical strings) are keyed by their
    UTF-8 bytes; integer ids (any integer dtype, whole floats, Python ints in an
    object column) by their value, tagged apart from text, so ``1`` and ``"1"``
    are different ids exactly when the reader keeps them different. Other ids
    (dates, tuples, fractional numbers) by their type and text.

    Examples
    --------
    >>> import pandas as pd
    >>> a = item_keys(pd.Index(["t1", "t2"], dtype=object))
    >>> b = item_keys(pd.Index(["t2", "t1"], dtype="string[pyarrow]"))
    >>> bool((a == b[::-1]).all()), bool(item_keys(pd.Index([1]))[0] != item_keys(["1"])[0])
    (True, True)
    """
    values = pd.Index(items)
    if isinstance(values.dtype, pd.CategoricalDtype):
        values = pd.Index(np.asarray(values, dtype=object))
    kind = values.dtype.kind if isinstance(values.dtype, np.dtype) else ""
    if kind and kind in "iub":
        return hash_integers(values.to_numpy().astype(np.int64))
    if kind == "f":
        arr = values.to_numpy()
        whole = np.isfinite(arr) & (arr == np.round(arr)) & (np.abs(arr) < 2.0**63)
        out = np.empty(len(arr), dtype=np.uint64)
        out[whole] = hash_integers(arr[whole].astype(np.int64))
        out[~whole] = _text_keys([f"\0float:{x!r}" for x in arr[~whole]])
        return out
    if kind == "":  # pandas' string dtypes (and other extension dtypes)
        if pd.api.types.is_string_dtype(values.dtype):
            return _text_keys(values.to_numpy(dtype=object))
        values = pd.Index(values.to_numpy(dtype=object))
    arr = values.to_numpy(dtype=object)
    is_text = np.fromiter((isinstance(x, str) for x in arr), bool, len(arr))
    if is_text.all():
        return _text_keys(arr)
    out = np.empty(len(arr), dtype=np.uint64)
    out[is_text] = _text_keys(arr[is_text])
    rest = arr[~is_text]
    whole = np.fromiter((_is_whole(x) for x in rest), bool, len(rest))
    idx = np.flatnonzero(~is_text)
    out[idx[whole]] = hash_integers(np.array([int(x) for x in rest[whole]], dtype=np.int64))
    out[idx[~whole]] = _text_keys([f"\0{type(x).__name__}:{x!r}" for x in rest[~whole]])
    return out


def _is_whole(x: Any) -> bool:
    if isinstance(x, bool | int | np.integer):
        return True
    return isinstance(x, float | np.floating) and float(x).is_integer() and abs(float(x)) < 2.0**63


def _text_keys(strings: Any) -> np.ndarray:
    """Keys of text ids from their UTF-8 bytes (through Arrow when it is installed)."""
    strings = list(strings) if not isinstance(strings, np.ndarray) else strings
    if len(strings) == 0:
        return np.zeros(0, dtype=np.uint64)
    try:
        import pyarrow as pa
    except ImportError:  # pragma: no cover - pyarrow comes with pandas' string dtype
        encoded = [str(x).encode("utf-8") for x in strings]
        offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
        np.cumsum([len(e) for e in encoded], out=offsets[1:])
        data = np.frombuffer(b"".join(encoded), dtype=np.uint8)
    else:
        arr = pa.array(strings, type=pa.large_string())
        _, off, buf = arr.buffers()
        offsets = np.frombuffer(off, dtype=np.int64)[arr.offset:arr.offset + len(arr) + 1]
        data = (np.zeros(0, dtype=np.uint8) if buf is None
                else np.frombuffer(buf, dtype=np.uint8))
    return hash_text(data, np.ascontiguousarray(offsets))


@dataclass(frozen=True)
class Draws:
    """The item weights of one call's replicates: a function of item keys only.

    ``seeds`` (one per replicate), ``rate`` (the Poisson mean: n_draws / n_items),
    and for BCa's jackknife ``groups`` (0: none) with ``leave_one_out`` (each
    item its own group, numbered by the caller) or else groups keyed by
    ``entropy``.
    """

    seeds: np.ndarray
    rate: float
    entropy: int
    groups: int = 0
    leave_one_out: bool = False

    @classmethod
    def plan(cls, n_items: int, n_boot: int, seed: Any, n_draws: int | None = None,
             jackknife: bool = False) -> Draws:
        """The draws of ``n_boot`` replicates of ``n_items`` items (and jackknife groups)."""
        seed_per_replicate, entropy = seeds(seed, n_boot)
        rate = 1.0 if n_draws is None else int(n_draws) / n_items
        groups = min(n_items, JACKKNIFE_GROUPS) if jackknife else 0
        return cls(seed_per_replicate, rate, entropy, groups, groups == n_items)

    def weights(self, keys: np.ndarray, lo: int = 0, hi: int | None = None) -> np.ndarray:
        """Weights (len(keys), hi - lo) of replicates ``lo`` to ``hi`` - 1."""
        return poisson_weights(np.ascontiguousarray(keys, dtype=np.uint64),
                               self.seeds[lo:hi], self.rate)

    def members(self, keys: np.ndarray, first: int = 0) -> np.ndarray:
        """Each item's jackknife group (leave-one-out: ``first`` + its position)."""
        if self.leave_one_out:
            return first + np.arange(len(keys), dtype=np.int64)
        return jackknife_groups(np.ascontiguousarray(keys, dtype=np.uint64),
                                np.uint64(self.entropy & 0xFFFFFFFFFFFFFFFF), self.groups)


@dataclass(frozen=True)
class Sampled:
    """Stands in for :class:`~.statistics.Rows` when the replicate statistics were
    computed elsewhere (dask partitions, added): ``boot`` arrays with a last axis of
    n_boot columns, ``groups`` with one column per jackknife group."""

    n_items: int
    draws: Draws
    boot: dict[str, np.ndarray]
    groups: dict[str, np.ndarray] | None


def draw_columns(r: Rows, keys: np.ndarray, meta: Meta, draws: Draws, first: int = 0
                 ) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray] | None]:
    """Statistics of ``r``'s items under every replicate's weights (last axis n_boot),
    and of each jackknife group's items (last axis groups): what one partition adds."""
    size = block_size(r.n_items, meta)
    n_boot = len(draws.seeds)

    def boot_block(lo: int) -> dict[str, np.ndarray]:
        return weighted_columns(r, meta, lambda a, b: draws.weights(keys[a:b], lo, lo + size))

    def group_block(lo: int) -> dict[str, np.ndarray]:
        hi = min(lo + size, draws.groups)
        return weighted_columns(r, meta, lambda a, b: group_weights(member[a:b], lo, hi))

    parts = [boot_block(lo) for lo in range(0, n_boot, size)]
    boot = {k: np.concatenate([p[k] for p in parts], axis=-1) for k in parts[0]}
    if not draws.groups:
        return boot, None
    member = draws.members(keys, first)
    parts = [group_block(lo) for lo in range(0, draws.groups, size)]
    return boot, {k: np.concatenate([p[k] for p in parts], axis=-1) for k in parts[0]}
