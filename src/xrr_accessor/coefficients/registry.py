"""The registry: one entry per coefficient, read by every entry point.

An entry says what the coefficient is called (and its aliases), which groups
of statistics it needs (:data:`~xrr_accessor.engine.additive.GROUPS`), its finalize
over :class:`~xrr_accessor.engine.additive.Stats`, how it is weighted, its
analytic variance (a second pass over the codes) or None, its parameters,
citation and description, and where it appears (the agreement table,
normalizing kappa_x, per-category agreement). The accessor, :mod:`..api`,
:mod:`..report`, the agreement table and the CLI all read this dict; adding a
coefficient is one :func:`register` call plus its finalize.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

from ..engine.additive import OPTIONAL_GROUPS
from ..errors import InputError
from . import alpha as _alpha
from . import chance as _chance
from . import cross as _cross
from . import icc as _icc
from . import iota as _iota
from . import light as _light
from . import normalized as _normalized
from . import variance as _variance

__all__ = ["REGISTRY", "Coefficient", "finalize", "lookup", "needs", "normalizing",
           "register", "requirements"]

LEVELS = ("nominal", "ordinal", "interval", "ratio", "jaccard", "masi", "custom")


#: What an entry's finalize reads besides the statistics: (entry, params) pairs.
Requirements = tuple[tuple["Coefficient", dict[str, Any]], ...]


@dataclass(frozen=True)
class Coefficient:
    """A registry entry.

    Attributes
    ----------
    name : str
        ``metric=`` name.
    kind : {"irr", "cross"}
        Per replication, or per replication pair.
    finalize : callable
        ``finalize(stats, ctx, **params) -> Estimates``.
    needs : frozenset of str
        Statistics groups the finalize reads.
    weighting : {"level", "weights", "both", "interval"}
        ``level=`` only, ``weights=`` only (agreement weights), either, or
        neither (interval numbers).
    levels : tuple of str
        Accepted levels of measurement (``"weights"`` for agreement weights).
    analytic : callable or None
        Analytic interval: ``analytic(run, estimate, level, population, params)``
        -> ``{"se", "lower", "upper", "p_value", ...}`` (the chance family: a
        second pass over the codes for each item's pseudo-value; the ICC: its
        F-based limits). None: the bootstrap only.
    chance_corrected : bool
        A (p_a - p_e) / (1 - p_e) coefficient, read on the Landis-Koch bands
        (percent agreement is not).
    max_raters : int or None
        The most raters per replication the coefficient is defined for (Cohen: 2).
    depends : callable or None
        ``depends(params)`` -> the (entry, params) pairs its finalize reads
        (normalized kappa_x: kappa_x and the normalizing IRR); the run
        finalizes and caches them and hands their estimates to the finalize.
    shown : str
        How warnings and messages name it, where ``name`` reads badly
        (``"normalized kappa_x"``); empty: ``name`` (see :attr:`display`).
    analytic_from_sums : bool
        Its analytic interval needs only the summed statistics (the ICC's F
        limits), so it works on dask-backed data; else it reads each item's
        annotations again.
    counts_categories : bool
        Its value depends on the number of categories q, used or not (Gwet's
        AC1/AC2, Brennan-Prediger): a replication using few of the label's
        categories, which other replications use, gets a
        :class:`~xrr_accessor.errors.ScaleWarning`.
    """

    name: str
    kind: str
    finalize: Callable[..., Any]
    needs: frozenset[str]
    weighting: str
    levels: tuple[str, ...]
    citation: str
    description: str
    analytic: Callable[..., Any] | None = None
    params: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()
    normalizes: bool = False
    in_table: bool = False
    per_category: bool = True
    chance_corrected: bool = True
    max_raters: int | None = None
    depends: Callable[[dict[str, Any]], Requirements] | None = None
    shown: str = ""
    analytic_from_sums: bool = False
    counts_categories: bool = False

    @property
    def default_level(self) -> str:
        """The level a call without ``level=`` reads it at: nominal (unweighted, for
        the weighted chance family), or the one level it takes (the ICC: interval)."""
        return "interval" if self.weighting == "interval" else "nominal"

    @property
    def display(self) -> str:
        """How warnings and messages name the coefficient (``shown``, else its name)."""
        return self.shown or self.name


#: Every coefficient, by name, in the order tables list them.
REGISTRY: dict[str, Coefficient] = {}


def register(entry: Coefficient) -> Coefficient:
    """Add ``entry`` to :data:`REGISTRY` (replacing one of the same name)."""
    REGISTRY[entry.name] = entry
    _FOUND.clear()
    return entry


def requirements(entry: Coefficient, params: dict[str, Any] | None = None) -> Requirements:
    """The (entry, params) pairs ``entry``'s finalize reads, at ``params`` (its
    defaults when None), in the order its finalize takes them."""
    return () if entry.depends is None else entry.depends(params or {})


def needs(entry: Coefficient, params: dict[str, Any] | None = None) -> frozenset[str]:
    """Statistics groups of ``entry`` and of everything it depends on."""
    out = set(entry.needs)
    for dep, dep_params in requirements(entry, params):
        out |= needs(dep, dep_params)
    return frozenset(out)


def finalize(entry: Coefficient, stats: Any, ctx: Any, params: dict[str, Any],
             cache: dict[tuple[Any, ...], Any] | None = None) -> Any:
    """``entry`` finalized from ``stats``, its dependencies first (each once per
    ``cache``, keyed by name and parameters): the one place a coefficient's
    finalize is called."""
    cache = {} if cache is None else cache
    key = (entry.name, *sorted(params.items()))
    if key not in cache:
        deps = requirements(entry, params)
        missing = set().union(*(needs(d, p) for d, p in deps)) - ctx.meta.groups - OPTIONAL_GROUPS
        if missing:
            raise InputError(
                f"{entry.name} with {params} needs the statistics {sorted(missing)}, which "
                "this run did not compute; pass every entry (and its parameters' IRR) to "
                "run().")
        inputs = tuple(finalize(dep, stats, ctx, dep_params, cache) for dep, dep_params in deps)
        cache[key] = (entry.finalize(stats, ctx, *inputs, **params) if inputs
                      else entry.finalize(stats, ctx, **params))
    return cache[key]


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


def _key(name: str) -> str:
    return str(name).lower().replace("'s", "").replace("-", "_").replace(" ", "_")


def lookup(name: Any, kind: str | None = "irr") -> Coefficient:
    """The entry called ``name`` (case, spaces and aliases forgiven); found once per
    name and kind while that entry stays registered."""
    try:
        found = _FOUND[(name, type(name), kind)]
        if REGISTRY.get(found.name) is found:  # still registered (tests remove entries)
            return found
    except (KeyError, TypeError):  # not looked up yet, or a name that is no key
        pass
    entry = _lookup(name, kind)
    try:
        _FOUND[(name, type(name), kind)] = entry
    except TypeError:
        pass
    return entry


#: lookup's answers by (name, its type, kind); emptied by :func:`register`.
_FOUND: dict[tuple[Any, type, str | None], Coefficient] = {}


def _lookup(name: Any, kind: str | None) -> Coefficient:
    key = _key(name)
    for entry in REGISTRY.values():
        if kind is not None and entry.kind != kind:
            continue
        if key == entry.name or key in entry.aliases:
            return entry
    names = [e.name for e in REGISTRY.values() if kind is None or e.kind == kind]
    if key in ("augmented", "augmented_kappa", "rosenberg_binkowski"):
        raise InputError(
            f"metric={name!r}: augmented kappa reads set-valued annotations (a primary and "
            "a secondary label) and takes the primary weight p, so it has its own entry "
            "points: df.xrr.augmented(p=0.6), .augmented_sweep(ps), .augmented_items(), or "
            "xrr_accessor.augmented_kappa(df, p=0.6).")
    raise InputError(f"unknown metric {name!r}; use one of {', '.join(names)}.")


_WITHIN = frozenset({"within"})
_CHANCE = frozenset({"chance", "within"})
_GWET = "Gwet (2014), Handbook of Inter-Rater Reliability, 4th ed."

register(Coefficient(
    "percent", "irr", partial(_chance.chance_corrected, chance=_chance.no_chance), _CHANCE,
    "weights", ("weights",), _GWET + ", ch. 2",
    "percent agreement: share of agreeing rater pairs per item, averaged",
    analytic=_variance.analytic(_variance.percent_terms),
    aliases=("percent_agreement", "agreement", "pa"), in_table=True, chance_corrected=False))
register(Coefficient(
    "cohen", "irr", partial(_iota.iota, exactly_two=True),
    frozenset({"within", "raters", "strata"}), "both", (*LEVELS, "weights"), _iota.CITATION,
    "Cohen's kappa: exactly two raters (iota with b = 2); weighted through level or "
    "weights", aliases=("cohen_kappa", "cohens_kappa"),
    analytic=_variance.analytic(_variance.cohen_terms), max_raters=2,
    normalizes=True, in_table=True))
register(Coefficient(
    "scott", "irr", partial(_chance.chance_corrected, chance=_chance.scott), _CHANCE,
    "weights", ("weights",), "Scott (1955)", "Scott's pi: pooled category shares as chance",
    aliases=("scott_pi", "pi"), in_table=True))
register(Coefficient(
    "fleiss", "irr", partial(_chance.chance_corrected, chance=_chance.fleiss), _CHANCE,
    "weights", ("weights",), "Fleiss (1971); " + _GWET + " for varying raters per item",
    "Fleiss' kappa: chance from the mean per-item category shares",
    aliases=("fleiss_kappa",), in_table=True,
    analytic=_variance.analytic(_variance.fleiss_terms)))
register(Coefficient(
    "conger", "irr", partial(_chance.chance_corrected, chance=_chance.conger,
                             undefined_chance="fewer than two raters"),
    _CHANCE | {"raters"}, "weights", ("weights",),
    "Conger (1980); " + _GWET + " for missing ratings",
    "Conger's kappa: chance from each rater's own category shares",
    aliases=("conger_kappa",), in_table=True,
    analytic=_variance.analytic(_variance.conger_terms)))
register(Coefficient(
    "light", "irr", _light.light, frozenset({"joint", "raters"}), "weights", ("weights",),
    _light.CITATION, "Light's kappa: mean pairwise Cohen's kappa over rater pairs",
    aliases=("light_kappa",), in_table=True))
register(Coefficient(
    "bp", "irr", partial(_chance.chance_corrected, chance=_chance.brennan_prediger),
    _CHANCE, "weights", ("weights",), "Brennan & Prediger (1981)",
    "Brennan-Prediger: chance 1/q", analytic=_variance.analytic(_variance.bp_terms),
    aliases=("brennan_prediger", "brennan_and_prediger"),
    in_table=True, counts_categories=True))
register(Coefficient(
    "gwet", "irr", partial(_chance.chance_corrected, chance=_chance.gwet), _CHANCE,
    "weights", ("weights",), "Gwet (2008)", "Gwet's AC1 (unweighted) / AC2 (weighted)",
    analytic=_variance.analytic(_variance.gwet_terms),
    aliases=("ac1", "ac2", "gwet_ac1", "gwet_ac2"),
    in_table=True, counts_categories=True))
register(Coefficient(
    "alpha", "irr", _alpha.alpha, _WITHIN, "level", LEVELS, _alpha.CITATION,
    "Krippendorff's alpha: pairable values, any number of raters, missing data",
    aliases=("krippendorff", "krippendorff_alpha", "kripp", "kalpha"),
    analytic=_variance.analytic(_variance.alpha_terms),
    normalizes=True, in_table=True))
register(Coefficient(
    "iota", "irr", _iota.iota, frozenset({"within", "raters", "strata"}), "both",
    (*LEVELS, "weights"),
    _iota.CITATION,
    "Janson-Olsson iota (Eq 1-5): fixed raters, complete items; Conger's kappa for "
    "nominal data", aliases=("janson_olsson",),
    normalizes=True))
register(Coefficient(
    "icc", "irr", _icc.icc, frozenset({"within", "raters", "strata"}), "interval",
    ("interval",), _icc.CITATION,
    "intraclass correlation, six Shrout-Fleiss forms (form=); the one-way forms from "
    "every annotation (each item its own raters, chosen when raters do not cross items)",
    params=("form",), aliases=("intraclass", "intraclass_correlation"),
    analytic=_icc.analytic, chance_corrected=False, analytic_from_sums=True,
    per_category=False))
register(Coefficient(
    "kappa_x", "cross", _cross.cross_kappa, frozenset({"cross"}), "level", LEVELS,
    _cross.CITATION, "cross-kappa between two replications, missing data (Eq 9-11)",
    aliases=("cross_kappa", "kappax"), per_category=False))
register(Coefficient(
    "normalized_kappa_x", "cross", _normalized.normalized, frozenset({"cross"}), "level",
    LEVELS, _cross.CITATION + "; Eq 13",
    "kappa_x / sqrt(IRR_X IRR_Y) (replication similarity), or kappa_x / IRR_reference",
    params=("irr", "reference"), aliases=("normalized", "normalised", "normalized_kappa"),
    per_category=False, chance_corrected=False, shown="normalized kappa_x",
    depends=lambda params: ((REGISTRY["kappa_x"], {}),
                            (lookup(params.get("irr", "alpha")), {}))))
