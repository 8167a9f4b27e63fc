"""Parameters checked at the door: one rule per parameter name, for every public function.

Every public function goes through :func:`~xrr_accessor.errors.per_call` (and, for
dask-backed data, :func:`~xrr_accessor.lazy.deferrable`); both call :func:`check_call`
before the function runs. It looks at the arguments by name, so ``labels=0``,
``level={}``, ``gold=[]`` or ``interval=pd.NA`` get one :class:`InputError` that
names the parameter and the values it takes, whichever function was called, instead
of a ``TypeError`` from deep inside. The rules:

- a missing value (``pd.NA``, ``pd.NaT``) is never a setting (``NaN`` is left to the
  function, which says what range of numbers it takes);
- a parameter whose default is ``True`` or ``False`` takes ``True`` or ``False``;
- a parameter whose default is an integer takes an integer (not a bool) within
  :data:`MAX_COUNT`;
- the names in :data:`RULES` (levels, weights, labels, categories, gold, the other
  data) take what their rule says.

Functions check the meaning of the values themselves (a level name, a column that
exists); this only keeps values of the wrong kind out.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Hashable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from ..errors import InputError, set_door

__all__ = ["MAX_COUNT", "RULES", "check_call"]

#: The largest integer a count parameter takes (n_boot, n_splits, top, ...): beyond
#: it the work (or the memory) could not finish on any machine.
MAX_COUNT = 10**9

_EMPTY = inspect.Parameter.empty


def _listlike(v: Any) -> bool:
    return pd.api.types.is_list_like(v) and not isinstance(v, Mapping | str | bytes)


def _matrix(v: Any) -> bool:
    if isinstance(v, pd.DataFrame | np.ndarray):
        return True
    return isinstance(v, list | tuple) and all(_listlike(r) for r in v) and len(v) > 0


def _resolved(v: Any) -> bool:
    """A level already resolved by the engine (``engine.levels.Level``), passed inside."""
    return type(v).__name__ == "Level" and type(v).__module__.endswith("engine.levels")


def _level(v: Any) -> str | None:
    if isinstance(v, str) or callable(v) or _matrix(v) or _resolved(v):
        return None
    return ("takes a level's name ('nominal', 'ordinal', 'interval', 'ratio', ...), a "
            "square K x K disagreement matrix, or a callable D(a, b)")


def _weights(v: Any) -> str | None:
    if isinstance(v, str) or _matrix(v) or _resolved(v):
        return None
    return ("takes a name ('unweighted', 'linear', 'quadratic', ...) or a square K x K "
            "matrix of agreement weights")


def _labels(v: Any) -> str | None:
    if isinstance(v, Mapping):
        return "takes a column name or a list of column names, not a mapping"
    if _listlike(v):
        bad = [x for x in v if not isinstance(x, Hashable) or _listlike(x)]
        return None if not bad else f"lists {bad[0]!r}, which cannot be a column name"
    return None if isinstance(v, Hashable) else "takes a column name or a list of them"


def _categories(v: Any) -> str | None:
    if isinstance(v, Mapping):
        bad = [k for k, x in v.items() if not _listlike(x) or _categories(x) is not None]
        return None if not bad else (f"gives {v[bad[0]]!r} for label {bad[0]!r}; each label "
                                     "takes a list of its categories in order")
    if _listlike(v):
        bad = [x for x in v if not isinstance(x, Hashable) or _listlike(x)]
        return None if not bad else f"lists {bad[0]!r}, which cannot be a category"
    return ("takes a list of categories in order (for every label), or a dict "
            "{label: [categories]}")


def _gold(v: Any) -> str | None:
    if isinstance(v, Mapping | pd.Series | pd.DataFrame):
        return None
    if isinstance(v, Hashable) and not isinstance(v, bool):
        return None
    return ("takes the name of the gold column, a Series or dict {item: gold label}, or "
            "a DataFrame of gold labels")


def _data(v: Any) -> str | None:
    if not isinstance(v, bool | int | float | complex | np.number | np.bool_):
        return None  # data (a frame), or column names (alt_test's candidates)
    return ("is a number; pass annotations (a pandas DataFrame, an xarray Dataset or "
            "DataArray, a dask-backed one) or, in alt_test, the candidates' column names")


#: Rules by parameter name: None when the value is of the right kind, else what the
#: parameter takes (the message after "name=value ").
RULES: dict[str, Callable[[Any], str | None]] = {
    "level": _level, "weights": _weights, "labels": _labels, "categories": _categories,
    "gold": _gold, "other": _data,
}


#: Integer parameters that also take None (a seed: fresh entropy).
_MAY_BE_NONE = frozenset({"seed"})


@functools.lru_cache(maxsize=512)
def _signature(fn: Callable[..., Any]) -> tuple[tuple[str, ...], dict[str, Any]]:
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return (), {}
    names = tuple(n for n, p in params.items()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD))
    return names, {n: p.default for n, p in params.items()}


def _problem(name: str, value: Any, default: Any) -> str | None:
    """What is wrong with ``value`` for a parameter ``name`` whose default is ``default``."""
    count = isinstance(default, int) and not isinstance(default, bool)
    if isinstance(default, bool):
        return None if isinstance(value, bool | np.bool_) else "takes True or False"
    if value is None:
        return "takes a whole number" if count else None
    if value is pd.NA or value is pd.NaT:
        return "is a missing value, not a setting; pass a value or leave it out"
    if count:
        if isinstance(value, bool) or not isinstance(value, int | np.integer | float):
            return "takes a whole number"
        if isinstance(value, float):
            return None if value.is_integer() else "takes a whole number"
        return (None if abs(int(value)) <= MAX_COUNT else
                f"is beyond {MAX_COUNT:,}; no run of that size could finish")
    rule = RULES.get(name) if not isinstance(default, float) else None
    return None if rule is None else rule(value)


def _check(fn_name: str, name: str, value: Any, default: Any) -> None:
    if value is default or (value is None and name in _MAY_BE_NONE):
        return
    problem = _problem(name, value, default)
    if problem is not None:
        shown = repr(value)
        shown = shown if len(shown) <= 60 else shown[:57] + "..."
        raise InputError(f"{fn_name}: {name}={shown} {problem}.")


def check_call(fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    """An :class:`InputError` when an argument of ``fn`` is of a kind its name never takes.

    Examples
    --------
    >>> def irr(data, level="nominal", ci=None, n_boot=1000): ...
    >>> check_call(irr, (None,), {"level": {}})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    xrr_accessor.errors.InputError: irr: level={} takes a level's name ('nominal', ...
    >>> check_call(irr, (None, "ordinal"), {"n_boot": 2000}) is None
    True
    """
    names, defaults = _signature(fn)
    fn_name = getattr(fn, "__name__", "this function")
    for name, value in zip(names[1:], args[1:], strict=False):
        _check(fn_name, name, value, defaults.get(name, _EMPTY))
    for name, value in kwargs.items():
        _check(fn_name, name, value, defaults.get(name, _EMPTY))


set_door(check_call)
