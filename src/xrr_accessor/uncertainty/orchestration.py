"""One orchestration for every public function: run -> estimate -> warn -> intervals -> label.

A public function says what it computes (:class:`~.resample.Target`: a key,
a registry entry and the entry's parameters) and what uncertainty its caller
asked for (:class:`Uncertainty`, built once at the entry from the keyword
arguments ``ci=``, ``method=``, ``population=``, ``n_boot=``, ``seed=``,
``interval=``, ``progress=``), and calls :func:`evaluate`:

1. **run**: :func:`~xrr_accessor.engine.pipeline.run` reads and encodes the
   data and makes one statistics pass for the targets and what they depend on
   (on dask-backed data without statistics yet it raises
   :class:`~xrr_accessor.engine.staged.Planned` here: the plan of the
   partitions' pass);
2. **estimate**: each target finalized from those statistics, a ``reference``
   parameter the entry takes filled in with the run's reference replication;
3. **warn**: each target's undefined cells and dropped items, once: a cell
   that a target it depends on (with the same cells) already warned about is
   not warned again, and a dependency that is not a target warns of the items
   it dropped;
4. **intervals**: with ``ci``, analytic ones (the entry's hook) or one
   bootstrap for every target (the same draws of items, so the intervals of
   the targets are joint);
5. **label**: :meth:`Evaluation.label` shapes a target as the caller's kind of
   object (pandas or xarray) with its attrs: name, metric, level, citation,
   the caller's settings, the interval settings.

:func:`evaluate_run` does steps 2-5 on a run the caller made itself (the
agreement table keeps the entries the data allow after the pass).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from ..coefficients import Coefficient, Estimates
from ..coefficients.registry import requirements
from ..engine.draws import check_options
from ..engine.pipeline import Run, run
from ..engine.results import warn_dropped
from ..errors import InputError
from .intervals import (
    Bootstrap,
    analytic_intervals,
    bootstrap_intervals,
    confidence,
    method_for,
    population_size,
)
from .resample import Replicates, Target

__all__ = ["NO_INTERVAL", "Evaluation", "Uncertainty", "evaluate", "evaluate_run",
           "shown_name"]


def shown_name(entry: Coefficient) -> str:
    """The name warnings give ``entry``.

    Examples
    --------
    >>> from xrr_accessor.coefficients import lookup
    >>> shown_name(lookup("normalized", kind="cross")), shown_name(lookup("alpha"))
    ('normalized kappa_x', 'alpha')
    """
    return entry.display


@dataclass(frozen=True)
class Uncertainty:
    """The uncertainty a call asks for, in one object: none, analytic or a bootstrap.

    Built at a public function's entry from its keyword arguments (the
    public signatures keep ``ci=``, ``n_boot=``, ... as pandas and R users
    expect). ``ci`` None: no interval (``method`` must then be None too).
    ``ci``, ``n_boot`` and ``interval`` are checked here, whether or not an
    interval is asked for (a bad option is an error, never ignored); the seed
    when the draws are made, the population when an analytic interval is.

    Attributes
    ----------
    ci : float or None
        Confidence level, in (0, 1).
    method : {"analytic", "bootstrap"} or None
        None: analytic where one target's entry has an analytic interval; the
        bootstrap otherwise, and always for several targets (joint intervals).
    population : float or None
        Finite-population size of the analytic variance (None: infinite).
    n_boot, seed, interval, progress
        The bootstrap's options (:class:`~.intervals.Bootstrap`).

    Examples
    --------
    >>> Uncertainty(0.95, n_boot=200, seed=1).bootstrap
    Bootstrap(n_boot=200, seed=1, interval='bca', progress=None)
    >>> Uncertainty(method="bootstrap")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    xrr_accessor.errors.InputError: method='bootstrap' chooses how the interval is computed; ...
    """

    ci: float | None = None
    method: str | None = None
    population: float | None = None
    n_boot: int = 1000
    seed: Any = None
    interval: str = "bca"
    progress: bool | None = None

    def __post_init__(self) -> None:
        check_options(self.n_boot, self.interval)
        if self.ci is None:
            if self.method is not None:
                raise InputError(f"method={self.method!r} chooses how the interval is "
                                 "computed; ask for one with ci= (e.g. ci=0.95).")
            return
        object.__setattr__(self, "ci", confidence(self.ci))

    @property
    def bootstrap(self) -> Bootstrap:
        """The bootstrap options, checked."""
        return Bootstrap(self.n_boot, self.seed, self.interval, self.progress)

    def method_of(self, targets: Sequence[Target]) -> str:
        """How the intervals of ``targets`` are computed (checked against each entry)."""
        if self.method is None and len(targets) > 1:
            return "bootstrap"  # several targets: joint intervals from the same draws
        how = {method_for(t.entry, self.method) for t in targets}  # each entry checked
        return how.pop()  # one method given, or one target


#: No interval asked for.
NO_INTERVAL = Uncertainty()


@dataclass
class Evaluation:
    """What :func:`evaluate` found: the run, each target's estimates and, with ``ci``,
    its interval columns (``estimate``, ``se``, ``lower``, ``upper``; analytic ones
    also ``p_value``...), the replicates of a bootstrap, and the interval settings
    that go into the attrs (``ci``, ``method``; ``interval``, ``n_boot``, ``seed``)."""

    run: Run
    targets: tuple[Target, ...]
    estimates: dict[str, Estimates]
    settings: dict[str, Any] = field(default_factory=dict)
    intervals: dict[str, dict[str, np.ndarray]] = field(default_factory=dict)
    replicates: Replicates | None = None

    def target(self, key: str | None = None) -> Target:
        """The target called ``key`` (None: the only one)."""
        if key is None:
            (only,) = self.targets
            return only
        return next(t for t in self.targets if t.key == key)

    def attrs(self, key: str | None = None, **extra: Any) -> dict[str, Any]:
        """A target's attrs: name, metric, the level of measurement (a coefficient
        weighted by ``weights=`` has agreement weights instead: ``weights``), citation,
        the caller's ``extra`` (``form``, ``irr``, ``reference``...), then the interval
        :attr:`settings`."""
        t = self.target(key)
        level = self.run.level
        out: dict[str, Any] = {"name": t.entry.name, "metric": t.entry.name}
        if level.name == "weights":
            out["weights"] = level.custom if isinstance(level.custom, str) else "custom"
        else:
            out["level"] = level.name
        out.update(citation=t.entry.citation, **extra)
        return {**out, **self.settings}

    def label(self, key: str | None = None, **extra: Any) -> Any:
        """A target as the caller's kind of object: a value per cell (float, Series,
        DataFrame, DataArray) or, with intervals, a table (DataFrame, Dataset); its
        attrs from :meth:`attrs`."""
        t = self.target(key)
        return self.run.label(t.entry, self.estimates[t.key], self.attrs(t.key, **extra),
                              self.intervals.get(t.key))


def _entries(targets: Sequence[Target]) -> list[Coefficient]:
    """The targets' entries and everything they depend on, each once, in order."""
    out: list[Coefficient] = []
    for t in targets:
        for entry in (t.entry, *(dep for dep, _ in requirements(t.entry, t.params))):
            if all(entry is not e for e in out):
                out.append(entry)
    return out


