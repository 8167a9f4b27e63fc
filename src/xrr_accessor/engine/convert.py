"""Annotations to other layouts: a long DataFrame, or a Dataset (dense or sparse).

Both read back with the ``.xrr`` accessor; inputs are read through the same
roles and validation as every coefficient.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from ..errors import InputError, per_call
from .pipeline import annotations as canonical

__all__ = ["DENSE_MIN_FILL", "to_frame", "to_xarray"]


#: ``layout="auto"`` keeps the dense grid while at least this share of its cells is filled.
DENSE_MIN_FILL = 0.25


@per_call
def to_xarray(data: Any, layout: str = "auto", **roles: Any) -> xr.Dataset:
    """Annotations as a Dataset: one variable per label.

    Two layouts, both read back by the ``.xrr`` accessor:

    * ``"dense"``: dims (item, rater[, replication]), a missing annotation
      is NaN;
    * ``"annotation"``: one dim ``annotation``, with ``item``, ``rater``
      (and ``replication``) as coordinates along it: nothing is stored for
      a missing annotation, so crowd data (many raters, few per item) stay
      as small as the frame they came from.

    ``"auto"`` (default) takes the dense grid when at least
    :data:`DENSE_MIN_FILL` of its cells hold an annotation, else the
    annotation layout. Values keep their categories (numbers stay numbers,
    strings stay strings).

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"item": [1, 1, 2], "rater": ["a", "b", "a"], "joy": [0, 1, 1]})
    >>> ds = to_xarray(df)
    >>> ds["joy"].sizes["item"], ds["joy"].sizes["rater"], int(ds["joy"].isnull().sum())
    (2, 2, 1)
    >>> sparse = to_xarray(df, layout="annotation")
    >>> sparse["joy"].dims, sparse["item"].values.tolist()
    (('annotation',), [1, 1, 2])
    >>> sparse.xrr.irr().values.tolist() == ds.xrr.irr().values.tolist()
    True
    """
    if layout not in ("auto", "dense", "annotation"):
        raise InputError(f"layout={layout!r}; use 'auto', 'dense' or 'annotation'.")
    ann, _ = canonical(data, **roles)
    rep = ann.has_replication
    cells = len(ann.items) * len(ann.raters) * (len(ann.replications) if rep else 1)
    if layout == "auto":
        layout = "dense" if len(ann.item) >= DENSE_MIN_FILL * cells else "annotation"
    values = {}
    for j, name in enumerate(ann.labels):
        cats = ann.categories[j]
        numeric = pd.api.types.is_numeric_dtype(cats.dtype) and not pd.api.types.is_bool_dtype(
            cats.dtype)
        ok = ann.codes[j] >= 0
        arr = np.full(len(ann.item), np.nan, dtype=float if numeric else object)
        arr[ok] = cats.to_numpy()[ann.codes[j][ok]]
        values[name if ann.has_label else "value"] = arr
    if layout == "annotation":
        coords = {"item": ("annotation", ann.items.to_numpy()[ann.item]),
                  "rater": ("annotation", ann.raters.to_numpy()[ann.rater])}
        if rep:
            coords["replication"] = ("annotation", ann.replications.to_numpy()[ann.replication])
        return xr.Dataset({k: ("annotation", v) for k, v in values.items()}, coords=coords)
    dims = ["item", "rater"] + (["replication"] if rep else [])
    shape = [len(ann.items), len(ann.raters)] + ([len(ann.replications)] if rep else [])
    index = (ann.item, ann.rater) + ((ann.replication,) if rep else ())
    dense_coords: dict[str, Any] = {"item": ann.items, "rater": ann.raters}
    if rep:
        dense_coords["replication"] = ann.replications
    out = {}
    for name, arr in values.items():
        grid = np.full(shape, np.nan, dtype=arr.dtype)
        grid[index] = arr
        out[name] = (dims, grid)
    return xr.Dataset(out, coords=dense_coords)


@per_call
def to_frame(data: Any, **roles: Any) -> pd.DataFrame:
    """Annotations as a long DataFrame: item, rater, [replication,] one column per label.

    Rows where every label is missing are left out.

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> da = xr.DataArray([[1, np.nan], [2, 2]], dims=("item", "rater"), name="score")
    >>> to_frame(da)
       item  rater  score
    0     0      0    1.0
    1     1      0    2.0
    2     1      1    2.0
    """
    ann, _ = canonical(data, **roles)
    keep = (ann.codes >= 0).any(axis=0)
    cols: dict[str, Any] = {
        "item": ann.items.to_numpy()[ann.item[keep]],
        "rater": ann.raters.to_numpy()[ann.rater[keep]],
    }
    if ann.has_replication:
        cols["replication"] = ann.replications.to_numpy()[ann.replication[keep]]
    for j, name in enumerate(ann.labels):
        codes = ann.codes[j][keep]
        cats = ann.categories[j]
        vals = pd.Series(cats.to_numpy(), dtype=cats.dtype).reindex(codes).to_numpy()
        cols[name] = vals
    return pd.DataFrame(cols)
