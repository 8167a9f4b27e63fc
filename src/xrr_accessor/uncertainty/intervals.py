"""Confidence intervals: analytic (Gwet, F-based ICC) and bootstrap (percentile, BCa).

The bootstrap replicates come from :mod:`.resample`; this module turns them
into standard errors and limits, says where replicates were undefined, and
checks the options every public function shares (``ci``, ``method``,
``n_boot``, ``interval``), which :class:`.orchestration.Uncertainty` holds.

BCa (Efron 1987): with z0 the normal quantile of the share of replicates below
the estimate (ties count half) and a the acceleration from the jackknife,
the limits are the replicates' quantiles at
``Phi(z0 + (z0 + z) / (1 - a (z0 + z)))`` for ``z`` the normal quantiles of
(1 - ci) / 2 and (1 + ci) / 2. Percentile: the quantiles at those levels.
Replicates where a coefficient is undefined (NaN) are left out, with a
warning saying how many.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any

import numpy as np

from ..coefficients import REGISTRY, Coefficient
from ..engine.draws import check_options
from ..engine.results import cell_name
from ..engine.staged import ANALYTIC_REFUSED
from ..engine.statistics import Rows
from ..errors import InputError, UndefinedWarning, warn
from .resample import Replicates, Target, replicate

__all__ = ["Bootstrap", "bca_constants", "bootstrap_intervals",
           "confidence", "limits", "p_value"]

#: Fewer items than this give a warning: the intervals are unstable (see the
#: coverage study in benchmarks/interval_coverage.py).
FEW_ITEMS = 50

#: A label whose annotations other than its most common value amount to fewer
#: items than this (items x that share) gives a warning: at extreme prevalence
#: the intervals under-cover (benchmarks/interval_coverage.py: 95% BCa intervals
#: of normalized kappa_x covered 94-95% at 30-36 such items, 84% at 10, 59% at 3).
RARE_ITEMS = 20

#: BCa needs at least this many items (its jackknife).
MIN_BCA_ITEMS = 10

#: More undefined replicates than this share of a cell leave its interval NaN.
MAX_UNDEFINED_SHARE = 0.5

METHODS = ("analytic", "bootstrap")
INTERVALS = ("bca", "percentile")

_NORMAL = NormalDist()


def confidence(ci: Any) -> float:
    """Validate a confidence level in (0, 1)."""
    if isinstance(ci, bool) or not (isinstance(ci, int | float) and 0 < ci < 1):
        raise InputError(f"ci={ci!r} is a confidence level between 0 and 1, e.g. ci=0.95.")
    return float(ci)


@dataclass(frozen=True)
class Bootstrap:
    """The bootstrap options of a call, validated."""

    n_boot: int = 1000
    seed: Any = None
    interval: str = "bca"
    progress: bool | None = None

    def __post_init__(self) -> None:
        check_options(self.n_boot, self.interval)


    def check_items(self, n_items: int) -> None:
        """BCa's jackknife needs :data:`MIN_BCA_ITEMS` items: refuse fewer, saying how."""
        if self.interval == "bca" and n_items < MIN_BCA_ITEMS:
            raise InputError(f"interval='bca' needs at least {MIN_BCA_ITEMS} items for its "
                             f"jackknife; the data have {n_items}. Use interval='percentile' "
                             "(and read it with care: so few items give unstable intervals).")

    def replicates(self, run: Any, targets: Sequence[Target]) -> Replicates:
        """The replicates of ``targets`` (with the jackknife when BCa needs it)."""
        self.check_items(run.rows.n_items)
        return replicate(run, targets, self.n_boot, self.seed,
                         jackknife=self.interval == "bca", progress=self.progress)


def method_for(entry: Coefficient, method: str | None) -> str:
    """``method`` checked against ``entry`` (None: analytic where it exists)."""
    analytic = entry.analytic is not None
    if method is None:
        return "analytic" if analytic else "bootstrap"
    if method not in METHODS:
        raise InputError(f"method={method!r}; choose 'bootstrap' or 'analytic'.")
    if method == "analytic" and not analytic:
        names = [e.name for e in REGISTRY.values() if e.analytic is not None]
        raise InputError(f"metric={entry.name!r} has no analytic standard error; use "
                         f"method='bootstrap' (those with one: {', '.join(names)}).")
    return method


