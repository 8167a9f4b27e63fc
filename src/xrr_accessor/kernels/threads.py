"""Kernels run over blocks in threads (they release the GIL): one block on the calling
thread, one new thread for each other block.

A thread pool would cost a thread per core and a queue per call; a kernel call of
a few milliseconds notices both. Threads here are started per call (about 40
microseconds each) and joined before the call returns, so nothing outlives it.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from typing import TypeVar

import numpy as np

__all__ = ["concurrently", "cores", "in_blocks"]

T = TypeVar("T")


_CORES = os.cpu_count() or 1  # read once: os.cpu_count() costs tens of microseconds


def cores() -> int:
    """The cores a call may use (``os.cpu_count()`` at import, at least 1)."""
    return _CORES


def concurrently(calls: Sequence[Callable[[], T]], parallel: bool = True) -> list[T]:
    """Each of ``calls`` in a thread of its own, the first on the calling thread; their
    results in order. An exception in any is raised here, after every call has
    stopped (the first in order of the calls). ``parallel=False``: one after the
    other on the calling thread (small inputs, where a thread costs more).

    Examples
    --------
    >>> concurrently([lambda: 1, lambda: 2])
    [1, 2]
    """
    if len(calls) == 1 or not parallel:
        return [call() for call in calls]
    results: list[T | None] = [None] * len(calls)
    errors: list[BaseException | None] = [None] * len(calls)

    def work(b: int) -> None:
        try:
            results[b] = calls[b]()
        except BaseException as exc:  # raised in the caller's thread below
            errors[b] = exc

    started = [threading.Thread(target=work, args=(b,)) for b in range(1, len(calls))]
    for t in started:
        t.start()
    work(0)
    for t in started:
        t.join()
    for exc in errors:
        if exc is not None:
            raise exc
    return results  # type: ignore[return-value]


def in_blocks(n: int, fn: Callable[[int, int], T], min_block: int,
              threads: int | None = None) -> list[T]:
    """``fn(lo, hi)`` over contiguous blocks of ``range(n)`` (:func:`concurrently`);
    the results in block order.

    As many blocks as ``threads`` (default :func:`cores`), fewer when a block
    would hold under ``min_block``; with one block ``fn(0, n)`` runs on the
    calling thread alone. The edges are ``np.linspace(0, n, blocks + 1)``.

    Examples
    --------
    >>> in_blocks(10, lambda lo, hi: (lo, hi), min_block=5, threads=2)
    [(0, 5), (5, 10)]
    >>> in_blocks(10, lambda lo, hi: (lo, hi), min_block=6, threads=2)
    [(0, 10)]
    """
    k = max(1, min(threads or cores(), n // max(min_block, 1)))
    if k == 1:
        return [fn(0, n)]
    cut = np.linspace(0, n, k + 1).astype(int)

    def block(b: int) -> Callable[[], T]:
        return lambda: fn(int(cut[b]), int(cut[b + 1]))

    return concurrently([block(b) for b in range(k)])
