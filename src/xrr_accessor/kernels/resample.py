"""Bootstrap draws: item weights keyed by item id (a counter-based Poisson bootstrap).

Item i's weight in replicate b is a Poisson draw from the uniform
``mix(seeds[b] XOR mix(key_i))``, ``mix`` SplitMix64's finalizer and ``key_i``
a 64-bit hash of the item's id (:func:`hash_text`, :func:`hash_integers`). So a
weight depends on (seed, replicate, id) alone: not on the item's position, the
other items, the block, the thread or the dask partition. :func:`splitmix` is
also the stream of the split-half kernels.
"""

from __future__ import annotations

import numpy as np
from numba import njit

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_LOW = np.uint64(0xFFFFFFFF)
_S27, _S30, _S31, _S32 = np.uint64(27), np.uint64(30), np.uint64(31), np.uint64(32)

#: Items a bootstrap resamples at most (64-bit keys: collisions stay rare).
MAX_ITEMS = 2**32 - 1


@njit(cache=True, nogil=True)
def splitmix(state: np.uint64) -> tuple[np.uint64, np.uint64]:  # pragma: no cover - numba
    state += _GOLDEN
    z = state
    z = (z ^ (z >> _S30)) * _MIX1
    z = (z ^ (z >> _S27)) * _MIX2
    return state, z ^ (z >> _S31)


# --- Counter-based item weights (Poisson bootstrap), keyed by item id -------------

_FNV_OFFSET = np.uint64(0xCBF29CE484222325)
_FNV_PRIME = np.uint64(0x100000001B3)
_TEXT_TAG = np.uint64(0x5445585400000000)  # "TEXT": ids read as text
_INT_TAG = np.uint64(0x494E540000000000)  # "INT": ids read as integers
_JACK_SALT = np.uint64(0x4A41434B4B4E4946)  # "JACKKNIF": jackknife groups
_S11 = np.uint64(11)
_UNIT = 2.0**-53


@njit(cache=True, nogil=True)
def _mix(z: np.uint64) -> np.uint64:  # pragma: no cover - numba
    """SplitMix64's finalizer: a bijection of 64-bit words that mixes every bit."""
    z = (z ^ (z >> _S30)) * _MIX1
    z = (z ^ (z >> _S27)) * _MIX2
    return z ^ (z >> _S31)


@njit(cache=True, nogil=True)
def hash_text(data: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """A 64-bit key per UTF-8 string ``data[offsets[i]:offsets[i + 1]]`` (FNV-1a, mixed)."""
    n = offsets.shape[0] - 1
    out = np.empty(n, dtype=np.uint64)
    for i in range(n):
        h = _FNV_OFFSET
        for j in range(offsets[i], offsets[i + 1]):
            h = (h ^ np.uint64(data[j])) * _FNV_PRIME
        h = h ^ np.uint64(offsets[i + 1] - offsets[i])
        out[i] = _mix(h ^ _TEXT_TAG)
    return out


@njit(cache=True, nogil=True)
def hash_integers(values: np.ndarray) -> np.ndarray:
    """A 64-bit key per integer id (its 64 bits, tagged apart from text, mixed)."""
    out = np.empty(values.shape[0], dtype=np.uint64)
    for i in range(values.shape[0]):
        out[i] = _mix(_mix(np.uint64(values[i]) ^ _INT_TAG) + _GOLDEN)
    return out


@njit(cache=True, nogil=True)
def poisson_weights(keys: np.ndarray, seeds: np.ndarray, rate: float) -> np.ndarray:
    """Weights (len(keys), len(seeds)): item i's weight in replicate b is a
    Poisson(``rate``) draw from the uniform ``mix(seeds[b] + mix(keys[i]))``.

    The draw is the inverse of Poisson's distribution function at that uniform, so
    it is a function of (seed, replicate, item key) alone: not of the item's
    position, the other items, the block or the thread.
    """
    n, c = keys.shape[0], seeds.shape[0]
    out = np.empty((n, c), dtype=np.float64)
    p0 = np.exp(-rate)
    for i in range(n):
        k_i = _mix(keys[i] + _GOLDEN)
        for b in range(c):
            u = np.float64(_mix(np.uint64(seeds[b]) ^ k_i) >> _S11) * _UNIT
            k, p, cdf = 0, p0, p0
            while u >= cdf and k < 10_000:
                k += 1
                p *= rate / k
                if p == 0.0:
                    break
                cdf += p
            out[i, b] = k
    return out


@njit(cache=True, nogil=True)
def jackknife_groups(keys: np.ndarray, entropy: np.uint64, groups: int) -> np.ndarray:
    """Group (0 .. ``groups`` - 1) of each item key for a grouped jackknife."""
    out = np.empty(keys.shape[0], dtype=np.int64)
    salt = _mix(entropy ^ _JACK_SALT)
    g = np.uint64(groups)
    for i in range(keys.shape[0]):
        out[i] = np.int64(_mix(keys[i] ^ salt) % g)
    return out


@njit(cache=True, nogil=True)
def group_weights(member: np.ndarray, lo: int, hi: int) -> np.ndarray:
    """Indicator weights (n, hi - lo): column g - lo is 1 for the items of group g."""
    out = np.zeros((member.shape[0], hi - lo), dtype=np.float64)
    for i in range(member.shape[0]):
        g = member[i]
        if lo <= g < hi:
            out[i, g - lo] = 1.0
    return out
