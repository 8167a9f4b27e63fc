"""Sums of disagreement over pairs of annotations, from :class:`~..additive.Stats`.

Every coefficient here is ``1 - d_o / d_e`` where both terms are sums of
D(a, b) over pairs of annotations. D is applied here, in finalize, so that
the statistics themselves stay additive over items.

* :func:`within_sums` over the strata of m selected by ``sel`` (L, R, S):
  ``observed`` = sum over items of (sum of D over the item's ordered pairs of
  distinct annotations) / (m_i - 1); ``expected`` = sum of D over all ordered
  pairs of the selected values (T D T); the values used and their marginals.
* :func:`same_rater_sums`: sum over raters of D over all pairs of that
  rater's selected values (sum_g N_g D N_g), for iota's chance term.
* :func:`cross_sums` per replication pair: ``observed`` = sum_i (R_i + S_i) /
  (R_i S_i) sum_r sum_s D(x_ri, y_si); ``expected`` = X D Y; totals R, S.

Vector form (nominal D = 1 - [a == b]) needs no K x K matrix: an item's
pairs disagree m^2 - sum_c n_c^2 times, all pairs T^2 - sum_c T_c^2. Nor does
the ranks form (ordinal alpha): the observed sum is taken on mid-ranks in the
pass, the expected one is n sum_c T_c (n - T_c) (n + T_c) / 6. Nor does the ratio
form (ratio alpha): the observed sum is taken on the values in the pass, the expected
one from the marginals (:func:`ratio_disagreement`, O(K) memory).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..engine.additive import Stats
from ..errors import InputError
from ..kernels.midranks import expected_ranks
from ..kernels.ordinal import ordinal_sums
from ..kernels.ratio import ratio_expected
from .base import Context

__all__ = ["CrossSums", "WithinSums", "cross_counts", "cross_moments", "cross_sums",
           "expected_disagreement", "ordinal_disagreement", "pair_disagreement",
           "ratio_disagreement", "same_rater_sums", "within_counts", "within_moments",
           "within_sums"]


@dataclass
class WithinSums:
    """Per (label, replication): observed and expected sums, values used, marginals."""

    observed: np.ndarray
    expected: np.ndarray
    n_values: np.ndarray
    marginals: np.ndarray | None
    #: Numbers (moments): the size of the sums of squares ``expected`` is a difference
    #: of, for the one undefined rule (:func:`~.base.defined`); None for counts.
    scale: np.ndarray | None = None


@dataclass
class CrossSums:
    """Per (label, pair): weighted observed and expected sums, totals and item counts."""

    observed: np.ndarray
    expected: np.ndarray
    r: np.ndarray
    s: np.ndarray
    used: np.ndarray
    unpaired: np.ndarray
    #: As :attr:`WithinSums.scale`.
    scale: np.ndarray | None = None


def _select(arr: np.ndarray, sel: np.ndarray) -> np.ndarray:
    """Sum over the strata axis (2) of ``arr`` where ``sel`` (L, R, S) holds."""
    shape = sel.shape + (1,) * (arr.ndim - 3)
    return (arr * sel.reshape(shape)).sum(axis=2)


def within_sums(stats: Stats, ctx: Context, sel: np.ndarray) -> WithinSums:
    """Sums over pairs of distinct annotations of the same item (strata in ``sel``)."""
    form = ctx.meta.form
    if form == "moments":
        mom = _select(stats["strata_mom"], sel)
        return within_moments(_select(stats["strata_ss"], sel), mom[..., 0], mom[..., 1],
                              mom[..., 2])
    t = _select(stats["pairable"], sel)
    if form == "ranks":  # ordinal alpha on mid-ranks (sel: the pairable strata, m >= 2)
        return WithinSums(_select(stats["rank_o"], sel), expected_ranks(t), t.sum(axis=-1), t)
    if form == "ratio":  # ratio alpha: observed summed in the pass, expected from t
        assert ctx.meta.values is not None
        return WithinSums(_select(stats["ratio_o"], sel),
                          ratio_disagreement(t, ctx.meta.values, ctx.labels), t.sum(axis=-1), t)
    if form == "vector":
        diag = _select(stats["pair_diag"], sel).sum(axis=-1)
        return within_counts(t, t.sum(axis=-1) - diag)
    o = _select(stats["pair_o"], sel)
    n = t.sum(axis=-1)
    observed = np.zeros(n.shape)
    expected = np.zeros(n.shape)
    for lab, r in itertools.product(*map(range, n.shape)):  # np.ndindex's order, cheaper
        if n[lab, r] == 0:
            continue
        d = ctx.distance(lab, t[lab, r])
        k = d.shape[0]
        observed[lab, r], expected[lab, r] = pair_disagreement(
            o[lab, r, :k, :k], t[lab, r, :k], t[lab, r, :k], d)
    return WithinSums(observed, expected, n, t)


def within_moments(observed: np.ndarray, n: np.ndarray, s1: np.ndarray, s2: np.ndarray
                   ) -> WithinSums:
    """:class:`WithinSums` of numbers from the pairable values' count ``n``, sum and sum
    of squares (squared differences: all ordered pairs disagree 2 n SS)."""
    return WithinSums(observed, 2.0 * n * sum_of_squares(n, s1, s2), n, None, 2.0 * n * s2)


def within_counts(t: np.ndarray, observed: np.ndarray | None, o: np.ndarray | None = None,
                  d: np.ndarray | None = None, ordinal: bool = False) -> WithinSums:
    """:class:`WithinSums` from the pairable values' marginals ``t`` (..., K): with no
    ``d`` (nominal) ``observed`` is the disagreeing share of the pairs; with the
    coincidences ``o`` (..., K, K) and D, :func:`pair_disagreement` of them;
    ``ordinal``: D from each cell's ``t`` (:func:`ordinal_disagreement`)."""
    n = t.sum(axis=-1)
    if ordinal:
        assert o is not None
        return WithinSums(*ordinal_disagreement(o, t, t, t), n, t)
    if d is None:
        assert observed is not None
        return WithinSums(observed, n**2 - (t**2).sum(axis=-1), n, t)
    assert o is not None
    return WithinSums(*pair_disagreement(o, t, t, d), n, t)


