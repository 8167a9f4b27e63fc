"""What a bootstrap will cost, said before it starts, and refused when it cannot fit.

The replicates of every target are kept (``n_boot`` x labels x cells floats,
about three times over while the intervals are read from them), with one
64-bit seed per replicate and the working blocks of the threads. That
estimate is compared with :data:`MEMORY_SHARE` of the memory available now
(``MemAvailable`` of ``/proc/meminfo``, or the free physical pages where
there is no such file): above, the call is refused with an
:class:`~xrr_accessor.errors.InputError` naming ``n_boot`` and the estimate,
before anything is allocated. Above :data:`ANNOUNCE_BYTES` of memory or
:data:`ANNOUNCE_SECONDS` of expected time, a
:class:`~xrr_accessor.errors.CostWarning` announces the estimate.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from ..errors import CostWarning, InputError, warn

__all__ = ["Cost", "available_memory", "check", "estimate"]

#: Share of the available memory a bootstrap may plan to use.
MEMORY_SHARE = 0.5

#: Estimates above this many bytes are announced.
ANNOUNCE_BYTES = 2**30

#: Estimates above this many seconds are announced.
ANNOUNCE_SECONDS = 30.0

#: Seconds per annotation per replicate and thread (measured with cross_kappa,
#: normalized and Scott's pi at 2.8e4 and 2.8e5 annotations, 2 labels, 2 pools:
#: 3.1-8.1 ns on a shared 2-core machine; the largest kept: a rough guide).
SECONDS_PER_ANNOTATION = 8e-9

#: Copies of the replicates alive at the peak (the blocks, their concatenation
#: and the masks of the interval computation).
COPIES = 3


@dataclass(frozen=True)
class Cost:
    """The estimated peak memory (bytes) and time (seconds) of a bootstrap."""

    bytes: float
    seconds: float

    def describe(self) -> str:
        """The estimate in words, e.g. ``"about 1.2 GiB of memory and 40 s"``."""
        return f"about {_size(self.bytes)} of memory and {_duration(self.seconds)}"


def estimate(n_boot: int, n_annotations: int, cells: int, block_bytes: int,
             threads: int) -> Cost:
    """Peak memory and time of ``n_boot`` replicates of ``cells`` values each.

    Examples
    --------
    >>> cost = estimate(1000, 10_000, 6, 64 * 2**20, 2)
    >>> round(cost.bytes / 2**20)
    128
    >>> estimate(10**9, 10_000, 6, 64 * 2**20, 2).describe()
    'about 141.7 GiB of memory and 11.1 h'
    """
    kept = 8.0 * n_boot * (1 + COPIES * cells)
    seconds = n_boot * max(n_annotations, 1) * SECONDS_PER_ANNOTATION / max(threads, 1)
    return Cost(kept + block_bytes * threads, seconds)


def available_memory() -> int | None:
    """Bytes of memory available now (None when the system does not say)."""
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return int(os.sysconf("SC_AVPHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):
        return None


def check(n_boot: int, cost: Cost, available: int | None = None) -> None:
    """Refuse a bootstrap that would not fit in memory; announce a large one.

    Examples
    --------
    >>> check(1000, Cost(2**20, 0.1), available=2**30)  # small: silent
    >>> check(10**9, Cost(2**40, 1e4), available=2**34)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    xrr_accessor.errors.InputError: n_boot=1,000,000,000 would need about 1024.0 GiB of memory ...
    """
    available = available_memory() if available is None else available
    if available is not None and cost.bytes > MEMORY_SHARE * available:
        raise InputError(
            f"n_boot={n_boot:,} would need {cost.describe()} (estimated), more than "
            f"{MEMORY_SHARE:.0%} of the {_size(available)} of memory available now. Use "
            "fewer replicates (n_boot=1000 to 10000 is plenty for 95% intervals) or fewer "
            "labels or replications per call.")
    if cost.bytes > ANNOUNCE_BYTES or cost.seconds > ANNOUNCE_SECONDS:
        warn(f"the bootstrap of n_boot={n_boot:,} replicates will take {cost.describe()} "
             "(estimated); pass a smaller n_boot for a quicker, rougher interval.",
             CostWarning)


def _size(n: float) -> str:
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n:.0f} bytes"


def _duration(s: float) -> str:
    if s >= 3600:
        return f"{s / 3600:.1f} h"
    if s >= 60:
        return f"{s / 60:.1f} min"
    return f"{s:.0f} s" if s >= 1 else "under a second"
