"""Several results of one coefficient, one per form, stacked along a ``form`` dimension.

``irr(data, metric="icc", form="all")`` finalizes the six Shrout-Fleiss forms
from one statistics pass; each is labeled as a single form would be
(:meth:`.pipeline.Run.label`), and :func:`stack_forms` puts them side by
side, named like pingouin's table (ICC1 ... ICC3k):

* from pandas, a value per cell: a Series over the forms (one cell), else a
  DataFrame with one column per form and one row per label (and replication);
* from pandas, with intervals: a DataFrame with one row per form (one cell),
  else one row per label (and replication) and form, the form the last level;
* from xarray: the DataArray or Dataset with a last dimension ``form``.

The attrs are those of the first form's result, with ``form`` set to
``"all"``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

__all__ = ["label_forms", "stack_forms"]


def label_forms(found: Any, forms: dict[str, dict[str, Any]]) -> Any:
    """The targets ``forms`` (key -> parameters) of an evaluation, each labeled, stacked
    along ``form`` (:func:`stack_forms`).

    A pandas table (with intervals) is labeled once: the other forms' columns fill
    copies of the first form's table, whose rows are the cells in the order of
    their arrays (a DataFrame from a Dataset of dims label, replication), so the
    labeling costs one table, not six.
    """
    keys = list(forms)
    first = found.label(keys[0], **forms[keys[0]])
    if found.intervals and isinstance(first, pd.Series | pd.DataFrame):
        rest = {k: _filled(first, found.intervals[k]) for k in keys[1:]}
    else:
        rest = {k: found.label(k, **forms[k]) for k in keys[1:]}
    out = stack_forms({keys[0]: first, **rest})
    if isinstance(first, float):  # one cell: a float has no attrs, the Series over forms has
        counts = found.estimates[keys[0]].counts
        out.attrs = {**found.attrs(keys[0]), **found.run.ann.notes, "form": "all",
                     **{k: int(np.asarray(v).reshape(-1)[0]) for k, v in counts.items()}}
        out.attrs.pop("name", None)
    return out


def _filled(table: pd.Series | pd.DataFrame, columns: dict[str, np.ndarray]
            ) -> pd.Series | pd.DataFrame:
    """``table`` (one row per cell, or one cell's Series) with ``columns`` in place."""
    flat = {k: np.asarray(v, dtype=float).reshape(-1) for k, v in columns.items()}
    if isinstance(table, pd.Series):
        return pd.Series([flat[k][0] if k in flat else v for k, v in table.items()],
                         index=table.index, name=table.name)
    assert all(v.size == len(table) for v in flat.values())  # dropped dimensions: size 1
    return pd.DataFrame({k: flat[k] if k in flat else table[k].to_numpy()
                         for k in table.columns}, index=table.index)


def stack_forms(results: dict[str, Any]) -> Any:
    """The results (one per form, labeled alike) along a ``form`` dimension.

    Parameters
    ----------
    results : dict
        Form name -> the labeled result of that form: all floats, Series,
        DataFrames, DataArrays or Datasets, shaped alike.

    Returns
    -------
    Series, DataFrame, DataArray or Dataset

    Examples
    --------
    >>> stack_forms({"ICC1": 0.25, "ICC2": 0.5}).to_dict()
    {'ICC1': 0.25, 'ICC2': 0.5}
    >>> by_label = {f: pd.Series([v, v / 2], index=pd.Index(["a", "b"], name="label"))
    ...             for f, v in (("ICC1", 0.2), ("ICC2", 0.4))}
    >>> stack_forms(by_label)
    form   ICC1  ICC2
    label
    a       0.2   0.4
    b       0.1   0.2
    """
    names = list(results)
    first = results[names[0]]
    form = pd.Index(names, name="form", dtype=object)
    if isinstance(first, xr.DataArray | xr.Dataset):
        out = xr.concat([results[f] for f in names], dim=form, coords="minimal",
                        compat="override", join="override", combine_attrs="override")
        out = out.transpose(..., "form")
    elif isinstance(first, float | np.floating):
        out = pd.Series([float(results[f]) for f in names], index=form, name="icc")
    elif isinstance(first, pd.Series) and _statistics(first.index):
        out = pd.DataFrame([results[f] for f in names], index=form)  # one cell, a table
    elif isinstance(first, pd.Series):
        out = pd.concat([results[f] for f in names], axis=1, keys=form)
    elif _statistics(first.columns):  # a table: one row per cell and form, form last
        n = len(first)
        stacked = pd.concat([results[f] for f in names], keys=form)
        stacked = stacked.reorder_levels([*range(1, stacked.index.nlevels), 0])
        out = stacked.iloc[np.arange(n * len(names)).reshape(len(names), n).T.ravel()]
    else:  # labels x replications: one row per (label, replication)
        cells = {f: results[f].stack(list(range(results[f].columns.nlevels)),
                                     future_stack=True) for f in names}
        out = pd.concat([cells[f] for f in names], axis=1, keys=form)
    out.attrs = {**getattr(first, "attrs", {}), "form": "all"}
    return out


def _statistics(index: pd.Index) -> bool:
    """Whether ``index`` names statistics (estimate, limits...), not labels or cells
    (which are named ``label``, ``replication``...)."""
    return index.nlevels == 1 and index.name is None and "estimate" in index
