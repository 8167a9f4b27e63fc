"""Public functions: each reads its input, runs the one pipeline, labels the result.

The flow input -> codes (:mod:`.schema`) -> statistics (:mod:`.statistics`)
-> finalize (:mod:`.coefficients`) -> labeled result (:mod:`.results`) lives
in :mod:`.pipeline`; the functions here choose the registry entries and the
shape of what they return. The ``.xrr`` accessors call these functions.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from .coefficients import REGISTRY, Coefficient, lookup
from .coefficients.icc import anova, icc_table, parse_form
from .convert import to_frame, to_xarray
from .errors import InputError
from .pipeline import (
    annotations,
    entry_level,
    keep_pairs,
    kind_of,
    n_self,
    reference_code,
    run,
)
from .results import pair_index, warn_dropped

__all__ = ["annotations", "cross_kappa", "irr", "normalized", "summary", "to_frame", "to_xarray"]


def confidence(ci: float) -> float:
    """Validate a confidence level in (0, 1)."""
    if not (isinstance(ci, int | float) and 0 < ci < 1):
        raise InputError(f"ci={ci!r} is a confidence level between 0 and 1, e.g. ci=0.95.")
    return float(ci)


def population_size(population: float | None) -> float:
    """Validate a finite-population size (None: infinite)."""
    if population is None:
        return math.inf
    if not population >= 1:
        raise InputError(f"population={population!r} is the number of items in the "
                         "population (>= the items rated), or None for an infinite one.")
    return float(population)


def normalizing(name: str) -> Coefficient:
    """The registry entry of an IRR that can normalize kappa_x."""
    try:
        entry = lookup(name)
    except InputError:
        entry = None
    if entry is None or not entry.normalizes:
        names = [e.name for e in REGISTRY.values() if e.normalizes]
        raise InputError(
            f"irr={name!r} cannot normalize kappa_x; use one of {', '.join(names)} "
            "(defined at every level of measurement, as kappa_x is)."
        )
    return entry


def intervals(result: Any, entry: Coefficient, ci: float, population: float | None,
              params: dict[str, Any]) -> dict[str, np.ndarray]:
    """Analytic standard errors and limits of ``entry`` (ICC: F-based)."""
    est = result.estimate(entry, **params)
    level = confidence(ci)
    if entry.name == "icc":
        return {"estimate": est.value, **icc_table(anova(result.stats, result.ctx),
                                                   params["form"], est.value, level)}
    if entry.variance is None:
        names = [e.name for e in REGISTRY.values() if e.variance is not None]
        raise InputError(f"metric={entry.name!r} has no analytic standard error here; those "
                         f"with one are {', '.join(names)}.")
    iv = entry.variance(result.ann, result.ctx, entry.name, est.value,
                        population_size(population))
    return {"estimate": est.value, **iv.bounds(est.value, level)}


def irr(
    data: Any, metric: str = "alpha", level: Any = "nominal", weights: Any = None,
    ci: float | None = None, population: float | None = None, form: str | None = None,
    **roles: Any,
) -> Any:
    """Inter-rater reliability of each label in each replication.

    Parameters
    ----------
    data : DataFrame, Dataset or DataArray
        Annotations: a long frame (one row per item x rater, one column per
        label, or a label and a value column), a wide frame (``wide=True``),
        or xarray with dims ``item``, ``rater`` and optionally ``replication``
        and ``label``.
    metric : str
        ``"alpha"`` (Krippendorff, default; any raters, missing data),
        ``"cohen"`` (exactly two raters), ``"iota"`` (Janson-Olsson; Conger's
        kappa for nominal data) -- these two use items rated by every rater
        and report the others in ``n_dropped`` --, or the chance-corrected
        family in Gwet's form: ``"percent"`` agreement, ``"scott"``,
        ``"fleiss"``, ``"conger"``, ``"bp"`` (Brennan-Prediger), ``"gwet"``
        (AC1; AC2 when weighted), ``"light"`` (mean pairwise Cohen) and
        ``"icc"``. Case and common aliases are forgiven (``"Fleiss"``,
        ``"krippendorff"``, ``"ac1"``); the registry
        (:data:`xrr_accessor.coefficients.REGISTRY`) lists them all.
    level : {"nominal", "ordinal", "interval", "ratio"}, matrix or callable
        Level of measurement for alpha, iota and cohen: a name, a K x K
        disagreement matrix over the categories (ndarray in category order,
        or a DataFrame indexed by category), or a callable ``D(a, b)``.
    weights : {"unweighted", "linear", "quadratic"} or matrix, optional
        Agreement weights for cohen, iota and the chance-corrected family:
        linear 1 - |a - b| / range, quadratic 1 - (a - b)^2 / range^2, over
        the category values when they are numbers (as irrCAC) or their
        ranks otherwise (scikit-learn always uses ranks), or a K x K matrix
        with 1 on the diagonal.
    ci : float, optional
        Confidence level (e.g. 0.95). Given, the result is a table with the
        ``estimate``, its standard error ``se``, the ``lower`` and ``upper``
        limits and the ``p_value`` of "no agreement beyond chance", from
        Gwet's analytic variance (percent, fleiss, gwet, bp, conger, cohen,
        alpha) with Student's t on n - 1 degrees of freedom, n the items used.
    population : float, optional
        Number of items in the population the items are a sample of: the
        finite-population correction 1 - n / N of the variance (default: an
        infinite population, no correction).
    form : str, optional
        The ICC form (``metric="icc"``): ``"1,1"``, ``"2,1"`` (default: two-way
        random effects, absolute agreement, one rater), ``"3,1"``, ``"1,k"``,
        ``"2,k"``, ``"3,k"`` (also ``"ICC(2,1)"``, ``"ICC2k"``). Intervals are
        F-based; the ICC needs every rater on every item (a label with an
        item lacking a rating is NaN, with a warning saying how many).
    **roles
        Column or dimension names, see :func:`annotations`.

    Returns
    -------
    float, Series, DataFrame or DataArray
        One coefficient per label and replication, labeled; counts
        (``n_items``, ``n_unpairable`` or ``n_dropped``) in ``attrs`` or as
        coordinates. NaN with an :class:`~xrr_accessor.errors.UndefinedWarning`
        where undefined.

    Examples
    --------
    Krippendorff (2011), 4 observers x 12 units with missing values:

    >>> import numpy as np, pandas as pd
    >>> nan = np.nan
    >>> data = pd.DataFrame(
    ...     [[1, 2, 3, 3, 2, 1, 4, 1, 2, nan, nan, nan],
    ...      [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, nan, 3],
    ...      [nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, nan],
    ...      [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, nan]]).T
    >>> round(irr(data, wide=True), 3)
    0.743
    >>> round(irr(data, level="interval", wide=True), 3)
    0.849
    """
    entry = lookup(metric)
    params: dict[str, Any] = {}
    if "form" in entry.params:
        params["form"] = parse_form(form)
    elif form is not None:
        raise InputError("form= selects an ICC form; it goes with metric='icc'.")
    result = run(data, [entry], level=entry_level(entry, level, weights), **roles)
    est = result.estimate(entry, **params)
    result.warn(entry, est)
    attrs = {"name": entry.name, "metric": entry.name, "level": result.level.name,
             "citation": entry.citation, **params}
    if result.level.name == "weights":
        attrs["weights"] = (result.level.custom if isinstance(result.level.custom, str)
                            else "custom")
    if ci is not None:
        attrs["ci"] = ci
        return result.label(entry, est, attrs, intervals(result, entry, ci, population,
                                                         params))
    return result.label(entry, est, attrs)


def cross_kappa(data: Any, other: Any = None, level: Any = "nominal", **roles: Any) -> Any:
    """Cross-replication kappa kappa_x (Wong, Paritosh & Aroyo 2021, Eq 9-11).

    Parameters
    ----------
    data : DataFrame, Dataset or DataArray
        Annotations (see :func:`irr`).
    other : same kinds, optional
        Annotations of the same items by another replication. Given: kappa_x
        between each replication of ``data`` and each of ``other`` (items
        matched by id). Not given: every pair of replications in ``data``.
        Read with the same roles as ``data``; pass ``other.xrr(rater=...)``
        to give it its own.
    level : str, matrix or callable
        Level of measurement (see :func:`irr`).
    **roles
        Column or dimension names, see :func:`annotations`.

    Returns
    -------
    float, Series, DataFrame or DataArray
        kappa_x per label and replication pair; ``n_items`` (items annotated
        in both) and ``n_unpairable`` (items annotated in only one, left out)
        alongside.

    Examples
    --------
    One annotation per item in each replication, nominal: Cohen's kappa
    (the 50-paper example of SPEC.md: 15 both accept, 20 both reject, 11
    and 4 split).

    >>> import pandas as pd
    >>> a = ["acc"] * 15 + ["rej"] * 20 + ["acc"] * 11 + ["rej"] * 4
    >>> b = ["acc"] * 15 + ["rej"] * 20 + ["rej"] * 11 + ["acc"] * 4
    >>> x = pd.DataFrame({"item": range(50), "rater": "A", "decision": a})
    >>> y = pd.DataFrame({"item": range(50), "rater": "B", "decision": b})
    >>> round(float(cross_kappa(x, y)["decision"]), 6)
    0.405705
    """
    entry = lookup("kappa_x", kind="cross")
    result = run(data, [entry], other=other, level=level, **roles)
    est = result.estimate(entry)
    result.warn(entry, est)
    attrs = {"name": "kappa_x", "metric": "kappa_x", "level": result.level.name,
             "citation": entry.citation}
    return result.label(entry, est, attrs, keep_cells=keep_pairs(result.ann))


def normalized(
    data: Any,
    other: Any = None,
    irr: str = "alpha",
    level: Any = "nominal",
    reference: Any = None,
    **roles: Any,
) -> Any:
    """Normalized kappa_x: replication similarity (Eq 13), or kappa_x / IRR_reference.

    ``kappa_x(X, Y) / (sqrt(IRR_X) sqrt(IRR_Y))`` for each pair of
    replications. With ``reference`` (a replication name, or ``"other"`` /
    ``"self"`` when ``other`` is given): ``kappa_x(X, ref) / IRR_ref`` for
    every other replication X (Section 6 of the paper, e.g. crowd against an
    expert pool). Undefined (NaN, with a warning) where an IRR used is <= 0
    (or within 1e-12 of 0, where its sign is rounding noise) or NaN.

    Parameters
    ----------
    data, other : annotations
        As in :func:`cross_kappa`.
    irr : {"alpha", "cohen", "iota"}
        The IRR used to normalize (alpha by default, so that a perfect
        replication gives 1; the paper's Table 5 uses ``"cohen"``).
    level : str, matrix or callable
        Level of measurement for both kappa_x and the IRRs.
    reference : replication name, "self" or "other", optional
        Normalize by this replication's IRR only.
    **roles
        Column or dimension names.

    Returns
    -------
    float, Series, DataFrame or DataArray
        Labeled like :func:`cross_kappa`.

    Examples
    --------
    A perfect replication (both pools draw from the same propensities):

    >>> from xrr_accessor.datasets import simulate
    >>> df = simulate(n_items=5000, labels=["joy"], pools=["A", "B"], similarity=1.0, seed=1)
    >>> round(float(normalized(df).iloc[0, 0]), 1)
    1.0
    """
    rel = normalizing(irr)
    entry = lookup("normalized_kappa_x", kind="cross")
    result = run(data, [entry, rel], other=other, level=level, reference=reference, **roles)
    ref = None if reference is None else reference_code(result.ann, reference,
                                                        n_self(result.ann))
    est = result.estimate(entry, irr=rel.name, reference=ref)
    result.warn(entry, est, "normalized kappa_x")
    warn_dropped(result.estimate(rel), result.ann, rel.name)
    attrs = {"name": "normalized_kappa_x", "metric": "normalized_kappa_x", "irr": rel.name,
             "level": result.level.name, "reference": reference,
             "citation": entry.citation}
    return result.label(entry, est, attrs, keep_cells=keep_pairs(result.ann))


def summary(
    data: Any, other: Any = None, irr: str = "alpha", level: Any = "nominal", **roles: Any
) -> Any:
    """The xRR table of the paper (Table 5): IRR, kappa_x and normalized kappa_x.

    One row per label; columns grouped by statistic: the IRR of each
    replication, then kappa_x and normalized kappa_x of each replication
    pair, all from one pass over the data. NaN cells warn once, with reasons.

    Parameters
    ----------
    data, other : annotations
        As in :func:`cross_kappa`.
    irr : {"alpha", "cohen", "iota"}
        The IRR reported and used to normalize (Table 5 uses ``"cohen"``).
    level : str, matrix or callable
        Level of measurement.
    **roles
        Column or dimension names.

    Returns
    -------
    DataFrame or Dataset
        From pandas: index ``label``; columns a MultiIndex (statistic,
        replication, replication_other) with the statistics ``irr`` (whose
        ``replication_other`` is empty), ``kappa_x`` and ``normalized``, so
        that ``summary()["kappa_x"]`` is laid out as :func:`cross_kappa`.
        From xarray: a Dataset with the variables ``irr`` (label,
        replication), ``kappa_x`` and ``normalized`` (label, replication,
        replication_other): the pairs of :func:`cross_kappa` unstacked
        (``cross_kappa().unstack("pair")``), NaN where two replications are
        not a pair of the call.

    Examples
    --------
    >>> from xrr_accessor.datasets import simulate
    >>> df = simulate(n_items=500, labels=["joy", "awe"], pools=["A", "B"], seed=3)
    >>> summary(df).columns.get_level_values(0).unique().tolist()
    ['irr', 'kappa_x', 'normalized']
    """
    rel = normalizing(irr)
    kx = lookup("kappa_x", kind="cross")
    norm = lookup("normalized_kappa_x", kind="cross")
    result = run(data, [kx, norm, rel], other=other, level=level, **roles)
    rel_est, kx_est = result.estimate(rel), result.estimate(kx)
    norm_est = result.estimate(norm, irr=rel.name)
    result.warn(rel, rel_est)
    result.warn(kx, kx_est)
    ann = result.ann
    pairs = pair_index(ann, result.pairs)
    attrs = {"irr": rel.name, "level": result.level.name}
    if kind_of(data) == "xarray":
        blocks = {name: result.label(entry, est, {"name": name})
                  for name, entry, est in (("irr", rel, rel_est), ("kappa_x", kx, kx_est),
                                           ("normalized", norm, norm_est))}
        return xr.Dataset({k: v.reset_coords(drop=True) if k == "irr" else
                           v.reset_coords(drop=True).unstack("pair")
                           for k, v in blocks.items()}, attrs=attrs)
    irr_cols = pd.MultiIndex.from_arrays(
        [ann.replications, [""] * len(ann.replications)],
        names=["replication", "replication_other"])
    blocks = {
        "irr": pd.DataFrame(rel_est.value, index=ann.labels, columns=irr_cols),
        "kappa_x": pd.DataFrame(kx_est.value, index=ann.labels, columns=pairs),
        "normalized": pd.DataFrame(norm_est.value, index=ann.labels, columns=pairs),
    }
    out = pd.concat(blocks, axis=1, names=["statistic"])
    out.attrs.update(attrs)
    out.attrs["n_unpairable"] = pd.DataFrame(
        kx_est.counts["n_unpairable"].astype(object), index=ann.labels,
        columns=[f"{a} x {b}" for a, b in pairs]).to_dict()
    return out
