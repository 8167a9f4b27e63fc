"""The library's messages in shell terms: Python keyword arguments as the
command's flags, pandas advice (``df.dropna(subset=...)``) as an edit of the
file or a flag."""

from __future__ import annotations

import re

from .phrases import in_cli

__all__ = ["as_flags", "brief", "shell_terms"]

#: Keyword arguments of the Python API and the flag that sets them.
_FLAGS = {
    "item": "--item", "rater": "--rater", "replication": "--replication", "label": "--label",
    "value": "--value", "labels": "--labels", "wide": "--wide", "duplicates": "--duplicates",
    "categories": "--categories", "metric": "--metric", "irr": "--irr", "level": "--level",
    "reference": "--reference", "ci": "--ci", "n_boot": "--n-boot", "seed": "--seed",
    "interval": "--interval", "form": "--form", "sort_by": "--sort-by", "sep": "--sep",
    "file_column": "--file-column", "weights": "--weights", "items": "--items",
    "min_items": "--min-items", "epsilon": "--epsilon", "candidates": "--candidates",
    "gold": "--gold", "min_raters": "--min-raters",
}
_VALUE = r"""('[^']*'|"[^"]*"|\[[^\]]*\]|[\w.<>-]+)"""
_KWARG = re.compile(r"\b(" + "|".join(_FLAGS) + r")=" + _VALUE)
_CALL = re.compile(r"\.xrr\(([^()]*)\)")
_BARE = re.compile(r"\b(" + "|".join(_FLAGS) + r")=(?=[\s.,;:)]|$)")
_WHERE = re.compile(r"\((?:item|rater|replication|label)=[^()]*\)")

_EDIT = "in the file"
#: (pattern, replacement) for each piece of pandas advice that can reach the command.
_SHELL = [
    # missing ids (schema.tables.Ids): df.dropna(subset=['item'])
    (r"\(e\.g\. df\.dropna\(subset=\[('[^']*'|\"[^\"]*\"|[^\]]*)\]\)\)",
     r"(delete the rows whose \1 is empty " + _EDIT + ")"),
    (r"\(df\.dropna\(subset=\[('[^']*'|[^\]]*)\]\)\)",
     r"(delete the rows whose \1 is empty " + _EDIT + ")"),
    # repeated annotations (schema.read, schema.sets)
    (r"e\.g\. with df\.drop_duplicates\(subset=\[[^\]]*\]\), or choose a policy: "
     r"\.xrr\(duplicates='first'\), 'last' or 'mean'",
     "by deleting the repeated rows " + _EDIT + ", or choose a policy: --duplicates first, "
     "last or mean"),
    (r"e\.g\. df\.drop_duplicates\(subset=\[[^\]]*\]\)", "delete the repeated rows " + _EDIT),
    # mixed value types (schema.encode)
    (r"Make the column one type, e\.g\. pd\.to_numeric\(df\[col\]\) or df\[col\]\.astype\(str\)\.",
     "Make the column one type " + _EDIT + " (all numbers, or all text)."),
    (r"Make the column one type \(e\.g\. \.astype\(str\) or pd\.to_numeric\)\.",
     "Make the column one type " + _EDIT + " (all numbers, or all text)."),
    # stray text among numbers (schema.encode)
    (r"Recode them \(e\.g\. df\[col\]\.replace\(\{('[^']*'|\"[^\"]*\"): '<number>'\}\)\) "
     r"or make them missing \(pd\.to_numeric\(df\[col\], errors='coerce'\)\)\.",
     r"Recode them " + _EDIT + r" (replace \1 with a number) or make them missing (an "
     "empty cell is a missing annotation)."),
    (r"The values look like numbers written as text: pd\.to_numeric\(df\[col\]\)\.",
     "The values look like numbers written as text: use --level interval (or ordinal) "
     "and leave only numbers in the column."),
    (r"Convert the column with pd\.to_numeric, or use level='nominal' \(or 'ordinal' with "
     r"categories=\)\.",
     "Leave only numbers in the column " + _EDIT + ", or use --level nominal (or --level "
     "ordinal with --categories lowest,...,highest)."),
    # unordered categories (schema.encode)
    (r"Pass categories=\[lowest, \.\.\., highest\] to \.xrr\(\.\.\.\), or make the column "
     r"an ordered pd\.Categorical\.",
     "Give their order with --categories lowest,...,highest."),
    # a coefficient without a variance formula (reporting.agreement's reasons): the
    # command bootstraps it by itself
    (r"irr\(data, metric='(\w+)', ci=([\d.]+), method='bootstrap'\)",
     r"xrr irr FILE --metric \1 --ci \2"),
    # a gold-looking column left out (schema.labels.gold_entry, unused_message)
    (r"by validity\(data, gold='([^']*)'\) or report\(data, gold='[^']*'\)",
     r"by xrr report FILE --gold \1"),
    # columns read as neither roles nor labels (schema.read)
    (r"to silence this, drop the columns you do not need",
     "to silence this, leave them out with --exclude COL,COL"),
    (r"drop the columns you do not need", "leave the columns you do not need out with "
     "--exclude COL,COL"),
    # label sets (levels, schema.setcells, schema.sets)
    (r" They look like lists written as text \(as CSV files.*?'dataframe\.convert-string': "
     r"False\}\)\.", " They look like lists written as text: write each as a JSON list "
     "([\"a\", \"b\"]), which xrr reads with --level jaccard or masi."),
    (r"a long frame with one row per label becomes one with xrr_accessor\.set_cells\(df\)",
     "or give one row per label (item, rater, label): xrr collects each annotation's "
     "labels with --level jaccard or masi"),
    (r"make every (?:annotation|cell) a list, e\.g\. df\[[^\]]*\](?: = df\[[^\]]*\])?"
     r"\.map\(lambda v: .*?\) \(NaN cells stay missing annotations\)\.",
     "make every annotation a list " + _EDIT + " ([\"a\"] for one label; an empty cell is "
     "a missing annotation)."),
    (r"or analyse each label on its own as a 0/1 column \(df\[col\]\.map\(lambda s: 'x' in "
     r"s\) for label 'x'\)\.",
     "or analyse each label on its own as a 0/1 column " + _EDIT + "."),
]
_SHELL_RE = [(re.compile(p, re.S), r) for p, r in _SHELL]
_CODE = re.compile(r"\b(?:df|ddf|ds|pd|np)(?:\.|\[)|\.map\(|\.astype\(|lambda ")


