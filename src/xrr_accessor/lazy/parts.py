"""The partitions of dask-backed data as delayed in-memory objects, each item whole
in one: as they are when the data say so, else after a shuffle by item."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import xarray as xr
from dask.delayed import Delayed, delayed

from ..errors import InputError
from ..schema import Roles
from ..schema.read import is_annotation_layout
from ..schema.roles import resolve_roles
from .blocks import ORDER

__all__ = ["by_item", "item_column", "partitions"]


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
    item = item_column(data, roles)
    whole = data.index.name == item and data.known_divisions
    if not whole and shuffle:
        data, whole = by_item(data, item), True
    return list(data.to_delayed(optimize_graph=True)), not whole


def by_item(data: Any, item: Any) -> Any:
    """``data`` shuffled so that each item's rows sit in one partition, in input order."""
    if data.index.name == item:
        data = data.reset_index()
    data = data.map_partitions(_numbered, partition_info=True, meta=data._meta.assign(
        **{ORDER: np.zeros(0, dtype=np.int64)}))
    return data.shuffle(on=item, npartitions=data.npartitions)


def _numbered(part: pd.DataFrame, partition_info: dict[str, Any] | None = None
              ) -> pd.DataFrame:
    number = 0 if partition_info is None else int(partition_info["number"])
    return part.assign(**{ORDER: (number << 40) + np.arange(len(part), dtype=np.int64)})


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


