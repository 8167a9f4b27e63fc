"""Public functions: validate -> statistics -> finalize -> labeled result.

Each function reads its input once into integer codes (:mod:`.schema`),
builds per-item statistics in one numba pass (:mod:`.kernels`), turns them
into coefficients (:mod:`.coefficients`) and labels the result
(:mod:`.results`). The ``.xrr`` accessors call these functions.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from .coefficients import CROSS, IRR, Estimates, ItemStats, item_statistics
from .coefficients.icc import anova, icc, icc_table, parse_form
from .coefficients.variance import interval
from .errors import InputError
from .levels import Level, resolve_level, resolve_weights
from .results import label_result, label_table, pair_index, warn_dropped, warn_undefined
from .schema import Annotations, Roles, Table, encode, read

__all__ = [
    "annotations", "cross_kappa", "irr", "normalized", "summary", "to_frame", "to_xarray",
]


def _kind(data: Any) -> str:
    return "xarray" if isinstance(data, xr.Dataset | xr.DataArray) else "pandas"


def _table(data: Any, roles: dict[str, Any]) -> Table:
    bound = getattr(data, "_xrr_bound", None)
    if bound is not None:  # an accessor called with roles: other=df.xrr(rater="w")
        data, roles = bound
    return read(data, Roles.from_kwargs(roles))


def annotations(
    data: Any, other: Any = None, level: Any = "nominal", **roles: Any
) -> tuple[Annotations, Level]:
    """Read ``data`` (and ``other``) into the canonical form, validating once.

    Parameters
    ----------
    data : DataFrame, Dataset or DataArray
        The annotations (see :class:`xrr_accessor.schema.Roles` for layouts).
    other : same kinds, optional
        A second set of annotations of the same items (another replication).
    level : str, matrix or callable
        Level of measurement; checked against the values here.
    **roles
        ``item=``, ``rater=``, ``replication=``, ``label=``, ``value=``,
        ``wide=``, ``categories=``, ``duplicates=``. ``other`` is read with
        the same roles, unless it is passed as ``other.xrr(...)`` with its own.

    Returns
    -------
    (Annotations, Level)

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"item": [1, 1, 2, 2], "rater": ["a", "b", "a", "b"],
    ...                    "joy": [0, 1, 1, 1]})
    >>> ann, level = annotations(df)
    >>> ann.codes
    array([[0, 1, 1, 1]])
    """
    lvl = resolve_level(level)
    tables = [_table(data, roles)]
    if other is not None:
        tables.append(_table(other, roles))
    ann = encode(tables, ordinal=lvl.ordered)
    if lvl.numeric:
        ann.values(lvl.name)  # raises a LevelError naming the column
    return ann, lvl


def _confidence(ci: float) -> float:
    if not (isinstance(ci, int | float) and 0 < ci < 1):
        raise InputError(f"ci={ci!r} is a confidence level between 0 and 1, e.g. ci=0.95.")
    return float(ci)


def _population(population: float | None) -> float:
    if population is None:
        return math.inf
    if not population >= 1:
        raise InputError(f"population={population!r} is the number of items in the "
                         "population (>= the items rated), or None for an infinite one.")
    return float(population)


#: IRRs that can normalize kappa_x: defined at every level, like kappa_x itself.
NORMALIZING = ("alpha", "iota", "cohen")


def _check_normalizing(irr: str) -> None:
    if irr not in NORMALIZING:
        raise InputError(
            f"irr={irr!r} cannot normalize kappa_x; use one of {', '.join(NORMALIZING)} "
            "(defined at every level of measurement, as kappa_x is)."
        )


def _check_metric(metric: str) -> None:
    if metric not in IRR:
        raise InputError(f"unknown metric {metric!r}; use one of {', '.join(IRR)}.")


def _irr_level(metric: str, level: Any, weights: Any) -> Any:
    """The level an IRR metric is computed at, from ``level=`` and ``weights=``."""
    entry = IRR[metric]
    given_level = not (isinstance(level, str) and level == "nominal")
    if metric == "icc":
        if weights is not None or (given_level and level != "interval"):
            raise InputError("the ICC treats ratings as interval numbers; leave level= and "
                             "weights= out (or use metric='alpha' for other levels).")
        return "interval"
    if weights is None:
        if entry.weights_only:
            if given_level:
                raise InputError(
                    f"metric={metric!r} is weighted with weights='linear', 'quadratic' or a "
                    "K x K matrix of agreement weights, not with level=."
                )
            return resolve_weights("unweighted")
        return level
    if metric == "alpha":
        raise InputError(
            "alpha is weighted through level= ('ordinal', 'interval', 'ratio', or a "
            "disagreement matrix), not weights=."
        )
    if given_level:
        raise InputError("give level= or weights=, not both.")
    return resolve_weights(weights)


def _irr_estimates(stats: ItemStats, metric: str) -> Estimates:
    _check_metric(metric)
    return IRR[metric].finalize(stats)


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
        (AC1; AC2 when weighted), and ``"light"`` (mean pairwise Cohen).
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
        F-based; the ICC needs every rater on every item.
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
    _check_metric(metric)
    if metric == "icc":
        form = parse_form(form)
    elif form is not None:
        raise InputError("form= selects an ICC form; it goes with metric='icc'.")
    ann, lvl = annotations(data, level=_irr_level(metric, level, weights), **roles)
    stats = item_statistics(ann, lvl)
    if metric == "icc":
        mean_squares = anova(stats)
        est = icc(stats, form, mean_squares)
    else:
        est = _irr_estimates(stats, metric)
    cells = ann.replications
    warn_undefined(est, ann, cells, metric)
    warn_dropped(est, ann, metric)
    attrs = {"name": metric, "metric": metric, "level": lvl.name,
             "citation": IRR[metric].citation}
    if lvl.name == "weights":
        attrs["weights"] = lvl.custom if isinstance(lvl.custom, str) else "custom"
    if metric == "icc":
        attrs["form"] = form
    if ci is not None:
        if metric == "icc":
            columns = {"estimate": est.value,
                       **icc_table(mean_squares, form, est.value, _confidence(ci))}
        else:
            iv = interval(stats, metric, est.value, _population(population))
            columns = {"estimate": est.value, **iv.bounds(est.value, _confidence(ci))}
        attrs["ci"] = ci
        return label_table(est, columns, ann, cells, _kind(data), attrs)
    return label_result(est, ann, cells, _kind(data), attrs)


def _pairs(ann: Annotations, n_self: int | None) -> np.ndarray:
    r = len(ann.replications)
    if n_self is None:
        rows = [(a, b) for a in range(r) for b in range(a + 1, r)]
    else:
        rows = [(a, b) for a in range(n_self) for b in range(n_self, r)]
    if not rows:
        raise InputError(
            "cross-kappa compares two replications, but the data have "
            f"{r} ({list(ann.replications)}). Add a replication column "
            "(.xrr(replication='<column>')) or pass other=."
        )
    return np.array(rows, dtype=np.int64).reshape(-1, 2)


def _n_self(ann: Annotations) -> int | None:
    """Replications of the first input when two inputs were compared, else None."""
    return ann.inputs[0][0] if len(ann.inputs) > 1 else None


def _keep(ann: Annotations) -> bool:
    """Keep the pair dimension unless two inputs without replications were compared."""
    return len(ann.inputs) < 2 or any(had for _, had in ann.inputs)


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
    ann, lvl = annotations(data, other, level=level, **roles)
    pairs = _pairs(ann, _n_self(ann))
    stats = item_statistics(ann, lvl)
    est = CROSS["kappa_x"].finalize(stats, pairs)
    cells = pair_index(ann, pairs)
    warn_undefined(est, ann, cells, "kappa_x")
    attrs = {"name": "kappa_x", "metric": "kappa_x", "level": lvl.name,
             "citation": CROSS["kappa_x"].citation}
    return label_result(est, ann, cells, _kind(data), attrs, keep_cells=_keep(ann))


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
    _check_normalizing(irr)
    ann, lvl = annotations(data, other, level=level, **roles)
    n_self = _n_self(ann)
    pairs = _pairs(ann, n_self)
    if reference is not None:
        ref = _reference_code(ann, reference, n_self)
        others = [r for r in range(len(ann.replications)) if r != ref]
        pairs = np.array([(r, ref) for r in others], dtype=np.int64).reshape(-1, 2)
    stats = item_statistics(ann, lvl)
    est, _, rel = _normalize(stats, pairs, irr, reference is not None)
    cells = pair_index(ann, pairs)
    warn_undefined(est, ann, cells, "normalized kappa_x")
    warn_dropped(rel, ann, irr)
    attrs = {"name": "normalized_kappa_x", "metric": "normalized_kappa_x", "irr": irr,
             "level": lvl.name, "reference": reference,
             "citation": CROSS["kappa_x"].citation + "; Eq 13"}
    return label_result(est, ann, cells, _kind(data), attrs,
                        keep_cells=_keep(ann) or reference is not None)


#: IRRs at or below this are zero up to rounding: normalized kappa_x is undefined.
IRR_TOLERANCE = 1e-12


def _normalize(
    stats: ItemStats, pairs: np.ndarray, irr: str, by_reference: bool
) -> tuple[Estimates, Estimates, Estimates]:
    """kappa_x / sqrt(IRR_a IRR_b), or kappa_x / IRR_b when ``by_reference``."""
    kx = CROSS["kappa_x"].finalize(stats, pairs)
    rel_est = _irr_estimates(stats, irr)
    rel = rel_est.value
    ra, rb = rel[:, pairs[:, 0]], rel[:, pairs[:, 1]]
    # an IRR that is zero up to rounding (|IRR| <= 1e-12) cannot normalize either
    bad = ~(rb > IRR_TOLERANCE) if by_reference else ~((ra > IRR_TOLERANCE) &
                                                       (rb > IRR_TOLERANCE))
    denom = rb if by_reference else np.sqrt(np.where(bad, 1.0, ra * rb))
    est = Estimates(np.where(bad, np.nan, kx.value / np.where(bad, 1.0, denom)),
                    counts=dict(kx.counts), reason=kx.reason.copy())
    reps = stats.ann.replications
    for lab, p in np.argwhere(bad):
        low = [(reps[r], rel[lab, r]) for r in pairs[p] if not rel[lab, r] > IRR_TOLERANCE]
        if by_reference:
            low = low[-1:]
        est.undefined(_cell_mask(bad.shape, lab, p), "IRR (" + irr + ") of " + ", ".join(
            f"{name!s} is {value:.3g}" for name, value in low) + ", not > 0")
    return est, kx, rel_est


def _cell_mask(shape: tuple[int, ...], lab: int, p: int) -> np.ndarray:
    mask = np.zeros(shape, dtype=bool)
    mask[lab, p] = True
    return mask


def _reference_code(ann: Annotations, reference: Any, n_self: int | None) -> int:
    reps = list(ann.replications)
    if n_self is not None and reference in ("self", "other"):
        if (reference == "self" and n_self != 1) or (
            reference == "other" and len(reps) - n_self != 1
        ):
            raise InputError(
                f"reference={reference!r} needs that input to hold one replication; "
                f"name the replication instead, one of {reps}."
            )
        return 0 if reference == "self" else n_self
    if reference not in reps:
        raise InputError(f"reference={reference!r} is not a replication; use one of {reps}.")
    return reps.index(reference)


def summary(
    data: Any, other: Any = None, irr: str = "alpha", level: Any = "nominal", **roles: Any
) -> pd.DataFrame:
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
    DataFrame
        Index ``label``; columns a MultiIndex (statistic, replication or
        pair), with the statistics ``irr``, ``kappa_x``, ``normalized``.

    Examples
    --------
    >>> from xrr_accessor.datasets import simulate
    >>> df = simulate(n_items=500, labels=["joy", "awe"], pools=["A", "B"], seed=3)
    >>> summary(df).columns.get_level_values(0).unique().tolist()
    ['irr', 'kappa_x', 'normalized']
    """
    _check_normalizing(irr)
    ann, lvl = annotations(data, other, level=level, **roles)
    pairs = _pairs(ann, _n_self(ann))
    stats = item_statistics(ann, lvl)
    norm, kx, rel = _normalize(stats, pairs, irr, False)
    cells = pair_index(ann, pairs)
    warn_undefined(rel, ann, ann.replications, irr)
    warn_undefined(kx, ann, cells, "kappa_x")
    warn_dropped(rel, ann, irr)
    pair_names = [f"{a} x {b}" for a, b in cells]
    blocks = {
        "irr": pd.DataFrame(rel.value, index=ann.labels, columns=ann.replications.astype(str)),
        "kappa_x": pd.DataFrame(kx.value, index=ann.labels, columns=pair_names),
        "normalized": pd.DataFrame(norm.value, index=ann.labels, columns=pair_names),
    }
    out = pd.concat(blocks, axis=1, names=["statistic", "cell"])
    out.attrs.update({"irr": irr, "level": lvl.name,
                      "n_unpairable": pd.DataFrame(kx.counts["n_unpairable"].astype(object),
                                                   index=ann.labels,
                                                   columns=pair_names).to_dict()})
    return out


