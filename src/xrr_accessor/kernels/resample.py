"""Bootstrap draws: multinomial item counts, one seeded stream per replicate.

Each replicate b draws ``n_draws`` items uniformly with replacement from
``n_items`` and counts how often each was drawn (a multinomial(n_draws,
1/n_items) vector). Its stream is SplitMix64 started at ``seeds[b]``, and an
item is drawn by Lemire's multiply-shift with rejection (exactly uniform), so
replicate b's counts depend on its seed only: not on the block it is drawn in,
nor on the thread.
"""

from __future__ import annotations

import numpy as np
from numba import njit

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_LOW = np.uint64(0xFFFFFFFF)
_S27, _S30, _S31, _S32 = np.uint64(27), np.uint64(30), np.uint64(31), np.uint64(32)

#: Items a bootstrap can resample (Lemire's 32-bit draw).
MAX_ITEMS = 2**32 - 1


@njit(cache=True, nogil=True)
def _splitmix(state: np.uint64) -> tuple[np.uint64, np.uint64]:  # pragma: no cover - numba
    state += _GOLDEN
    z = state
    z = (z ^ (z >> _S30)) * _MIX1
    z = (z ^ (z >> _S27)) * _MIX2
    return state, z ^ (z >> _S31)


@njit(cache=True, nogil=True)
def multinomial_counts(n_items: int, n_draws: int, seeds: np.ndarray) -> np.ndarray:
    """Counts (len(seeds), n_items), int32: row b is replicate b's draw of items."""
    out = np.zeros((seeds.shape[0], n_items), dtype=np.int32)
    n = np.uint64(n_items)
    threshold = (np.uint64(2**32) - n) % n  # below it, a draw would favour low items
    for b in range(seeds.shape[0]):
        state = np.uint64(seeds[b])
        for _ in range(n_draws):
            while True:
                state, z = _splitmix(state)
                m = (z >> _S32) * n
                if (m & _LOW) >= threshold:
                    break
            out[b, np.int64(m >> _S32)] += 1
    return out
