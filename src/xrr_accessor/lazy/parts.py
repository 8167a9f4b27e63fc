"""The partitions of dask-backed data as delayed in-memory objects, each item whole
in one: as they are when the data say so, else after a shuffle by item."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr
from dask.delayed import Delayed, delayed
from dask.graph_manipulation import clone

from ..coefficients import lookup
from ..coefficients.registry import needs
from ..engine.additive import RANK_GROUPS, Meta
from ..engine.draws import item_keys
from ..engine.levels import resolve_level
from ..engine.pipeline import MAX_MATRIX_CATEGORIES
from ..engine.staged import Job
from ..errors import InputError
from ..kernels.midranks import mid_ranks
from ..schema import Roles
from ..schema.read import is_annotation_layout
from ..schema.roles import resolve_roles
from .blocks import ORDER, Reader, partition_marginals
from .ids import check_source

__all__ = ["by_item", "item_column", "maybe_ranked", "partitions", "ranked_meta",
           "sum_marginals", "with_ranks"]


def partitions(data: Any, roles: dict[str, Any], shuffle: bool = False
               ) -> tuple[list[Delayed], bool]:
    """The partitions of ``data`` as delayed in-memory objects, and whether an item
    may span several of them.

    A frame indexed by item with known divisions (``dd.read_parquet(...,
    index=item, calculate_divisions=True)``, ``ddf.set_index(item)``) and chunked
    xarray data (items along one dimension) hold whole items. Other frames
    (partitioned by file, date, annotator batch) may not: with ``shuffle`` they
    are shuffled by item here (:func:`by_item`), and then hold whole items.
    """
    if isinstance(data, xr.Dataset | xr.DataArray):
        if is_annotation_layout(data):  # one row per annotation: a frame
            ds = data if isinstance(data, xr.Dataset) else data.to_dataset(
                name=data.name if data.name is not None else "value")
            return partitions(ds.reset_coords().to_dask_dataframe(), roles, shuffle)
        return _xarray_blocks(data, roles), False
    if not hasattr(data, "to_delayed"):
        raise TypeError(f"{type(data).__name__} is not a dask DataFrame or xarray object.")
    check_source(data, roles)
    item = item_column(data, roles)
    whole = data.index.name == item and data.known_divisions
    if not whole and shuffle:
        data, whole = by_item(data, item), True
    return list(data.to_delayed(optimize_graph=True)), not whole


def by_item(data: Any, item: Any) -> Any:
    """``data`` shuffled so that each item's rows sit in one partition, in input order."""
    if data.index.name == item:
        data = data.reset_index()
    data = data.map_partitions(_numbered, item, partition_info=True, meta=data._meta.assign(
        **{ORDER: np.zeros(0, dtype=np.int64), KEY: np.zeros(0, dtype=np.uint64)}))
    # Shuffled on the items' keys, not their values: dask hashes an id by its column's
    # dtype, so item 1 of an integer file and 1 of an object column would land apart.
    return data.shuffle(on=KEY, npartitions=data.npartitions).drop(columns=KEY)


#: The column :func:`by_item` shuffles on: each row's item key (``draws.item_keys``).
KEY = "__xrr_item_key__"


def _numbered(part: pd.DataFrame, item: Any, partition_info: dict[str, Any] | None = None
              ) -> pd.DataFrame:
    number = 0 if partition_info is None else int(partition_info["number"])
    return part.assign(**{ORDER: (number << 40) + np.arange(len(part), dtype=np.int64),
                          KEY: item_keys(pd.Index(part[item]))})


def item_column(data: Any, roles: dict[str, Any]) -> Any:
    """The item column of a dask DataFrame (or its index, when named so)."""
    names = [*data.columns, *([data.index.name] if data.index.name is not None else [])]
    return resolve_roles(names, Roles.from_kwargs(roles), "column")["item"]


def _xarray_blocks(data: xr.Dataset | xr.DataArray, roles: dict[str, Any]) -> list[Delayed]:
    """One delayed object per chunk of the item dimension, whole in the other dims."""
    dims = list(data.dims)
    item = resolve_roles(dims, Roles.from_kwargs(roles), "dimension")["item"]
    ds = data.to_dataset(name=data.name if data.name is not None else "value") \
        if isinstance(data, xr.DataArray) else data
    lacking = [n for n, v in ds.data_vars.items() if item not in v.dims]
    if lacking:
        raise InputError(
            f"variable(s) {lacking} have no {item!r} dimension; with dask-backed data every "
            f"variable is split along {item!r}. Broadcast them first "
            f"(ds[name].broadcast_like(ds[other]))).")
    ds = ds.chunk({d: -1 for d in ds.dims if d != item}).unify_chunks()
    bounds = np.cumsum((0, *ds.chunksizes[item]))
    coords = {d: ds.indexes[d] if d in ds.indexes else pd.RangeIndex(ds.sizes[d])
              for d in ds.dims}
    names = list(ds.data_vars)
    chunked = {}
    for name in names:
        var = ds[name].transpose(item, ...)
        chunked[name] = (var.dims, var.data.to_delayed(optimize_graph=True).reshape(-1))
    out = []
    for i in range(len(bounds) - 1):
        local = {**coords, item: coords[item][bounds[i]:bounds[i + 1]]}
        arrays = {n: (dims_, parts[i]) for n, (dims_, parts) in chunked.items()}
        out.append(delayed(_dataset, pure=True)(
            arrays, local, isinstance(data, xr.DataArray), getattr(data, "name", None),
            dict(data.attrs)))
    return out


