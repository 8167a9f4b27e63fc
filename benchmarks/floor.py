"""A hand-written single-pass kappa_x kernel: the floor the library is measured against.

Deliberately specialised (nominal, one fixed set of pairs, no weights, no
other statistics): a scatter of category counts into a dense (R, n, K) table
per label, then one loop over items per replication pair accumulating the
observed agreement and the marginals. It is what a person would write to
compute kappa_x alone as fast as possible; ``bench_engine.py`` compares the
library's general path (every form, weights, strata) with it on the same codes.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange


@njit(parallel=True, cache=True)
def kappa_x_floor(item: np.ndarray, replication: np.ndarray, codes: np.ndarray,
                  n_item: int, n_rep: int, n_cat: int, pairs: np.ndarray) -> np.ndarray:
    """kappa_x (nominal) per (label, pair) from integer codes."""
    n_label, n_ann = codes.shape
    out = np.empty((n_label, pairs.shape[0]))
    for lab in prange(n_label):
        cnt = np.zeros((n_rep, n_item, n_cat), dtype=np.float64)
        for a in range(n_ann):
            c = codes[lab, a]
            if c >= 0:
                cnt[replication[a], item[a], c] += 1.0
        for p in range(pairs.shape[0]):
            ra, rb = pairs[p, 0], pairs[p, 1]
            total = 0.0
            agree = 0.0
            xm = np.zeros(n_cat)
            ym = np.zeros(n_cat)
            for i in range(n_item):
                mx = 0.0
                my = 0.0
                for k in range(n_cat):
                    mx += cnt[ra, i, k]
                    my += cnt[rb, i, k]
                if mx == 0.0 or my == 0.0:
                    continue
                w = (mx + my) / (mx * my)
                total += mx + my
                for k in range(n_cat):
                    agree += w * cnt[ra, i, k] * cnt[rb, i, k]
                    xm[k] += cnt[ra, i, k]
                    ym[k] += cnt[rb, i, k]
            big_r, big_s = xm.sum(), ym.sum()
            d_o = (total - agree) / (big_r + big_s)
            d_e = (big_r * big_s - (xm * ym).sum()) / (big_r * big_s)
            out[lab, p] = 1.0 - d_o / d_e
    return out
