"""Naive reference implementations, written straight from the formulas.

Deliberately slow (O(n^2) pair loops, plain Python) and independent of the
package: the test oracle and the benchmark baseline. Equation numbers refer
to Wong, Paritosh & Aroyo (2021), *Cross-replication Reliability*, ACL; alpha
follows Krippendorff (2011), *Computing Krippendorff's Alpha-Reliability*.

Data are plain Python: a replication is a dict ``item -> list of values``
(IRR and kappa_x), or for iota a list of rows, one per item, each a list of b
values in rater order.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable, Sequence

Distance = Callable[[float, float], float]


def d_nominal(a: object, b: object) -> float:
    """Eq 4."""
    return 0.0 if a == b else 1.0


def d_interval(a: float, b: float) -> float:
    """Eq 3."""
    return (a - b) ** 2


def d_ratio(a: float, b: float) -> float:
    """Krippendorff's ratio metric ((a - b) / (a + b))^2."""
    return 0.0 if a + b == 0 else ((a - b) / (a + b)) ** 2


def d_ordinal(values: Iterable[float]) -> Distance:
    """Krippendorff's ordinal metric from the frequencies n_g of ``values``.

    D(a, b) = (sum_{g=a..b} n_g - (n_a + n_b) / 2)^2 over the ranked categories.
    """
    freq = Counter(values)
    ranks = sorted(freq)

    def dist(a: float, b: float) -> float:
        lo, hi = min(a, b), max(a, b)
        between = sum(freq[g] for g in ranks if lo <= g <= hi)
        return (between - (freq[a] + freq[b]) / 2) ** 2

    return dist


def distance(level: str, values: Iterable[float]) -> Distance:
    """The D of ``level``; ordinal needs the pairable values it ranks over."""
    if level == "ordinal":
        return d_ordinal(values)
    return {"nominal": d_nominal, "interval": d_interval, "ratio": d_ratio}[level]


def alpha(units: dict[object, list], level: str = "nominal") -> float:
    """Krippendorff's alpha over pairable values (items with >= 2 values)."""
    pairable = {u: v for u, v in units.items() if len(v) >= 2}
    values = [x for v in pairable.values() for x in v]
    n = len(values)
    if n < 2:
        return math.nan
    dist = distance(level, values)
    observed = 0.0
    for v in pairable.values():
        m = len(v)
        for i in range(m):
            for j in range(m):
                if i != j:
                    observed += dist(v[i], v[j]) / (m - 1)
    observed /= n
    expected = 0.0
    for i in range(n):
        for j in range(n):
            if i != j:
                expected += dist(values[i], values[j])
    expected /= n * (n - 1)
    return math.nan if expected == 0 else 1.0 - observed / expected


def kappa_x(x: dict[object, list], y: dict[object, list], level: str = "nominal") -> float:
    """Cross-kappa with missing data, Eq 9-11.

    Items annotated in only one replication are unpairable and left out of
    both d_o and d_e (SPEC section 3). For the ordinal level, ranks are over
    the pooled pairable values of both replications.
    """
    items = [i for i in x if i in y and len(x[i]) > 0 and len(y[i]) > 0]
    if not items:
        return math.nan
    dist = distance(level, [v for i in items for v in x[i] + y[i]])
    big_r = sum(len(x[i]) for i in items)  # Eq 11
    big_s = sum(len(y[i]) for i in items)
    d_o = 0.0  # Eq 9
    for i in items:
        r_i, s_i = len(x[i]), len(y[i])
        inner = sum(dist(a, b) for a in x[i] for b in y[i])
        d_o += (r_i + s_i) / (big_r + big_s) * inner / (r_i * s_i)
    d_e = 0.0  # Eq 10: every item i against every item j
    for i in items:
        for j in items:
            d_e += sum(dist(a, b) for a in x[i] for b in y[j])
    d_e /= big_r * big_s
    return math.nan if d_e == 0 else 1.0 - d_o / d_e


def kappa_x_complete(x: Sequence[Sequence], y: Sequence[Sequence], dist: Distance) -> float:
    """Cross-kappa without missing data, Eq 6-8: R and S annotations on every item."""
    n, big_r, big_s = len(x), len(x[0]), len(y[0])
    d_o = sum(dist(x[i][r], y[i][s]) for i in range(n) for r in range(big_r)
              for s in range(big_s)) / (n * big_r * big_s)
    d_e = sum(dist(x[i][r], y[j][s]) for i in range(n) for j in range(n)
              for r in range(big_r) for s in range(big_s)) / (n * n * big_r * big_s)
    return math.nan if d_e == 0 else 1.0 - d_o / d_e


def iota(rows: Sequence[Sequence], level: str = "nominal") -> float:
    """Janson-Olsson iota, Eq 1-5: b raters, every rater on every item."""
    n, b = len(rows), len(rows[0])
    if n == 0 or b < 2:
        return math.nan
    dist = distance(level, [v for row in rows for v in row])
    pairs = b * (b - 1) // 2
    d_o = sum(dist(rows[i][r], rows[i][s]) for i in range(n) for r in range(b)
              for s in range(r + 1, b)) / (n * pairs)  # Eq 2
    d_e = sum(dist(rows[i][r], rows[j][s]) for i in range(n) for j in range(n)
              for r in range(b) for s in range(r + 1, b)) / (n * n * pairs)  # Eq 5
    return math.nan if d_e == 0 else 1.0 - d_o / d_e


def cohen(a: Sequence, b: Sequence) -> float:
    """Cohen's (1960) kappa from its definition: (p_o - p_e) / (1 - p_e)."""
    n = len(a)
    p_o = sum(u == v for u, v in zip(a, b, strict=True)) / n
    cats = set(a) | set(b)
    p_e = sum((list(a).count(c) / n) * (list(b).count(c) / n) for c in cats)
    return math.nan if p_e == 1 else (p_o - p_e) / (1 - p_e)
