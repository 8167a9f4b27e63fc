"""The ``.xrr`` namespace on polars DataFrames and LazyFrames (the ``polars`` extra).

Registered when polars is imported, before or after xrr_accessor (nothing
here is imported otherwise). A polars frame is read through Arrow without a
pandas copy of its data: numeric columns are handed over as the very numpy
buffers polars holds (a copy only where nulls must become NaN), text columns
as pandas' Arrow-backed ``str`` arrays over polars' own Arrow buffers, and
categorical columns as their dictionary codes; the shared reader then
factorizes them into codes as it does for pandas input. A LazyFrame is
collected once per call, with polars' streaming engine.

Results come back as polars frames in tidy form: one row per label and
replication (or pair), the label / replication columns first, then the
values and counts (``n_items``, ``n_unpairable``, ...) of the cell. Scalars,
reports and other result objects are returned as the pandas path returns them.
"""

from __future__ import annotations

import functools
import warnings
from typing import Any

import numpy as np
import pandas as pd
import polars as pl

from .accessors import XRRAccessor

__all__ = ["PolarsXRR", "from_polars", "register_polars", "to_polars"]

#: The methods of ``.xrr`` that the polars namespace mirrors: every public method of
#: pandas' ``.xrr`` (read from the class, so a new one is mirrored too; ``plot`` is a
#: property, mirrored below).
METHODS = tuple(name for name, member in vars(XRRAccessor).items()
                if not name.startswith("_") and callable(member))

_STR = pd.StringDtype("pyarrow", na_value=np.nan)  # pandas' default str dtype


def _column(s: pl.Series) -> pd.Series | np.ndarray:
    """One polars column for the reader, sharing polars' buffers where it can."""
    dtype = s.dtype
    if dtype.is_numeric() or dtype == pl.Boolean:
        if s.null_count() and (dtype.is_integer() or dtype == pl.Boolean):
            return s.cast(pl.Float64).to_numpy()  # missing as NaN, as to_pandas() does
        return s.to_numpy()  # zero-copy for numbers without nulls
    if dtype == pl.String:
        return pd.Series(pd.array(s.to_arrow(), dtype=_STR), name=s.name, copy=False)
    if dtype in (pl.Categorical, pl.Enum) or isinstance(dtype, pl.Enum | pl.Categorical):
        arrow = s.to_arrow()
        codes = arrow.indices.cast("int64").fill_null(-1).to_numpy()
        cats = pd.Index(arrow.dictionary.to_pylist())
        return pd.Series(pd.Categorical.from_codes(codes, cats,
                                                   ordered=isinstance(dtype, pl.Enum)),
                         name=s.name, copy=False)
    return s.to_pandas()  # lists (label sets), dates, ...: as polars converts them


def from_polars(frame: Any) -> pd.DataFrame:
    """A pandas view of a polars DataFrame (a LazyFrame is collected once, streaming).

    Examples
    --------
    >>> import numpy as np, polars as pl
    >>> df = pl.DataFrame({"item": [1, 1, 2], "rater": ["a", "b", "a"], "joy": [1.0, 0, 1]})
    >>> view = from_polars(df)
    >>> list(view.columns), str(view["rater"].dtype)
    (['item', 'rater', 'joy'], 'str')
    >>> np.shares_memory(view["joy"].to_numpy(), df["joy"].to_numpy())
    True
    """
    if isinstance(frame, pl.LazyFrame):
        frame = frame.collect(engine="streaming")
    if isinstance(frame, pl.Series):
        return pd.Series(_column(frame), name=frame.name, copy=False)
    cols = {name: _column(frame.get_column(name)) for name in frame.columns}
    return pd.DataFrame(cols, copy=False)


def _pandas_arg(value: Any) -> Any:
    return from_polars(value) if isinstance(value, pl.DataFrame | pl.LazyFrame | pl.Series
                                            ) else value


def _counts(frame: pd.DataFrame, attrs: dict[str, Any], index: list[str],
            columns: list[str]) -> None:
    """Add the per-cell counts of ``attrs`` (``{cell: {label: n}}``, or ``{label: n}``
    without cells) to a tidy frame, in place."""
    if len(index) != 1:
        return
    keys = list(zip(*(frame[c] for c in columns), strict=True)) if columns else None
    for name, table in attrs.items():
        if not (name.startswith("n_") and isinstance(table, dict)) or name in frame.columns:
            continue
        values = []
        for row, label in enumerate(frame[index[0]]):
            if keys is None:
                cell: Any = table
            else:
                key = keys[row]
                cell = table.get(key if len(key) > 1 else key[0], {})
            values.append(cell.get(label) if isinstance(cell, dict) else None)
        if any(v is not None for v in values):
            frame[name] = pd.array(values, dtype="Int64")


