"""Intraclass correlations: the six forms of Shrout & Fleiss (1979).

From the two-way ANOVA of n targets (items) x k judges (raters), every judge
rating every target: mean squares between targets MSR, between judges MSC,
residual MSE and within targets MSW = (SSC + SSE) / (n (k - 1)).

=======  ==========================================================  ================
form     estimate                                                    model
=======  ==========================================================  ================
1,1      (MSR - MSW) / (MSR + (k - 1) MSW)                           one-way random
2,1      (MSR - MSE) / (MSR + (k - 1) MSE + k (MSC - MSE) / n)       two-way random
3,1      (MSR - MSE) / (MSR + (k - 1) MSE)                           two-way mixed
1,k      (MSR - MSW) / MSR                                           mean of k judges
2,k      (MSR - MSE) / (MSR + (MSC - MSE) / n)                       mean of k judges
3,k      (MSR - MSE) / MSR                                           mean of k judges
=======  ==========================================================  ================

Confidence intervals are F-based (Shrout & Fleiss 1979; McGraw & Wong 1996),
with Satterthwaite's degrees of freedom for the two-way random forms (a lower
limit of ICC(2,1) at or below -1/(k - 1) makes that of ICC(2,k) -inf); the
p-value tests ICC = 0 with F = MSR / MSW (form 1) or MSR / MSE (forms 2, 3).
The sums of squares come from the statistics of the items rated by every
rater (the stratum m = k): counts, sums, sums of squares, squared item sums
and per-rater sums. O(N), no n x k table.

Forms 1,1 and 1,k are the one-way ANOVA over every annotation, each item
with its own raters (:mod:`.icc_oneway`: unbalanced, k0 for k; on complete
data the same numbers). Without ``form=`` (``"auto"``) the form is chosen
from the data (:func:`.icc_oneway.choose_form`): the one-way ICC(1) where
raters do not cross items (a crowd: each item rated by a few of many raters),
else ICC(2,1).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..engine.additive import Stats
from ..errors import InputError
from .base import Context, Estimates
from .distributions import f_ppf, f_sf
from .icc_oneway import (
    ONE_WAY,
    choose_form,
    not_crossed_message,
    oneway,
    oneway_anova,
    oneway_table,
)
from .iota import complete_strata

__all__ = ["ALL_FORMS", "AUTO", "FORMS", "analytic", "anova", "form_attrs", "icc",
           "icc_table", "parse_form", "parse_forms", "resolve_form"]

FORMS = ("1,1", "2,1", "3,1", "1,k", "2,k", "3,k")

#: ``form="all"``: each form and its name in the result (pingouin's, before 0.7).
ALL_FORMS = {"1,1": "ICC1", "2,1": "ICC2", "3,1": "ICC3", "1,k": "ICC1k", "2,k": "ICC2k",
             "3,k": "ICC3k"}
CITATION = ("Shrout & Fleiss (1979), Intraclass correlations: uses in assessing rater "
            "reliability; McGraw & Wong (1996) and Donner (1986) for unequal numbers of "
            "ratings per item")

#: ``form=None``: chosen from the data (:func:`resolve_form`).
AUTO = "auto"


def parse_form(form: str | None) -> str:
    """Normalize ``"ICC(2,1)"``, ``"2,1"``, ``"ICC2"``, ``"ICC2k"``, ``"ICC(3,4)"``...;
    None (or ``"auto"``): :data:`AUTO`, the form chosen from the data.

    Examples
    --------
    >>> parse_form("ICC(3,4)"), parse_form("ICC1k"), parse_form(None)
    ('3,k', '1,k', 'auto')
    """
    if form is None or (isinstance(form, str) and form.strip().lower() == AUTO):
        return AUTO
    text = str(form).upper().replace("ICC", "").replace("(", "").replace(")", "")
    text = text.replace(" ", "").replace("_", ",")
    model, _, raters = text.partition(",")
    if not raters and len(model) == 2 and model[1] == "K":
        model, raters = model[0], "K"
    raters = raters or "1"
    if model not in ("1", "2", "3") or not (raters == "K" or raters.isdigit()):
        raise InputError(
            f"unknown ICC form {form!r}; use one of {', '.join(FORMS)} (also written "
            "'ICC(2,1)', 'ICC2' or 'ICC2k'), or 'all' for the six."
        )
    return f"{model},{'1' if raters == '1' else 'k'}"


def parse_forms(form: str | None) -> tuple[str, ...]:
    """The forms ``form=`` asks for: ``"all"`` (case forgiven) the six, in
    :data:`FORMS` order; else the one form :func:`parse_form` reads.

    Examples
    --------
    >>> parse_forms("ICC3k"), len(parse_forms("All"))
    (('3,k',), 6)
    """
    if isinstance(form, str) and form.strip().lower() == "all":
        return FORMS
    return (parse_form(form),)


def anova(stats: Stats, ctx: Context) -> dict[str, np.ndarray]:
    """Mean squares per (label, replication) over the items rated by every rater.

    ``incomplete`` counts the rated items that lack a rating: where it is not
    0 the ICC of that label is undefined (NaN with the reason).
    """
    b, complete = complete_strata(stats)
    m_hist = stats["m_hist"]
    strata = np.arange(m_hist.shape[-1])
    incomplete = (m_hist * ((strata >= 1) & (strata < b[..., None]))).sum(axis=-1)
    n = (m_hist * complete).sum(axis=-1)
    kf = b.astype(float)
    sel = complete[..., None]
    mom = (stats["strata_mom"] * sel).sum(axis=2)
    item_sq = (stats["strata_item_sq"] * complete).sum(axis=-1)
    rater_sums = (stats["strata_rater"][..., 1] * complete[..., None]).sum(axis=2)
    with np.errstate(divide="ignore", invalid="ignore"):
        grand = mom[..., 1] ** 2 / (n * kf)
        sst = mom[..., 2] - grand
        ssr = item_sq / kf - grand
        ssc = (rater_sums**2).sum(axis=-1) / n - grand
        sse = sst - ssr - ssc
        return {
            "n": n, "k": kf, "incomplete": incomplete,
            "msr": ssr / (n - 1), "msc": ssc / (kf - 1),
            "mse": sse / ((n - 1) * (kf - 1)), "msw": (ssc + sse) / (n * (kf - 1)),
        }


def resolve_form(stats: Stats, ctx: Context, form: str = AUTO) -> tuple[str, str]:
    """The form a call computes and why: ``form`` itself when given, else the one
    :func:`.icc_oneway.choose_form` reads from the data."""
    if form == AUTO:
        return choose_form(stats, ctx)
    return form, f"form={form!r} given"


def form_attrs(run: Any, params: dict[str, Any]) -> dict[str, str]:
    """The attrs an ICC result carries: ``form`` (the form computed, also when chosen
    from the data) and ``form_reason``; ``{}`` for a call without a ``form`` parameter.

    Examples
    --------
    >>> import pandas as pd
    >>> from xrr_accessor.coefficients import lookup
    >>> from xrr_accessor.engine.pipeline import run
    >>> crowd = pd.DataFrame({"item": [0, 0, 1, 1, 2, 2], "rater": list("abcdef"),
    ...                       "score": [1.0, 2.0, 4.0, 5.0, 7.0, 7.5]})
    >>> form_attrs(run(crowd, [lookup("icc")], level="interval"), {"form": "auto"})["form"]
    '1,1'
    """
    if "form" not in params:
        return {}
    form, why = resolve_form(run.stats, run.ctx, params["form"])
    return {"form": form, "form_reason": why}


def icc(stats: Stats, ctx: Context, form: str = AUTO,
        a: dict[str, np.ndarray] | None = None) -> Estimates:
    """ICC of the given form per (label, replication), from :func:`anova` (computed
    here unless given); the one-way forms from every annotation
    (:func:`.icc_oneway.oneway`); ``"auto"``: the form :func:`resolve_form` chooses."""
    form, _ = resolve_form(stats, ctx, form)
    if form in ONE_WAY:
        return oneway(stats, ctx, form)
    a = anova(stats, ctx) if a is None else a
    n, k, msr, msc, mse, msw = (a[x] for x in ("n", "k", "msr", "msc", "mse", "msw"))
    with np.errstate(divide="ignore", invalid="ignore"):
        value = {
            "1,1": (msr - msw) / (msr + (k - 1) * msw),
            "2,1": (msr - mse) / (msr + (k - 1) * mse + k * (msc - mse) / n),
            "3,1": (msr - mse) / (msr + (k - 1) * mse),
            "1,k": (msr - msw) / msr,
            "2,k": (msr - mse) / (msr + (msc - mse) / n),
            "3,k": (msr - mse) / msr,
        }[form]
    est = Estimates(np.where(np.isfinite(value), value, np.nan),
                    counts={"n_items": np.rint(n).astype(np.int64),
                            "n_raters": k.astype(np.int64),
                            "n_incomplete": np.rint(a["incomplete"]).astype(np.int64),
                            "n_single": np.rint(stats["m_hist"][..., 1]).astype(np.int64)})
    est.undefined(k < 2, "fewer than two raters")
    for lab, r in np.argwhere(a["incomplete"] > 0):
        cell = np.zeros(n.shape, dtype=bool)
        cell[lab, r] = True
        est.undefined(cell, not_crossed_message(stats, ctx, lab, r) if n[lab, r] < 2 else (
            f"the ICC needs every rater on every item, but {int(a['incomplete'][lab, r])} "
            f"item(s) of {ctx.where(lab, r)} lack a rating. Keep the complete items (e.g. "
            "pivot to items x raters and .dropna()), use form='1,1' (the one-way ICC, from "
            "every annotation), or use metric='alpha' with level='interval', which handles "
            "missing ratings"))
    est.undefined(n < 2, "fewer than two items rated by every rater")
    est.undefined(~np.isfinite(value), "no variance between or within items")
    return est


def icc_table(a: dict[str, np.ndarray], form: str, estimate: np.ndarray,
              level: float) -> dict[str, np.ndarray]:
    """F-based confidence limits, F statistic, degrees of freedom, p-value and ``k``
    (the raters of each cell) of a two-way form."""
    shape = estimate.shape
    out = {name: np.full(shape, np.nan) for name in ("lower", "upper", "F", "df1", "df2",
                                                      "p_value")}
    out["k"] = np.asarray(a["k"], dtype=float).copy()  # as the one-way table's k0
    q = 1 - (1 - level) / 2
    model, avg = form[0], form.endswith("k")
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        # an infinite F quantile (tiny Satterthwaite df) leaves a limit undefined: NaN
        for idx in np.ndindex(shape):
            _icc_limits(a, idx, estimate, out, q, model, avg)
    return out


def analytic(run: Any, estimate: np.ndarray, level: float, population: float,
             params: dict[str, Any]) -> dict[str, np.ndarray]:
    """The registry's analytic-interval hook: F-based limits of ``params["form"]``
    (``population`` does not apply to the ANOVA's F intervals); the one-way forms'
    from every annotation (:func:`.icc_oneway.oneway_table`)."""
    form, _ = resolve_form(run.stats, run.ctx, params.get("form", AUTO))
    if form in ONE_WAY:
        return oneway_table(oneway_anova(run.stats), form, estimate, level)
    return icc_table(anova(run.stats, run.ctx), form, estimate, level)


def _icc_limits(a: dict[str, np.ndarray], idx: tuple[int, ...], estimate: np.ndarray,
                out: dict[str, np.ndarray], q: float, model: str, avg: bool) -> None:
    """Fill the F statistic, p-value and limits of one (label, replication) cell."""
    n, k = a["n"][idx], a["k"][idx]
    msr, msc, mse, msw = a["msr"][idx], a["msc"][idx], a["mse"][idx], a["msw"][idx]
    if not np.isfinite(estimate[idx]):
        return
    if model == "1":
        f, df1, df2 = msr / msw, n - 1, n * (k - 1)
    else:
        f, df1, df2 = msr / mse, n - 1, (n - 1) * (k - 1)
    out["F"][idx], out["df1"][idx], out["df2"][idx] = f, df1, df2
    out["p_value"][idx] = f_sf(f, df1, df2)
    if model in ("1", "3"):
        f_lo = f / f_ppf(q, df1, df2)
        f_hi = f * f_ppf(q, df2, df1)
        if avg:
            lo, hi = 1 - 1 / f_lo, 1 - 1 / f_hi
        else:
            lo, hi = (f_lo - 1) / (f_lo + k - 1), (f_hi - 1) / (f_hi + k - 1)
    else:
        icc21 = (msr - mse) / (msr + (k - 1) * mse + k * (msc - mse) / n)
        va = k * icc21 / (n * (1 - icc21))
        vb = 1 + k * icc21 * (n - 1) / (n * (1 - icc21))
        v = (va * msc + vb * mse) ** 2 / (
            (va * msc) ** 2 / (k - 1) + (vb * mse) ** 2 / ((n - 1) * (k - 1)))
        f_lo, f_hi = f_ppf(q, n - 1, v), f_ppf(q, v, n - 1)
        lo = n * (msr - f_lo * mse) / (f_lo * (k * msc + (k * n - k - n) * mse) + n * msr)
        hi = n * (f_hi * msr - mse) / (k * msc + (k * n - k - n) * mse + n * f_hi * msr)
        if avg:  # Spearman-Brown; below -1/(k-1) the mean-rating ICC is unbounded
            lo = lo * k / (1 + lo * (k - 1)) if lo > -1 / (k - 1) else -math.inf
            hi = hi * k / (1 + hi * (k - 1)) if hi > -1 / (k - 1) else -math.inf
    out["lower"][idx] = lo if not math.isnan(lo) else np.nan
    out["upper"][idx] = hi if not math.isnan(hi) else np.nan
