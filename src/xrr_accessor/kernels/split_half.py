"""Spearman's correction (Eq 12): item means and split halves in one pass over items.

For each label and replication pair (a, b), over the items annotated in
both, the kernel sums the moments of the item means (x in a, y in b) for
their Pearson correlation, and, for each side with at least two annotations
of the item and each of S random splits, the moments of the two half means
(split-half correlation). An item's split of its annotations in a
replication is a partial Fisher-Yates shuffle, driven by SplitMix64 seeded
from the split's seed, the item and the replication, of its annotations in
rater order: the same split of an item for every label and pair, whatever
the order of the rows.

Moments are (n, sum u, sum v, sum u^2, sum v^2, sum uv).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .resample import splitmix

_ITEM = np.uint64(0xD1B54A32D192ED03)
_REP = np.uint64(0x8CB92BA72F3D8DD7)


@njit(cache=True, nogil=True)
def _add(out: np.ndarray, u: float, v: float) -> None:  # pragma: no cover - numba
    out[0] += 1.0
    out[1] += u
    out[2] += v
    out[3] += u * u
    out[4] += v * v
    out[5] += u * v


@njit(cache=True, nogil=True)
def split_half_moments(offsets: np.ndarray, order: np.ndarray, rep: np.ndarray,
                       rater: np.ndarray, codes: np.ndarray, values: np.ndarray,
                       pairs: np.ndarray, seeds: np.ndarray, item_key: np.ndarray,
                       rater_key: np.ndarray, n_rep: int, top: int
                       ) -> tuple[np.ndarray, np.ndarray]:  # pragma: no cover - numba
    """(means (L, P, 6), halves (L, P, 2, S, 6)); ``top`` the most annotations of
    one item in one replication, ``values`` (L, K) the number of each category,
    ``item_key`` / ``rater_key`` each item's / rater's rank among the sorted ids
    (so that a split does not depend on the order ids were first seen in)."""
    n_label = codes.shape[0]
    n_item = offsets.shape[0] - 1
    n_pair = pairs.shape[0]
    n_split = seeds.shape[0]
    means = np.zeros((n_label, n_pair, 6))
    halves = np.zeros((n_label, n_pair, 2, n_split, 6))
    buf = np.empty((n_rep, max(top, 1)))
    who = np.empty((n_rep, max(top, 1)), dtype=np.int64)
    work = np.empty(max(top, 1))
    cnt = np.zeros(n_rep, dtype=np.int64)
    total = np.zeros(n_rep)
    # the halves of an item in a replication, per split: (R, S, 2)
    half = np.empty((n_rep, n_split, 2))
    for lab in range(n_label):
        for i in range(n_item):
            for j in range(offsets[i], offsets[i + 1]):
                row = j if order.shape[0] == 0 else order[j]
                c = codes[lab, row]
                if c < 0:
                    continue
                r = 0 if rep.shape[0] == 0 else rep[j]
                t = cnt[r]  # insert in rater order
                g = rater_key[rater[j]]
                while t > 0 and who[r, t - 1] > g:
                    buf[r, t] = buf[r, t - 1]
                    who[r, t] = who[r, t - 1]
                    t -= 1
                buf[r, t] = values[lab, c]
                who[r, t] = g
                total[r] += values[lab, c]
                cnt[r] += 1
            for r in range(n_rep):
                m = cnt[r]
                if m < 2:
                    continue
                h = m // 2
                for s in range(n_split):
                    state = np.uint64(seeds[s]) ^ (np.uint64(item_key[i]) * _ITEM) ^ (
                        np.uint64(r) * _REP)
                    for t in range(m):
                        work[t] = buf[r, t]
                    first = 0.0
                    for t in range(h):  # partial Fisher-Yates: the first h are half 1
                        state, z = splitmix(state)
                        k = t + np.int64(z % np.uint64(m - t))
                        tmp = work[t]
                        work[t] = work[k]
                        work[k] = tmp
                        first += work[t]
                    half[r, s, 0] = first / h
                    half[r, s, 1] = (total[r] - first) / (m - h)
            for p in range(n_pair):
                a = pairs[p, 0]
                b = pairs[p, 1]
                if cnt[a] == 0 or cnt[b] == 0:
                    continue
                _add(means[lab, p], total[a] / cnt[a], total[b] / cnt[b])
                for side in range(2):
                    r = a if side == 0 else b
                    if cnt[r] < 2:
                        continue
                    for s in range(n_split):
                        _add(halves[lab, p, side, s], half[r, s, 0], half[r, s, 1])
            for r in range(n_rep):
                cnt[r] = 0
                total[r] = 0.0
    return means, halves