def to_xarray(data: Any, **roles: Any) -> xr.Dataset:
    """Annotations as a Dataset: one variable per label, dims (item, rater[, replication]).

    Values keep their categories (numbers stay numbers, strings stay
    strings); missing annotations are NaN.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"item": [1, 1, 2], "rater": ["a", "b", "a"], "joy": [0, 1, 1]})
    >>> ds = to_xarray(df)
    >>> ds["joy"].sizes["item"], ds["joy"].sizes["rater"], int(ds["joy"].isnull().sum())
    (2, 2, 1)
    """
    ann, _ = annotations(data, **roles)
    dims = ["item", "rater"] + (["replication"] if ann.has_replication else [])
    shape = [len(ann.items), len(ann.raters)] + (
        [len(ann.replications)] if ann.has_replication else []
    )
    index = (ann.item, ann.rater) + ((ann.replication,) if ann.has_replication else ())
    coords: dict[str, Any] = {"item": ann.items, "rater": ann.raters}
    if ann.has_replication:
        coords["replication"] = ann.replications
    out = {}
    for j, name in enumerate(ann.labels):
        cats = ann.categories[j]
        numeric = pd.api.types.is_numeric_dtype(cats.dtype) and not pd.api.types.is_bool_dtype(
            cats.dtype
        )
        arr = np.full(shape, np.nan, dtype=float if numeric else object)
        ok = ann.codes[j] >= 0
        arr[tuple(i[ok] for i in index)] = cats.to_numpy()[ann.codes[j][ok]]
        out[name if ann.has_label else "value"] = (dims, arr)
    return xr.Dataset(out, coords=coords)


def to_frame(data: Any, **roles: Any) -> pd.DataFrame:
    """Annotations as a long DataFrame: item, rater, [replication,] one column per label.

    Rows where every label is missing are left out.

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> da = xr.DataArray([[1, np.nan], [2, 2]], dims=("item", "rater"), name="score")
    >>> to_frame(da)
       item  rater  score
    0     0      0    1.0
    1     1      0    2.0
    2     1      1    2.0
    """
    ann, _ = annotations(data, **roles)
    keep = (ann.codes >= 0).any(axis=0)
    cols: dict[str, Any] = {
        "item": ann.items.to_numpy()[ann.item[keep]],
        "rater": ann.raters.to_numpy()[ann.rater[keep]],
    }
    if ann.has_replication:
        cols["replication"] = ann.replications.to_numpy()[ann.replication[keep]]
    for j, name in enumerate(ann.labels):
        codes = ann.codes[j][keep]
        cats = ann.categories[j]
        vals = pd.Series(cats.to_numpy(), dtype=cats.dtype).reindex(codes).to_numpy()
        cols[name] = vals
    return pd.DataFrame(cols)