def evaluate(data: Any, targets: Sequence[Target], uncertainty: Uncertainty = NO_INTERVAL,
             *, names: dict[str, str] | None = None, warn: bool = True,
             intervals: bool = True, **run_options: Any) -> Evaluation:
    """Run, estimate, warn and add intervals for ``targets``: every public function's core.

    Parameters
    ----------
    data : annotations
        As the public function received them (or a dask stand-in).
    targets : sequence of Target
        Key, registry entry and parameters of each coefficient computed.
    uncertainty : Uncertainty
        The interval asked for (default: none).
    names : dict, optional
        How warnings name a target, by key (default: :func:`shown_name`).
    warn : bool
        Raise the undefined-value and dropped-data warnings (the agreement
        table reports reasons in a column instead).
    intervals : bool
        With ``ci``: interval columns (True), or the bootstrap replicates
        only (False: :func:`~.compare.compare` makes intervals of differences).
    **run_options
        ``other=``, ``level=``, ``reference=``, ``pairs=``, ``ann=``, ``lvl=``
        and the roles, as :func:`~xrr_accessor.engine.pipeline.run` takes them.

    Returns
    -------
    Evaluation

    Examples
    --------
    >>> import pandas as pd
    >>> from xrr_accessor.coefficients import lookup
    >>> df = pd.DataFrame({"A": [1, 2, 3, 3, 2], "B": [1, 2, 3, 3, 1]})
    >>> alpha = Target("alpha", lookup("alpha"))
    >>> ev = evaluate(df, [alpha], wide=True, level="nominal")  # 1 - 0.2 / (66 / 90)
    >>> round(ev.label(), 3), ev.attrs()["metric"]
    (0.727, 'alpha')
    """
    result = run(data, _entries(targets), **run_options)
    return evaluate_run(result, targets, uncertainty, names=names, warn=warn,
                        intervals=intervals)


