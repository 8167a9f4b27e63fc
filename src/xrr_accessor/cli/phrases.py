"""The library's sentences in the command's words: the known phrases that name a Python
call or keyword (``irr(data, metric='scott', ci=0.95, method='bootstrap')``,
``ci=0.95, or --ci 0.95 in the shell``, ``items="common"``) written as the ``xrr``
command and flags that do the same. Only these phrases are rewritten, so a name from
the data in the same sentence is left as it is."""

from __future__ import annotations

import re
from collections.abc import Callable

__all__ = ["PHRASES", "in_cli"]


def _metrics(match: re.Match[str]) -> str:
    """``metric='scott' or 'light'`` (the family's reasons, collapsed) as flags."""
    names = re.findall(r"'(\w+)'", match.group("metrics"))
    weights = match.group("weights")
    flags = f" --weights {weights}" if weights else ""
    more = (" (likewise " + ", ".join(f"--metric {m}" for m in names[1:]) + ")"
            if len(names) > 1 else "")
    return f"xrr irr FILE --metric {names[0]}{flags} --ci {match.group('ci')}{more}"


#: (pattern, replacement) of each phrase that can reach the command's output.
PHRASES: list[tuple[re.Pattern[str], str | Callable[[re.Match[str]], str]]] = [
    # a reading without an interval (reporting.bands, reporting.verdicts)
    (re.compile(r"\bci=([\d.]+), or --ci \1 in the shell, says"), r"--ci \1 says"),
    # a coefficient of the classic family without an analytic interval
    # (reporting.agreement.no_interval; collapsed by reporting.pool_html.collapse_reasons)
    (re.compile(r"\birr\(data, metric=(?P<metrics>'\w+'(?: or '\w+')*)"
                r"(?:, weights='(?P<weights>\w+)')?, ci=(?P<ci>[\d.]+), "
                r"method='bootstrap'\)"), _metrics),
    # the gold difference without an interval (reporting.models_reading)
    (re.compile(r"\(ci=([\d.]+) says"), r"(--ci \1 says"),
    # normalized kappa_x above 1 on different item sets (reporting.reading)
    (re.compile(r"\bitems=\"common\""), "--items common"),
    # the classic family at other weights (reporting.report_pool)
    (re.compile(r"\bagreement_table\(data, weights='(\w+)'\)"), r"xrr agreement FILE --weights \1"),
    # raters below the cut (reporting.rater_view's default)
    (re.compile(r"\bmin_items=1 ranks every rater"), "--min-items 1 ranks every rater"),
]


def in_cli(text: str) -> str:
    """``text`` with each known Python phrase (:data:`PHRASES`) as the command's flags.

    Examples
    --------
    >>> in_cli("fair (no interval: ci=0.95, or --ci 0.95 in the shell, says how far it can "
    ...        "move).")
    'fair (no interval: --ci 0.95 says how far it can move).'
    >>> in_cli("no analytic interval for scott; irr(data, metric='scott', weights='linear', "
    ...        "ci=0.95, method='bootstrap') gives a bootstrap one")
    'no analytic interval for scott; xrr irr FILE --metric scott --weights linear --ci 0.95 \
gives a bootstrap one'
    """
    for pattern, repl in PHRASES:
        text = pattern.sub(repl, text)
    return text
