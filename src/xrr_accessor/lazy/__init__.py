"""dask-backed annotations: statistics per partition, added, then finalized.

The statistics of disjoint sets of items add (:mod:`xrr_accessor.engine.additive`),
so a dask-backed DataFrame or xarray object is computed partition by
partition, on whatever scheduler dask is pointed at (threads, processes, a
``dask.distributed`` cluster), and the sums are finalized in the client.
Public functions given such data return a :class:`~.graph.Lazy` (a dask
collection) instead of computing: ``.compute()`` (or ``dask.compute``) runs it.

Nothing here imports dask until dask-backed data arrive: :func:`is_lazy` only
looks at objects when dask has been imported by the caller already.
"""

from __future__ import annotations

import functools
import importlib.abc
import importlib.util
import inspect
import sys
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np

from ..errors import per_call

__all__ = ["deferrable", "is_lazy", "when_imported"]

F = TypeVar("F", bound=Callable[..., Any])


def is_lazy(data: Any) -> bool:
    """Whether ``data`` is dask-backed (a dask DataFrame, or xarray holding dask arrays).

    Examples
    --------
    >>> import pandas as pd
    >>> is_lazy(pd.DataFrame({"item": [1]}))
    False
    """
    if data is None or "dask" not in sys.modules:
        return False
    data = data._xrr_bound[0] if hasattr(type(data), "_xrr_bound") else data  # the type:
    # a DataFrame's missing attributes are searched among its columns
    module = type(data).__module__
    if module.startswith(("pandas.", "numpy", "polars.", "builtins")):
        return False  # the common cases, without dask's slower generic test
    if module.startswith("xarray."):
        # a Dataset's variables; a DataArray's below (asked of the type: a DataArray looks
        # a missing attribute up among its coordinates and attrs, microseconds)
        variables = data.variables if hasattr(type(data), "variables") else None
        if variables is None:
            variables = {None: data.variable, **data.coords.variables}
        # numpy-backed variables and indexes (held by pandas) answered first: ``chunks``
        # asks xarray's chunk managers, a typing.Protocol check of 15-30 microseconds
        return any(type(getattr(v, "_data", None)) is not np.ndarray
                   and type(v).__name__ != "IndexVariable" and v.chunks is not None
                   for v in variables.values())
    import dask

    return bool(dask.is_dask_collection(data))


def _lazy_other(fn: Callable[..., Any], data: Any, args: tuple[Any, ...],
                kwargs: dict[str, Any]) -> bool:
    try:
        bound = inspect.signature(fn).bind_partial(data, *args, **kwargs)
    except TypeError:
        return False
    return is_lazy(bound.arguments.get("other"))


def deferrable(fn: F) -> F:
    """Make a public function return a lazy result when its data are dask-backed.

    Computed now, its warnings are collected per call and raised once each
    (:func:`~xrr_accessor.errors.per_call`).
    """
    eager = per_call(fn)

    @functools.wraps(fn)
    def wrapper(data: Any, *args: Any, **kwargs: Any) -> Any:
        if is_lazy(data) or (("other" in kwargs or args) and _lazy_other(fn, data, args,
                                                                          kwargs)):
            from ..schema.params import check_call
            from .graph import defer

            check_call(fn, (data, *args), kwargs)

            return defer(fn, data, args, kwargs)
        return eager(data, *args, **kwargs)

    return wrapper  # type: ignore[return-value]


class _PostImport(importlib.abc.MetaPathFinder):
    """Runs ``hook`` right after ``name`` is first imported (never imports it)."""

    def __init__(self, name: str, hook: Callable[[], None]) -> None:
        self.name, self.hook = name, hook

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
        if fullname != self.name:
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(fullname)
        if spec is None or spec.loader is None:
            return spec
        loader, hook = spec.loader, self.hook
        run = loader.exec_module

        def exec_module(module: Any) -> None:
            run(module)
            hook()

        loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


def when_imported(name: str, hook: Callable[[], None]) -> None:
    """Call ``hook`` now if module ``name`` is imported, else right after it is."""
    if name in sys.modules:
        hook()
    elif not any(isinstance(f, _PostImport) and f.name == name for f in sys.meta_path):
        sys.meta_path.insert(0, _PostImport(name, hook))