def evaluate_run(result: Run, targets: Sequence[Target],
                 uncertainty: Uncertainty = NO_INTERVAL, *, names: dict[str, str] | None = None,
                 warn: bool = True, intervals: bool = True) -> Evaluation:
    """Steps 2-5 of :func:`evaluate` on a run already made (with every target's entry)."""
    resolved = tuple(_resolved(t, result) for t in targets)
    estimates = {t.key: result.estimate(t.entry, **t.params) for t in resolved}
    names = {t.key: (names or {}).get(t.key, shown_name(t.entry)) for t in resolved}
    if warn:
        _warn(result, resolved, estimates, names)
    out = Evaluation(result, resolved, estimates)
    if uncertainty.ci is not None:
        _intervals(out, uncertainty, names, intervals)
    return out


def _resolved(t: Target, result: Run) -> Target:
    """``t`` with a ``reference`` parameter its entry takes set to the run's reference."""
    if "reference" in t.entry.params and "reference" not in t.params:
        return replace(t, params={**t.params, "reference": result.reference})
    return t


def _warn(result: Run, targets: tuple[Target, ...], estimates: dict[str, Estimates],
          names: dict[str, str]) -> None:
    for t in targets:
        est = estimates[t.key]
        dropped = []
        for dep, params in requirements(t.entry, t.params):
            same = next((u for u in targets if u.entry is dep and u.params == params), None)
            if same is None:  # not warned on its own: its dropped items, after the target
                dropped.append((dep, result.estimate(dep, **params)))
            elif dep.kind == t.entry.kind:  # the same cells: said already, under its name
                assert est.reason is not None  # filled by Estimates.__post_init__
                est = replace(est, reason=np.where(estimates[same.key].reason == "",
                                                   est.reason, ""))
        result.warn(t.entry, est, names[t.key])
        for dep, dep_est in dropped:
            warn_dropped(dep_est, result.ann, dep.name)


def _intervals(out: Evaluation, uncertainty: Uncertainty, names: dict[str, str],
               columns: bool) -> None:
    result, targets, level = out.run, out.targets, uncertainty.ci
    assert level is not None
    how = uncertainty.method_of(targets)
    out.settings.update(ci=level, method=how)
    if how == "analytic":
        population = population_size(uncertainty.population)
        out.intervals = {t.key: analytic_intervals(result, t.entry, level, population,
                                                   t.params) for t in targets}
        return
    if uncertainty.population is not None:
        raise InputError("population= corrects the analytic variance; the bootstrap has no "
                         "finite-population correction. Drop population= or use "
                         "method='analytic'.")
    opts = uncertainty.bootstrap
    if columns:
        table, reps = bootstrap_intervals(result, targets, level, opts, names)
        for cols in table.values():
            cols.pop("n_undefined")
        out.intervals = table
    else:
        reps = opts.replicates(result, targets)
    out.replicates = reps
    out.settings.update(interval=opts.interval, n_boot=opts.n_boot, seed=reps.seed)
