"""The one-way random-effects ICC over every annotation, and the automatic choice of form.

Each item i has its own n_i ratings (its raters are anonymous slots: a crowd
where each item is rated by 10 of 38 workers). The one-way ANOVA of all N
annotations of the n rated items, unbalanced (Searle 1971; Donner 1986;
McGraw & Wong 1996, case 1):

    SSB = sum_i T_i^2 / n_i - T^2 / N          MSB = SSB / (n - 1)
    SSW = sum_i sum_j (x_ij - mean_i)^2         MSW = SSW / (N - n)
    k0  = (N - sum_i n_i^2 / N) / (n - 1)

    ICC(1)   = (MSB - MSW) / (MSB + (k0 - 1) MSW)
    ICC(1,k) = (MSB - MSW) / MSB

ICC(1,k) is the reliability of the mean of k0 ratings (MSB estimates
sigma_w^2 + k0 sigma_b^2), k0 the mean number of ratings per item corrected
for their spread (k0 = k when every item has k ratings). Items with one
rating add nothing to SSW but enter SSB, n and k0, as in the standard
unbalanced ANOVA (they carry between-item information); they are counted in
``n_single``. With every item rated by the same k raters this is Shrout &
Fleiss's ICC(1,1) and ICC(1,k) to rounding.

Limits: F = MSB / MSW on (n - 1, N - n) degrees of freedom, with k0 in place
of k; the p-value tests ICC = 0.

The sums come from the statistics split by m (the item's number of
annotations): ``m_hist`` (items), ``strata_mom`` (count, sum, sum of squares),
``strata_item_sq`` (sum of T_i^2) and ``strata_ss`` (each item's own sum of
squares): n_i = m inside stratum m, so T_i^2 / n_i and n_i^2 add by stratum. O(N).
"""

from __future__ import annotations

import numpy as np

from ..engine.additive import Stats
from .base import ROUNDING, Context, Estimates, rounded_counts
from .distributions import f_ppf, f_sf
from .iota import complete_strata

__all__ = ["CROSSED_SHARE", "ONE_WAY", "choose_form", "crossing", "oneway", "oneway_anova",
           "oneway_table"]

#: The one-way forms: every annotation, each item its own raters.
ONE_WAY = ("1,1", "1,k")

#: Raters cross items in a cell when at least two items, and this share of the rated
#: items (every one: the two-way forms are NaN where an item lacks a rating), are rated
#: by every rater of the cell.
CROSSED_SHARE = 1.0