def to_polars(result: Any) -> Any:
    """A pandas result as a tidy polars frame (other results are returned as they are).

    Examples
    --------
    >>> import pandas as pd
    >>> r = pd.DataFrame({"A": [0.5], "B": [0.7]}, index=pd.Index(["joy"], name="label"))
    >>> r.columns.name = "replication"
    >>> r.attrs = {"metric": "alpha", "n_items": {"A": {"joy": 10}, "B": {"joy": 12}}}
    >>> to_polars(r).rows()
    [('joy', 'A', 0.5, 10), ('joy', 'B', 0.7, 12)]
    """
    if isinstance(result, pd.Series):
        name = result.name if result.name is not None else result.attrs.get("metric", "value")
        frame = result.rename(name).to_frame()
        if _meaningful(result.index):
            frame = frame.reset_index()
            _counts(frame, result.attrs, [str(n) for n in result.index.names], [])
    elif isinstance(result, pd.DataFrame):
        frame = result
        names = [n for n in frame.columns.names if n is not None]
        if frame.columns.nlevels == len(names) and names and not frame.empty:
            # one statistic: its name; several (summary): "estimate", as Report.frame
            value = ("estimate" if "statistic" in names
                     else str(result.attrs.get("metric", "value")))
            stacked = frame.stack(list(range(frame.columns.nlevels)), future_stack=True)
            index = [str(n) for n in frame.index.names if n is not None]
            frame = stacked.rename(value).reset_index()
            frame = frame[frame[value].notna() | ~frame[names].eq("").any(axis=1)]
            keys = [n for n in names if n != "quantity"]
            if "quantity" in names:  # with ci: estimate, se, lower, upper as columns
                quantities = list(pd.unique(frame["quantity"]))
                order = frame[[*index, *keys]].drop_duplicates()  # the table's row order
                wide = frame.pivot(index=[*index, *keys], columns="quantity",
                                   values=value).reset_index()
                frame = order.merge(wide, on=[*index, *keys], how="left")[
                    [*index, *keys, *quantities]]
            for key in keys:  # no second replication (an IRR row): null, not ""
                if frame[key].dtype == object or pd.api.types.is_string_dtype(frame[key]):
                    frame[key] = frame[key].astype(object).where(frame[key].ne(""), None)
            _counts(frame, result.attrs, index, [str(n) for n in keys])
        else:
            if frame.columns.nlevels > 1:
                frame = frame.copy()
                frame.columns = ["_".join(str(p) for p in c if p != "") for c in frame.columns]
            frame = frame.reset_index() if _meaningful(frame.index) else frame
    else:
        return result
    frame = frame.rename(columns=str)
    return pl.from_pandas(frame.reset_index(drop=True))


def _meaningful(index: pd.Index) -> bool:
    return not (isinstance(index, pd.RangeIndex) and index.name is None)


class PolarsXRR:
    """Reliability of the annotations of a polars DataFrame or LazyFrame.

    The same methods as pandas' ``.xrr`` (:class:`~xrr_accessor.XRRAccessor`),
    the same numbers; tables come back as tidy polars frames.

    Examples
    --------
    >>> import polars as pl
    >>> import xrr_accessor  # registers .xrr (on polars too, whenever it is imported)
    >>> df = pl.DataFrame({"item": [1, 1, 2, 2, 3, 3], "rater": ["a", "b"] * 3,
    ...                    "joy": [1, 1, 0, 0, 1, 0]})
    >>> df.xrr.irr(metric="cohen").rows()
    [('joy', 0.4, 3, 2, 0, 0)]
    >>> df.lazy().xrr(rater="rater").irr(metric="cohen").columns
    ['label', 'cohen', 'n_items', 'n_raters', 'n_unpairable', 'n_dropped']
    """

    def __init__(self, frame: Any) -> None:
        self._frame = frame
        self._roles: dict[str, Any] = {}
        self._view: pd.DataFrame | None = None

    def __call__(self, **roles: Any) -> PolarsXRR:
        """Bind column roles, as ``df.xrr(item=..., rater=...)`` on pandas."""
        bound = type(self)(self._frame)
        bound._roles = XRRAccessor(None)(**roles)._roles
        return bound

    def _pandas(self) -> pd.DataFrame:
        if self._view is None:  # a LazyFrame is collected once per namespace
            self._view = from_polars(self._frame)
        return self._view

    @property
    def _xrr_bound(self) -> tuple[Any, dict[str, Any]]:
        return self._pandas(), self._roles

    @property
    def plot(self) -> Any:
        """The paper's figures of this data; see :attr:`XRRAccessor.plot`."""
        return XRRAccessor(self._pandas())(**self._roles).plot


def _delegate(name: str) -> Any:
    target = getattr(XRRAccessor, name)

    @functools.wraps(target)
    def method(self: PolarsXRR, *args: Any, **kwargs: Any) -> Any:
        args = tuple(_pandas_arg(a) for a in args)
        kwargs = {k: _pandas_arg(v) for k, v in kwargs.items()}
        bound = XRRAccessor(self._pandas())(**self._roles)
        return to_polars(getattr(bound, name)(*args, **kwargs))

    method.__module__ = __name__
    method.__qualname__ = f"PolarsXRR.{name}"
    return method


for _name in METHODS:
    setattr(PolarsXRR, _name, _delegate(_name))


def register_polars() -> None:
    """Register ``.xrr`` on polars DataFrame and LazyFrame (run when polars is imported)."""
    with warnings.catch_warnings():  # re-registering on reload is harmless
        warnings.simplefilter("ignore", UserWarning)
        pl.api.register_dataframe_namespace("xrr")(PolarsXRR)
        pl.api.register_lazyframe_namespace("xrr")(PolarsXRR)


register_polars()
