"""The item-block bootstrap, on the statistics: replicates of any coefficient.

Between **statistics** and **finalize** in the flow input -> codes ->
statistics -> finalize -> labeled result. A replicate weights whole items
(an item of weight w counts as w copies); a weighted item keeps every annotation it has, in every
replication, so kappa_x's pairing survives and the replicates of IRR,
kappa_x and normalized kappa_x of one call are joint (the same draws for
every label and cell). A replicate is a set of item weights
(:mod:`.kernels.resample`), and the statistics under C sets of weights
come from one pass over the annotations (:func:`.statistics.columns`); the
pipeline never runs again. Each block of C replicates is finalized at once,
its columns read as C copies of the labels (:func:`.additive.as_labels`).

**The weights are keyed by item id** (a Poisson bootstrap): item i's weight
in replicate b is a Poisson(1) draw from a counter-based generator at (seed,
b, a stable 64-bit hash of the item's id) (:func:`item_keys`,
:func:`.kernels.resample.poisson_weights`). So the draws are the same
whatever the row order, whichever pools, labels or other items are in the
call, and whichever dask partition an item sits in: a partition weights its
own items, and the replicate statistics add like the point estimate's. A
multinomial draw (n items with replacement) cannot be made that way: its
counts depend on how many items there are and in which order. Poisson(1)
weights give the same first-order bootstrap distribution (Hanley and
MacGibbon 2006; Chamandy et al. 2012); the replicate's total weight varies
around n, as the coefficients (ratios of sums) do not mind.
``n_draws=m`` (how an interval would shrink with m items) uses Poisson(m / n).

The jackknife of BCa's acceleration leaves out one item at a time with up to
:data:`JACKKNIFE_GROUPS` items, and otherwise one of that many groups of
items, an item's group keyed by its id and the seed (a grouped jackknife: the
same acceleration in expectation, at a fixed cost). A left-out group's value
is computed as the total minus the group's statistics (sums over items), so
a partition adds its items' share of every group.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..coefficients import Coefficient
from ..coefficients.registry import finalize
from ..engine.additive import as_labels
from ..engine.draws import (
    BLOCK_BYTES,
    JACKKNIFE_GROUPS,
    Draws,
    Sampled,
    block_size,
    item_keys,
    seeds,
    weighted_columns,
)
from ..errors import InputError
from ..kernels.resample import MAX_ITEMS, group_weights
from . import budget

__all__ = ["JACKKNIFE_GROUPS", "Replicates", "Target", "replicate", "seeds"]

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


def watched() -> bool:
    """Whether a person is watching: stderr is a terminal, or a notebook's kernel runs us.

    Examples
    --------
    >>> import io, sys
    >>> saved, sys.stderr = sys.stderr, io.StringIO()  # a log file, a pipe, CI
    >>> watched()
    False
    >>> sys.stderr = saved
    """
    try:
        if sys.stderr is not None and sys.stderr.isatty():
            return True
    except (AttributeError, ValueError):  # a replaced or closed stderr
        pass
    ipython = sys.modules.get("IPython")
    shell = getattr(ipython, "get_ipython", lambda: None)() if ipython else None
    return type(shell).__name__ == "ZMQInteractiveShell"  # Jupyter (ipykernel)


def _progress(total: int, enabled: bool | None, desc: str) -> Callable[[int], None]:
    """A tqdm bar (when installed, enabled, and the run is long), else nothing.

    ``enabled=None`` shows it only where a person watches (:func:`watched`), so
    logs and pipes never receive a bar's escape codes; ``True`` always shows it.
    """
    if enabled is False or (enabled is None and not watched()):
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
        Same seed, same replicates (whatever the threads, block size, row order
        or the other items in the call).
    n_draws : int, optional
        Expected items per replicate (default: as many as there are; fewer or
        more to see how an interval would shrink with the sample size).
    jackknife : bool
        Also the leave-one-out values BCa's acceleration needs.
    progress : bool, optional
        Show a tqdm bar (None: only for runs expected to exceed a second).
    threads : int, optional
        Blocks of replicates run in this many threads (default: every core).

    Examples
    --------
    >>> import pandas as pd
    >>> from xrr_accessor.engine import pipeline
    >>> from xrr_accessor.coefficients import lookup
    >>> df = pd.DataFrame({"item": [i // 2 for i in range(40)], "rater": ["a", "b"] * 20,
    ...                    "joy": [1, 1, 0, 0, 1, 0, 1, 1] * 5})
    >>> run = pipeline.run(df, [lookup("alpha")])
    >>> reps = replicate(run, [Target("a", lookup("alpha"))], n_boot=5, seed=1)
    >>> reps.boot["a"].shape
    (5, 1, 1)
    """
    n_items = run.rows.n_items
    if n_items < 2:
        raise InputError(f"the bootstrap resamples items; the data have {n_items}.")
    if n_items > MAX_ITEMS:
        raise InputError(f"the bootstrap resamples at most {MAX_ITEMS:,} items; split the "
                         "data (e.g. by label) or use dask.")
    n_draws = n_items if n_draws is None else int(n_draws)
    meta = run.ctx.meta
    size = block_size(n_items, meta)
    n_threads = threads or min(os.cpu_count() or 1, -(-n_boot // size))
    estimates = {t.key: run.estimate(t.entry, **t.params).value for t in targets}
    n_annotations = getattr(getattr(run.rows, "codes", None), "size", n_items)
    budget.check(n_boot, budget.estimate(n_boot, n_annotations,
                                         sum(v.size for v in estimates.values()),
                                         BLOCK_BYTES, n_threads))  # before allocating
    draws = Draws.plan(n_items, n_boot, seed, None if n_draws == n_items else n_draws,
                       jackknife)
    if isinstance(run.rows, Sampled):
        return _from_sampled(run, targets, draws, n_draws)
    keys = item_keys(run.ann.items)
    starts = list(range(0, n_boot, size))
    # targets NaN in every cell are not resampled (their replicates NaN); none left:
    # the pass over the annotations is not entered at all
    live = [t for t in targets if np.isfinite(estimates[t.key]).any()]
    nan = {t.key: np.full((n_boot, *estimates[t.key].shape), np.nan) for t in targets
           if t not in live}
    if not live:
        jack = ({t.key: np.full((draws.groups, *estimates[t.key].shape), np.nan)
                 for t in targets}
                if jackknife else None)
        return Replicates(nan, jack, n_boot, draws.entropy, n_items, n_draws)
    update = _progress(n_boot, progress, "bootstrap")

    def block(lo: int) -> dict[str, np.ndarray]:
        n = min(size, n_boot - lo)
        out = _finalize(weighted_columns(run.rows, meta, lambda a, b: draws.weights(
            keys[a:b], lo, lo + n)), run, live, n)
        update(n)
        return out

    if n_threads > 1:
        with ThreadPoolExecutor(n_threads) as pool:  # the kernels release the GIL
            parts = list(pool.map(block, starts))
    else:
        parts = [block(lo) for lo in starts]
    boot = {t.key: np.concatenate([p[t.key] for p in parts]) for t in live}
    boot.update(nan)
    jack = None
    if jackknife:
        member = draws.members(keys)
        ranks = meta.form == "ranks"  # sums under each leave-out's own mid-ranks
        jack = _jackknife(run, live, draws.groups, lambda lo, hi: weighted_columns(
            run.rows, meta, lambda a, b: (1.0 - group_weights(member[a:b], lo, hi)) if ranks
            else group_weights(member[a:b], lo, hi)), left_out=ranks)
        jack.update({k: np.full((draws.groups, *v.shape[1:]), np.nan) for k, v in nan.items()})
    return Replicates(boot, jack, n_boot, draws.entropy, n_items, n_draws)


def _from_sampled(run: Any, targets: Sequence[Target], draws: Draws, n_draws: int
                  ) -> Replicates:
    """Replicates from statistics the partitions computed under the same draws."""
    sampled: Sampled = run.rows
    if (sampled.draws.entropy != draws.entropy or len(sampled.draws.seeds) != len(draws.seeds)
            or sampled.draws.rate != draws.rate or (draws.groups and sampled.groups is None)):
        raise InputError("these dask-backed statistics were drawn for other bootstrap "
                         "settings (seed, n_boot, n_draws or interval); call again.")
    n_boot = len(draws.seeds)
    size = block_size(sampled.n_items, run.ctx.meta)
    parts = [_finalize({k: v[..., lo:lo + size] for k, v in sampled.boot.items()}, run,
                       targets, min(size, n_boot - lo)) for lo in range(0, n_boot, size)]
    boot = {t.key: np.concatenate([p[t.key] for p in parts]) for t in targets}
    jack = None
    if draws.groups:
        groups = sampled.groups
        assert groups is not None
        jack = _jackknife(run, targets, draws.groups,
                          lambda lo, hi: {k: v[..., lo:hi] for k, v in groups.items()})
    return Replicates(boot, jack, n_boot, draws.entropy, sampled.n_items, n_draws)


def _jackknife(run: Any, targets: Sequence[Target], groups: int,
               group_columns: Callable[[int, int], dict[str, np.ndarray]],
               left_out: bool = False) -> dict[str, np.ndarray]:
    """Leave-one-group-out values of each target, (G, L, cells): the call's
    statistics minus each group's (``group_columns(lo, hi)``: groups lo to hi - 1),
    or with ``left_out`` the statistics ``group_columns`` gives (each group's
    complement: ordinal alpha's sums are taken on the complement's own mid-ranks)."""
    size = block_size(run.rows.n_items, run.ctx.meta)
    total = run.stats.arrays
    parts = []
    for lo in range(0, groups, size):
        hi = min(groups, lo + size)
        cols = group_columns(lo, hi)
        left = cols if left_out else {k: _minus(total[k], v) for k, v in cols.items()}
        parts.append(_finalize(left, run, targets, hi - lo))
    return {t.key: np.concatenate([p[t.key] for p in parts]) for t in targets}


def _minus(total: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """``total`` (shape S) minus each column of ``cols`` (shape S' + (C,)), S' <= S
    axis by axis (statistics of fewer strata are padded with zeros)."""
    out = np.repeat(total[..., None], cols.shape[-1], axis=-1)
    out[tuple(slice(0, s) for s in cols.shape)] -= cols
    return out