def oneway_anova(stats: Stats) -> dict[str, np.ndarray]:
    """One-way ANOVA over every annotation, per (label, replication).

    Returns ``n`` (rated items), ``N`` (annotations), ``k0``, ``msb``, ``msw``,
    ``sst`` and ``scale`` (for the rounding rule), ``n_single`` (items with
    one rating) and ``exact`` (False where items with more annotations than the
    statistics' largest stratum were pooled into it: n_i unknown).

    Examples
    --------
    Two items rated (1, 3) and (5, 7, 9): SSB = 4^2 / 2 + 21^2 / 3 - 25^2 / 5 = 30 on
    1 degree of freedom, SSW = 2 + 8 on 5 - 2, k0 = 5 - (2^2 + 3^2) / 5:

    >>> from xrr_accessor.engine.additive import Stats
    >>> z = np.zeros((1, 1, 4))
    >>> hist, mom = z.copy(), np.zeros((1, 1, 4, 3))
    >>> hist[0, 0, 2:] = 1
    >>> mom[0, 0, 2], mom[0, 0, 3] = (2, 4, 10), (3, 21, 155)
    >>> item_sq, ss = z.copy(), z.copy()
    >>> item_sq[0, 0, 2:] = (16, 441)
    >>> ss[0, 0, 2:] = (2 * 2 * 2 / 1, 2 * 3 * 8 / 2)  # 2 m SS_i / (m - 1)
    >>> a = oneway_anova(Stats({"m_hist": hist, "strata_mom": mom,
    ...                         "strata_item_sq": item_sq, "strata_ss": ss}))
    >>> float(a["msb"][0, 0]), float(a["msw"][0, 0]), float(a["k0"][0, 0])
    (30.0, 3.3333333333333335, 2.4)
    """
    hist = stats["m_hist"]
    mom = stats["strata_mom"]
    m = np.arange(hist.shape[-1], dtype=float)
    n = hist[..., 1:].sum(axis=-1)
    big_n = mom[..., 0].sum(axis=-1)
    total, squares = mom[..., 1].sum(axis=-1), mom[..., 2].sum(axis=-1)
    # the largest stratum pools larger m: exact only if its count is m x its items
    exact = np.abs(mom[..., -1, 0] - m[-1] * hist[..., -1]) <= 1e-9 * np.maximum(big_n, 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        between = (stats["strata_item_sq"][..., 1:] / m[1:]).sum(axis=-1)
        grand = total**2 / big_n
        ssb = np.maximum(between - grand, 0.0)
        ssw = (stats["strata_ss"][..., 2:] * (m[2:] - 1) / (2 * m[2:])).sum(axis=-1)
        k0 = (big_n - (m**2 * hist).sum(axis=-1) / big_n) / (n - 1)
        return {"n": n, "N": big_n, "k0": k0, "msb": ssb / (n - 1), "msw": ssw / (big_n - n),
                "sst": ssb + ssw, "scale": squares, "n_single": hist[..., 1], "exact": exact}


def oneway(stats: Stats, ctx: Context, form: str = "1,1") -> Estimates:
    """ICC(1) (``form="1,1"``) or ICC(1,k) (``"1,k"``, the mean of k0 ratings) per
    (label, replication), from every annotation (:func:`oneway_anova`).

    Counts: ``n_items`` (rated items), ``n_raters`` (raters present),
    ``n_incomplete`` (items some rater of the cell did not rate: used here),
    ``n_single`` (items with one rating: in SSB and k0, not in SSW).
    """
    a = oneway_anova(stats)
    b, _ = complete_strata(stats)
    msb, msw, k0 = a["msb"], a["msw"], a["k0"]
    with np.errstate(divide="ignore", invalid="ignore"):
        value = ((msb - msw) / (msb + (k0 - 1) * msw) if form == "1,1"
                 else (msb - msw) / msb)
    est = Estimates(np.where(np.isfinite(value), value, np.nan),
                    counts={"n_items": rounded_counts(a["n"]), "n_raters": b.astype(np.int64),
                            "n_incomplete": _incomplete(stats, b),
                            "n_single": rounded_counts(a["n_single"])})
    est.undefined(~a["exact"], "an item has more annotations than the statistics kept "
                  "apart (its number of ratings is unknown); please report this")
    est.undefined(a["n"] < 2, "fewer than two rated items")
    est.undefined(a["N"] - a["n"] < 0.5, "no item has two ratings, so there is no "
                  "within-item variance to compare with")
    est.undefined(~(a["sst"] > ROUNDING * np.abs(a["scale"])),
                  "every rating has the same value (no variance between or within items)")
    est.undefined(~np.isfinite(value), "the item means are all equal (no variance between "
                  "items), so the reliability of their mean is undefined")
    return est


def oneway_table(a: dict[str, np.ndarray], form: str, estimate: np.ndarray,
                 level: float) -> dict[str, np.ndarray]:
    """F-based limits of ICC(1) / ICC(1,k): F = MSB / MSW on (n - 1, N - n) degrees of
    freedom (Shrout & Fleiss 1979 with k0 for k), the p-value of ICC = 0, and ``k``
    (k0) per cell."""
    shape = estimate.shape
    out = {name: np.full(shape, np.nan) for name in ("lower", "upper", "F", "df1", "df2",
                                                      "p_value")}
    out["k"] = np.asarray(a["k0"], dtype=float).copy()
    q = 1 - (1 - level) / 2
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for idx in np.ndindex(shape):  # cells (labels x replications), not items
            if not np.isfinite(estimate[idx]):
                continue
            n, k0 = float(a["n"][idx]), float(a["k0"][idx])
            f, df1, df2 = float(a["msb"][idx] / a["msw"][idx]), n - 1, float(a["N"][idx]) - n
            out["F"][idx], out["df1"][idx], out["df2"][idx] = f, df1, df2
            out["p_value"][idx] = f_sf(f, df1, df2)
            f_lo, f_hi = f / f_ppf(q, df1, df2), f * f_ppf(q, df2, df1)
            if form == "1,k":
                out["lower"][idx], out["upper"][idx] = 1 - 1 / f_lo, 1 - 1 / f_hi
            else:
                out["lower"][idx] = (f_lo - 1) / (f_lo + k0 - 1)
                out["upper"][idx] = (f_hi - 1) / (f_hi + k0 - 1)
    return out


def crossing(stats: Stats) -> dict[str, np.ndarray]:
    """Whether raters cross items, per (label, replication): ``crossed`` where at
    least two items, and :data:`CROSSED_SHARE` of the rated items (all), are rated
    by every rater of the cell (``b`` raters, ``complete`` items of ``n``);
    ``decided`` where the cell has two raters or more."""
    b, sel = complete_strata(stats)
    hist = stats["m_hist"]
    complete = (hist * sel).sum(axis=-1)
    n = hist[..., 1:].sum(axis=-1)
    crossed = (complete >= 2) & (complete >= CROSSED_SHARE * n)
    return {"b": b, "complete": complete, "n": n, "crossed": crossed, "decided": b >= 2}


def choose_form(stats: Stats, ctx: Context) -> tuple[str, str]:
    """The ICC form of a call without ``form=`` and why: ``"1,1"`` (one-way, every
    annotation) when raters do not cross items in some cell (:func:`crossing`),
    else ``"2,1"`` (two-way random, absolute agreement), Shrout & Fleiss's default.
    One form for the whole call, so its cells stay comparable."""
    c = crossing(stats)
    apart = c["decided"] & ~c["crossed"]
    if apart.any():
        lab, r = np.argwhere(apart)[0]
        return "1,1", (
            f"raters do not cross items: {_share(c, lab, r)} of {ctx.where(lab, r)} are "
            f"rated by all {c['b'][lab, r]} raters, so each item is taken to have its own "
            "raters: the one-way random-effects ICC(1) from every annotation (the two-way "
            "forms need the same raters on every item, at least two)")
    return "2,1", ("raters cross items (every item is rated by every rater): two-way "
                   "random effects, absolute agreement, one rater, ICC(2,1)")


def not_crossed_message(stats: Stats, ctx: Context, lab: int, r: int) -> str:
    """Why the two-way forms are undefined where raters do not cross items, and the
    form for that design (one message for the four forms: ``form="all"`` says it once)."""
    c = crossing(stats)
    return (f"raters do not cross items: {_share(c, lab, r)} of {ctx.where(lab, r)} are "
            f"rated by all {c['b'][lab, r]} raters, and the two-way ICC forms need every "
            "rater on every item. Where each item has its own raters use form='1,1' (or "
            "'1,k': the one-way ICC, from every annotation; leaving form= out chooses it)")


def _share(c: dict[str, np.ndarray], lab: int, r: int) -> str:
    return f"{round(float(c['complete'][lab, r]))} of the {round(float(c['n'][lab, r]))} items"


def _incomplete(stats: Stats, b: np.ndarray) -> np.ndarray:
    """Items with at least one rating but fewer than the cell's ``b`` raters."""
    hist = stats["m_hist"]
    m = np.arange(hist.shape[-1])
    return rounded_counts((hist * ((m >= 1) & (m < b[..., None]))).sum(axis=-1))
