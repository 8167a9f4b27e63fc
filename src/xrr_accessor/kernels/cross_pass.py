"""kappa_x's pass alone: replication pairs and pairs within replications, nominal.

kappa_x (with the IRRs that normalize it: alpha's within-replication sums,
or Cohen's per-rater counts) over a few categories, one weight per item, no
multiplicity: :func:`cross_vector` computes the arrays the general
:func:`.accumulate.categorical` computes for the groups ``cross``,
``within``, ``raters`` and ``strata`` in the vector form, equal to the last
bit. It is the pass of ``cross_kappa`` and of ``summary`` (Table 5), and a
smaller compile than the general kernel.

Two routes, both kernels in :mod:`.patterns` (one module: they share the per-item
additions, and numba renews a kernel's cache when its own file changes, not when a
callee's does). Item by item (:func:`~.patterns.item_by_item`): the general kernel's
additions in the same order. By count patterns, where every item has at
most two annotations per replication (Table 5: two raters in each pool; a crowd
with two workers per item) and whole item weights: an item's annotations of one
label are one number, each item's weight is added to its pattern's counter, and
the per-item body runs once per pattern; every term added is then a whole number
or a half, so every partial sum is exact in float64, in any order: the same
numbers. The route is chosen in Python (patterns from :data:`PATTERNS_FROM`
codes), so each route's kernels compile on first use only.
"""

from __future__ import annotations

import numpy as np

from . import patterns
from .patterns import item_by_item

__all__ = ["MAX_CATEGORIES", "PATTERNS_FROM", "cross_vector", "item_by_item"]

#: Up to this many categories the kernel is used (it loops over all of them per item).
MAX_CATEGORIES = 16

#: Codes (labels x rows) from which the pattern route is taken: below it the item-by-item
#: pass takes a few milliseconds too, and a first call compiles that route alone.
PATTERNS_FROM = 1_000_000


def cross_vector(offsets: np.ndarray, order: np.ndarray, rep: np.ndarray, rater: np.ndarray,
                 codes: np.ndarray, weight: np.ndarray, pairs: np.ndarray, n_cat: int,
                 *out: np.ndarray) -> None:
    """Add the replication-pair (and within-replication) statistics of each label.

    ``offsets``, ``order`` as :func:`.accumulate.item_order`; ``rep`` (N, in
    item order; empty: one replication), ``rater`` (N, in item order; read for
    ``strata_rater`` only), ``codes`` (L, N; -1 missing), ``weight`` (n,),
    ``pairs`` (P, 2) replication codes. ``out``, as in :mod:`.accumulate`:
    ``m_hist`` (L, R, S); ``pairable``, ``pair_diag`` (L, R, S, K) and
    ``strata_rater`` (L, R, S, B, K: Cohen's kappa in Table 5), each
    zero-length when its group is not asked for; ``cross_agree``,
    ``cross_total``, ``cross_x``, ``cross_y``, ``cross_used``,
    ``cross_unpaired`` (L, P[, K]).

    Examples
    --------
    One item, replication 0 says (0, 0), replication 1 says (0, 1):

    >>> offsets, rep = np.array([0, 4]), np.array([0, 0, 1, 1])
    >>> codes, pairs = np.array([[0, 0, 0, 1]]), np.array([[0, 1]])
    >>> z = np.zeros
    >>> out = [z((1, 2, 3)), z((0,) * 4), z((0,) * 4), z((0,) * 5), z((1, 1)), z((1, 1)),
    ...        z((1, 1, 2)), z((1, 1, 2)), z((1, 1)), z((1, 1))]
    >>> cross_vector(offsets, offsets[:0], rep, rep[:0], codes, np.ones(1), pairs, 2, *out)
    >>> out[4], out[6], out[7]  # (2 + 2) / (2 * 2) * (2 * 1), x and y counts
    (array([[2.]]), array([[[2., 0.]]]), array([[[1., 1.]]]))
    """
    m_hist, strata_rater = out[0], out[3]
    n_rep, base, raters = m_hist.shape[1], n_cat + 1, strata_rater.shape[0] > 0
    size = patterns.pattern_space(base, n_rep) if codes.size >= PATTERNS_FROM else 0
    if size > 0 and patterns.whole_weights(weight):
        ok, mult, slot_rater = patterns.row_slots(
            offsets, rep, rater, n_rep, strata_rater.shape[3] if raters else 0, raters, base)
        if ok:  # at most two annotations per item and replication: by count patterns
            hist = np.zeros((codes.shape[0], size))
            patterns.pattern_counts(offsets, order, codes, weight, mult, hist)
            patterns.from_patterns(hist, slot_rater, base, pairs, n_cat, *out)
            return
    item_by_item(offsets, order, rep, rater, codes, weight, pairs, n_cat, *out)
