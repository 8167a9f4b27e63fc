"""Reading an xarray Dataset or DataArray into a :class:`~.tables.Table`: dimensions
item, rater (and replication, label) are aligned already, so codes are positions."""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable
from dataclasses import replace

import numpy as np
import pandas as pd
import xarray as xr

from ..errors import InputError, RoleError
from ..kernels.encode import grid_positions
from ..kernels.threads import concurrently
from .roles import ROLE_ALIASES, Roles, norm, resolve_roles
from .roles import anonymous_raters as _anonymous
from .roles import is_slot as _is_slot
from .tables import ALL_ROWS, Ids, Table, array_series, distinct_text, range_index
from .text import check_text

__all__ = ["READ_PARALLEL_CELLS", "is_annotation_layout", "read_xarray"]

#: Cells of a grid from which reading runs its two passes side by side in threads (a
#: thread's start and the GIL's hand-overs cost more than the pass below: 1.69 vs
#: 1.45 ms for alpha at 1e5 cells, 2.61 vs 2.91 ms at 3e5).
READ_PARALLEL_CELLS = 200_000


def is_annotation_layout(data: xr.Dataset | xr.DataArray) -> bool:
    """One dimension along which item and rater are coordinates (not dimensions)."""
    return len(data.dims) == 1 and any(
        norm(c) in ROLE_ALIASES["item"] for c in data.coords if c not in data.dims)


def _read_annotation_layout(data: xr.Dataset | xr.DataArray, roles: Roles,
                            read_long: Callable[[pd.DataFrame, Roles], Table]) -> Table:
    """The sparse layout (dim ``annotation``, item/rater/replication coordinates) is a
    long frame: read it as one by ``read_long`` (the long reader), labels from its data
    variables."""
    ds = data.to_dataset(name=data.name if data.name is not None else "value") \
        if isinstance(data, xr.DataArray) else data
    if not ds.data_vars:
        raise InputError("the Dataset has no data variables (one per label expected).")
    frame = ds.reset_coords().to_dataframe().reset_index(drop=True)
    names = list(ds.data_vars)
    by_name = replace(roles, labels=None,
                      value=names if isinstance(data, xr.Dataset) else names[0])
    table = read_long(frame, by_name)
    table.source = {k: f"variable {k!r}" for k in table.source}
    table.has_label = isinstance(data, xr.Dataset)
    return table


