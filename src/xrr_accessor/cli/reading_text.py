"""The report's reading as ``xrr report`` and ``xrr demo`` print it in table and markdown:
per pair (per pool, for one pool) a line counting its verdicts in the page's order, pairs
with the same counts on one line, their sentences when the page shows them open, and the
advice (no interval; sentences folded) said once for all of them."""

from __future__ import annotations

from typing import Any

import pandas as pd

from ..reporting.bands import BAND_ORDER
from ..reporting.reading import READINGS
from ..reporting.report_html import OPEN_READINGS
from .phrases import in_cli

__all__ = ["interval_line", "reading_groups", "verdict_order"]


def verdict_order(counts: pd.Series, one_pool: bool) -> list[tuple[str, int]]:
    """A pair's verdict counts in the page's order: Landis and Koch's bands from the top
    for one pool, the readings' order (:data:`~xrr_accessor.reporting.reading.READINGS`)
    for pairs; a verdict neither lists, last, as met.

    Examples
    --------
    >>> c = pd.Series({"slight": 11, "moderate": 2, "fair": 17, "substantial": 1})
    >>> verdict_order(c, one_pool=True)
    [('substantial', 1), ('moderate', 2), ('fair', 17), ('slight', 11)]
    """
    rank = {v: k for k, v in enumerate(BAND_ORDER if one_pool else READINGS)}
    met = list(counts.items())
    order = sorted(range(len(met)), key=lambda k: (rank.get(met[k][0], len(rank)), k))
    return [(str(met[k][0]), int(met[k][1])) for k in order]


def reading_groups(rep: Any, decimals: int) -> tuple[list[tuple[str, list[str]]], str]:
    """The reading's lines: (a line counting the verdicts of a pair, or of every pair with
    the same counts, and the sentences printed under it) and one line of advice said once
    ("" when there is none): how to get verdicts (no interval) and where the folded
    sentences are (past :data:`~xrr_accessor.reporting.report_html.OPEN_READINGS` labels
    the page folds them, and so does the command).

    Examples
    --------
    >>> import xrr_accessor as xrr
    >>> from xrr_accessor.datasets import load_demo
    >>> rep = xrr.report(load_demo().iloc[:, :4])
    >>> lines, advice = reading_groups(rep, 3)
    >>> print(lines[0][0])  # doctest: +NORMALIZE_WHITESPACE
    Each of 3 pairs (Budapest and Kuala Lumpur; Budapest and Mexico City; Kuala Lumpur
    and Mexico City), on amusement: estimate only.
    >>> print(advice)
    No interval: --ci 0.95 gives each a verdict.
    """
    read = rep.readings(min(decimals, 2))
    merged: dict[tuple[int, str], tuple[list[str], list[str], str]] = {}
    folded = 0
    for _, part in read.groupby(["replication", "replication_other"], sort=False,
                                dropna=False):
        counts = verdict_order(part["verdict"].value_counts(sort=False), rep.one_pool)
        n = len(part)
        said = (f"on {part['label'].iloc[0]}: {counts[0][0]}" if n == 1 else
                f"{n} labels: " + ", ".join(f"{v} on {k}" for v, k in counts))
        pairs, sentences, _ = merged.setdefault((n, said), ([], [], said))
        pairs.append(str(part["pair"].iloc[0]))
        if n > OPEN_READINGS:  # as the page folds them
            folded += n
        else:
            sentences += [in_cli(str(t)) for t in part["text"]]
    lines = []
    for pairs, sentences, said in merged.values():
        who = (pairs[0] if len(pairs) == 1 else
               f"Each of {len(pairs)} pairs ({'; '.join(pairs)})")
        lines.append((f"{who}, {said}.", sentences))
    advice = []
    if "estimate only" in set(read["verdict"]):
        advice.append("no interval: --ci 0.95 gives each a verdict")
    if folded:
        advice.append(f"the {folded:,} sentences are not printed: --format json or html "
                      f"holds them, and at most {OPEN_READINGS} labels (--labels A,B) print "
                      "them here")
    text = "; ".join(advice)
    return lines, (text[:1].upper() + text[1:] + "." if text else "")


def interval_line(raters: pd.DataFrame, report_ci: bool) -> str:
    """What the rater table's ``kappa_x_lower`` and ``kappa_x_upper`` are, from its attrs
    ("" when it has none); ``report_ci``: the report was asked for intervals (else the
    rater table's own default interval, drawn without ``--ci``).

    Examples
    --------
    >>> t = pd.DataFrame({"kappa_x_lower": [0.1]})
    >>> t.attrs = {"ci": 0.95, "interval": "percentile", "n_boot": 200}
    >>> print(interval_line(t, report_ci=False))  # doctest: +NORMALIZE_WHITESPACE
    kappa_x_lower and kappa_x_upper: a 95% percentile interval from 200 bootstrap
    replicates of items (the rater table's own, drawn without --ci; --ci sets it).
    """
    a = raters.attrs
    if "ci" not in a or "kappa_x_lower" not in raters.columns:
        return ""
    own = "" if report_ci else " (the rater table's own, drawn without --ci; --ci sets it)"
    return (f"kappa_x_lower and kappa_x_upper: a {a['ci']:.0%} {a.get('interval')} interval "
            f"from {a.get('n_boot'):,} bootstrap replicates of items{own}.")
