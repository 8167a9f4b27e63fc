"""Reading coefficients: Landis-Koch bands, per-category agreement, side-by-side tables.

These build on :mod:`.api`: one pass over the data, every coefficient from
the same per-item statistics.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from ..coefficients import REGISTRY, lookup
from ..coefficients.registry import needs
from ..coefficients.sums import rater_totals
from ..engine.infer import WEIGHTS_INFERRED
from ..engine.levels import resolve_weights
from ..engine.pipeline import annotations as canonical
from ..engine.pipeline import entry_level, run
from ..errors import InputError, per_call
from ..lazy import deferrable
from ..schema import Annotations
from ..schema.roles import is_slot
from ..uncertainty.budget import MEMORY_SHARE, available_memory
from ..uncertainty.orchestration import NO_INTERVAL, Uncertainty, evaluate, evaluate_run
from ..uncertainty.resample import Target
from .bands import EDGE, LANDIS_KOCH, band_of

__all__ = ["EDGE", "LANDIS_KOCH", "agreement_table", "interpret", "no_interval", "per_category"]


def _band(x: float) -> str | float:
    band = band_of(x)
    return np.nan if band == "undefined" else band


def interpret(values: Any) -> Any:
    """Landis & Koch (1977) band of each coefficient x, each band holding its upper
    edge (:data:`~xrr_accessor.reporting.bands.LEGEND`): poor (x < 0), slight
    (0 <= x <= 0.20), fair (0.20 < x <= 0.40), moderate (0.40 < x <= 0.60),
    substantial (0.60 < x <= 0.80), almost perfect (x > 0.80). A coefficient within
    1e-12 of an edge counts as on it.

    The xRR framework's point is to read an IRR against its replications
    instead; the bands are here because papers still report them.

    Parameters
    ----------
    values : float, Series, DataFrame, DataArray or array-like
        Coefficients; NaN stays NaN.

    Returns
    -------
    The same shape, holding band names.

    Examples
    --------
    >>> interpret(0.405705), interpret(0.2), interpret(0.205), interpret(0.605)
    ('moderate', 'slight', 'fair', 'substantial')
    >>> interpret(pd.Series([-0.1, 0.2, 0.95])).tolist()
    ['poor', 'slight', 'almost perfect']
    >>> interpret(0.6 + 1e-16), interpret(-1e-17)  # rounding of an edge: on the edge
    ('moderate', 'slight')
    """
    if isinstance(values, pd.DataFrame | pd.Series):
        return values.map(_band)
    if isinstance(values, xr.DataArray):
        return xr.apply_ufunc(np.vectorize(_band, otypes=[object]), values)
    if np.ndim(values) == 0:
        return _band(float(values))
    return np.vectorize(_band, otypes=[object])(np.asarray(values, dtype=float))


def _binary(ann: Annotations, available: int | None = None) -> Annotations:
    """One binary label per (label, category): category vs the rest (-1 stays missing).

    The codes are written into one (categories, rows) array, vectorized over labels
    and categories; a size that cannot fit in :data:`~..uncertainty.budget.MEMORY_SHARE`
    of the ``available`` memory (default: what the system has now) is refused before
    anything is allocated (:func:`_check_size`).
    """
    n_cat = np.array([len(c) for c in ann.categories], dtype=np.int64)
    total, n_rows = int(n_cat.sum()), ann.codes.shape[1]
    _check_size(ann, n_cat, available)
    label_of = np.repeat(np.arange(len(n_cat)), n_cat)  # (categories,): each one's label
    start = np.cumsum(n_cat) - n_cat  # each label's first binary row
    codes = np.zeros((total, n_rows), dtype=np.int64)
    missing = ann.codes < 0
    np.copyto(codes, -1, where=missing[label_of])
    lab, row = np.nonzero(~missing)
    codes[start[lab] + ann.codes[lab, row], row] = 1
    names = [(label, cat) for label, cats in zip(ann.labels, ann.categories, strict=True)
             for cat in cats]
    source: dict[Hashable, str] = {
        name: f"{ann.source.get(name[0], repr(name[0]))}, category {name[1]!r}"
        for name in names}
    return replace(
        ann, codes=codes, has_label=True, source=source,
        labels=pd.MultiIndex.from_tuples(names, names=["label", "category"]),
        categories=tuple(pd.Index([0, 1]) for _ in names),
    )


#: Bytes per (category, annotation row) that :func:`per_category` holds at its peak: the
#: binary int64 codes, the missing mask while they are written, the engine's pass.
BINARY_BYTES = 9


def _check_size(ann: Annotations, n_cat: np.ndarray, available: int | None = None) -> None:
    """Refuse (an :class:`InputError` naming the size and the fix) binary codes that
    would take more than :data:`~..uncertainty.budget.MEMORY_SHARE` of the memory
    ``available`` (default: what the system has now), before they are allocated."""
    total, n_rows = int(n_cat.sum()), ann.codes.shape[1]
    need = BINARY_BYTES * total * n_rows
    available = available_memory() if available is None else available
    if available is None or need <= MEMORY_SHARE * available:
        return
    widest = int(np.argmax(n_cat))
    most = (f"; label {ann.labels[widest]!r} alone has {int(n_cat[widest]):,}"
            if len(n_cat) > 1 else "")
    raise InputError(
        f"per_category recodes {total:,} categories{most} into binary labels over "
        f"{n_rows:,} annotation rows: {total:,} x {n_rows:,} codes, about "
        f"{need / 2**30:,.1f} GiB of memory, more than {MEMORY_SHARE:.0%} of the "
        f"{available / 2**30:,.1f} GiB available now. Merge rare categories into one "
        "(e.g. 'other') first, or call per_category on fewer labels at a time (one label: "
        "select its column or rows).")


@per_call
def per_category(data: Any, metric: str = "fleiss", **roles: Any) -> Any:
    """Agreement on each category against the rest (category-specific kappa).

    Every label is recoded, category by category, into "this category or
    not", and ``metric`` is computed on each binary label: with Fleiss' kappa
    these are Fleiss' (1971) category kappas.

    Parameters
    ----------
    data : annotations
        As in :func:`xrr_accessor.irr`.
    metric : str
        Any IRR metric of :func:`xrr_accessor.irr` (unweighted).
    **roles
        Column or dimension names.

    Returns
    -------
    Series, DataFrame or DataArray indexed by (label, category) [x replication].

    Raises
    ------
    InputError
        When the binary labels (every label's categories x the annotation rows, about
        :data:`BINARY_BYTES` bytes each) would take more than half the memory available,
        before anything is allocated; the message names the size and the fix.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"A": ["x", "y", "z", "x"], "B": ["x", "y", "x", "x"]})
    >>> per_category(df, wide=True).round(3).tolist()
    [0.467, 1.0, -0.143]
    """
    entry = lookup(metric)
    if not entry.per_category:
        raise InputError(f"per-category agreement recodes categories to 0/1; use a kappa "
                         f"or alpha, not {entry.name}.")
    ann, lvl = canonical(data, level=entry_level(entry, "nominal", None), **roles)
    return evaluate(data, [Target(entry.name, entry)], ann=_binary(ann), lvl=lvl,
                    names={entry.name: f"{entry.name} per category"}
                    ).label(per_category=True)


@deferrable
def agreement_table(
    data: Any, weights: Any = None, ci: float | None = None,
    population: float | None = None, **roles: Any,
) -> pd.DataFrame:
    """Every coefficient side by side, with its agreement and chance terms.

    One row per coefficient (per label and replication when there are
    several): the ``estimate``, observed agreement ``pa`` and chance
    agreement ``pe`` where the coefficient has them (not percent agreement,
    which has no chance term, nor alpha, whose terms
    are disagreements over pairable values, nor Light's kappa, a mean of
    pairwise kappas), the Landis-Koch ``band`` (not for percent agreement,
    which is not chance-corrected), and with ``ci`` the standard error and
    limits; a coefficient
    that cannot be computed on these data is NaN with its ``reason``. Reading ``pa``
    against ``pe`` makes the kappa paradox visible: the same observed
    agreement, a larger chance term, a lower kappa, while Brennan-Prediger
    and AC1 hold (seed 004). Cohen's kappa appears when every replication
    has exactly two raters. All rows come from one pass over the data.

    Parameters
    ----------
    data : annotations
        As in :func:`xrr_accessor.irr`.
    weights : {"unweighted", "linear", "quadratic"} or matrix
        Agreement weights for every coefficient (alpha with D = 1 - w). Default: the
        weights of the level inferred from the values, as every call infers it
        (unweighted for nominal labels, linear for ordinal ratings, quadratic for
        interval numbers; docs/definitions.md, "Which level"), named in
        ``attrs["weights"]`` and in a :class:`~xrr_accessor.errors.LevelNote`. There is
        no ``level=``: it raises an InputError naming the weights that fit the level
        (alpha at a level, with its own distance, is :func:`xrr_accessor.irr`'s).
    ci : float, optional
        Confidence level of the analytic intervals (Gwet's variances). Scott's pi
        and Light's kappa have none: their se and limits are NaN and their
        ``reason`` names the bootstrap call that gives one.
    population : float, optional
        Finite-population size for the variances.
    **roles
        Column or dimension names.

    Returns
    -------
    DataFrame
        Index (label, replication, metric) levels as present.

    Examples
    --------
    >>> import pandas as pd
    >>> a = ["acc"] * 5 + ["rej"] * 30 + ["acc"] * 11 + ["rej"] * 4
    >>> b = ["acc"] * 5 + ["rej"] * 30 + ["rej"] * 11 + ["acc"] * 4
    >>> table = agreement_table(pd.DataFrame({"A": a, "B": b}), wide=True)
    >>> table.loc[["cohen", "bp", "gwet"], ["estimate", "pa", "pe", "band"]].round(3)
            estimate   pa     pe      band
    metric
    cohen      0.220  0.7  0.615      fair
    bp         0.400  0.7  0.500      fair
    gwet       0.520  0.7  0.375  moderate
    """
    if "level" in roles:  # every row is weighted alike: by weights=, never by a level
        raise InputError(_NO_LEVEL.format(roles["level"]))
    uncertainty = Uncertainty(ci, population=population)
    entries = [e for e in REGISTRY.values() if e.in_table]
    ann, lvl = canonical(data, level=WEIGHTS_INFERRED if weights is None
                         else resolve_weights(weights), **roles)
    if is_slot(ann.role_names.get("rater")):  # a count table: no rater to follow
        entries = [e for e in entries if "raters" not in needs(e)]
    result = run(data, entries, ann=ann, lvl=lvl, **roles)
    if weights is None:  # the weights of the level inferred from the values
        weights = result.level.custom
    ann = result.ann
    most = int((rater_totals(result.stats) > 0).sum(axis=-1).max(initial=0))
    two = most == 2
    counting = [e.display for e in entries if e.counts_categories]
    if counting:  # said once for the table (its reasons column holds only NaN reasons)
        result.warn_categories(" and ".join(counting))
    blocks = []
    for entry in entries:
        if entry.max_raters is not None and most > entry.max_raters:
            continue
        analytic = entry.analytic is not None  # the others: no interval here (NaN)
        found = evaluate_run(result, [Target(entry.name, entry)],
                             uncertainty if analytic else NO_INTERVAL, warn=False)
        est = found.estimates[entry.name]
        cols = {"estimate": est.value}
        for side in ("pa", "pe"):
            cols[side] = np.asarray(est.extras.get(side, np.full(est.value.shape, np.nan)),
                                    dtype=float)
        if ci is not None:
            none = {k: np.full(est.value.shape, np.nan) for k in ("se", "lower", "upper",
                                                                   "p_value")}
            cols.update({k: v for k, v in found.intervals.get(entry.name, none).items()
                         if k != "estimate"})
        assert est.reason is not None  # filled by Estimates.__post_init__
        cols["reason"] = est.reason
        if ci is not None and not analytic:  # blank se/lower/upper: said, not left empty
            cols["reason"] = np.where(est.reason == "", no_interval(entry.name, ci, weights),
                                      est.reason)
        blocks.append(_long(cols, ann, entry.name))
    out = pd.concat(blocks, ignore_index=True)
    if two:  # Cohen's kappa is Conger's for two raters: the same p_a and p_e
        for side in ("pa", "pe"):
            out.loc[out["metric"] == "cohen", side] = out.loc[out["metric"] == "conger",
                                                              side].to_numpy()
    corrected = out["metric"].map({e.name: e.chance_corrected for e in entries})
    band = interpret(out["estimate"]).where(corrected.astype(bool))  # bands: kappa-likes
    out.insert(out.columns.get_loc("reason"), "band", band)
    keys = [k for k in ("label", "replication") if k in out.columns]
    order_of = {e.name: i for i, e in enumerate(entries)}
    rank = out["metric"].map(order_of)
    order = np.lexsort([rank.to_numpy()] + [pd.factorize(out[k])[0] for k in keys[::-1]])
    out = out.iloc[order].set_index([*keys, "metric"])
    out.attrs.update({"weights": weights if isinstance(weights, str) else "custom",
                      **result.ann.said})
    return out


#: agreement_table(..., level=...): the family takes weights=, and irr takes the level.
_NO_LEVEL = ("agreement_table weights every coefficient alike with weights= "
             "('unweighted', 'linear', 'quadratic' or a K x K matrix), not level={!r}: the "
             "ordinal level's weights are weights='linear', the interval level's "
             "weights='quadratic' (the default: those of the level inferred from the values). "
             "Alpha at a level, with its own distance, is irr(data, metric='alpha', level=...).")


def no_interval(metric: str, ci: float, weights: Any = "unweighted") -> str:
    """The ``reason`` of a row of :func:`agreement_table` whose coefficient has no
    analytic interval: where its bootstrap interval is.

    Examples
    --------
    >>> for part in no_interval("scott", 0.95).split("; "):
    ...     print(part)
    no analytic interval for scott
    irr(data, metric='scott', ci=0.95, method='bootstrap') gives a bootstrap one
    """
    w = "" if isinstance(weights, str) and weights == "unweighted" else (
        f", weights={weights!r}" if isinstance(weights, str) else ", weights=...")
    return (f"no analytic interval for {metric}; irr(data, metric={metric!r}{w}, "
            f"ci={ci:g}, method='bootstrap') gives a bootstrap one")


def _long(cols: dict[str, np.ndarray], ann: Annotations, metric: str) -> pd.DataFrame:
    n_label, n_rep = next(iter(cols.values())).shape
    frame = pd.DataFrame({k: v.reshape(-1) for k, v in cols.items()})
    if ann.has_label:
        frame.insert(0, "label", np.repeat(ann.labels.to_numpy(), n_rep))
    if ann.has_replication:
        frame.insert(1 if ann.has_label else 0, "replication",
                     np.tile(ann.replications.to_numpy(), n_label))
    frame["metric"] = metric
    return frame