def read_xarray(data: xr.Dataset | xr.DataArray, roles: Roles,
                read_long: Callable[[pd.DataFrame, Roles], Table]) -> Table:
    """A DataArray or Dataset read on its variables; the sparse annotation layout is a
    long frame, read by ``read_long`` (``schema.read``'s long reader: passed in, so
    neither module imports the other)."""
    if is_annotation_layout(data):
        return _read_annotation_layout(data, roles, read_long)
    dims = list(data.dims)
    dim_of = resolve_roles(dims, roles, "dimension")
    if isinstance(data, xr.Dataset):
        if dim_of["label"] is not None:
            raise RoleError(
                f"a Dataset holds one data variable per label; it also has a label "
                f"dimension {dim_of['label']!r}. Use ds.to_dataarray() or pick one."
            )
        if not data.data_vars:
            raise InputError("the Dataset has no data variables (one per label expected).")
        ds = data
        has_label = True
    else:
        name = data.name if data.name is not None else "value"
        if dim_of["label"] is not None:
            if data.sizes[dim_of["label"]] == 0:
                raise InputError(f"the label dimension {dim_of['label']!r} is empty; there "
                                 "is nothing to compute.")
            ds = data.to_dataset(dim=dim_of["label"])
            has_label = True
        else:  # read as it is: a Dataset of it would cost more than the rest of a read
            ds = None
            has_label = False
    core = [dim_of["item"], dim_of["rater"]] + (
        [dim_of["replication"]] if dim_of["replication"] is not None else []
    )
    extra = [d for d in (data if ds is None else ds).dims if d not in core]
    if extra and ds is None:  # the message names them in the Dataset's order, as ever
        ds = data.to_dataset(name=name)
        extra = [d for d in ds.dims if d not in core]
    if extra:
        raise InputError(
            f"unexpected dimension(s) {extra}; annotations have dims item, rater and "
            "optionally replication and label. Select or stack the others first, or "
            "name the roles with .xrr(item=..., rater=..., replication=...)."
        )
    holder = data if ds is None else ds  # its indexes, sizes and label variables
    variables = ({name: data.variable} if ds is None
                 else {k: ds.variables[k] for k in ds.data_vars})
    indexes, dim_sizes = holder.indexes, holder.sizes  # new mappings at each access:
    index = [indexes[d] if d in indexes else range_index(dim_sizes[d]) for d in core]  # once
    for d, idx in zip(core, index, strict=True):
        if type(idx) is pd.RangeIndex:  # no coordinate: positions, distinct and not text
            continue
        check_text(idx, f"dimension {d!r}")
        distinct_text(idx, f"dimension {d!r}")
        if idx.has_duplicates:
            raise InputError(
                f"dimension {d!r} has repeated coordinate values (e.g. "
                f"{idx[idx.duplicated()][0]!r}); each item/rater/replication must appear "
                "once along its dimension."
            )
    if index[0].hasnans:
        raise InputError(f"dimension {dim_of['item']!r} has missing item ids; drop them first.")
    # aligned on its dimensions already: codes are positions, nothing to factorize.
    # Rows item-major (item, replication, rater) even when the values are stored
    # otherwise: flattening then copies them once (a raters x items matrix), which
    # costs less than the sort by item and the scattered reads it saves.
    order = [dim_of["item"]] + ([dim_of["replication"]] if len(core) == 3 else []) + [
        dim_of["rater"]]
    shape = [dim_sizes[d] for d in order]

    n_cells = math.prod(shape)

    def positions() -> list[np.ndarray]:
        out = []
        for dim in core:
            p = order.index(dim)
            out.append(np.empty(n_cells, dtype=np.int64))
            grid_positions(shape[p], math.prod(shape[p + 1:]), out[-1])
        return out

    sizes = dict(zip(order, shape, strict=True))
    # on the variables, not the DataArrays: their dimensions are set without aligning
    # indexes (aligned already), a tenth of the time
    views = {name: _item_major(var, sizes, order) for name, var in variables.items()}
    # the values flattened item-major (a copy when stored otherwise) beside the
    # positions: two passes over memory, one per thread (numpy's copy and the
    # kernel release the GIL)
    def flatten() -> list[np.ndarray]:
        return [v.reshape(-1) for v in views.values()]

    values, codes = concurrently([flatten, positions], parallel=n_cells >= READ_PARALLEL_CELLS)
    flat = dict(zip(views, values, strict=True))
    item = Ids(codes[0], index[0], core[0])
    rater = Ids(codes[1], index[1], core[1])
    rater = _anonymous(item, rater) if _is_slot(core[1]) else rater
    rep = Ids(codes[2], index[2], core[2]) if len(core) == 3 else None
    labels: dict[Hashable, tuple[np.ndarray | slice, pd.Series]] = {
        name: (ALL_ROWS, array_series(v)) for name, v in flat.items()}
    source = {name: f"variable {name!r}" for name in flat}
    return Table(
        item=item, rater=rater, replication=rep, labels=labels, source=source,
        has_label=has_label, categories=roles.categories,
    )


def _item_major(var: xr.Variable, sizes: dict[Hashable, int], order: list[Hashable]
                ) -> np.ndarray:
    """A variable's values over the dimensions ``order`` (broadcast to ``sizes`` where it
    lacks one): ``var.set_dims(sizes).transpose(*order).values``, a numpy view."""
    if set(var.dims) != set(order):
        var = var.set_dims(sizes)
    values = var.values
    axes = [var.dims.index(d) for d in order]
    return values if axes == list(range(len(axes))) else values.transpose(axes)
