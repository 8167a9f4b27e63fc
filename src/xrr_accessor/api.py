"""Public functions: each names its registry entries and calls the one orchestration.

The flow input -> codes (:mod:`.schema`) -> statistics (:mod:`.engine.statistics`)
-> finalize (:mod:`.coefficients`) -> warnings, intervals, labeled result is
:func:`.uncertainty.orchestration.evaluate`; the functions here choose the
entries, build the one :class:`~.uncertainty.orchestration.Uncertainty` from
their keyword arguments, and say what goes into the attrs. The ``.xrr``
accessors call these functions.
"""


from typing import Any

from .coefficients import lookup
from .coefficients.icc import ALL_FORMS, form_attrs, parse_forms
from .coefficients.registry import normalizing
from .engine.convert import to_frame, to_xarray
from .engine.forms import label_forms
from .engine.pipeline import annotations, entry_level
from .errors import InputError
from .lazy import deferrable
from .reporting.summary import check_items, common_items, warn_above_one
from .uncertainty.orchestration import NO_INTERVAL, Uncertainty, evaluate
from .uncertainty.resample import Target

__all__ = ["annotations", "cross_kappa", "irr", "normalized", "to_frame", "to_xarray"]


@deferrable
def irr(
    data: Any, metric: str = "alpha", level: Any = None, weights: Any = None,
    ci: float | None = None, population: float | None = None, form: str | None = None,
    method: str | None = None, n_boot: int = 1000, seed: int | None = None,
    interval: str = "bca", progress: bool | None = None, **roles: Any,
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
    level : {"nominal", "ordinal", "interval", "ratio", "jaccard", "masi"}, matrix or callable
        Level of measurement for alpha, iota and cohen: a name, a K x K
        disagreement matrix over the categories (ndarray in category order,
        or a DataFrame indexed by category), or a callable ``D(a, b)``.
        ``"jaccard"`` and ``"masi"`` compare label sets (cells holding lists
        or sets of labels; see :func:`xrr_accessor.set_cells`). Default: inferred
        from the values by one rule for every function (docs/definitions.md, "Which
        level"; e.g. interval for a 0-100 scale, ordinal for ratings 1-5, nominal
        for text), named in ``attrs["level"]`` and in a
        :class:`~xrr_accessor.errors.LevelNote`.
    weights : {"unweighted", "linear", "quadratic"} or matrix, optional
        Agreement weights for cohen, iota and the chance-corrected family (default,
        with ``level=`` not given either: the weights of the level inferred, as
        :func:`~xrr_accessor.agreement_table` takes them):
        linear 1 - |a - b| / range, quadratic 1 - (a - b)^2 / range^2, over
        the category values when they are numbers (as irrCAC) or their
        ranks otherwise (scikit-learn always uses ranks), or a K x K matrix
        with 1 on the diagonal.
    ci : float, optional
        Confidence level (e.g. 0.95). Given, the result is a table with the
        ``estimate``, its standard error ``se`` and the ``lower`` and ``upper``
        limits. Analytic where the coefficient has a variance formula (Gwet's
        for percent, fleiss, gwet, bp, conger, cohen, alpha, with Student's t
        on n - 1 degrees of freedom and the ``p_value`` of "no agreement
        beyond chance"; F-based for the ICC), an item bootstrap otherwise
        (scott, light, iota).
    population : float, optional
        Number of items in the population the items are a sample of: the
        finite-population correction 1 - n / N of the analytic variance
        (default: an infinite population, no correction).
    form : str, optional
        The ICC form (``metric="icc"``): ``"1,1"``, ``"2,1"`` (default: two-way
        random effects, absolute agreement, one rater), ``"3,1"``, ``"1,k"``,
        ``"2,k"``, ``"3,k"`` (also ``"ICC(2,1)"``, ``"ICC2k"``), or ``"all"``:
        the six from one pass, along a ``form`` dimension named like pingouin's
        table (ICC1, ICC2, ICC3, ICC1k, ICC2k, ICC3k; a Series over the forms
        for one cell, a column per form otherwise; with ``ci``, a row per form
        and its limits). Intervals are F-based unless ``method="bootstrap"``;
        the ICC needs every rater on every item (a label with an item lacking a
        rating is NaN, with a warning saying how many).
    method : {"analytic", "bootstrap"}, optional
        How the interval of ``ci`` is computed (default: analytic where it
        exists). The bootstrap resamples items, each with all its ratings.
    n_boot, seed, interval, progress
        Bootstrap settings, see :func:`cross_kappa`.
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
    >>> round(irr(data, level="nominal", wide=True), 3)
    0.743
    >>> round(irr(data, level="interval", wide=True), 3)
    0.849

    Shrout & Fleiss (1979), 6 targets x 4 judges, every ICC form from one pass:

    >>> judges = pd.DataFrame([[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6],
    ...                        [10, 5, 6, 9], [6, 2, 4, 7]])
    >>> irr(judges, metric="icc", form="all", wide=True).round(2).tolist()
    [0.17, 0.29, 0.71, 0.44, 0.62, 0.91]
    """
    entry = lookup(metric)
    if "form" not in entry.params:
        if form is not None:
            raise InputError("form= selects an ICC form; it goes with metric='icc'.")
        forms: dict[str, dict[str, Any]] = {entry.name: {}}
    else:
        forms = {ALL_FORMS.get(f, entry.name): {"form": f} for f in parse_forms(form)}
    if len(forms) > 1 and ci is not None and method is None:
        method = "analytic"  # the forms' F-based limits (several targets: else a bootstrap)
    plain = (ci is None and method is None and population is None and seed is None
             and progress is None and type(n_boot) is int and n_boot == NO_INTERVAL.n_boot
             and type(interval) is str and interval == NO_INTERVAL.interval)
    uncertainty = NO_INTERVAL if plain else Uncertainty(ci, method, population, n_boot, seed,
                                                        interval, progress)
    found = evaluate(data, [Target(key, entry, params) for key, params in forms.items()],
                     uncertainty, level=entry_level(entry, level, weights), **roles)
    if len(forms) == 1:
        params = next(iter(forms.values()))
        return found.label(**{**params, **form_attrs(found.run, params)})
    return label_forms(found, forms)


@deferrable
def cross_kappa(
    data: Any, other: Any = None, level: Any = None, ci: float | None = None,
    n_boot: int = 1000, seed: int | None = None, interval: str = "bca",
    progress: bool | None = None, **roles: Any,
) -> Any:
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
    ci : float, optional
        Confidence level (e.g. 0.95): the result becomes a table with the
        ``estimate``, the bootstrap standard error ``se`` and the ``lower``
        and ``upper`` limits of each cell. The bootstrap resamples items with
        replacement; a drawn item keeps all its annotations in every
        replication, so the pairing of kappa_x survives, and every cell of the
        call is computed from the same draws. Coverage of simulated truth
        (benchmarks/interval_coverage.py, 100 runs, binomial SE 0.022): with 300
        items, 95% BCa intervals covered kappa_x 95% and normalized kappa_x
        95% of the time; with 50 items, 91% and 78% (normalized kappa_x
        divides by IRRs that few items estimate poorly). Extreme prevalence
        needs more items: what matters is about items x the share of
        minority annotations; at a prevalence of 0.03 (200 runs, SE 0.015),
        kappa_x / normalized covered 78% / 59% at 100 items, 93% / 85% at
        300, 95% / 94% at 1,000; at 0.01, 92% / 84% at 1,000. Under 50
        items, or under about 20 items' worth of a label's minority values,
        a warning says the intervals are rough.
    n_boot : int
        Bootstrap replicates (default 1000).
    seed : int, optional
        Same seed, same intervals (whatever the threads); the seed used is in
        ``attrs["seed"]`` when none is given.
    interval : {"bca", "percentile"}
        BCa (bias-corrected and accelerated, with its jackknife over items;
        the default) or the plain percentile interval.
    progress : bool, optional
        A progress bar (tqdm, when installed) for runs over about a second,
        shown only where a person watches (stderr a terminal, or a Jupyter
        notebook): never in logs or pipes. ``False`` hides it, ``True`` always
        shows it. Before a long or memory-heavy run a
        :class:`~xrr_accessor.errors.CostWarning` gives the estimate; ``n_boot``
        that would need more than half the available memory is refused.
    **roles
        Column or dimension names, see :func:`annotations`.

    Returns
    -------
    float, Series, DataFrame or DataArray
        kappa_x per label and replication pair; ``n_items`` (items annotated
        in both) and ``n_unpairable`` (items annotated in only one, left out)
        alongside. With ``ci``: a table (DataFrame from pandas, one row per
        label and pair; Dataset from xarray) with the settings (``ci``,
        ``n_boot``, ``interval``, ``seed``) in ``attrs``.

    Examples
    --------
    One annotation per item in each replication, nominal: Cohen's kappa
    (the textbook example of 50 papers: 15 both accept, 20 both reject, 11
    and 4 split).

    >>> import pandas as pd
    >>> a = ["acc"] * 15 + ["rej"] * 20 + ["acc"] * 11 + ["rej"] * 4
    >>> b = ["acc"] * 15 + ["rej"] * 20 + ["rej"] * 11 + ["acc"] * 4
    >>> x = pd.DataFrame({"item": range(50), "rater": "A", "decision": a})
    >>> y = pd.DataFrame({"item": range(50), "rater": "B", "decision": b})
    >>> round(float(cross_kappa(x, y)["decision"]), 6)
    0.405705
    """
    uncertainty = Uncertainty(ci, n_boot=n_boot, seed=seed, interval=interval,
                              progress=progress)
    entry = lookup("kappa_x", kind="cross")
    return evaluate(data, [Target(entry.name, entry)], uncertainty, other=other, level=level,
                    **roles).label()


@deferrable
def normalized(
    data: Any,
    other: Any = None,
    irr: str = "alpha",
    level: Any = None,
    reference: Any = None,
    ci: float | None = None,
    n_boot: int = 1000,
    seed: int | None = None,
    interval: str = "bca",
    progress: bool | None = None,
    items: str = "all",
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
    ci, n_boot, seed, interval, progress
        Bootstrap intervals, as in :func:`cross_kappa`: kappa_x and the IRRs
        of each replicate come from the same draws of items.
    items : {"all", "common"}
        ``"all"`` (default): each IRR on the items its replication rated at
        least twice, kappa_x on the items both rated; where that gives a value
        above 1 on different item sets, a warning says so. ``"common"``: all
        three on the items every replication rated at least twice (as
        :func:`~xrr_accessor.summary`; data in memory).
    **roles
        Column or dimension names.

    Returns
    -------
    float, Series, DataFrame or DataArray
        Labeled like :func:`cross_kappa`; ``attrs["items"]`` says which items.

    Examples
    --------
    A perfect replication (both pools draw from the same propensities):

    >>> from xrr_accessor.datasets import simulate
    >>> df = simulate(n_items=5000, labels=["joy"], pools=["A", "B"], similarity=1.0, seed=1)
    >>> round(float(normalized(df).iloc[0, 0]), 1)
    1.0
    """
    uncertainty = Uncertainty(ci, n_boot=n_boot, seed=seed, interval=interval,
                              progress=progress)
    rel = normalizing(irr)
    entry = lookup("normalized_kappa_x", kind="cross")
    check_items(items)
    known: dict[str, Any] = {}
    if items == "common":
        ann, lvl = annotations(data, other, level=level, **roles)
        known = {"ann": common_items(ann), "lvl": lvl}
    found = evaluate(data, [Target(entry.name, entry, {"irr": rel.name})], uncertainty,
                     other=other, level=level, reference=reference, **known, **roles)
    if items == "all":
        result = found.run
        kx = lookup("kappa_x", kind="cross")
        warn_above_one(result.ann, result.pairs, {
            "normalized": found.estimates[entry.name], "irr": result.estimate(rel),
            "kappa_x": result.estimate(kx)}, result.reference)
    return found.label(irr=rel.name, reference=reference, items=items)
