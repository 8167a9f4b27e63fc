"""Labeled results: estimates over (label, replication or pair) -> pandas or xarray.

From a DataFrame: a float (one label, one cell), a Series, or a DataFrame
(index ``label``, columns ``replication`` or the pair MultiIndex
``(replication, replication_other)``). Metadata and counts ride in ``attrs``,
the counts as plain dicts shaped like the result
(``pd.DataFrame(result.attrs["n_items"])`` rebuilds the table).

From xarray: a DataArray with dims ``label`` and ``replication`` or ``pair``
(a MultiIndex over ``replication`` and ``replication_other``), counts as
coordinates and metadata in ``attrs``.

A dimension the input did not have (no label, no replication) is dropped.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from ..coefficients import Estimates
from ..errors import DroppedDataWarning, ScaleWarning, UndefinedWarning, warn
from ..schema import Annotations

__all__ = [
    "cell_name", "label_result", "label_table", "pair_index", "plain_counts", "warn_categories",
    "warn_dropped", "warn_scales", "warn_undefined",
]


def pair_index(ann: Annotations, pairs: np.ndarray) -> pd.MultiIndex:
    """The MultiIndex (replication, replication_other) of replication pairs.

    Where the replications are in sorted order (as read: their codes follow their
    sorted names), built from the pairs' codes, its levels the replications each
    side uses, as ``pd.MultiIndex.from_arrays`` makes them, without factorizing
    (a sixth of the time; Table 5 builds four).
    """
    reps = ann.replications
    names = ["replication", "replication_other"]
    if not (reps.is_monotonic_increasing and reps.is_unique and not reps.hasnans):
        return pd.MultiIndex.from_arrays([reps[pairs[:, 0]], reps[pairs[:, 1]]], names=names)
    levels, codes = [], []
    for side in (np.asarray(pairs[:, 0]), np.asarray(pairs[:, 1])):
        used = np.unique(side)
        levels.append(reps[used].rename(None))
        codes.append(np.searchsorted(used, side))
    return pd.MultiIndex(levels=levels, codes=codes, names=names, verify_integrity=False)


def label_result(
    est: Estimates,
    ann: Annotations,
    cells: pd.Index,
    kind: str,
    attrs: dict[str, Any],
    keep_cells: bool | None = None,
) -> Any:
    """Shape ``est`` as the caller's kind of object (``"pandas"`` or ``"xarray"``).

    ``cells`` indexes the second axis of ``est``: replications, or pairs (a
    MultiIndex). That dimension is kept if the input had replications, unless
    ``keep_cells`` says otherwise.
    """
    dim = "pair" if isinstance(cells, pd.MultiIndex) else "replication"
    keep = ann.has_replication if keep_cells is None else keep_cells
    if kind != "xarray" and not ann.has_label and not keep and est.value.size == 1:
        return float(est.value.reshape(-1)[0])  # one value from pandas: a float, no attrs
    attrs = {**ann.said, **attrs, **ann.notes}
    value = est.value
    counts = dict(est.counts)
    labels = ann.labels
    if not ann.has_label:
        value = value[0]
        counts = {k: v[0] for k, v in counts.items()}
    if not keep:
        value = value[..., 0]
        counts = {k: v[..., 0] for k, v in counts.items()}
    dims = (["label"] if ann.has_label else []) + ([dim] if keep else [])
    if kind == "xarray":
        out = _labeled_array(value, dims, counts, labels if ann.has_label else None,
                             cells if keep else None, attrs.get("name"))
        out.attrs.update({k: v for k, v in attrs.items() if k != "name"})
        return out
    if value.ndim == 0:
        return float(value)
    index = labels if ann.has_label else cells

    def frame(arr: np.ndarray) -> pd.Series | pd.DataFrame:
        if arr.ndim == 1:
            return pd.Series(arr, index=index, name=attrs.get("name"))
        return pd.DataFrame(arr, index=labels, columns=cells)

    out = frame(np.asarray(value, dtype=float))
    out.attrs.update({k: v for k, v in attrs.items() if k != "name"})
    # plain dicts, not frames: pandas compares attrs with == when concatenating
    for k, v in counts.items():
        out.attrs[k] = plain_counts(np.asarray(v, dtype=object), index, cells)
    return out


def plain_counts(values: np.ndarray, index: pd.Index, columns: pd.Index) -> dict[Any, Any]:
    """``to_dict()`` of the Series (1-d ``values`` over ``index``) or the DataFrame (2-d,
    rows ``index``, ``columns``) a result's counts would be, without building it: the
    same keys and values (a Series and its ``to_dict`` per count cost more than the
    rest of a small call).

    Examples
    --------
    >>> plain_counts(np.array([3, 4], dtype=object), pd.Index(["joy", "anger"]), None)
    {'joy': 3, 'anger': 4}
    >>> plain_counts(np.array([[3, 4]], dtype=object), pd.Index(["joy"]), pd.Index(["A", "B"]))
    {'A': {'joy': 3}, 'B': {'joy': 4}}
    """
    if values.ndim == 1:
        return dict(zip(index, values.tolist(), strict=True))
    rows = list(index)
    return {col: dict(zip(rows, values[:, j].tolist(), strict=True))
            for j, col in enumerate(columns)}


def _labeled_array(value: np.ndarray, dims: list[str], counts: dict[str, Any],
                   labels: pd.Index | None, cells: pd.Index | None, name: Any) -> xr.DataArray:
    """The DataArray of a result: coordinates built as variables in one constructor call
    (a tenth of the time of ``assign_coords``, which aligns); MultiIndex coordinates (labels
    by category, replication pairs) assigned after, as xarray builds them."""
    coords: dict[str, Any] = {}
    multi = []
    if labels is not None:
        if isinstance(labels, pd.MultiIndex):  # e.g. (label, category)
            levels = [f"{n}_name" if n == "label" else n for n in labels.names]
            multi.append((labels.set_names(levels), "label"))
        else:
            coords["label"] = xr.Variable("label", labels)
    if cells is not None:
        if isinstance(cells, pd.MultiIndex):
            multi.append((cells, "pair"))
        else:
            coords["replication"] = xr.Variable("replication", cells)
    count_vars = {k: _variable(dims, np.asarray(v)) for k, v in counts.items()}
    if not dims:  # one value: no index to build, the variables as they are (a fifth)
        return xr.DataArray(_variable((), np.asarray(value)), coords=count_vars,
                            name=name, indexes={}, fastpath=True)
    if not multi:
        return xr.DataArray(value, dims=dims, coords={**coords, **count_vars}, name=name)
    out = xr.DataArray(value, dims=dims, coords=coords, name=name)
    for index, dim in multi:
        out = out.assign_coords(xr.Coordinates.from_pandas_multiindex(index, dim))
    return out.assign_coords(count_vars)


def _variable(dims: Any, data: np.ndarray) -> xr.Variable:
    """``xr.Variable(dims, data)``; a plain numpy array of numbers or booleans taken as it
    is (xarray's checks would keep it as it is: a third of the time)."""
    if type(data) is np.ndarray and data.dtype.kind in "biuf":
        return xr.Variable(dims, data, fastpath=True)
    return xr.Variable(dims, data)


def label_table(
    est: Estimates, columns: dict[str, np.ndarray], ann: Annotations, cells: pd.Index,
    kind: str, attrs: dict[str, Any], keep_cells: bool | None = None,
) -> Any:
    """Several statistics per cell (estimate, se, lower, upper, ...) as one table.

    From pandas: a DataFrame with one row per (label, cell) and the counts of
    ``est`` as columns; for a single cell, a Series of the statistics with
    the counts in ``attrs`` (as every single value keeps them). From xarray:
    a Dataset with one variable per statistic, counts as coordinates.
    """
    counts = label_result(est, ann, cells, "xarray", {}, keep_cells).coords
    ds = xr.Dataset({name: label_result(Estimates(arr), ann, cells, "xarray", {}, keep_cells)
                     for name, arr in columns.items()})
    ds = ds.assign_coords({k: v for k, v in counts.items() if k not in ds.coords})
    ds.attrs.update({k: v for k, v in {**ann.said, **attrs}.items() if k != "name"})
    if kind == "xarray":
        return ds
    if not ds.sizes:
        out = pd.Series({k: float(v) for k, v in ds.data_vars.items()}, name=attrs.get("name"))
        out.attrs.update(ds.attrs)
        out.attrs.update({k: int(v) for k, v in ds.coords.items()})
        return out
    out = ds.reset_coords().to_dataframe()
    out.attrs.update(ds.attrs)
    return out


def cell_name(cells: pd.Index, j: int) -> str:
    """A replication's name, or a pair's as ``A x B``."""
    cell = cells[j]
    if isinstance(cell, tuple):
        return " x ".join(map(str, cell))
    return str(cell)


def warn_undefined(est: Estimates, ann: Annotations, cells: pd.Index, what: str) -> None:
    """One :class:`UndefinedWarning` listing where ``est`` is NaN and why."""
    assert est.reason is not None
    undefined = est.reason != ""
    if not undefined.any():
        return
    bad = np.argwhere(undefined)
    parts = []
    for lab, j in bad[:3]:
        where = []
        if ann.has_label:
            where.append(f"label {ann.labels[lab]!r}")
        if ann.has_replication:
            where.append(cell_name(cells, j))
        parts.append(f"{', '.join(where) or 'the data'}: {est.reason[lab, j]}")
    more = f" (and {len(bad) - 3} more)" if len(bad) > 3 else ""
    warn(f"{what} is undefined (NaN) for {len(bad)} of {est.value.size} cell(s): "
         + "; ".join(parts) + more, UndefinedWarning)


def warn_scales(found: list[tuple[int, int, str]], ann: Annotations, pairs: pd.Index) -> None:
    """One :class:`ScaleWarning` naming the pairs whose replications look like
    different scales (see :func:`~xrr_accessor.coefficients.cross.scale_gaps`)."""
    if not found:
        return
    parts = []
    for lab, p, what in found[:3]:
        a, b = pairs[p]
        where = f"label {ann.labels[lab]!r}, " if ann.has_label else ""
        parts.append(f"{where}{a!s} x {b!s}: " + what.format(x=a, y=b))
    more = f" (and {len(found) - 3} more)" if len(found) > 3 else ""
    warn("kappa_x compares replications that look like different scales: "
         + "; ".join(parts) + more + ". If they are, recode one side to the other's scale "
         "(e.g. bin a 0-100 rating into the categories of a 3-point one) before comparing.",
         ScaleWarning)


def warn_categories(found: list[tuple[int, int, int, int]], ann: Annotations, what: str
                    ) -> None:
    """One :class:`ScaleWarning` naming the replications that use few of their label's
    q categories while others use the rest (see
    :func:`~xrr_accessor.coefficients.chance.unused_categories`): ``what`` counts q."""
    if not found:
        return
    parts = []
    for lab, r, used, k in found[:3]:
        where = f"label {ann.labels[lab]!r}, " if ann.has_label else ""
        parts.append(f"{where}{ann.replications[r]!s} uses {used} of {k}")
    more = f" (and {len(found) - 3} more)" if len(found) > 3 else ""
    verb = "count" if " and " in what else "counts"
    warn(f"{what} {verb} all q categories of a label, those of every replication, and "
         "some replications use few of them: " + "; ".join(parts) + more + ". If a "
         "replication rates on a scale of its own, compute it on its own rows (its q is "
         "then its own categories), or recode the scales to one; alpha, Fleiss and "
         "Conger do not depend on unused categories.", ScaleWarning)


def warn_dropped(est: Estimates, ann: Annotations, what: str) -> None:
    """A :class:`DroppedDataWarning` when ``n_dropped`` counts any item.

    Names the cells (label, replication) that lost the most items.
    """
    dropped = est.counts.get("n_dropped")
    if dropped is None or not dropped.any():
        return
    cells = np.argwhere(dropped > 0)
    cells = cells[np.argsort(-dropped[tuple(cells.T)], kind="stable")]
    named = []
    for lab, r in cells[:3]:
        where = []
        if ann.has_label:
            where.append(f"label {ann.labels[lab]!r}")
        if ann.has_replication:
            where.append(f"replication {ann.replications[r]!r}")
        named.append(f"{' in '.join(where) or 'the data'}: {dropped[lab, r]}")
    more = f" and {len(cells) - 3} more" if len(cells) > 3 else ""
    warn(f"{what} needs every rater on every item: left out items rated by two or more "
         f"but not all raters (up to {dropped.max()} items per label; "
         f"{'; '.join(named)}{more}; see n_dropped). Use metric='alpha' to keep them.",
         DroppedDataWarning)