def analytic_intervals(run: Any, entry: Coefficient, level: float, population: float,
                       params: dict[str, Any]) -> dict[str, np.ndarray]:
    """Analytic standard errors and limits of ``entry``, from its registry hook."""
    population_size(None if math.isinf(population) else population, len(run.ann.items))
    est = run.estimate(entry, **params)
    if not entry.analytic_from_sums and not isinstance(run.rows, Rows):
        raise InputError(ANALYTIC_REFUSED.format(name=entry.display))
    assert entry.analytic is not None
    return {"estimate": est.value, **entry.analytic(run, est.value, level, population, params)}


def _quantile(values: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Per-cell quantile ``q`` (L, cells) of ``values`` (B, L, cells), NaN left out."""
    out = np.full(q.shape, np.nan)
    for idx in np.ndindex(q.shape):
        v = values[(slice(None), *idx)]
        v = v[np.isfinite(v)]
        if v.size and np.isfinite(q[idx]):
            out[idx] = np.quantile(v, q[idx])
    return out


def acceleration(jack: np.ndarray) -> np.ndarray:
    """BCa's acceleration from jackknife values (G, L, cells), NaN ones left out."""
    finite = np.isfinite(jack)  # cells with no defined value: no nanmean warning
    n = finite.sum(axis=0)
    with np.errstate(all="ignore"):  # thread-local, unlike warnings.catch_warnings
        mean = np.where(finite, jack, 0.0).sum(axis=0) / np.maximum(n, 1)
        d = np.where(finite, mean - jack, 0.0)
        num = (d**3).sum(axis=0)
        den = 6.0 * (d**2).sum(axis=0) ** 1.5
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), 0.0)


