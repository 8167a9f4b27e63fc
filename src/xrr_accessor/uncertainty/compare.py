"""Paired comparisons and a sample-size planner, from one set of bootstrap draws.

:func:`compare` answers "did replication B reproduce replication A on this
label, and how sure am I?": differences between coefficients of the same
call (IRR of A minus IRR of B, kappa_x minus each IRR, normalized kappa_x
minus 1), each with a bootstrap interval and p-value from the same draws of
items, so their dependence is accounted for. :func:`plan` resamples a
pilot's items at candidate sizes to see how wide normalized kappa_x's interval
would be with that many items.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
import pandas as pd

from ..coefficients import lookup
from ..coefficients.registry import normalizing
from ..engine.results import pair_index
from ..errors import InputError, UndefinedWarning, per_call, warn
from .against import against
from .intervals import Bootstrap, confidence, limits, p_value, standard_error
from .orchestration import Uncertainty, evaluate
from .resample import Target, replicate

__all__ = ["compare", "plan"]

#: The comparisons of :func:`compare`, in the order rows list them.
COMPARISONS = ("irr_x - irr_y", "kappa_x - irr_x", "kappa_x - irr_y", "normalized - 1")


def _targets(irr: str) -> list[Target]:
    """The IRR, kappa_x and normalized kappa_x (by that IRR) of a comparison."""
    rel = normalizing(irr)
    return [Target("irr", rel), Target("kappa_x", lookup("kappa_x", kind="cross")),
            Target("normalized", lookup("normalized_kappa_x", kind="cross"),
                   {"irr": rel.name})]


def _differences(values: dict[str, np.ndarray], pairs: np.ndarray) -> dict[str, np.ndarray]:
    """Each comparison from coefficient values (..., L, cells): (..., L, pairs)."""
    irr, kx = values["irr"], values["kappa_x"]
    x, y = irr[..., pairs[:, 0]], irr[..., pairs[:, 1]]
    return {"irr_x - irr_y": x - y, "kappa_x - irr_x": kx - x, "kappa_x - irr_y": kx - y,
            "normalized - 1": values["normalized"] - 1.0}


@per_call
def compare(
    data: Any, other: Any = None, irr: str = "alpha", level: Any = None,
    reference: Any = None, ci: float = 0.95, n_boot: int = 1000, seed: int | None = None,
    interval: str = "bca", progress: bool | None = None, **roles: Any,
) -> pd.DataFrame:
    """Paired differences between replications, with intervals and p-values.

    For each label and replication pair (X, Y), from the same bootstrap draws
    of items: ``irr_x - irr_y`` (is one pool more reliable?), ``kappa_x -
    irr_x`` and ``kappa_x - irr_y`` (do the pools agree with each other as
    much as within themselves?) and ``normalized - 1`` (is the replication
    distinguishable from a perfect one?). Each row has the estimate, the
    bootstrap standard error, the interval and the two-sided bootstrap
    p-value of "no difference", from the same interval inverted: the
    smallest 1 - ci whose interval (BCa or percentile, as ``interval``)
    leaves out 0, so ``p_value < 1 - ci`` exactly when the row's interval
    excludes 0 (:func:`~xrr_accessor.uncertainty.intervals.p_value`). A p-value of 0
    means 0 lies beyond every replicate: below 1 / n_boot.

    With ``reference=`` (a gold label, an expert, the human pool), the rows compare
    the other replications *on the reference* instead (:mod:`.against`):
    ``kappa_x(x, ref) - kappa_x(y, ref)`` for every two of them (is model A closer to
    the experts than model B, or than the crowd?), and, where the reference has two
    raters or more, ``kappa_x(x, ref) - irr_ref`` and ``kappa_x(x, ref) / irr_ref - 1``
    (does x agree with the reference's raters as much as they agree with each other?).
    A single-rater reference has no IRR: only the kappa_x differences, and
    ``attrs["note"]`` says so.

    Parameters
    ----------
    data, other : annotations
        As in :func:`xrr_accessor.cross_kappa`; at least two replications.
    irr : {"alpha", "cohen", "iota"}
        The IRR compared and used to normalize.
    level : str, matrix or callable, optional
        Level of measurement (default: inferred from the values, as in
        :func:`~xrr_accessor.irr`).
    reference : replication name, "self" or "other", optional
        Compare the other replications on this one (see above).
    ci, n_boot, seed, interval, progress
        As in :func:`xrr_accessor.cross_kappa`.
    **roles
        Column or dimension names.

    Returns
    -------
    DataFrame
        One row per label, pair and comparison: columns ``label``,
        ``replication``, ``replication_other``, ``comparison``, ``estimate``,
        ``se``, ``lower``, ``upper``, ``p_value`` (sort it, e.g. by
        ``p_value``); with ``reference=`` also ``reference`` (after
        ``replication_other``); the settings in ``attrs``.

    Examples
    --------
    >>> from xrr_accessor.datasets import simulate
    >>> df = simulate(n_items=1000, labels=["sadness"], pools=["A", "B"], seed=3)
    >>> out = compare(df, n_boot=200, seed=0)
    >>> out["comparison"].tolist()
    ['irr_x - irr_y', 'kappa_x - irr_x', 'kappa_x - irr_y', 'normalized - 1']
    """
    uncertainty = Uncertainty(confidence(ci), n_boot=n_boot, seed=seed, interval=interval,
                              progress=progress)
    if reference is not None:
        return against(data, other, reference, irr, level, uncertainty, roles)
    found = evaluate(data, _targets(irr), uncertainty, intervals=False, other=other,
                     level=level, **roles)
    result, reps, level_ = found.run, found.replicates, uncertainty.ci
    assert reps is not None and level_ is not None  # a bootstrap, at the level ci
    pairs = result.pairs
    point = _differences({k: e.value for k, e in found.estimates.items()}, pairs)
    boot = _differences(reps.boot, pairs)
    jack = None if reps.jack is None else _differences(reps.jack, pairs)
    cells = pair_index(result.ann, pairs)
    rows = []
    undefined = []
    for name in COMPARISONS:
        lower, upper = limits(point[name], boot[name], level_, interval,
                              None if jack is None else jack[name])
        se = standard_error(boot[name])
        p = p_value(boot[name], 0.0, interval, point[name],
                    None if jack is None else jack[name])
        lost = (~np.isfinite(boot[name])).sum(axis=0)
        for lab, c in np.ndindex(point[name].shape):
            a, b = cells[c]
            rows.append((result.ann.labels[lab], a, b, name, point[name][lab, c], se[lab, c],
                         lower[lab, c], upper[lab, c], p[lab, c]))
            if lost[lab, c] and np.isfinite(point[name][lab, c]):
                undefined.append(f"{name} for {result.ann.labels[lab]!r}, {a} x {b}: "
                                 f"{lost[lab, c]}")
    if undefined:
        warn("some bootstrap replicates are undefined, left out (of "
             f"{n_boot}): " + "; ".join(undefined[:5])
             + (f"; and {len(undefined) - 5} more" if len(undefined) > 5 else ""),
             UndefinedWarning)
    out = pd.DataFrame(rows, columns=["label", "replication", "replication_other",
                                      "comparison", "estimate", "se", "lower", "upper",
                                      "p_value"])
    out.attrs.update(irr=found.targets[0].entry.name, **found.settings,
                     n_items=reps.n_items)
    return out


@per_call
def plan(
    data: Any, other: Any = None, irr: str = "alpha", level: Any = None,
    width: float = 0.1, sizes: Any = None, ci: float = 0.95, n_boot: int = 200,
    seed: int | None = None, progress: bool | None = None, **roles: Any,
) -> pd.DataFrame:
    """How many items make normalized kappa_x's interval at most +/- ``width``?

    Resamples the pilot's items with replacement at each candidate size (a
    replication of that many items like the pilot's) and reports the half
    width of the percentile interval of normalized kappa_x at each size, per
    label and replication pair. The pilot stands in for the population, so
    the answer is as good as the pilot is representative; sizes far beyond
    the pilot extrapolate its items.

    Parameters
    ----------
    data, other : annotations
        The pilot, as in :func:`xrr_accessor.cross_kappa`.
    irr : {"alpha", "cohen", "iota"}
        The IRR that normalizes kappa_x.
    level : str, matrix or callable, optional
        Level of measurement (default: inferred from the values, as in
        :func:`~xrr_accessor.irr`).
    width : float
        The wanted half width of the interval.
    sizes : sequence of int, optional
        Candidate numbers of items (default: 1/4 to 16 times the pilot's, by
        doubling).
    ci : float
        Confidence level of the interval.
    n_boot : int
        Replicates per size (200 by default: a half width, not a tail, is
        estimated).
    seed, progress
        As in :func:`xrr_accessor.cross_kappa`.
    **roles
        Column or dimension names.

    Returns
    -------
    DataFrame
        One row per label, pair and size: ``label``, ``replication``,
        ``replication_other``, ``n_items``, ``half_width`` and ``enough``
        (half width <= ``width``). ``attrs["needed"]`` maps each "label: X x
        Y" to the smallest size that is enough (None if none is).

    Examples
    --------
    >>> from xrr_accessor.datasets import simulate
    >>> pilot = simulate(n_items=200, labels=["joy"], pools=["A", "B"], seed=3)
    >>> table = plan(pilot, width=0.2, sizes=[100, 400, 1600], n_boot=100, seed=0)
    >>> table["n_items"].tolist()
    [100, 400, 1600]
    """
    level_ = confidence(ci)
    Bootstrap(n_boot, seed, "percentile", progress)
    if not (isinstance(width, int | float) and width > 0):
        raise InputError(f"width={width!r} is the wanted half width of the interval, > 0.")
    found = evaluate(data, _targets(irr), warn=False, other=other, level=level, **roles)
    result, norm = found.run, found.target("normalized")
    n = result.rows.n_items
    if sizes is None:
        sizes = sorted({max(2, round(n * f)) for f in (0.25, 0.5, 1, 2, 4, 8, 16)})
    given = sizes
    try:
        if isinstance(sizes, str | bytes) or not all(  # whole numbers only: no 2.5, "abc"
                isinstance(s, numbers.Real) and not isinstance(s, bool) and float(s).is_integer()
                for s in sizes):
            raise TypeError
        sizes = sorted({int(s) for s in sizes})
    except (TypeError, ValueError, OverflowError):
        sizes = []
    if not sizes or min(sizes) < 2:
        raise InputError(f"sizes={given!r}: candidate numbers of items, a list of whole "
                         "numbers each >= 2 (e.g. sizes=[100, 400, 1600]), or None for "
                         "multiples of the pilot's items.")
    seq = np.random.SeedSequence(seed)
    cells = pair_index(result.ann, result.pairs)
    rows = []
    needed: dict[str, int | None] = {}
    for size, child in zip(sizes, seq.spawn(len(sizes)), strict=True):
        reps = replicate(result, [norm], n_boot, child, n_draws=size, progress=progress)
        boot = reps.boot["normalized"]
        lower, upper = limits(np.zeros(boot.shape[1:]), boot, level_, "percentile")
        half = (upper - lower) / 2.0
        for lab, c in np.ndindex(half.shape):
            a, b = cells[c]
            key = f"{result.ann.labels[lab]}: {a} x {b}"
            enough = bool(half[lab, c] <= width)
            rows.append((result.ann.labels[lab], a, b, size, half[lab, c], enough))
            if enough and needed.get(key) is None:
                needed[key] = size
            needed.setdefault(key, None)
    blank = sorted({f"{r[0]}: {r[1]} x {r[2]}" for r in rows if not np.isfinite(r[4])})
    if blank:
        warn(f"normalized kappa_x has no interval (NaN half width) for {', '.join(blank[:5])}"
             f"{', ...' if len(blank) > 5 else ''}: it is undefined (an IRR at or below 0) in "
             "most replicates there. Check those replications' IRR.", UndefinedWarning)
    out = pd.DataFrame(rows, columns=["label", "replication", "replication_other",
                                      "n_items", "half_width", "enough"])
    out = out.sort_values(["label", "replication", "replication_other", "n_items"],
                          kind="stable", ignore_index=True)
    out.attrs.update(width=width, ci=level_, n_boot=n_boot, pilot_items=n,
                     seed=seq.entropy, needed=needed)
    return out
