"""What the pipeline sees of dask-backed annotations (no dask import here).

A dask-backed call runs the same public function twice on a :class:`Staged`
stand-in: once on the worker side, without statistics, to learn which
statistics the call needs (:func:`~xrr_accessor.engine.pipeline.run` raises
:class:`Planned` with the call's :class:`~xrr_accessor.engine.additive.Meta`),
and once in the client, with the statistics the partitions added up, to
finalize, warn and label exactly as in memory.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..schema import Annotations
from .additive import Meta, Stats

__all__ = ["OTHER_REFUSED", "Planned", "Staged"]

#: Why other= is refused with dask-backed data, and the way round.
OTHER_REFUSED = (
    "other= with dask-backed data: put both replications in one frame with a "
    "replication column (dd.concat([a.assign(pool='a'), b.assign(pool='b')])), "
    "partitioned so that each item sits in one partition.")


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
    meta: Meta | None = None
    stats: Stats | None = None
    #: The partitions' replicate statistics under the call's bootstrap draws
    #: (a :class:`~xrr_accessor.engine.draws.Sampled`, read as the run's rows), if any.
    sampled: Any = None


class Planned(Exception):
    """Raised by :func:`~xrr_accessor.engine.pipeline.run` on a :class:`Staged` without
    statistics: carries the :class:`Meta` the partitions must compute."""

    def __init__(self, meta: Meta) -> None:
        super().__init__("planned")
        self.meta = meta