def pair_disagreement(joint: np.ndarray, x: np.ndarray, y: np.ndarray, d: np.ndarray
                      ) -> tuple[np.ndarray, np.ndarray]:
    """(observed, expected) = (sum of ``joint`` * D, X D Y) over the cells of the
    leading axes: ``joint`` (..., K, K), marginals (..., K), ``d`` one K x K matrix or
    one per cell (..., K, K)."""
    return np.einsum("...cd,...cd->...", joint, d), expected_disagreement(x, y, d)


def ordinal_disagreement(joint: np.ndarray, x: np.ndarray, y: np.ndarray,
                         marginals: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`pair_disagreement` at the ordinal level, D from each cell's own
    ``marginals`` (..., K), without forming a K x K matrix per cell (one kernel pass).

    Examples
    --------
    >>> from xrr_accessor.engine.levels import ordinal_matrices
    >>> t = np.array([[2.0, 1.0, 1.0]])
    >>> o = np.array([[[0.0, 1.0, 1.0], [1.0, 0.0, 0.0], [1.0, 0.0, 0.0]]])
    >>> ordinal_disagreement(o, t, t, t)[0].tolist()  # D(0, 1) = 2.25, D(0, 2) = 6.25
    [17.0]
    >>> bool(np.allclose(ordinal_disagreement(o, t, t, t),
    ...                  pair_disagreement(o, t, t, ordinal_matrices(t))))
    True
    """
    lead = x.shape[:-1]
    k = x.shape[-1]

    def flat(a: np.ndarray, *tail: int) -> np.ndarray:
        return np.ascontiguousarray(np.broadcast_to(a, (*lead, *tail)), dtype=np.float64
                                    ).reshape(-1, *tail)

    observed, expected = ordinal_sums(flat(joint, k, k), flat(x, k), flat(y, k),
                                      flat(marginals, k))
    return observed.reshape(lead), expected.reshape(lead)


def ratio_disagreement(t: np.ndarray, values: np.ndarray, labels: Sequence[str]
                       ) -> np.ndarray:
    """sum_ck T_c T_k D(c, k) at the ratio level per (label, cell) of the marginals ``t``
    (L, ..., K) over each label's values ``values`` (L, K; NaN-padded), without a K x K
    matrix: labels with the same values (the bootstrap's copies of one label) share one
    pass over the pairs of categories. ``labels`` name them in errors.

    Examples
    --------
    >>> t = np.array([[[2.0, 1.0, 1.0]]])  # D(1, 2) = 1/9, D(1, 3) = 1/4, D(2, 3) = 1/25
    >>> ratio_disagreement(t, np.array([[1.0, 2.0, 3.0]]), ["x"]).round(6).tolist()
    [[1.524444]]
    """
    x = np.nan_to_num(np.asarray(values, dtype=np.float64), nan=0.0)
    negative = np.flatnonzero((x < 0).any(axis=1))
    if negative.size:
        raise InputError(f"{labels[negative[0]]} has negative values; the ratio level needs "
                         "values >= 0 (use level='interval').")
    lead = t.shape[1:-1]
    out = np.zeros(t.shape[:-1])
    rows, which = np.unique(x, axis=0, return_inverse=True)
    which = np.asarray(which).reshape(-1)
    for g in range(len(rows)):
        labs = np.flatnonzero(which == g)
        cells = np.ascontiguousarray(t[labs].reshape(-1, t.shape[-1]).T, dtype=np.float64)
        out[labs] = ratio_expected(np.ascontiguousarray(rows[g]), cells).reshape(
            (len(labs), *lead))
    return out


def expected_disagreement(x: np.ndarray, y: np.ndarray, d: np.ndarray) -> np.ndarray:
    """X D Y over the cells of the leading axes (``d`` as in :func:`pair_disagreement`)."""
    return np.einsum("...c,...cd,...d->...", x, d, y)


def rater_totals(stats: Stats) -> np.ndarray:
    """(L, R, B): annotations of each rater (any item), from ``strata_rater``."""
    per_rater = stats["strata_rater"].sum(axis=2)
    return per_rater[..., 0] if "strata_mom" in stats.arrays else per_rater.sum(axis=-1)


def same_rater_sums(stats: Stats, ctx: Context, sel: np.ndarray,
                    marginals: np.ndarray | None) -> np.ndarray:
    """sum_g N_g D N_g per (label, replication) over the strata in ``sel``.

    The ordinal metric uses ``marginals`` (those of :func:`within_sums` over
    the same strata).
    """
    per_rater = _select(stats["strata_rater"], sel)  # (L, R, B, K) or (L, R, B, 3)
    form = ctx.meta.form
    if form == "moments":
        n = per_rater[..., 0]
        return (2.0 * n * sum_of_squares(n, per_rater[..., 1], per_rater[..., 2])).sum(-1)
    if form == "vector":
        return (per_rater.sum(axis=-1) ** 2 - (per_rater**2).sum(axis=-1)).sum(axis=-1)
    out = np.zeros(per_rater.shape[:2])
    for lab, r in np.ndindex(out.shape):
        assert marginals is not None
        if marginals[lab, r].sum() == 0:
            continue
        d = ctx.distance(lab, marginals[lab, r])
        k = d.shape[0]
        g = per_rater[lab, r, :, :k]
        out[lab, r] = np.einsum("gc,cd,gd->", g, d, g)
    return out


def cross_sums(stats: Stats, ctx: Context) -> CrossSums:
    """Sums over cross-replication pairs for each replication pair of the call.

    The ordinal metric uses the pooled marginals of both replications' values.
    """
    used, unpaired = stats["cross_used"], stats["cross_unpaired"]
    if ctx.meta.form == "moments":
        return cross_moments(stats["cross_mom"], used, unpaired)
    x, y = stats["cross_x"], stats["cross_y"]
    if ctx.meta.form == "vector":
        return cross_counts(x, y, used, unpaired, stats["cross_total"] - stats["cross_agree"])
    cross = stats["cross_o"]
    big_r, big_s = x.sum(axis=-1), y.sum(axis=-1)
    observed = np.zeros(used.shape)
    expected = np.zeros(used.shape)
    for lab, p in np.ndindex(used.shape):
        if big_r[lab, p] == 0 or big_s[lab, p] == 0:
            continue
        d = ctx.distance(lab, x[lab, p] + y[lab, p])
        k = d.shape[0]
        observed[lab, p], expected[lab, p] = pair_disagreement(
            cross[lab, p, :k, :k], x[lab, p, :k], y[lab, p, :k], d)
    return CrossSums(observed, expected, big_r, big_s, used, unpaired)


def cross_moments(m: np.ndarray, used: np.ndarray, unpaired: np.ndarray) -> CrossSums:
    """:class:`CrossSums` of numbers from ``m`` (..., 7): the weighted observed sum, the
    counts R and S, then sum and sum of squares of x and of y."""
    r, s = m[..., 1], m[..., 2]
    ssx = sum_of_squares(r, m[..., 3], m[..., 4])
    ssy = sum_of_squares(s, m[..., 5], m[..., 6])
    dm = safe_div(m[..., 3], r) - safe_div(m[..., 5], s)
    expected = r * s * dm**2 + s * ssx + r * ssy
    return CrossSums(m[..., 0], expected, r, s, used, unpaired, s * m[..., 4] + r * m[..., 6])


def cross_counts(x: np.ndarray, y: np.ndarray, used: np.ndarray, unpaired: np.ndarray,
                 observed: np.ndarray | None = None, joint: np.ndarray | None = None,
                 d: np.ndarray | None = None, ordinal: bool = False) -> CrossSums:
    """:class:`CrossSums` from the two sides' marginals ``x``, ``y`` (..., K) and the
    weighted observed disagreement, given as ``observed`` or as the weighted cross
    pairs ``joint`` (..., K, K) with D. Expected: R S - X.Y with no ``d`` (nominal),
    X D Y with D (one K x K matrix, or one per cell (..., K, K)); ``ordinal``: D from
    each cell's pooled values X + Y (:func:`ordinal_disagreement`)."""
    big_r, big_s = x.sum(axis=-1), y.sum(axis=-1)
    if ordinal:
        assert joint is not None
        return CrossSums(*ordinal_disagreement(joint, x, y, x + y), big_r, big_s, used,
                         unpaired)
    if d is None:
        expected = big_r * big_s - (x * y).sum(axis=-1)
    elif observed is None:
        assert joint is not None
        observed, expected = pair_disagreement(joint, x, y, d)
    else:
        expected = expected_disagreement(x, y, d)
    assert observed is not None
    return CrossSums(observed, expected, big_r, big_s, used, unpaired)


def safe_div(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """num / den, 0 where den is 0."""
    return np.divide(num, den, out=np.zeros_like(num, dtype=float), where=den > 0)


def sum_of_squares(n: np.ndarray, s1: np.ndarray, s2: np.ndarray) -> np.ndarray:
    """Sum of squared deviations from count, sum and sum of squares (0 when n = 0)."""
    return np.maximum(s2 - s1 * safe_div(s1, n), 0.0)
