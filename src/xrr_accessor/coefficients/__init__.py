"""Coefficients as functions of per-item statistics, and their registry.

Each entry names how its statistics are built (``item_statistics``: one numba
pass over codes), the function that turns them into estimates, the levels it
accepts and where its formula comes from.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from . import alpha as _alpha
from . import chance as _chance
from . import cross as _cross
from . import icc as _icc
from . import iota as _iota
from .base import Estimates, ItemStats, item_statistics

__all__ = ["CROSS", "IRR", "Coefficient", "Estimates", "ItemStats", "item_statistics"]


@dataclass(frozen=True)
class Coefficient:
    """A registry entry: name, finalize over :class:`ItemStats`, levels, citation."""

    name: str
    finalize: Callable[..., Estimates]
    levels: tuple[str, ...]
    citation: str
    description: str
    #: True: weighted through ``weights=`` only; False: ``level=`` (and, for
    #: cohen/iota, ``weights=`` as D = 1 - w).
    weights_only: bool = False


_ALL_LEVELS = ("nominal", "ordinal", "interval", "ratio", "custom")

#: IRR of one replication, by ``metric=`` name.
IRR: dict[str, Coefficient] = {
    "alpha": Coefficient(
        "alpha", _alpha.alpha, _ALL_LEVELS, _alpha.CITATION,
        "Krippendorff's alpha: pairable values, any number of raters, missing data",
    ),
    "iota": Coefficient(
        "iota", _iota.iota, _ALL_LEVELS, _iota.CITATION,
        "Janson-Olsson iota (Eq 1-5): fixed raters, complete items; Conger's kappa "
        "for nominal data",
    ),
    "cohen": Coefficient(
        "cohen", partial(_iota.iota, exactly_two=True), _ALL_LEVELS, _iota.CITATION,
        "Cohen's kappa: exactly two raters (iota with b = 2); weighted through level "
        "or weights",
    ),
    **{
        name: Coefficient(name, partial(_chance.chance_corrected, metric=name), ("weights",),
                          citation, description, weights_only=True)
        for name, citation, description in [
            ("percent", "Gwet (2014), Handbook of Inter-Rater Reliability, ch. 2",
             "percent agreement: share of agreeing rater pairs per item, averaged"),
            ("scott", "Scott (1955)", "Scott's pi: pooled category shares as chance"),
            ("fleiss", "Fleiss (1971); Gwet (2014) for varying raters per item",
             "Fleiss' kappa: chance from the mean per-item category shares"),
            ("conger", "Conger (1980); Gwet (2014) for missing ratings",
             "Conger's kappa: chance from each rater's own category shares"),
            ("bp", "Brennan & Prediger (1981)", "Brennan-Prediger: chance 1/q"),
            ("gwet", "Gwet (2008)", "Gwet's AC1 (unweighted) / AC2 (weighted)"),
        ]
    },
    "light": Coefficient(
        "light", _chance.light, ("weights",), "Light (1971)",
        "Light's kappa: mean pairwise Cohen's kappa over rater pairs", weights_only=True,
    ),
    "icc": Coefficient(
        "icc", _icc.icc, ("interval",), _icc.CITATION,
        "intraclass correlation, six Shrout-Fleiss forms (form=), complete data",
    ),
}

#: Cross-replication coefficients.
CROSS: dict[str, Coefficient] = {
    "kappa_x": Coefficient(
        "kappa_x", _cross.cross_kappa, _ALL_LEVELS, _cross.CITATION,
        "cross-kappa between two replications, missing data (Eq 9-11)",
    ),
}