def _flag(match: re.Match[str]) -> str:
    name, value = match.group(1), match.group(2).strip("'\"")
    if value == "True":
        return _FLAGS[name]
    if value.startswith("["):
        value = ",".join(v.strip(" '\"") for v in value[1:-1].split(","))
    return f"{_FLAGS[name]} {value}"


def _drop_code(text: str) -> str:
    """Remove parenthesised asides and sentences that still hold Python code."""
    out, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch == "(":
            if depth == 0:
                out.append(text[start:i])
                start = i
            depth += 1
        elif ch == ")" and depth:
            depth -= 1
            if depth == 0:
                aside = text[start:i + 1]
                out.append("" if _CODE.search(aside) else aside)
                start = i + 1
    out.append(text[start:])
    text = re.sub(r"\s+([.,;:])", r"\1", "".join(out))
    sentences = re.split(r"(?<=[.;])\s+", text)
    kept = [s for s in sentences if not _CODE.search(s)]
    return " ".join(kept) if kept else text


def shell_terms(message: str) -> str:
    """Pandas advice in ``message`` as what a shell user does: edit the file or pass a flag.

    Examples
    --------
    >>> shell_terms("column 'item' has 2 missing id(s); every annotation needs one. Drop "
    ...             "or fill those rows first (e.g. df.dropna(subset=['item'])).")
    "column 'item' has 2 missing id(s); every annotation needs one. Drop or fill those rows \
first (delete the rows whose 'item' is empty in the file)."
    """
    for pattern, repl in _SHELL_RE:
        message = pattern.sub(repl, message)
    if _CODE.search(message):
        message = _drop_code(message)
    return message


def as_flags(message: str) -> str:
    """A library message with its Python syntax (``.xrr(replication='<column>')``,
    ``metric='iota'``, pandas advice) written as the command's flags, on one line.

    Examples
    --------
    >>> as_flags("Name it with .xrr(replication='<column>').")
    'Name it with --replication <column>.'
    >>> as_flags("use metric='alpha' for missing data")
    'use --metric alpha for missing data'
    >>> as_flags("choose labels with .xrr(labels=[...]) or pass other=")
    'choose labels with --labels ... or pass a second FILE'
    >>> as_flags("(item=1, rater='a') appears twice; use .xrr(duplicates='first')")
    "(item=1, rater='a') appears twice; use --duplicates first"
    >>> as_flags("form= selects an ICC form")
    '--form selects an ICC form'
    """
    text = shell_terms(in_cli(message))
    text = re.sub(r"\s+(?:to|with) \.xrr\(\.\.\.\)", "", text)
    text = _CALL.sub(lambda m: _KWARG.sub(_flag, m.group(1)).replace(", ", " "), text)
    kept = _WHERE.findall(text)  # "(item=1, rater='a')" names an annotation: not flags
    text = _KWARG.sub(_flag, _WHERE.sub("\x00", text))
    for where in kept:
        text = text.replace("\x00", where, 1)
    text = re.sub(r"\bpass other=", "pass a second FILE", text)
    text = _BARE.sub(lambda m: _FLAGS[m.group(1)], text)
    text = text.replace("(labels=)", "(--labels)")
    return " ".join(text.split())


_ABOVE_ONE = re.compile(r"normalized kappa_x exceeds 1 where the IRRs and kappa_x use "
                        r"different item sets: (.*?)\. Each IRR uses ", re.S)


def brief(note: str) -> str:
    """A note as stderr prints it: a list of cells (normalized kappa_x above 1 on
    different item sets) as their count and where the list is (``--format json`` keeps
    every note in full); any other note as it is.

    Examples
    --------
    >>> brief("normalized kappa_x exceeds 1 where the IRRs and kappa_x use different item "
    ...       "sets: 'joy', A x B: 1.02 (IRR items: A 9, B 8; kappa_x items: 7); 'awe', A "
    ...       "x B: 1.10 (IRR items: A 9, B 8; kappa_x items: 7); and 3 more. Each IRR uses "
    ...       "the items its pool rated at least twice.")  # doctest: +NORMALIZE_WHITESPACE
    '5 normalized kappa_x values exceed 1 where the IRRs and kappa_x use different item \
sets (--format json lists them; --items common computes all three on the same items)'
    >>> brief("column 'x' left out")
    "column 'x' left out"
    """
    found = _ABOVE_ONE.match(note)
    if found is None:
        return note
    cells = found.group(1)
    n = cells.count("(IRR items: ")
    more = re.search(r"; and (\d+) more$", cells)
    n += int(more.group(1)) if more else 0
    verb = "values exceed" if n != 1 else "value exceeds"
    return (f"{n:,} normalized kappa_x {verb} 1 where the IRRs and kappa_x use different "
            "item sets (--format json lists them; --items common computes all three on the "
            "same items)")
