"""The regularized incomplete beta function and Student t's distribution function over
arrays, compiled: the t and F functions of :mod:`..coefficients.distributions` (the
analytic intervals) and the alternative annotator test's p-values, one per human, in one
call whatever their number.

I_x(a, b) by its continued fraction (modified Lentz, Abramowitz & Stegun 26.5.8) with the
symmetry I_x(a, b) = 1 - I_{1-x}(b, a) where the fraction converges slowly.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

_TINY = 1e-300


@njit(cache=True, nogil=True)
def _fraction(a: float, b: float, x: float) -> float:  # pragma: no cover - numba
    c = 1.0
    d = 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > _TINY else _TINY)
    h = d
    for m in range(1, 1000):
        m2 = 2 * m
        step = 1.0
        for k in range(2):
            if k == 0:
                num = m * (b - m) * x / ((a + m2 - 1) * (a + m2))
            else:
                num = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1))
            d = 1.0 + num * d
            d = 1.0 / (d if abs(d) > _TINY else _TINY)
            c = 1.0 + num / c
            c = c if abs(c) > _TINY else _TINY
            step = c * d
            h *= step
        if abs(step - 1.0) < 1e-16:
            break
    return h


@njit(cache=True, nogil=True)
def betainc(a: float, b: float, x: float, y: float) -> float:  # pragma: no cover - numba
    """I_x(a, b) for a, b > 0, with ``y`` = 1 - x computed by the caller."""
    if x <= 0.0:
        return 0.0
    if y <= 0.0:
        return 1.0
    front = (math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x)
             + b * math.log(y))
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(front) * _fraction(a, b, x) / a
    return 1.0 - math.exp(front) * _fraction(b, a, y) / b


@njit(cache=True, nogil=True)
def t_cdf(t: np.ndarray, df: np.ndarray) -> np.ndarray:  # pragma: no cover - numba
    """P(T <= t[i]) on df[i] degrees of freedom, for every i (infinite t: 0 or 1)."""
    out = np.empty(t.shape[0])
    for i in range(t.shape[0]):
        v, n = t[i], df[i]
        if np.isinf(v):
            out[i] = 1.0 if v > 0 else 0.0
            continue
        v2 = v * v
        tail = 0.5 * betainc(n / 2.0, 0.5, n / (n + v2), v2 / (n + v2))
        out[i] = tail if v < 0 else 1.0 - tail
    return out
