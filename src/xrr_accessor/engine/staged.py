"""What the pipeline sees of dask-backed annotations (no dask import here).

A dask-backed call runs the same public function twice on a :class:`Staged`
stand-in: once on the worker side, without statistics, to learn which
statistics the call needs (:func:`~xrr_accessor.engine.pipeline.run` raises
:class:`Planned` with the call's :class:`~xrr_accessor.engine.additive.Meta`),
and once in the client, with the statistics the partitions added up, to
finalize, warn and label exactly as in memory.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..schema import Annotations
from .additive import Meta

__all__ = ["ANALYTIC_REFUSED", "COMMON_REFUSED", "OTHER_REFUSED", "Job", "Part", "Pieces",
           "Planned", "Staged"]

#: Why other= is refused with dask-backed data, and the way round.
OTHER_REFUSED = (
    "other= with dask-backed data: put both replications in one frame with a "
    "replication column (dd.concat([a.assign(pool='a'), b.assign(pool='b')])), "
    "partitioned so that each item sits in one partition.")


#: Why an analytic interval is refused with dask-backed data (``{name}``: the entry).
ANALYTIC_REFUSED = (
    "the analytic interval of {name} reads every annotation, which stay in the "
    "partitions of dask-backed data; pass method='bootstrap' (its replicates add up "
    "across partitions).")

#: Why ``items="common"`` is refused with dask-backed data.
COMMON_REFUSED = (
    "items='common' needs the annotations in memory (it keeps, per label, the items "
    "every replication rated twice); call it on ddf.compute(), or on a sample of the "
    "items, or use the default items='all' on the dask-backed data.")


@dataclass(frozen=True)
class Staged:
    """Skeleton annotations (indexes and counts, no codes) and, once computed, the
    statistics of every partition added.

    ``top`` is the largest number of annotations of one item in one
    replication over all partitions (the strata kept); ``kind`` is
    ``"pandas"`` or ``"xarray"``, the kind of result the call returns.
    """

    ann: Annotations
    top: int
    kind: str
    #: Per label, whether its categories have an order (numbers, an ordered
    #: Categorical, or categories=), as the encoder decides in memory.
    ordered: tuple[bool, ...] = ()
    meta: Meta | Job | None = None
    stats: Any = None  # Stats, or what a Job's partitions added
    #: The partitions' replicate statistics under the call's bootstrap draws
    #: (a :class:`~xrr_accessor.engine.draws.Sampled`, read as the run's rows), if any.
    sampled: Any = None
    #: The dask-backed data, their roles and reader, when the call finalizes: a call
    #: that finds it needs more (the one-pool report's diagnostics) defers those on it.
    origin: Any = None


@dataclass(frozen=True)
class Part:
    """Annotations a :class:`Job` reads: one partition's (or all, in memory), in the
    call's global rater, replication and category indexes, with its own items.

    ``draws`` are the call's bootstrap draws (None without ``ci=``); ``first``
    numbers its first item among all partitions' (a leave-one-out jackknife's
    groups); ``place`` (one per item) sorts the items of all partitions as the
    input has them (first appearance), so per-item results come out in the
    in-memory order.
    """

    ann: Annotations
    draws: Any = None
    first: int = 0
    place: Any = None


@dataclass(frozen=True)
class Job:
    """What a diagnostic needs from each partition, when it is not a :class:`Meta`'s
    statistics: ``fn(part, *args)`` on a :class:`Part`, returning something that
    adds (``a + b``): :class:`Stats` of sums over its items, or per-item pieces
    that concatenate. ``cells`` is the size of one replicate's sums (the memory
    check of a bootstrap)."""

    fn: Callable[..., Any]
    args: tuple[Any, ...] = ()
    cells: int = 0


class Pieces:
    """What per-item :class:`Job` functions return: a list that ``+`` concatenates
    (in dask's tree), one entry per partition."""

    def __init__(self, parts: list[Any]) -> None:
        self.parts = parts

    def __add__(self, other: Pieces) -> Pieces:
        return Pieces(self.parts + other.parts)


class Planned(Exception):
    """Raised on a :class:`Staged` without statistics (by
    :func:`~xrr_accessor.engine.pipeline.run`, or a diagnostic): carries the
    :class:`Meta` (or :class:`Job`) the partitions must compute."""

    def __init__(self, meta: Meta | Job) -> None:
        super().__init__("planned")
        self.meta = meta

