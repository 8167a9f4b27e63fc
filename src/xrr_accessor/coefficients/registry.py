"""The registry: one entry per coefficient, read by every entry point.

An entry says what the coefficient is called (and its aliases), which groups
of statistics it needs (:data:`~xrr_accessor.engine.statistics.GROUPS`), its finalize
over :class:`~xrr_accessor.engine.statistics.Stats`, how it is weighted, its
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

from ..errors import InputError
from . import alpha as _alpha
from . import chance as _chance
from . import cross as _cross
from . import icc as _icc
from . import iota as _iota
from . import light as _light
from . import normalized as _normalized
from . import variance as _variance

__all__ = ["REGISTRY", "Coefficient", "lookup", "register"]

LEVELS = ("nominal", "ordinal", "interval", "ratio", "jaccard", "masi", "custom")


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
    variance : callable or None
        Analytic standard errors: ``variance(ann, ctx, name, estimate,
        population)``, a second pass over the codes because each item's
        pseudo-value depends on the global estimate.
    global_pass : str
        What needs the whole data before an item's contribution can be used
        (empty: nothing), said in words for the docs and the CLI.
    """

    name: str
    kind: str
    finalize: Callable[..., Any]
    needs: frozenset[str]
    weighting: str
    levels: tuple[str, ...]
    citation: str
    description: str
    variance: Callable[..., Any] | None = None
    params: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()
    global_pass: str = ""
    normalizes: bool = False
    in_table: bool = False
    per_category: bool = True


#: Every coefficient, by name, in the order tables list them.
REGISTRY: dict[str, Coefficient] = {}


def register(entry: Coefficient) -> Coefficient:
    """Add ``entry`` to :data:`REGISTRY` (replacing one of the same name)."""
    REGISTRY[entry.name] = entry
    return entry


def _key(name: str) -> str:
    return str(name).lower().replace("'s", "").replace("-", "_").replace(" ", "_")


def lookup(name: Any, kind: str | None = "irr") -> Coefficient:
    """The entry called ``name`` (case, spaces and aliases forgiven)."""
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
    "percent", "irr", partial(_chance.chance_corrected, metric="percent"), _CHANCE,
    "weights", ("weights",), _GWET + ", ch. 2",
    "percent agreement: share of agreeing rater pairs per item, averaged",
    variance=_variance.interval, aliases=("percent_agreement", "agreement", "pa"),
    in_table=True))
register(Coefficient(
    "cohen", "irr", partial(_iota.iota, exactly_two=True),
    frozenset({"within", "raters", "strata"}), "both", (*LEVELS, "weights"), _iota.CITATION,
    "Cohen's kappa: exactly two raters (iota with b = 2); weighted through level or "
    "weights", aliases=("cohen_kappa", "cohens_kappa"), variance=_variance.interval,
    global_pass="the raters of each replication (items rated by all of them are used)",
    normalizes=True, in_table=True))
for _name, _cite, _text, _aliases in [
    ("scott", "Scott (1955)", "Scott's pi: pooled category shares as chance",
     ("scott_pi", "pi")),
    ("fleiss", "Fleiss (1971); " + _GWET + " for varying raters per item",
     "Fleiss' kappa: chance from the mean per-item category shares", ("fleiss_kappa",)),
    ("conger", "Conger (1980); " + _GWET + " for missing ratings",
     "Conger's kappa: chance from each rater's own category shares", ("conger_kappa",)),
]:
    register(Coefficient(
        _name, "irr", partial(_chance.chance_corrected, metric=_name),
        _CHANCE | ({"raters"} if _name == "conger" else set()), "weights", ("weights",),
        _cite, _text, aliases=_aliases, in_table=True,
        variance=None if _name == "scott" else _variance.interval))
register(Coefficient(
    "light", "irr", _light.light, frozenset({"joint", "raters"}), "weights", ("weights",),
    _light.CITATION, "Light's kappa: mean pairwise Cohen's kappa over rater pairs",
    aliases=("light_kappa",), in_table=True))
register(Coefficient(
    "bp", "irr", partial(_chance.chance_corrected, metric="bp"), _CHANCE, "weights",
    ("weights",), "Brennan & Prediger (1981)", "Brennan-Prediger: chance 1/q",
    variance=_variance.interval, aliases=("brennan_prediger", "brennan_and_prediger"),
    in_table=True))
register(Coefficient(
    "gwet", "irr", partial(_chance.chance_corrected, metric="gwet"), _CHANCE, "weights",
    ("weights",), "Gwet (2008)", "Gwet's AC1 (unweighted) / AC2 (weighted)",
    variance=_variance.interval, aliases=("ac1", "ac2", "gwet_ac1", "gwet_ac2"),
    in_table=True))
register(Coefficient(
    "alpha", "irr", _alpha.alpha, _WITHIN, "level", LEVELS, _alpha.CITATION,
    "Krippendorff's alpha: pairable values, any number of raters, missing data",
    aliases=("krippendorff", "krippendorff_alpha", "kripp", "kalpha"),
    variance=_variance.interval,
    normalizes=True, in_table=True))
register(Coefficient(
    "iota", "irr", _iota.iota, frozenset({"within", "raters", "strata"}), "both",
    (*LEVELS, "weights"),
    _iota.CITATION,
    "Janson-Olsson iota (Eq 1-5): fixed raters, complete items; Conger's kappa for "
    "nominal data", aliases=("janson_olsson",),
    global_pass="the raters of each replication (items rated by all of them are used)",
    normalizes=True))
register(Coefficient(
    "icc", "irr", _icc.icc, frozenset({"within", "raters", "strata"}), "interval",
    ("interval",), _icc.CITATION,
    "intraclass correlation, six Shrout-Fleiss forms (form=), complete data",
    params=("form",), aliases=("intraclass", "intraclass_correlation"),
    global_pass="the raters of each replication (the ANOVA uses items rated by all)",
    per_category=False))
register(Coefficient(
    "kappa_x", "cross", _cross.cross_kappa, frozenset({"cross"}), "level", LEVELS,
    _cross.CITATION, "cross-kappa between two replications, missing data (Eq 9-11)",
    aliases=("cross_kappa", "kappax"), per_category=False))
register(Coefficient(
    "normalized_kappa_x", "cross", _normalized.normalized, frozenset({"cross"}), "level",
    LEVELS, _cross.CITATION + "; Eq 13",
    "kappa_x / sqrt(IRR_X IRR_Y) (replication similarity), or kappa_x / IRR_reference",
    params=("irr",), aliases=("normalized", "normalised", "normalized_kappa"),
    per_category=False))
