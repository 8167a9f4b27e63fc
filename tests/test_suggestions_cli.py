"""Every suggestion in the command's messages works (issue 34): the ``xrr`` command's
errors write the library's advice as flags (``--level nominal``, ``--duplicates first``,
``--item <column>``); each flag suggested is added to the same command (or, written
``not with --level``, taken out) and the command must then succeed.
"""

from __future__ import annotations

import contextlib
import io
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
import pytest
import suggestion_data as sd

from xrr_accessor.cli import main

_DIR = tempfile.TemporaryDirectory()
_FLAG = re.compile(r"(?<![\w-])(--[a-z][a-z-]*)(?: (?!--|or\b|and\b|to\b|with\b|for\b|"
                   r"needs\b|is\b)([^\s;()]+))?")
_DROP = re.compile(r"\bnot with (--[a-z][a-z-]*)")
_PLACEHOLDER = re.compile(r"<|\.\.\.|^[A-Z]+$")


def _file(name: str, frame: pd.DataFrame) -> str:
    path = Path(_DIR.name) / name
    frame.to_csv(path, index=False)
    return str(path)


def _run(args: list[str]) -> tuple[int, str]:
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            status = main(args)
        except SystemExit as exc:  # argparse's usage errors
            status = int(exc.code or 0)
    return status, err.getvalue()


def flags(message: str) -> list[list[tuple[str, str | None]]]:
    """The flags a message suggests, with their values (None: a flag alone, or a value
    left to the user); ``--level ordinal with --categories ...`` is one suggestion."""
    out: list[list[tuple[str, str | None]]] = []
    end = -1
    for m in _FLAG.finditer(message):
        value = m.group(2).rstrip(".,") if m.group(2) else None
        if value is not None and (_PLACEHOLDER.search(value) or value.startswith("'")):
            value = None
        if out and message[end:m.start()] == " with ":
            out[-1].append((m.group(1), value))
        else:
            out.append([(m.group(1), value)])
        end = m.end()
    return out


def _same(given: str | None, said: str) -> bool:
    """The value given, as the message quotes it (``95`` as ``95.0``)."""
    try:
        return float(str(given)) == float(said)
    except ValueError:
        return given == said


def _with(args: list[str], flag: str, value: str | None) -> list[str]:
    """``args`` with ``flag`` set to ``value`` (a value-less flag: present)."""
    out, skip = [], False
    for a in args:
        if skip:
            skip = False
            continue
        if a == flag:
            skip = value is not None or a in _VALUED
            continue
        out.append(a)
    return [*out, flag] + ([] if value is None else [value])


_VALUED = {"--level", "--metric", "--item", "--rater", "--replication", "--duplicates",
           "--categories", "--ci", "--weights", "--labels", "--sep"}


@dataclass
class CliCase:
    id: str
    args: list[str]
    match: str
    fill: dict[str, str] = field(default_factory=dict)
    skip: dict[str, str] = field(default_factory=dict)
    xfail: str = ""


CASES = [
    CliCase("ordinal-on-words", ["irr", "words.csv", "--level", "ordinal"],
            "unordered categories", fill={"--categories": "low,mid,high"}),
    CliCase("interval-on-words", ["irr", "words.csv", "--level", "interval"], "non-numeric",
            fill={"--categories": "low,mid,high"}),
    CliCase("item-not-found", ["irr", "noitem.csv", "--level", "interval"], "item role",
            fill={"--item": "stimulus"},
            skip={"--wide": "for a file whose rows are items; this one is long"}),
    CliCase("repeated-rows", ["irr", "dups.csv", "--level", "interval"], "duplicate",
            skip={"--replication": "no column tells pools apart in this file"}),
    CliCase("repeated-rows-without-a-level", ["irr", "dups.csv"], "duplicate",
            skip={"--replication": "no column tells pools apart here"}),
    CliCase("pools-in-a-column", ["irr", "batch.csv", "--level", "interval"], "duplicate",
            fill={"--replication": "batch"}, skip={"--duplicates": "would drop a pool"}),
    CliCase("cohen-on-three-raters", ["irr", "numbers.csv", "--metric", "cohen",
                                      "--level", "interval"], "exactly 2 raters"),
    CliCase("fleiss-given-a-level", ["irr", "numbers.csv", "--metric", "fleiss",
                                     "--level", "ordinal"], "not with --level"),
    CliCase("ci-as-percent", ["irr", "many.csv", "--ci", "95", "--level", "interval"],
            "confidence level"),
]


@pytest.mark.parametrize("case", [pytest.param(c, id=c.id, marks=[pytest.mark.xfail(
    strict=True, reason=c.xfail)] if c.xfail else []) for c in CASES])
def test_every_flag_a_command_suggests_runs_without_an_error(case: CliCase) -> None:
    files = {"words.csv": sd.words(), "numbers.csv": sd.numbers(), "many.csv": sd.many(),
             "noitem.csv": sd.numbers().rename(columns={"item": "stimulus"}),
             "dups.csv": pd.concat([sd.numbers(), sd.numbers().iloc[:1]]),
             "batch.csv": sd.two_pools().rename(columns={"pool": "batch"})}
    args = [_file(a, files[a]) if a in files else a for a in case.args]
    status, err = _run(args)
    assert status == 2 and case.match in err, err
    drops = _DROP.findall(err)
    given = dict(zip(args, [*args[1:], None], strict=True))
    found = [s for s in flags(err) if not (len(s) == 1 and (s[0][0] in drops or (
        s[0][0] in given and (s[0][1] is None or _same(given[s[0][0]], s[0][1]))
        and s[0][0] not in case.fill)))]
    assert found, f"no flag in {err!r}"
    follow = list(args)
    for d in drops:  # not with --level: the flag and its value out
        if d in follow:
            i = follow.index(d)
            follow = follow[:i] + follow[i + 2:]
    failures = []
    for suggestion in found:
        if suggestion[0][0] in case.skip:
            continue
        run = follow
        for flag, value in suggestion:
            value = case.fill.get(flag, value)
            assert value is not None or flag not in _VALUED, f"{flag} needs a value: {err!r}"
            run = _with(run, flag, value)
        status2, err2 = _run(run)
        if status2 != 0:
            failures.append(f"{suggestion}: {err2.strip()}")
    assert not failures, f"{err.strip()}\n" + "\n".join(failures)


def test_flags_are_read_with_their_values() -> None:
    assert flags("use --level nominal (or --level ordinal with --categories "
                 "lowest,...,highest); --duplicates first, last; --item <column>; e.g. "
                 "--ci 0.95.") == [
        [("--level", "nominal")], [("--level", "ordinal"), ("--categories", None)],
        [("--duplicates", "first")], [("--item", None)], [("--ci", "0.95")]]
