"""The dask graph of a call on dask-backed annotations, and its lazy result.

Two passes over the partitions, one graph:

1. **survey** each partition (labels, ids, categories, counts; an item may
   not span partitions) and **merge** the surveys into the call's skeleton:
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
import pandas as pd
import xarray as xr
from dask.delayed import Delayed, delayed
from dask.graph_manipulation import clone

from ..engine.pipeline import kind_of
from ..engine.staged import OTHER_REFUSED, Planned, Staged
from ..engine.statistics import Meta, Stats
from ..errors import InputError, collecting, warn
from ..schema import Roles
from ..schema.read import is_annotation_layout
from ..schema.roles import resolve_roles
from .blocks import merge, partition_stats, survey

__all__ = ["FAN_IN", "Lazy", "compute_all", "defer", "partitions"]

#: Statistics added per task of the tree reduction.
FAN_IN = 8


def partitions(data: Any, roles: dict[str, Any]) -> tuple[list[Delayed], bool]:
    """The partitions of ``data`` as delayed in-memory objects, and whether an item
    may span several of them (then the first pass checks that none does)."""
    if isinstance(data, xr.Dataset | xr.DataArray):
        if is_annotation_layout(data):  # one row per annotation: a frame
            ds = data if isinstance(data, xr.Dataset) else data.to_dataset(
                name=data.name if data.name is not None else "value")
            return partitions(ds.reset_coords().to_dask_dataframe(), roles)
        return _xarray_blocks(data, roles), False
    if not hasattr(data, "to_delayed"):
        raise TypeError(f"{type(data).__name__} is not a dask DataFrame or xarray object.")
    item = item_column(data, roles)
    by_item = data.index.name == item and data.known_divisions
    return list(data.to_delayed(optimize_graph=True)), not by_item


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
          kwargs: dict[str, Any]) -> Meta:
    """The statistics the call needs: run it on the skeleton until it would compute."""
    with collecting():  # the client warns, once, when it finishes
        try:
            fn(staged, *args, **kwargs)
        except Planned as planned:
            return planned.meta
    raise RuntimeError(f"{fn.__name__} finished without computing statistics")  # pragma: no cover


def _first(pair: tuple[Any, Any]) -> Any:
    return pair[0]


def _second(pair: tuple[Any, Any]) -> Any:
    return pair[1]


def _all(staged: Staged, messages: Any, meta: Meta, stats: Stats) -> tuple[Any, ...]:
    return staged, messages, meta, stats


def other_of(fn: Callable[..., Any], data: Any, args: tuple[Any, ...],
             kwargs: dict[str, Any]) -> Any:
    """The ``other=`` argument of a call of ``fn`` (None when it has none)."""
    try:
        bound = inspect.signature(fn).bind_partial(data, *args, **kwargs)
    except TypeError:
        return None
    return bound.arguments.get("other")


def defer(fn: Callable[..., Any], data: Any, args: tuple[Any, ...],
          kwargs: dict[str, Any]) -> Lazy:
    """``fn(data, *args, **kwargs)`` on dask-backed ``data``, as a :class:`Lazy`."""
    kwargs = dict(kwargs)
    if kwargs.get("ci") is not None:
        raise InputError(
            "ci= with dask-backed data: the item bootstrap draws whole items across "
            "partitions, which is not implemented for dask yet. Compute the estimates "
            "lazily without ci=, or bring a sample of items into memory "
            "(ddf.compute() / ds.load()) for intervals.")
    if other_of(fn, data, args, kwargs) is not None:
        raise InputError(OTHER_REFUSED)
    bound = getattr(data, "_xrr_bound", None)
    roles = {k: kwargs.pop(k) for k in list(kwargs) if k in Roles.__dataclass_fields__}
    if bound is not None:
        data, roles = bound[0], {**bound[1], **roles}
    Roles.from_kwargs(roles)  # unknown or bad roles fail now, not in a worker
    kind = kind_of(data)
    first, check = partitions(data, roles)
    if not first:
        raise InputError("the dask-backed data have no partitions.")
    surveys = [delayed(survey, pure=True)(p, roles, check) for p in first]
    item = None if kind == "xarray" else item_column(data, roles)
    merged = delayed(merge, pure=True)(surveys, kind, item)
    staged = delayed(_first, pure=True)(merged)
    messages = delayed(_second, pure=True)(merged)
    call = {**kwargs, **roles}
    meta = delayed(_plan, pure=True)(staged, fn, args, call)
    again = list(clone(*first)) if len(first) > 1 else [clone(first[0])]
    stats = [delayed(partition_stats, pure=True)(p, roles, staged, meta) for p in again]
    final = delayed(_all, pure=True)(staged, messages, meta, _tree(stats))
    return Lazy(final, fn, args, call, len(first))


def compute_all(*lazies: Lazy, **kwargs: Any) -> list[Any]:
    """Compute several lazy results in one graph (calls on the same data share their
    passes over it), then finalize each in the calling thread.

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
    parts = dask.compute(*(lazy._final for lazy in lazies), **kwargs)
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

    def __init__(self, final: Delayed, fn: Callable[..., Any], args: tuple[Any, ...],
                 kwargs: dict[str, Any], n_partitions: int) -> None:
        self._final = final
        self._fn, self._args, self._kwargs = fn, args, kwargs
        self.n_partitions = n_partitions

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

    def _finish(self, results: Any) -> Any:
        staged, messages, meta, stats = results[0] if isinstance(results, list) else results
        for category, message in messages:
            warn(message, category)
        ready = Staged(staged.ann, staged.top, staged.kind, staged.ordered, meta, stats)
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
