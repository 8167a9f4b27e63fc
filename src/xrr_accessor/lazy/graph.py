"""The dask graph of a call on dask-backed annotations, and its lazy result.

Two passes over the partitions, one graph:

1. **survey** each partition (labels, ids, categories, counts; partitions
   not known to hold whole items are shuffled by item first) and **merge**
   the surveys into the call's skeleton:
   global indexes, as the in-memory encoder would build them. Skipped reading
   nothing: every partition is read, but only indexes leave the workers.
2. **plan** the statistics the call needs (the public function itself runs on
   the skeleton until it would compute), then each partition's **statistics**
   in those indexes, added pairwise in a tree (``a + b``).

The partitions of the second pass are clones of the first's (independent
keys), so a partition is read again rather than held in memory between the
passes: memory stays at a few partitions whatever the data size. The client
then finalizes, warns and labels (:meth:`Lazy.compute`), running the same
public function on the summed statistics, so the result is the in-memory
result, to rounding.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import Any

import dask
import numpy as np
from dask.delayed import Delayed, delayed
from dask.graph_manipulation import clone

from ..coefficients import lookup
from ..engine.additive import Meta, Stats
from ..engine.draws import Draws, check_options, seeds
from ..engine.pipeline import kind_of
from ..engine.staged import ANALYTIC_REFUSED, COMMON_REFUSED, OTHER_REFUSED, Job, Planned, Staged
from ..errors import InputError, collecting, per_call, warn
from ..schema import Roles
from .blocks import Merged, Reader, merge, partition_stats, sampled, survey
from .parts import maybe_ranked, partitions, ranked_meta

__all__ = ["FAN_IN", "Lazy", "compute_all", "defer", "partitions"]

#: Statistics added per task of the tree reduction.
FAN_IN = 8


def _tree(parts: Sequence[Delayed]) -> Delayed:
    level = list(parts)
    while len(level) > 1:
        level = [delayed(_add, pure=True)(*level[i:i + FAN_IN])
                 for i in range(0, len(level), FAN_IN)]
    return level[0]


def _add(*parts: Stats) -> Stats:
    out = parts[0]
    for p in parts[1:]:
        out = out + p
    return out


def _plan(staged: Staged, fn: Callable[..., Any], args: tuple[Any, ...],
          kwargs: dict[str, Any]) -> Meta | Job:
    """The statistics the call needs: run it on the skeleton until it would compute."""
    with collecting():  # the client warns, once, when it finishes
        try:
            fn(staged, *args, **kwargs)
        except Planned as planned:
            return planned.meta
    raise RuntimeError(f"{fn.__name__} finished without computing statistics")  # pragma: no cover


def _field(merged: Merged, name: str) -> Any:
    return getattr(merged, name)


class Relabel(InputError):
    """The partitions read the columns as different labels (each decided alone): the
    labels decided over all of them, and the warning of what was left out."""

    def __init__(self, labels: list[Any], note: tuple[type, str] | None) -> None:
        super().__init__(
            "the partitions' columns read as different labels (a column looks like item "
            "metadata in some partitions only); name the labels with .xrr(labels=[...]), "
            "or call .compute() on the lazy result, which decides them over all "
            f"partitions (here: {labels}).")
        self.labels, self.note = labels, note

    def __reduce__(self) -> tuple[Any, ...]:  # raised in a worker, re-raised here
        return (Relabel, (self.labels, self.note))


def _staged_of(merged: Merged) -> Staged:
    """The skeleton, unless the partitions inferred different labels (then the passes
    run again with the labels decided over all of them: compute() does)."""
    if merged.relabel is not None:
        raise Relabel(merged.relabel, merged.note)
    return merged.staged


def _all(staged: Staged, messages: Any, meta: Meta | Job, stats: Stats, draws: Draws | None
         ) -> tuple[Any, ...]:
    return staged, messages, meta, stats, draws


def _bootstrap_options(fn: Callable[..., Any], data: Any, args: tuple[Any, ...],
                       kwargs: dict[str, Any]) -> tuple[int, Any, bool] | None:
    """(n_boot, seed, jackknife) of a call with ``ci=``, checked in the client; a
    seed of None becomes fresh entropy, shared by the partitions and the client."""
    try:
        bound = inspect.signature(fn).bind_partial(data, *args, **kwargs)
    except TypeError:
        return None
    params = inspect.signature(fn).parameters
    get = {n: bound.arguments.get(n, p.default) for n, p in params.items()}
    if get.get("ci") is None or "n_boot" not in get:
        return None
    n_boot, interval = get["n_boot"], get.get("interval", "bca")
    check_options(n_boot, interval)
    seed = get.get("seed")
    seed = seed if seed is not None else seeds(None, 1)[1]
    seeds(seed, 1)  # a bad seed fails now, not in a worker
    return int(n_boot), seed, interval == "bca"


#: Largest replicate statistics one partition returns (n_boot + jackknife groups
#: columns of every statistic), in bytes.
MAX_REPLICATE_BYTES = 2**30


def _draws(staged: Staged, meta: Meta | Job, n_boot: int, seed: Any, jackknife: bool
           ) -> Draws:
    n_items = len(staged.ann.items)
    draws = Draws.plan(n_items, n_boot, seed, None, jackknife)
    cells = meta.cells if isinstance(meta, Job) else sum(
        int(np.prod(s)) for s in meta.shapes().values())
    need = 8 * cells * (n_boot + draws.groups)
    if need > MAX_REPLICATE_BYTES:
        raise InputError(
            f"the bootstrap's statistics would take {need / 2**30:.1f} GiB per partition "
            f"({cells:,} statistics x {n_boot + draws.groups:,} replicates and jackknife "
            "groups); pass fewer labels at a time (.xrr(value=[...])), fewer replicates "
            "(n_boot=), or interval='percentile' (no jackknife).")
    return draws


def _at(values: Sequence[Any], i: int) -> Any:
    return values[i]


def _refuse_now(fn: Callable[..., Any], data: Any, args: tuple[Any, ...],
                kwargs: dict[str, Any]) -> None:
    """Refuse, when the call is made, what dask-backed data cannot do (rather than
    when it is computed): ``items="common"``, and an analytic interval that reads
    every annotation (the registry says which do not)."""
    try:
        bound = inspect.signature(fn).bind_partial(data, *args, **kwargs)
    except TypeError:
        return
    params = inspect.signature(fn).parameters
    get = {n: bound.arguments.get(n, p.default) for n, p in params.items()}
    if get.get("items") == "common":
        raise InputError(COMMON_REFUSED)
    if get.get("ci") is None or "metric" not in get or "method" not in get:
        return
    entry = lookup(get["metric"])
    if (get["method"] in (None, "analytic") and entry.analytic is not None
            and not entry.analytic_from_sums):
        raise InputError(ANALYTIC_REFUSED.format(name=entry.display))


def other_of(fn: Callable[..., Any], data: Any, args: tuple[Any, ...],
             kwargs: dict[str, Any]) -> Any:
    """The ``other=`` argument of a call of ``fn`` (None when it has none)."""
    try:
        bound = inspect.signature(fn).bind_partial(data, *args, **kwargs)
    except TypeError:
        return None
    return bound.arguments.get("other")


def defer(fn: Callable[..., Any], data: Any, args: tuple[Any, ...],
          kwargs: dict[str, Any], reader: Reader | None = None) -> Lazy:
    """``fn(data, *args, **kwargs)`` on dask-backed ``data``, as a :class:`Lazy`
    (``reader``: how a partition is read, when not as one table of annotations)."""
    kwargs = dict(kwargs)
    _refuse_now(fn, data, args, kwargs)
    boot = _bootstrap_options(fn, data, args, kwargs)
    ranks = maybe_ranked(fn, data, args, kwargs)  # ordinal alpha: a marginals stage first
    if boot is not None:  # one seed for the partitions and the client
        kwargs["seed"] = boot[1]
    if other_of(fn, data, args, kwargs) is not None:
        raise InputError(OTHER_REFUSED)
    bound = data._xrr_bound if hasattr(type(data), "_xrr_bound") else None
    roles = {k: kwargs.pop(k) for k in list(kwargs) if k in Roles.__dataclass_fields__}
    if bound is not None:
        data, roles = bound[0], {**bound[1], **roles}
    Roles.from_kwargs(roles)  # unknown or bad roles fail now, not in a worker
    kind = kind_of(data)
    call = {**kwargs, **roles}
    cut: dict[bool, tuple[list[Delayed], bool]] = {}  # partitions (graph optimized once)

    def parts(shuffle: bool) -> tuple[list[Delayed], bool]:
        if shuffle not in cut:
            cut[shuffle] = partitions(data, roles, shuffle)
        return cut[shuffle]

    def build(shuffle: bool, merged: Merged | None = None,
              labels: list[Any] | None = None) -> tuple[Delayed, Delayed | None]:
        """The call's graph: survey, merge, plan and statistics (``merged`` given: the
        partitions were surveyed already and hold whole items; ``labels``: the labels
        decided over every partition, read as named). With items that may span
        partitions, or labels inferred per partition, also the merged survey that says
        whether an item spans partitions and which labels the data have."""
        first, check = parts(shuffle)
        if not first:
            raise InputError("the dask-backed data have no partitions.")
        use = roles if labels is None else {**roles, "labels": labels}
        probe = None
        if merged is None:
            surveys = [delayed(survey, pure=True)(p, use, check, reader) for p in first]
            probe = delayed(merge, pure=True)(surveys, kind)
            again = list(clone(*first)) if len(first) > 1 else [clone(first[0])]
            merged_ = probe
        else:
            again, merged_ = first, delayed(merged, traverse=False, pure=False)
        staged = delayed(_staged_of, pure=True)(merged_)
        messages = delayed(_field, pure=True)(merged_, "messages")
        meta = delayed(_plan, pure=True)(staged, fn, args, call)
        if ranks:
            meta = ranked_meta(meta, again, use, staged, reader, boot is not None, FAN_IN)
        draws = None if boot is None else delayed(_draws, pure=True)(staged, meta, *boot)
        offsets = delayed(_field, pure=True)(merged_, "offsets")
        firsts = [delayed(_at, pure=True)(offsets, i) for i in range(len(again))]
        stats = [delayed(partition_stats, pure=True)(p, use, staged, meta, draws, f, reader)
                 for p, f in zip(again, firsts, strict=True)]
        final = delayed(_all, pure=True)(staged, messages, meta, _tree(stats), draws)
        return final, (probe if check else None)

    n_partitions = len(parts(False)[0])
    if not n_partitions:
        raise InputError("the dask-backed data have no partitions.")
    return Lazy(build, fn, args, call, n_partitions, (data, roles, reader))


def compute_all(*lazies: Lazy, **kwargs: Any) -> list[Any]:
    """Compute several lazy results in one graph (calls on the same data share their
    passes over it), then finalize each in the calling thread.

    Data not known to hold whole items per partition are surveyed first, on
    their own: when no item spans partitions, the statistics pass reads the
    same partitions (two passes, as for item-partitioned data); when some do,
    the library shuffles the rows by item and runs both passes on the result.

    Examples
    --------
    >>> import dask.dataframe as dd, pandas as pd
    >>> import xrr_accessor
    >>> df = pd.DataFrame({"item": [1, 1, 2, 2] * 2, "rater": ["a", "b"] * 4,
    ...                    "pool": ["x"] * 4 + ["y"] * 4, "joy": [1, 1, 0, 0, 1, 1, 0, 1]})
    >>> ddf = dd.from_pandas(df.set_index("item"), npartitions=2)
    >>> irr, kx = compute_all(ddf.xrr.irr(), ddf.xrr.cross_kappa())
    >>> round(float(kx.iloc[0, 0]), 3)
    0.5
    """
    finals = [lazy.graph() for lazy in lazies]
    shuffled = [False] * len(lazies)
    probes = [(i, probe) for i, (_, probe) in enumerate(finals) if probe is not None]
    if probes:  # first pass alone: are items split across partitions?
        found = dask.compute(*(probe for _, probe in probes), **kwargs)
        for (i, _), merged in zip(probes, found, strict=True):
            # whole items: statistics of the same partitions; split: shuffle by item;
            # labels inferred differently per partition, or split items: read with the
            # labels decided over all of them, and say what was left out
            shuffled[i] = bool(merged.n_split)
            decided = merged.relabel or (merged.decided if merged.n_split else None)
            if decided is not None:
                finals[i] = lazies[i]._relabeled(shuffled[i], decided, merged.note)
            else:
                finals[i] = (lazies[i]._build(False, merged) if not merged.n_split
                             else lazies[i]._build(True))
    try:
        parts = list(dask.compute(*(final for final, _ in finals), **kwargs))
    except Relabel:  # whole items, each partition deciding the labels alone: decide again
        parts = []
        for i, lazy in enumerate(lazies):
            try:
                parts.extend(dask.compute(finals[i][0], **kwargs))
            except Relabel as again:
                final = lazy._relabeled(shuffled[i], again.labels, again.note)
                parts.extend(dask.compute(final[0], **kwargs))
    return [lazy._finish(p) for lazy, p in zip(lazies, parts, strict=True)]


class Lazy:
    """The result of a public function on dask-backed data, not yet computed.

    ``.compute()`` runs the graph on the current scheduler (threads by
    default, or a ``dask.distributed`` Client when one is active) and returns
    exactly what the function returns for in-memory data; warnings are raised
    in the caller's thread when it finishes. :func:`compute_all` computes
    several at once, sharing the passes of calls on the same data. It is also
    a dask collection (``dask.compute(a, b)`` works), but then dask decides
    where the result is finalized: on a cluster, in a worker, whose
    warnings you do not see.

    Examples
    --------
    >>> import dask.dataframe as dd, pandas as pd
    >>> import xrr_accessor
    >>> df = pd.DataFrame({"item": [1, 1, 2, 2, 3, 3], "rater": ["a", "b"] * 3,
    ...                    "joy": [1, 1, 0, 0, 1, 0]})
    >>> by_item = dd.from_pandas(df.set_index("item"), npartitions=2)  # items whole
    >>> lazy = by_item.xrr.irr(metric="cohen")
    >>> lazy
    Lazy(irr over 2 partitions; .compute() runs it)
    >>> round(float(lazy.compute()["joy"]), 3)
    0.4
    """

    def __init__(self, build: Callable[..., tuple[Delayed, Delayed | None]],
                 fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any],
                 n_partitions: int, origin: Any = None) -> None:
        self._build = build
        self._fn, self._args, self._kwargs = fn, args, kwargs
        self.n_partitions = n_partitions
        self._origin = origin
        #: Warnings decided before the graph ran (labels left out over all partitions).
        self._notes: list[tuple[type, str]] = []
        self._graph: tuple[Delayed, Delayed | None] | None = None
        self._static: Delayed | None = None

    def _relabeled(self, shuffle: bool, labels: list[Any], note: tuple[type, str] | None
                   ) -> tuple[Delayed, Delayed | None]:
        """The graph reading ``labels`` as named, and the warning it no longer raises."""
        self._notes = [note] if note is not None else []
        return self._build(shuffle, None, labels)

    def graph(self) -> tuple[Delayed, Delayed | None]:
        """The one-graph form (survey, merge, statistics) over the partitions as they
        are, and the merged survey that says whether an item spans partitions (None
        when the data say each partition holds whole items)."""
        if self._graph is None:
            self._graph = self._build(False)
        return self._graph

    @property
    def _final(self) -> Delayed:
        """As a dask collection (``dask.compute(lazy)``): one graph, so data not known
        to hold whole items are shuffled by item (compute() shuffles only if needed)."""
        if self._static is None:
            final, probe = self.graph()
            self._static = final if probe is None else self._build(True)[0]
        return self._static

    def __dask_graph__(self) -> Any:
        return self._final.__dask_graph__()

    def __dask_keys__(self) -> list[Any]:
        return self._final.__dask_keys__()

    def __dask_layers__(self) -> Sequence[str]:
        return self._final.__dask_layers__()

    def __dask_tokenize__(self) -> Any:
        return self._final.key

    __dask_optimize__ = staticmethod(lambda dsk, keys, **kwargs: dsk)
    __dask_scheduler__ = staticmethod(dask.threaded.get)

    def __dask_postcompute__(self) -> tuple[Callable[..., Any], tuple[Any, ...]]:
        return self._finish, ()

    @per_call  # the partitions' warnings and the call's, each once
    def _finish(self, results: Any) -> Any:
        staged, messages, meta, stats, draws = (results[0] if isinstance(results, list)
                                                else results)
        for category, message in [*self._notes, *messages]:
            warn(message, category)
        reps = None
        if draws is not None and not isinstance(meta, Job):  # a Job's sums hold its own
            stats, reps = sampled(stats, draws, len(staged.ann.items))
        ready = Staged(staged.ann, staged.top, staged.kind, staged.ordered, meta, stats, reps,
                       self._origin)
        return self._fn(ready, *self._args, **self._kwargs)

    def compute(self, **kwargs: Any) -> Any:
        """Run the graph and return the labeled result (``dask.compute`` options).

        The partitions' statistics are computed on the scheduler; finalizing,
        warnings and labels happen here, in the calling process and thread.
        """
        return compute_all(self, **kwargs)[0]

    def __repr__(self) -> str:
        return (f"Lazy({self._fn.__name__} over {self.n_partitions} partition"
                f"{'s' if self.n_partitions != 1 else ''}; .compute() runs it)")
