"""The commonest passes alone: pairs within one replication (alpha's statistics).

Alpha (and the other within-replication coefficients) over one replication,
one weight per item, no multiplicity: :func:`within_vector` (nominal, a few
categories) and :func:`within_matrix` (ordinal, ratio, custom distances)
compute the arrays the general :func:`.accumulate.categorical` computes for
that case (``m_hist``, ``pairable`` and ``pair_diag`` or ``pair_o``). Up to
:data:`PACKED_CATEGORIES` categories both sum each distinct count pattern of
items once (a few ratings on a short scale make few patterns: the terms are
computed per pattern, not per item), so their sums equal the general kernel's
up to rounding (fewer roundings: with weights 1 a pattern's weight is an
exact count); above, item by item, the same additions in the same order as
the general kernel, equal to the last bit. Without the general kernel's other
groups they are smaller loops, and smaller compiles (a call that needs only
these arrays compiles one of them alone).
"""

from __future__ import annotations

import numpy as np
from numba import njit

#: The symmetric matrix outputs of the categorical passes, and the axis of their first K.
SYMMETRIC = {"pair_o": 3, "pa_mat": 2}


def fold_symmetric(out: dict[str, np.ndarray]) -> None:
    """Make the full symmetric matrices of a categorical pass, in place.

    The kernels (:func:`.accumulate.categorical`, :func:`within_matrix`) add
    the term of each category pair (c, k), c != k, once, at (c, k) or (k, c),
    whichever they met first; the full matrix is that array plus its
    transpose, with the diagonal taken once.

    Examples
    --------
    >>> a = {"pair_o": np.array([[[[[1.0, 2.0], [3.0, 4.0]]]]]), "pa_mat": np.zeros(0)}
    >>> fold_symmetric(a)
    >>> a["pair_o"][0, 0, 0]
    array([[1., 5.],
           [5., 4.]])
    """
    for name, ax in SYMMETRIC.items():
        a = out.get(name)
        if a is None or a.size == 0:
            continue
        diag = np.arange(a.shape[ax])
        at = (slice(None),) * ax + (diag, diag)
        keep = a[at]
        a += np.swapaxes(a, ax, ax + 1).copy()
        a[at] = keep


#: Up to this many categories :func:`within_vector` is used (it loops over all of them).
MAX_CATEGORIES = 16


@njit(cache=True, nogil=True)
def within_vector(offsets: np.ndarray, order: np.ndarray, codes: np.ndarray,
                  weight: np.ndarray, n_cat: int, m_hist: np.ndarray, pairable: np.ndarray,
                  pair_diag: np.ndarray) -> None:  # pragma: no cover - compiled by numba
    """Add the within-replication vector statistics of each label, in place.

    ``offsets`` (n + 1) and ``order`` (N, or empty when the rows are in item
    order) as :func:`.accumulate.item_order`; ``codes`` (L, N), -1 missing;
    ``weight`` (n,); outputs ``m_hist`` (L, 1, S), ``pairable`` and
    ``pair_diag`` (L, 1, S, K) as in :mod:`.accumulate` (items by m; n_c
    and n_c (n_c - 1) / (m - 1) over items with m >= 2, by stratum).

    Examples
    --------
    >>> offsets = np.array([0, 3, 5]); codes = np.array([[0, 0, 1, 1, -1]])
    >>> m_hist, pairable, pair_diag = np.zeros((1, 1, 4)), np.zeros((1, 1, 4, 2)), \
np.zeros((1, 1, 4, 2))
    >>> within_vector(offsets, offsets[:0], codes, np.ones(2), 2, m_hist, pairable,
    ...               pair_diag)
    >>> m_hist[0, 0], pair_diag[0, 0, 3]
    (array([0., 1., 0., 1.]), array([1., 0.]))
    """
    n_item = offsets.shape[0] - 1
    top = m_hist.shape[2] - 1
    packed = n_cat <= PACKED_CATEGORIES
    for lab in range(codes.shape[0]):
        cnt = np.zeros(n_cat, dtype=np.float64)
        keys = np.zeros(PATTERN_SLOTS if packed else 0, dtype=np.uint64)
        wsum = np.zeros(PATTERN_SLOTS if packed else 0, dtype=np.float64)
        used = 0
        for i in range(n_item):
            w = weight[i]
            if w == 0.0:
                continue
            if packed and offsets[i + 1] - offsets[i] < 256:
                used += _count_pattern(offsets, order, codes, lab, i, keys, wsum, w)
                if 2 * used > PATTERN_SLOTS:
                    _add_patterns(keys, wsum, n_cat, top, m_hist[lab, 0], pairable[lab, 0],
                                  pair_diag[lab, 0][:, :, np.newaxis], True)
                    used = 0
                continue
            m = 0.0
            for j in range(offsets[i], offsets[i + 1]):
                row = j if order.shape[0] == 0 else order[j]
                c = codes[lab, row]
                if c < 0:
                    continue
                cnt[c] += 1.0
                m += 1.0
            if m == 0.0:
                continue
            s = min(int(m), top)
            m_hist[lab, 0, s] += 1.0 * w
            if m >= 2.0:
                inv = 1.0 / (m - 1.0)
                for c in range(n_cat):
                    x = cnt[c]
                    pairable[lab, 0, s, c] += x * w
                    pair_diag[lab, 0, s, c] += x * (x - 1.0) * inv * w
            for c in range(n_cat):
                cnt[c] = 0.0
        if packed:
            _add_patterns(keys, wsum, n_cat, top, m_hist[lab, 0], pairable[lab, 0],
                          pair_diag[lab, 0][:, :, np.newaxis], True)


