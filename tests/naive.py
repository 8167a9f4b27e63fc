"""Naive reference implementations, written straight from the formulas.

Deliberately slow (O(n^2) pair loops, plain Python) and independent of the
package: the test oracle and the benchmark baseline. Equation numbers refer
to Wong, Paritosh & Aroyo (2021), *Cross-replication Reliability*, ACL; alpha
follows Krippendorff (2011), *Computing Krippendorff's Alpha-Reliability*.

Data are plain Python: a replication is a dict ``item -> list of values``
(alpha and kappa_x), or a list of rows, one per item, each a list of b values
in rater order (iota; ``None`` for a missing rating in the chance-corrected
family), or an items x raters array (the ICC). The chance-corrected family
follows Gwet, *Handbook of Inter-Rater Reliability* (2014), ch. 2-5; the ICC
the two-way ANOVA of Shrout & Fleiss (1979).

:data:`REFERENCES` maps every metric name of the library's registry to its
reference(s) here and the input each one takes (as numbagg's test
``COMPARISONS``): the tests and the benchmarks take them from there.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import partial
from itertools import combinations
from typing import Any

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


def distance(level: str | Distance, values: Iterable[float]) -> Distance:
    """The D of ``level``; ordinal needs the pairable values it ranks over. A callable
    ``level`` is D itself (e.g. a set distance written in a test)."""
    if callable(level):
        return level
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


def normalized_kappa_x(x: dict[object, list], y: dict[object, list], level: str = "nominal",
                       irr: Callable[..., float] = alpha) -> float:
    """Eq 13: kappa_x(X, Y) / sqrt(IRR_X IRR_Y), undefined when an IRR is <= 0.

    ``irr`` is the IRR of one replication from its units (default: alpha);
    IRRs within 1e-12 of zero count as zero (their sign is rounding noise).
    """
    r_x, r_y = irr(x, level), irr(y, level)
    if not (r_x > 1e-12 and r_y > 1e-12):
        return math.nan
    return kappa_x(x, y, level) / math.sqrt(r_x * r_y)


# ----------------------------------------------------------- chance-corrected family
# Written from Gwet, Handbook of Inter-Rater Reliability (2014), ch. 2-5, with
# explicit loops over items, raters and category pairs.


def agreement_weights(cats: Sequence[float], kind: str) -> list[list[float]]:
    """Agreement weights w_kl over the sorted categories: identity, linear or quadratic."""
    q = len(cats)
    if kind == "unweighted":
        return [[1.0 if a == b else 0.0 for b in range(q)] for a in range(q)]
    span = max(cats) - min(cats)
    power = 1 if kind == "linear" else 2
    return [[1 - (abs(cats[a] - cats[b]) / span) ** power for b in range(q)] for a in range(q)]


def chance_corrected(rows: Sequence[Sequence], metric: str, kind: str = "unweighted") -> float:
    """Percent agreement, Scott, Fleiss, Conger, Brennan-Prediger, Gwet or Light.

    rows: items x raters, None = missing.
    """
    cats = sorted({v for row in rows for v in row if v is not None})
    q = len(cats)
    w = agreement_weights(cats, kind)
    idx = {c: k for k, c in enumerate(cats)}
    r_ik = [[sum(1 for v in row if v == c) for c in cats] for row in rows]
    r_i = [sum(x) for x in r_ik]
    pairable = [i for i in range(len(rows)) if r_i[i] >= 2]
    if not pairable:
        return math.nan
    pa = 0.0
    for i in pairable:
        s = 0.0
        for k in range(q):
            rstar = sum(w[k][l_] * r_ik[i][l_] for l_ in range(q))
            s += r_ik[i][k] * (rstar - 1)
        pa += s / (r_i[i] * (r_i[i] - 1))
    pa /= len(pairable)
    rated = [i for i in range(len(rows)) if r_i[i] >= 1]
    pi = [sum(r_ik[i][k] / r_i[i] for i in rated) / len(rated) for k in range(q)]
    if metric == "percent":
        return pa
    if metric == "fleiss":
        pe = sum(w[k][l_] * pi[k] * pi[l_] for k in range(q) for l_ in range(q))
    elif metric == "scott":
        tot = [sum(r_ik[i][k] for i in pairable) for k in range(q)]
        p = [t / sum(tot) for t in tot]
        pe = sum(w[k][l_] * p[k] * p[l_] for k in range(q) for l_ in range(q))
    elif metric == "bp":
        pe = sum(map(sum, w)) / q**2
    elif metric == "gwet":
        if q < 2:
            return math.nan
        pe = sum(map(sum, w)) / (q * (q - 1)) * sum(p * (1 - p) for p in pi)
    elif metric == "conger":
        raters = [g for g in range(len(rows[0])) if any(row[g] is not None for row in rows)]
        b = len(raters)
        if b < 2:
            return math.nan
        shares = []
        for g in raters:
            vals = [row[g] for row in rows if row[g] is not None]
            shares.append([vals.count(c) / len(vals) for c in cats])
        mean = [sum(s[k] for s in shares) / b for k in range(q)]
        pe = 0.0
        for k in range(q):
            for l_ in range(q):
                cov = (sum(s[k] * s[l_] for s in shares) - b * mean[k] * mean[l_]) / (b - 1)
                pe += w[k][l_] * (mean[k] * mean[l_] - cov / b)
    elif metric == "light":
        kappas = []
        for g, h in combinations(range(len(rows[0])), 2):
            both = [(row[g], row[h]) for row in rows if row[g] is not None and row[h] is not None]
            if not both:
                continue
            n = len(both)
            po = sum(w[idx[a]][idx[b]] for a, b in both) / n
            pg = [sum(1 for a, _ in both if a == c) / n for c in cats]
            ph = [sum(1 for _, b in both if b == c) / n for c in cats]
            pe_gh = sum(w[k][l_] * pg[k] * ph[l_] for k in range(q) for l_ in range(q))
            if pe_gh < 1:
                kappas.append((po - pe_gh) / (1 - pe_gh))
        return sum(kappas) / len(kappas) if kappas else math.nan
    return math.nan if pe >= 1 else (pa - pe) / (1 - pe)


# ------------------------------------------------------------------------------ ICC


def icc(x: Any, form: str) -> float:
    """Shrout & Fleiss (1979) ICC straight from the two-way ANOVA table, with explicit loops.

    x: items x raters array (numpy), complete.
    """
    n, k = x.shape
    grand = x.mean()
    ssr = sum(k * (x[i].mean() - grand) ** 2 for i in range(n))
    ssc = sum(n * (x[:, j].mean() - grand) ** 2 for j in range(k))
    sst = sum((x[i, j] - grand) ** 2 for i in range(n) for j in range(k))
    sse = sst - ssr - ssc
    msr, msc = ssr / (n - 1), ssc / (k - 1)
    mse, msw = sse / ((n - 1) * (k - 1)), (ssc + sse) / (n * (k - 1))
    return {
        "1,1": (msr - msw) / (msr + (k - 1) * msw),
        "2,1": (msr - mse) / (msr + (k - 1) * mse + k * (msc - mse) / n),
        "3,1": (msr - mse) / (msr + (k - 1) * mse),
        "1,k": (msr - msw) / msr,
        "2,k": (msr - mse) / (msr + (msc - mse) / n),
        "3,k": (msr - mse) / msr,
    }[form]


# ------------------------------------------------------------------------ registry


@dataclass(frozen=True)
class Reference:
    """A naive reference for a metric and the input it takes."""

    fn: Callable[..., float]
    takes: str


_UNITS = "one replication as a dict item -> list of values; level="
_PAIR = "two replications as dicts item -> list of values (X, Y); level="
_ROWS = "rows: list of items, each a list of the raters' values (None = missing); kind="


def _family(metric: str) -> Reference:
    return Reference(partial(chance_corrected, metric=metric),
                     _ROWS + "'unweighted'|'linear'|'quadratic'")


#: Every metric of ``xrr_accessor.coefficients.REGISTRY`` -> its naive reference(s).
REFERENCES: dict[str, tuple[Reference, ...]] = {
    "alpha": (Reference(alpha, _UNITS),),
    "iota": (Reference(iota, "rows: complete items x b raters (list of lists); level="),),
    "cohen": (Reference(cohen, "two raters' values on the same items (two sequences)"),
              Reference(iota, "rows: complete items x 2 raters (iota with b = 2); level=")),
    **{m: (_family(m),) for m in ("percent", "scott", "fleiss", "conger", "light", "bp",
                                  "gwet")},
    "icc": (Reference(icc, "x: complete items x raters numpy array; form='1,1'..'3,k'"),),
    "kappa_x": (Reference(kappa_x, _PAIR),
                Reference(kappa_x_complete, "two complete items x R / S lists; dist=")),
    "normalized_kappa_x": (Reference(normalized_kappa_x, _PAIR + "; irr= (default alpha)"),),
}
