"""Exception and warning classes of xrr_accessor.

Every error subclasses the builtin a user would catch (``ValueError`` or
``TypeError``) and its message names the column (or dimension) at fault and
the fix. Every warning subclasses :class:`XRRWarning`, so a test suite or a
pipeline can turn just ours into errors with
``warnings.simplefilter("error", XRRWarning)``.
"""

from __future__ import annotations

import os
import sys
import threading
import types
import warnings
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = [
    "DroppedDataWarning",
    "InputError",
    "LevelError",
    "RoleError",
    "UndefinedWarning",
    "XRRWarning",
    "warn",
]


class InputError(ValueError):
    """The annotations cannot be read as given (shape, duplicates, options)."""


class RoleError(InputError):
    """A role (item, rater, replication, label, value) is missing or unknown."""


class LevelError(TypeError):
    """The values of a label do not fit the requested level of measurement."""


class XRRWarning(UserWarning):
    """Base class of every warning this package emits."""


class UndefinedWarning(XRRWarning):
    """A coefficient is undefined on these data and was returned as NaN."""


class DroppedDataWarning(XRRWarning):
    """Some annotations were left out of a coefficient, as its definition requires."""


class ScaleWarning(XRRWarning):
    """Two replications compared by kappa_x share few values: different scales?"""


class CostWarning(XRRWarning):
    """A computation will be long or use much memory (the estimate, said before it starts)."""


class StrayValueWarning(XRRWarning):
    """A label of numbers written as text holds a few values that are not numbers."""


_local = threading.local()


@contextmanager
def collecting() -> Iterator[list[tuple[type[Warning], str]]]:
    """Collect this thread's :func:`warn` calls instead of raising them.

    Thread-safe where ``warnings.catch_warnings`` is not (it swaps process-wide
    state): dask runs partitions in threads, and their warnings are collected
    there and raised once in the client.
    """
    previous = getattr(_local, "sink", None)
    sink: list[tuple[type[Warning], str]] = []
    _local.sink = sink
    try:
        yield sink
    finally:
        _local.sink = previous


def warn(message: str, category: type[Warning]) -> None:
    """Warn at the caller's line: the first frame outside this package.

    Warnings raised deep inside a call point at the user's code, not at a
    library line, whatever the call depth (accessor, api, pipeline; dask's
    compute, for the results of dask-backed data). Inside :func:`collecting`,
    the warning is collected instead.
    """
    sink = getattr(_local, "sink", None)
    if sink is not None:
        sink.append((category, message))
        return
    skip = tuple(os.path.dirname(os.path.abspath(m.__file__)) for m in (
        sys.modules[__package__], sys.modules.get("dask")) if m is not None and m.__file__)
    level = 2  # 1 is this function; 2 its caller, the first frame looked at
    frame: types.FrameType | None = sys._getframe(1)
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(skip):
        frame = frame.f_back
        level += 1
    warnings.warn(message, category, stacklevel=level)
