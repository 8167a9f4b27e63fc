"""Coefficients as functions of additive statistics, and their registry.

Each module finalizes one family from :class:`~xrr_accessor.engine.additive.Stats`;
:mod:`.registry` lists every coefficient once (name, statistics needed,
finalize, weighting, analytic variance, citation, description).
"""

from __future__ import annotations

from .base import Context, Estimates
from .registry import REGISTRY, Coefficient, lookup, register

__all__ = ["REGISTRY", "Coefficient", "Context", "Estimates", "lookup", "register"]