def _dataset(arrays: dict[Any, tuple[tuple[Any, ...], np.ndarray]], coords: dict[Any, Any],
             as_array: bool, name: Any, attrs: dict[Any, Any]) -> xr.Dataset | xr.DataArray:
    ds = xr.Dataset({n: (dims, arr) for n, (dims, arr) in arrays.items()},
                    coords={d: c for d, c in coords.items()
                            if any(d in dims for dims, _ in arrays.values())}, attrs=attrs)
    if as_array:
        return ds[next(iter(arrays))].rename(name)
    return ds




def maybe_ranked(fn: Callable[..., Any], data: Any, args: tuple[Any, ...],
                 kwargs: dict[str, Any]) -> bool:
    """Whether a call may take the ``"ranks"`` form (ordinal alpha), so its graph needs
    the marginals stage of :func:`ranked_meta` (another read of every partition): level
    ordinal, and a ``metric`` (its default included) whose statistics the form computes.
    Functions without a metric (kappa_x, reports, item tables) never take the form.

    Examples
    --------
    >>> from xrr_accessor import api
    >>> maybe_ranked(api.irr, None, (), {"level": "ordinal"})
    True
    >>> maybe_ranked(api.irr, None, (), {"level": "ordinal", "metric": "cohen"})
    False
    >>> maybe_ranked(api.cross_kappa, None, (), {"level": "ordinal"})
    False
    """
    try:
        signature = inspect.signature(fn)
        if "metric" not in signature.parameters:
            return False
        bound = signature.bind_partial(data, *args, **kwargs)
        bound.apply_defaults()
        level = resolve_level(bound.arguments.get("level", "nominal"))
        metric = bound.arguments["metric"]
        return level.ordinal and set(needs(lookup(metric))) <= RANK_GROUPS
    except (TypeError, ValueError, KeyError):
        return False


def ranked_meta(meta: Delayed, parts: list[Delayed], roles: dict[str, Any], staged: Delayed,
                reader: Reader | None, boot: bool, fan_in: int = 8) -> Delayed:
    """``meta`` with the mid-ranks of the pairable values of every partition (of the
    ``"ranks"`` form; other metas pass through): each partition's counts (a read of
    clones of ``parts``), added in a tree, then :func:`~.blocks.with_ranks`. The
    statistics pass then takes every partition's sums under the same mid-ranks, so
    they add to the in-memory sums under any partitioning."""
    again = list(clone(*parts)) if len(parts) > 1 else [clone(parts[0])]
    level = [delayed(partition_marginals, pure=True)(p, roles, staged, meta, boot, reader)
             for p in again]
    while len(level) > 1:
        level = [delayed(sum_marginals, pure=True)(*level[i:i + fan_in])
                 for i in range(0, len(level), fan_in)]
    return delayed(with_ranks, pure=True)(meta, level[0], boot)


def with_ranks(meta: Meta | Job, total: np.ndarray | None, boot: bool) -> Meta | Job:
    """``meta`` of the ``"ranks"`` form with the mid-ranks of the pairable counts ``total``
    summed over every partition, so each partition's sums add exactly. With a bootstrap
    (``boot``: each replicate needs its own mid-ranks) the ``"matrix"`` form instead, up to
    :data:`~..engine.pipeline.MAX_MATRIX_CATEGORIES` categories.

    Examples
    --------
    >>> meta = Meta(1, 1, 2, 3, (3,), "ranks", frozenset({"within"}))
    >>> with_ranks(meta, np.array([[[[2.0], [0.0], [2.0]]]]), False).ranks[0, 0, :, 0]
    array([1., 2., 3.])
    >>> with_ranks(meta, None, True).form
    'matrix'
    """
    if not isinstance(meta, Meta) or meta.form != "ranks":
        return meta
    if not boot:
        assert total is not None
        return replace(meta, ranks=mid_ranks(total))
    if meta.n_category > MAX_MATRIX_CATEGORIES:
        raise InputError(
            f"the bootstrap of ordinal alpha over {meta.n_category:,} categories reads every "
            "replicate's mid-ranks, which dask-backed data do not give here; load the data "
            "(.compute()) for ci=, or leave ci= out (the estimate itself runs on dask).")
    return replace(meta, form="matrix")


def sum_marginals(*parts: np.ndarray | None) -> np.ndarray | None:
    """The sum of :func:`~.blocks.partition_marginals` (None: not the ranks form).

    Examples
    --------
    >>> sum_marginals(None, np.ones(2), np.ones(2)).tolist(), sum_marginals(None)
    ([2.0, 2.0], None)
    """
    kept = [p for p in parts if p is not None]
    return sum(kept[1:], kept[0]) if kept else None
