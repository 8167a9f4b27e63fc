"""Exception and warning classes of xrr_accessor.

Every error subclasses the builtin a user would catch (``ValueError`` or
``TypeError``) and its message names the column (or dimension) at fault and
the fix. Every warning subclasses :class:`XRRWarning`, so a test suite or a
pipeline can turn just ours into errors with
``warnings.simplefilter("error", XRRWarning)``.
"""

from __future__ import annotations

import functools
import os
import sys
import threading
import types
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

__all__ = [
    "AmbiguousLevelWarning",
    "DroppedDataWarning",
    "InputError",
    "LevelError",
    "LevelNote",
    "RoleError",
    "UndefinedWarning",
    "XRRWarning",
    "collecting",
    "per_call",
    "warn",
]

F = TypeVar("F", bound=Callable[..., Any])


class InputError(ValueError):
    """The annotations cannot be read as given (shape, duplicates, options)."""


class RoleError(InputError):
    """A role (item, rater, replication, label, value) is missing or unknown."""


class DataTypeError(InputError, TypeError):
    """The data are of a type no function reads (a number, a list; dask-backed data
    where a function needs them in memory). Also a TypeError, as it was before."""


class LevelError(TypeError):
    """The values of a label do not fit the requested level of measurement."""


class XRRWarning(UserWarning):
    """Base class of every warning this package emits."""


class UndefinedWarning(XRRWarning):
    """A coefficient is undefined on these data and was returned as NaN."""


class DroppedDataWarning(XRRWarning):
    """Some annotations were left out of a coefficient, as its definition requires."""


class ScaleWarning(XRRWarning):
    """Two replications compared by kappa_x share few values: different scales? Or
    numbers with many values scored as unordered labels (alt_test's accuracy)."""


class CostWarning(XRRWarning):
    """A computation will be long or use much memory (the estimate, said before it starts)."""


class LevelNote(XRRWarning):
    """The level of measurement was inferred from the values (``level=`` not given):
    the note names the level and why; pass ``level=`` to choose it (and silence it)."""


class AmbiguousLevelWarning(LevelNote):
    """The values fit two levels about equally (0-10 ratings, codes 0-4): the level
    inferred is named, and the alternative; pass ``level=`` to choose."""


class StrayValueWarning(XRRWarning):
    """A label of numbers written as text holds a few values that are not numbers."""


_local = threading.local()


@contextmanager
def collecting() -> Iterator[list[tuple[type[Warning], str]]]:
    """Collect this thread's :func:`warn` calls instead of raising them, each once.

    Thread-safe where ``warnings.catch_warnings`` is not (it swaps process-wide
    state, so concurrent calls lose or swap their warnings, and a filter can
    stay installed over the caller's): dask runs partitions in threads, and
    their warnings are collected there and raised once in the client; every
    public function collects its warnings here (:func:`per_call`). The same
    warning (category and message) is kept once per sink.

    Examples
    --------
    >>> with collecting() as sink:
    ...     warn("a note", UndefinedWarning)
    ...     warn("a note", UndefinedWarning)
    >>> [(c.__name__, m) for c, m in sink]
    [('UndefinedWarning', 'a note')]
    """
    previous = getattr(_local, "sink", None)
    sink: list[tuple[type[Warning], str]] = []
    _local.sink = sink
    try:
        yield sink
    finally:
        _local.sink = previous


#: The check of a public call's parameters (``schema.params.check_call``), set when
#: that module is imported; this module sits below every layer and imports none.
_DOOR: list[Callable[[Callable[..., Any], tuple[Any, ...], dict[str, Any]], None]] = []


def set_door(check: Callable[[Callable[..., Any], tuple[Any, ...], dict[str, Any]], None]
             ) -> None:
    """Set the check :func:`per_call` runs on a public call's arguments first."""
    _DOOR[:] = [check]


def per_call(fn: F) -> F:
    """Raise the warnings of a public function once each, when it returns.

    The call's :func:`warn` calls go to a thread-local sink (:func:`collecting`),
    so a warning repeated inside one call (the same message from two passes
    over the data) reaches the caller once, and concurrent calls in threads
    keep their own warnings; the caller's ``warnings`` filters are left as
    they were. Inside another collecting call (a public function calling
    another one), the warnings go to that call's sink instead.

    Examples
    --------
    >>> @per_call
    ... def twice() -> int:
    ...     warn("said twice", UndefinedWarning)
    ...     warn("said twice", UndefinedWarning)
    ...     return 1
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     twice()
    1
    >>> [str(w.message) for w in caught]
    ['said twice']
    """

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if getattr(_local, "sink", None) is not None:  # an outer call collects
            return fn(*args, **kwargs)
        if _DOOR:  # the parameters' kinds, checked at the door (schema.params)
            _DOOR[0](fn, args, kwargs)
        sink: list[tuple[type[Warning], str]] = []  # collecting(), without its generator
        _local.sink = sink
        try:
            return fn(*args, **kwargs)
        finally:
            _local.sink = None  # raise them now, at the caller's line
            for category, message in sink:
                warn(message, category)

    return wrapper  # type: ignore[return-value]


def warn(message: str, category: type[Warning]) -> None:
    """Warn at the caller's line: the first frame outside this package.

    Warnings raised deep inside a call point at the user's code, not at a
    library line, whatever the call depth (accessor, api, pipeline; dask's
    compute, for the results of dask-backed data). Inside :func:`collecting`,
    the warning is collected instead (once: a repeat is not added again).
    """
    sink = getattr(_local, "sink", None)
    if sink is not None:
        if (category, message) not in sink:
            sink.append((category, message))
        return
    skip = tuple(_folder(m.__file__) for m in (
        sys.modules[__package__], sys.modules.get("dask")) if m is not None and m.__file__)
    level = 2  # 1 is this function; 2 its caller, the first frame looked at
    frame: types.FrameType | None = sys._getframe(1)
    while frame is not None and _inside(frame.f_code.co_filename, skip):
        frame = frame.f_back
        level += 1
    warnings.warn(message, category, stacklevel=level)


#: Whether a code file lies in the skipped folders, by (file, folders): absolute paths
#: only (a relative one depends on the working directory); cleared when large.
_INSIDE: dict[tuple[str, tuple[str, ...]], bool] = {}


def _inside(filename: str, skip: tuple[str, ...]) -> bool:
    """``os.path.abspath(filename).startswith(skip)``, answered once per absolute file
    (a warning raised from a deep call walks a dozen frames)."""
    if not os.path.isabs(filename):
        return os.path.abspath(filename).startswith(skip)
    key = (filename, skip)
    found = _INSIDE.get(key)
    if found is None:
        found = os.path.abspath(filename).startswith(skip)
        if len(_INSIDE) >= 4096:
            _INSIDE.clear()
        _INSIDE[key] = found
    return found


def _folder(path: str) -> str:
    """``os.path.dirname(os.path.abspath(path))``, found once per absolute path."""
    return _absolute_folder(path) if os.path.isabs(path) else os.path.dirname(
        os.path.abspath(path))


@functools.lru_cache(maxsize=16)
def _absolute_folder(path: str) -> str:
    return os.path.dirname(os.path.abspath(path))