#: Up to this many categories :func:`within_vector` and :func:`within_matrix` count an
#: item's categories in the bytes of one integer (items of fewer than 256 annotations)
#: and sum each distinct count pattern once.
PACKED_CATEGORIES = 8

#: Slots of their table of count patterns (2 ** PATTERN_BITS); it is emptied into the
#: sums when half full.
PATTERN_BITS = 12
PATTERN_SLOTS = 1 << PATTERN_BITS


@njit(cache=True, nogil=True, inline="always")
def pattern_slot(keys: np.ndarray, bag: np.uint64) -> np.uint64:  # pragma: no cover
    """The slot of count pattern ``bag`` in a table of :data:`PATTERN_SLOTS` ``keys``
    (0: a free slot), or the free slot where it goes: open addressing on the top
    :data:`PATTERN_BITS` bits of a multiplicative hash (the best-mixed bits)."""
    h = (bag * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(64 - PATTERN_BITS)
    while keys[h] != np.uint64(0) and keys[h] != bag:
        h = (h + np.uint64(1)) & np.uint64(PATTERN_SLOTS - 1)
    return h


@njit(cache=True, nogil=True, inline="always")
def count_in(bag: np.uint64, c: int) -> int:  # pragma: no cover - compiled by numba
    """n_c of count pattern ``bag``: its byte ``c``."""
    return int((bag >> np.uint64(8 * c)) & np.uint64(255))


@njit(cache=True, nogil=True, inline="always")  # inlined: a call per item costs 2x
def _count_pattern(offsets: np.ndarray, order: np.ndarray, codes: np.ndarray, lab: int,
                   i: int, keys: np.ndarray, wsum: np.ndarray,
                   w: float) -> int:  # pragma: no cover - compiled by numba
    """Item ``i``'s count pattern (n_c in byte c, from a row loop with no branch) and
    its weight ``w`` added to the table (``keys``, ``wsum``, open addressing on a
    multiplicative hash); 1 when the pattern took a new slot, else 0. An item
    with no annotation is left out."""
    bag = np.uint64(0)
    for j in range(offsets[i], offsets[i + 1]):
        row = j if order.shape[0] == 0 else order[j]
        c = codes[lab, row]
        ok = c >= 0
        bag += (np.uint64(1) << np.uint64(8 * c)) if ok else np.uint64(0)
    if bag == np.uint64(0):
        return 0
    h = pattern_slot(keys, bag)
    new = keys[h] == np.uint64(0)
    keys[h] = bag
    wsum[h] += w
    return 1 if new else 0


@njit(cache=True, nogil=True)
def _add_patterns(keys: np.ndarray, wsum: np.ndarray, n_cat: int, top: int,
                  m_hist: np.ndarray, pairable: np.ndarray, pair_o: np.ndarray,
                  diag_only: bool) -> None:  # pragma: no cover - compiled by numba
    """Add each count pattern of the table (``keys``: n_c in byte c; ``wsum``: the
    summed weight of its items) to one label's ``m_hist`` (S,), ``pairable`` (S, K)
    and ``pair_o``: (S, K, K) n_c (n_k - [c = k]) / (m - 1) (each category pair
    c < k at (c, k)), or with ``diag_only`` its diagonal, (S, K, 1) (the vector
    form's ``pair_diag``), and empty the table."""
    for h in range(keys.shape[0]):
        bag = keys[h]
        if bag == np.uint64(0):
            continue
        w = wsum[h]
        keys[h] = np.uint64(0)
        wsum[h] = 0.0
        m = 0
        for c in range(n_cat):
            m += count_in(bag, c)
        s = min(m, top)
        m_hist[s] += 1.0 * w
        if m < 2:
            continue
        inv = 1.0 / (m - 1.0)
        for c in range(n_cat):
            x = float(count_in(bag, c))
            if x == 0.0:
                continue
            pairable[s, c] += x * w
            if diag_only:
                pair_o[s, c, 0] += x * (x - 1.0) * inv * w
                continue
            for d in range(c, n_cat):
                y = float(count_in(bag, d))
                if y != 0.0:
                    pair_o[s, c, d] += x * (y - (1.0 if d == c else 0.0)) * inv * w


@njit(cache=True, nogil=True)
def within_matrix(offsets: np.ndarray, order: np.ndarray, codes: np.ndarray,
                  weight: np.ndarray, n_cat: int, m_hist: np.ndarray, pairable: np.ndarray,
                  pair_o: np.ndarray) -> None:  # pragma: no cover - compiled by numba
    """As :func:`within_vector` for the matrix form: ``pair_o`` (L, 1, S, K, K).

    Each item adds n_c (n_k - [c = k]) / (m - 1) once per pair of the categories
    it has, at (c, k) or (k, c); the full matrix is :func:`fold_symmetric` of it.

    Up to :data:`PACKED_CATEGORIES` categories an item of fewer than 256
    annotations is its count pattern (n_c in byte c of one integer, from a row
    loop with no branch), and the weights of the items with one pattern are
    summed in a small open-addressing table: each distinct pattern's terms are
    computed and added once (a few ratings on a short scale make few patterns),
    at (c, k) with c < k. The sums then differ from the item-by-item sums of
    :func:`.accumulate.categorical` by rounding only (fewer roundings: with
    weights 1 the pattern's weight is an exact count). Other items take the item
    by item route: missing annotations counted in a spare slot and the list of
    the item's categories takes a store per row, so the row loop has no branch on
    the data, and each pair goes where its categories were first met.

    Examples
    --------
    >>> offsets = np.array([0, 3]); codes = np.array([[1, 0, 1]])
    >>> out = {"m_hist": np.zeros((1, 1, 3)), "pairable": np.zeros((1, 1, 3, 2)),
    ...        "pair_o": np.zeros((1, 1, 3, 2, 2))}
    >>> within_matrix(offsets, offsets[:0], codes, np.ones(1), 2, *out.values())
    >>> fold_symmetric(out)
    >>> out["pair_o"][0, 0, 2]
    array([[0., 1.],
           [1., 1.]])
    """
    n_item = offsets.shape[0] - 1
    top = m_hist.shape[2] - 1
    packed = n_cat <= PACKED_CATEGORIES
    for lab in range(codes.shape[0]):
        cnt = np.zeros(n_cat + 1, dtype=np.float64)  # slot n_cat: missing, never read
        nz = np.empty(n_cat + 1, dtype=np.int64)
        keys = np.zeros(PATTERN_SLOTS if packed else 0, dtype=np.uint64)
        wsum = np.zeros(PATTERN_SLOTS if packed else 0, dtype=np.float64)
        used = 0
        for i in range(n_item):
            w = weight[i]
            if w == 0.0:
                continue
            if packed and offsets[i + 1] - offsets[i] < 256:
                used += _count_pattern(offsets, order, codes, lab, i, keys, wsum, w)
                if 2 * used > PATTERN_SLOTS:
                    _add_patterns(keys, wsum, n_cat, top, m_hist[lab, 0], pairable[lab, 0],
                                  pair_o[lab, 0], False)
                    used = 0
                continue
            m = 0.0
            nnz = 0
            for j in range(offsets[i], offsets[i + 1]):
                row = j if order.shape[0] == 0 else order[j]
                c = codes[lab, row]
                ok = c >= 0
                c = c if ok else n_cat
                nz[nnz] = c
                nnz += ok & (cnt[c] == 0.0)
                cnt[c] += 1.0
                m += 1.0 if ok else 0.0
            if m == 0.0:
                continue
            s = min(int(m), top)
            m_hist[lab, 0, s] += 1.0 * w
            if m >= 2.0:
                inv = 1.0 / (m - 1.0)
                for t in range(nnz):
                    c = nz[t]
                    x = cnt[c]
                    pairable[lab, 0, s, c] += x * w
                    for u in range(t, nnz):
                        d = nz[u]
                        same = 1.0 if u == t else 0.0
                        pair_o[lab, 0, s, c, d] += x * (cnt[d] - same) * inv * w
            for t in range(nnz):
                cnt[nz[t]] = 0.0
        if packed:
            _add_patterns(keys, wsum, n_cat, top, m_hist[lab, 0], pairable[lab, 0],
                          pair_o[lab, 0], False)
