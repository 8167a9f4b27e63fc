"""The item-block bootstrap, on the statistics: replicates of any coefficient.

Between **statistics** and **finalize** in the flow input -> codes ->
statistics -> finalize -> labeled result. A replicate draws items with
replacement; a drawn item keeps every annotation it has, in every
replication, so kappa_x's pairing survives and the replicates of IRR,
kappa_x and normalized kappa_x of one call are joint (the same draws for
every label and cell). A replicate is a set of item weights (multinomial
counts, :mod:`.kernels.resample`), and the statistics under C sets of weights
come from one pass over the annotations (:func:`.statistics.columns`); the
pipeline never runs again. Each block of C replicates is finalized at once,
its columns read as C copies of the labels (:func:`.statistics.as_labels`).

The jackknife of BCa's acceleration leaves out one item at a time with up to
:data:`JACKKNIFE_GROUPS` items, and otherwise one of that many random groups
of items (a grouped jackknife: the same acceleration in expectation, at a
fixed cost).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..coefficients import Coefficient
from ..coefficients.registry import finalize
from ..engine.statistics import Meta, as_labels, columns
from ..errors import InputError
from ..kernels.resample import MAX_ITEMS, multinomial_counts

__all__ = ["JACKKNIFE_GROUPS", "Replicates", "Target", "replicate"]

#: Leave-one-out jackknife up to this many items; above, this many groups of items.
JACKKNIFE_GROUPS = 200

#: Memory for one block of replicates (statistics and item weights), in bytes.
BLOCK_BYTES = 64 * 2**20

#: Most replicates per block (more gains little: the additions dominate).
MAX_BLOCK = 64

#: Runs expected to take longer than this (seconds) show a progress bar.
PROGRESS_AFTER = 1.0


@dataclass(frozen=True)
class Target:
    """A coefficient to resample: its key in the results, entry and parameters."""

    key: str
    entry: Coefficient
    params: dict[str, Any] = field(default_factory=dict)


@dataclass
class Replicates:
    """Bootstrap (and jackknife) replicates of each target, over (label, cell).

    ``boot[key]`` has shape (n_boot, L, cells); ``jack[key]`` (G, L, cells)
    holds the leave-one-out (or leave-one-group-out) values when asked for.
    ``seed`` is the entropy the draws came from (pass it back to repeat them).
    """

    boot: dict[str, np.ndarray]
    jack: dict[str, np.ndarray] | None
    n_boot: int
    seed: int
    n_items: int
    n_draws: int


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


def block_size(n_items: int, meta: Meta) -> int:
    """Replicates per block: as many as fit :data:`BLOCK_BYTES`, at most :data:`MAX_BLOCK`."""
    cells = sum(int(np.prod(s)) for s in meta.shapes().values())
    per_replicate = 8 * (cells + n_items) + 4 * n_items
    return int(max(1, min(MAX_BLOCK, BLOCK_BYTES // max(per_replicate, 1))))


def _finalize(arrays: dict[str, np.ndarray], run: Any, targets: Sequence[Target],
              n_cols: int) -> dict[str, np.ndarray]:
    """Each target over the columns of ``arrays``: (n_cols, L, cells)."""
    stats = as_labels(arrays)
    ctx = run.ctx.tiled(n_cols)
    out: dict[str, np.ndarray] = {}
    cache: dict[tuple[Any, ...], Any] = {}
    with np.errstate(all="ignore"):
        for t in targets:
            value = finalize(t.entry, stats, ctx, t.params, cache).value
            out[t.key] = value.reshape(n_cols, run.ctx.meta.n_label, *value.shape[1:])
    return out


def _progress(total: int, enabled: bool | None, desc: str) -> Callable[[int], None]:
    """A tqdm bar (when installed, enabled, and the run is long), else nothing."""
    if enabled is False:
        return lambda n: None
    state: dict[str, Any] = {"bar": None, "done": 0, "start": time.perf_counter()}

    def update(n: int) -> None:
        state["done"] += n
        if state["bar"] is None:
            elapsed = time.perf_counter() - state["start"]
            expected = elapsed * total / max(state["done"], 1)
            if not (enabled or expected > PROGRESS_AFTER) or state["done"] >= total:
                return
            try:
                from tqdm.auto import tqdm
            except ImportError:  # the bar is a nicety: no tqdm, no bar
                state["bar"] = False
                return
            state["bar"] = tqdm(total=total, desc=desc, initial=state["done"], leave=False)
        elif state["bar"] is not False:
            state["bar"].update(n)
            if state["done"] >= total:
                state["bar"].close()

    return update


def replicate(
    run: Any, targets: Sequence[Target], n_boot: int = 1000, seed: Any = None,
    n_draws: int | None = None, jackknife: bool = False, progress: bool | None = None,
    threads: int | None = None,
) -> Replicates:
    """Bootstrap replicates of ``targets`` from a :class:`~.pipeline.Run`'s statistics.

    Parameters
    ----------
    run : Run
        A call's encoded annotations, statistics and context.
    targets : sequence of Target
        The coefficients to resample; they must need only statistics the run
        computed.
    n_boot : int
        Replicates.
    seed : int, SeedSequence or None
        Same seed, same replicates (whatever the threads or block size).
    n_draws : int, optional
        Items drawn per replicate (default: as many as there are; fewer or
        more to see how an interval would shrink with the sample size).
    jackknife : bool
        Also the leave-one-out values BCa's acceleration needs.
    progress : bool, optional
        Show a tqdm bar (None: only for runs expected to exceed a second).
    threads : int, optional
        Blocks of replicates run in this many threads (default: every core).
    """
    n_items = run.rows.n_items
    if n_items < 2:
        raise InputError(f"the bootstrap resamples items; the data have {n_items}.")
    if n_items > MAX_ITEMS:
        raise InputError(f"the bootstrap resamples at most {MAX_ITEMS:,} items; split the "
                         "data (e.g. by label) or use dask.")
    n_draws = n_items if n_draws is None else int(n_draws)
    seed_per_replicate, entropy = seeds(seed, n_boot)
    meta = run.ctx.meta
    size = block_size(n_items, meta)
    starts = list(range(0, n_boot, size))
    update = _progress(n_boot, progress, "bootstrap")

    def block(lo: int) -> dict[str, np.ndarray]:
        part = seed_per_replicate[lo:lo + size]
        counts = multinomial_counts(n_items, n_draws, part)
        weight = np.ascontiguousarray(counts.T, dtype=np.float64)
        out = _finalize(columns(run.rows, meta, weight, parallel=False), run, targets,
                        len(part))
        update(len(part))
        return out

    n_threads = threads or min(os.cpu_count() or 1, len(starts))
    if n_threads > 1:
        with ThreadPoolExecutor(n_threads) as pool:  # the kernels release the GIL
            parts = list(pool.map(block, starts))
    else:
        parts = [block(lo) for lo in starts]
    boot = {t.key: np.concatenate([p[t.key] for p in parts]) for t in targets}
    jack = _jackknife(run, targets, entropy) if jackknife else None
    return Replicates(boot, jack, n_boot, entropy, n_items, n_draws)


def _jackknife(run: Any, targets: Sequence[Target], entropy: int) -> dict[str, np.ndarray]:
    """Leave-one-out (or leave-one-group-out) values of each target: (G, L, cells)."""
    n_items = run.rows.n_items
    groups = min(n_items, JACKKNIFE_GROUPS)
    if groups == n_items:
        member = np.arange(n_items)
    else:  # random groups of (nearly) equal size, from the call's seed
        rng = np.random.default_rng(np.random.SeedSequence(entropy).spawn(1)[0])
        member = rng.permutation(n_items) % groups
    meta = run.ctx.meta
    size = block_size(n_items, meta)
    parts = []
    for lo in range(0, groups, size):
        hi = min(groups, lo + size)
        weight = (member[:, None] != np.arange(lo, hi)[None, :]).astype(np.float64)
        parts.append(_finalize(columns(run.rows, meta, weight), run, targets, hi - lo))
    return {t.key: np.concatenate([p[t.key] for p in parts]) for t in targets}