def bca_constants(estimate: np.ndarray, boot: np.ndarray,
                  jack: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """BCa's bias correction z0 (NaN where every replicate is on one side) and
    acceleration a, per cell."""
    finite = np.isfinite(boot)
    n = finite.sum(axis=0)
    with np.errstate(invalid="ignore"):
        below = ((boot < estimate) & finite).sum(axis=0) + 0.5 * (
            (boot == estimate) & finite).sum(axis=0)
    share = np.where(n > 0, below / np.maximum(n, 1), np.nan)
    z0 = np.full(estimate.shape, np.nan)
    for idx in np.ndindex(estimate.shape):
        if 0.0 < share[idx] < 1.0:  # else no bias correction: interval NaN
            z0[idx] = _NORMAL.inv_cdf(float(share[idx]))
    return z0, acceleration(jack)


def limits(estimate: np.ndarray, boot: np.ndarray, level: float, interval: str,
           jack: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Lower and upper limits from replicates (percentile or BCa)."""
    tail = (1.0 - level) / 2.0
    if interval == "percentile":
        return (_quantile(boot, np.full(estimate.shape, tail)),
                _quantile(boot, np.full(estimate.shape, 1.0 - tail)))
    assert jack is not None
    z0, a = bca_constants(estimate, boot, jack)
    out = []
    for z in (_NORMAL.inv_cdf(tail), _NORMAL.inv_cdf(1.0 - tail)):
        shifted = z0 + z
        with np.errstate(invalid="ignore"):
            q = np.array([_NORMAL.cdf(v) if np.isfinite(v) else np.nan for v in
                          (z0 + shifted / (1.0 - a * shifted)).reshape(-1)]).reshape(
                              estimate.shape)
        out.append(_quantile(boot, q))
    return out[0], out[1]


def bootstrap_intervals(
    run: Any, targets: Sequence[Target], level: float, opts: Bootstrap,
    what: dict[str, str] | None = None,
) -> tuple[dict[str, dict[str, np.ndarray]], Replicates]:
    """``estimate``, ``se``, ``lower``, ``upper`` of each target, and the replicates.

    Warns (once per target) where replicates were undefined, where a cell's
    interval is NaN and why, and when the items are few.
    """
    n_items = run.rows.n_items
    reps = opts.replicates(run, targets)
    if not any(np.isfinite(run.estimate(t.entry, **t.params).value).any() for t in targets):
        pass  # every estimate NaN (said why already): no interval to warn about
    elif n_items < FEW_ITEMS:
        warn(f"bootstrap intervals from {n_items} items are unstable (their coverage "
             f"falls short of the nominal level below about {FEW_ITEMS} items); read them "
             "as rough.", UndefinedWarning)
    else:
        _warn_rare(run.ann, n_items)
        _warn_few_in_cells(run, targets)
    out = {}
    for t in targets:
        est = run.estimate(t.entry, **t.params).value
        boot = reps.boot[t.key]
        jack = None if reps.jack is None else reps.jack[t.key]
        lower, upper = limits(est, boot, level, opts.interval, jack)
        undefined = (~np.isfinite(boot)).sum(axis=0)
        too_many = undefined > MAX_UNDEFINED_SHARE * opts.n_boot
        undefined_here = too_many | ~np.isfinite(est)  # NaN estimate: NaN interval
        lower[undefined_here] = upper[undefined_here] = np.nan
        se = standard_error(boot)
        se[undefined_here] = np.nan
        _warn_replicates(run, t, est, undefined, too_many, opts.n_boot,
                         (what or {}).get(t.key, t.key))
        out[t.key] = {"estimate": est, "se": se, "lower": lower, "upper": upper,
                      "n_undefined": undefined}
    return out, reps


def _warn_few_in_cells(run: Any, targets: Sequence[Target]) -> None:
    """Warn for cells (a small pool, a pair with little overlap) whose estimate rests on
    fewer than FEW_ITEMS items, though the call has more."""
    few: dict[str, int] = {}
    for t in targets:
        n = run.estimate(t.entry, **t.params).counts.get("n_items")
        if n is None:
            continue
        cells = run.cells(t.entry)
        for lab, c in np.argwhere((n > 0) & (n < FEW_ITEMS)):
            few.setdefault(f"label {run.ann.labels[lab]!r}, {cell_name(cells, c)}",
                           int(n[lab, c]))
    if few:
        shown = "; ".join(f"{k} ({v} items)" for k, v in list(few.items())[:5])
        more = f"; and {len(few) - 5} more" if len(few) > 5 else ""
        warn(f"some bootstrap intervals rest on few items: {shown}{more}. Below about "
             f"{FEW_ITEMS} items their coverage falls short of the nominal level; read "
             "them as rough.", UndefinedWarning)


def _warn_rare(ann: Any, n_items: int) -> None:
    """Warn for labels at extreme prevalence: few items' worth of minority values."""
    rare = []
    for lab, row in enumerate(ann.codes):
        valid = row[row >= 0]
        if valid.size:
            minority = 1.0 - np.bincount(valid).max() / valid.size
            if 0 < minority * n_items < RARE_ITEMS:
                rare.append(f"{ann.labels[lab]!r} ({minority:.1%} of annotations, as if "
                            f"{minority * n_items:.0f} of {n_items} items)")
    if rare:
        shown = ", ".join(rare[:5]) + (f" and {len(rare) - 5} more" if len(rare) > 5 else "")
        warn(f"bootstrap intervals of rare labels under-cover: few annotations differ from "
             f"the most common value in {shown}. Below about {RARE_ITEMS} items' worth, 95% "
             "intervals covered the truth far less often in simulations (84% at 10, 59% at "
             "3: benchmarks/interval_coverage.py); read them as rough.",
             UndefinedWarning)


def _warn_replicates(run: Any, t: Target, est: np.ndarray, undefined: np.ndarray,
                     too_many: np.ndarray, n_boot: int, what: str) -> None:
    cells = run.cells(t.entry)
    where = []
    for lab, c in np.argwhere((undefined > 0) & np.isfinite(est)):
        name = cell_name(cells, c)
        label = run.ann.labels[lab]
        tag = " (too many: interval NaN)" if too_many[lab, c] else ""
        where.append(f"{undefined[lab, c]} of {n_boot} for label {label!r}, {name}{tag}")
    if where:
        shown = "; ".join(where[:5]) + (f"; and {len(where) - 5} more" if len(where) > 5
                                         else "")
        warn(f"{what} is undefined in some bootstrap replicates, left out of its "
             f"interval: {shown}. A replicate loses a coefficient when its draw of "
             "items leaves it undefined (an IRR at or below 0 for normalized kappa_x; no "
             "variation with few items or rare categories).", UndefinedWarning)


def standard_error(boot: np.ndarray) -> np.ndarray:
    """Standard deviation of the finite replicates (NaN with fewer than two)."""
    finite = np.isfinite(boot)
    n = finite.sum(axis=0)
    safe = np.where(finite, boot, 0.0)
    mean = safe.sum(axis=0) / np.maximum(n, 1)
    ss = (np.where(finite, boot - mean, 0.0) ** 2).sum(axis=0)
    return np.where(n >= 2, np.sqrt(ss / np.maximum(n - 1, 1)), np.nan)


def _positions(v: np.ndarray, x: float) -> tuple[float, float]:
    """Where ``x`` falls among sorted replicates ``v``, on the scale of the quantile
    level of ``np.quantile`` (linear): the largest level whose quantile is <= x and
    the smallest whose quantile is >= x (-inf / inf when there is none)."""
    n = v.size
    if n == 1:
        return (1.0 if x >= v[0] else -np.inf), (0.0 if x <= v[0] else np.inf)
    if x < v[0]:
        right = -np.inf
    elif x >= v[-1]:
        right = 1.0
    else:
        i = int(np.searchsorted(v, x, side="right")) - 1
        right = (i + (x - v[i]) / (v[i + 1] - v[i])) / (n - 1)
    if x > v[-1]:
        left = np.inf
    elif x <= v[0]:
        left = 0.0
    else:
        j = int(np.searchsorted(v, x, side="left"))
        left = (j - 1 + (x - v[j - 1]) / (v[j] - v[j - 1])) / (n - 1)
    return right, left


def _tail_z(q: float, z0: float, a: float) -> float:
    """The normal quantile z whose (BCa-adjusted) level is ``q``: the inverse of
    ``q = Phi(z0 + (z0 + z) / (1 - a (z0 + z)))`` (z0 = a = 0: percentile)."""
    w = (_NORMAL.inv_cdf(q) if 0.0 < q < 1.0 else -np.inf if q <= 0 else np.inf) - z0
    if a == 0.0:
        return w  # z0 + z = w
    if np.isinf(w):
        return (1.0 / a - z0) if (1.0 + a * w) > 0 else w
    if 1.0 + a * w <= 0:  # a level no interval reaches: beyond every limit
        return -np.inf if w < 0 else np.inf
    return w / (1.0 + a * w) - z0


def p_value(boot: np.ndarray, null: float, interval: str = "percentile",
            estimate: np.ndarray | None = None,
            jack: np.ndarray | None = None) -> np.ndarray:
    """Two-sided p-value of ``null``: the interval of :func:`limits` inverted.

    The smallest 1 - ci whose ``interval`` (percentile, or BCa with the same
    z0 and acceleration) leaves out ``null``, so that ``p < 1 - ci`` exactly
    when the interval at ``ci`` excludes it. With q the level at which the
    replicates' quantile (``np.quantile``, linear) equals ``null``, the
    lower limit excludes it when the lower tail's level exceeds q: p =
    2 Phi(z(q)), z inverting BCa's level map (``z(q) = Phi^-1(q)`` for the
    percentile interval); likewise the upper limit. 0 when ``null`` lies
    beyond every replicate (every interval leaves it out); NaN where the
    interval is NaN (no finite replicates; BCa with every replicate on one
    side of the estimate).
    """
    shape = boot.shape[1:]
    if interval == "bca":
        assert estimate is not None and jack is not None
        z0, a = bca_constants(estimate, boot, jack)
    else:
        z0, a = np.zeros(shape), np.zeros(shape)
    out = np.full(shape, np.nan)
    for idx in np.ndindex(shape):
        v = boot[(slice(None), *idx)]
        v = np.sort(v[np.isfinite(v)])
        if not v.size or not np.isfinite(z0[idx]):
            continue
        zl, zu = (_tail_z(float(q), float(z0[idx]), float(a[idx]))
                  for q in _positions(v, null))
        lower_side = 2.0 * _NORMAL.cdf(zl) if np.isfinite(zl) else (0.0 if zl < 0 else 2.0)
        upper_side = (2.0 * (1.0 - _NORMAL.cdf(zu)) if np.isfinite(zu)
                      else (2.0 if zu < 0 else 0.0))
        out[idx] = min(lower_side, upper_side, 1.0)
    return out


def population_size(population: float | None, n_items: int = 1) -> float:
    """Validate a finite-population size (None: infinite): a number, at least the
    ``n_items`` rated (the sample cannot be larger than the population).

    Examples
    --------
    >>> population_size(None), population_size(500, n_items=40)
    (inf, 500.0)
    >>> population_size("100")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    xrr_accessor.errors.InputError: population='100' is the number of items in the population ...
    """
    if population is None:
        return math.inf
    ok = isinstance(population, numbers.Real) and not isinstance(population, bool | np.bool_)
    if not ok or not float(population) >= max(n_items, 1):
        raise InputError(f"population={population!r} is the number of items in the "
                         f"population (a number >= the {n_items} item(s) rated), or None "
                         "for an infinite one.")
    return float(population)
