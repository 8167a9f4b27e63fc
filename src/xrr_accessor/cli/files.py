"""Reading the ``xrr`` command's input: files (CSV/TSV with the delimiter sniffed,
Parquet, JSON, JSON Lines), ``-`` (stdin), FIFOs, directories and globs of them.

Streams (``-``, ``/dev/stdin``, a FIFO, a shell's ``<(command)``) are pipes: read
to their end once, in chunks, into a temporary file whose name never appears in a
message (a pipe that never ends is stopped with Ctrl-C, exit 130). Devices (character
or block: ``/dev/zero`` never ends, a terminal waits for typing), sockets and other
files that are not regular are refused at once, naming the path; so is stdin when it
is a terminal or a device. Binary files, JSON that is not an array of records and
unreadable directories are refused with a message naming what works. Text tables
keep their id columns as text (:func:`~xrr_accessor.io.tables.id_columns`, as
``read_annotations`` does: ``007`` and ``7`` are two items).
"""

from __future__ import annotations

import ast
import glob
import json
import os
import re
import sys
from pathlib import Path
from typing import Any

import pandas as pd

from ..errors import InputError
from ..io.collect import read_annotations
from ..io.source import check_json_text, kind_of, printable
from ..io.tables import id_columns, read_file
from ..schema.roles import ROLE_ALIASES, norm
from ..schema.setcells import set_cells
from .streams import WORKS, binary, check_output, is_stream, spool, stdin_kind

__all__ = ["FORMATS_IN", "check_output", "has_replication", "read_input", "read_json",
           "read_table", "set_cells_of", "with_replication"]

#: Formats of ``--format-in`` (stdin and streams; files go by their extension).
FORMATS_IN = ("csv", "tsv", "json", "jsonl", "parquet")



def _check_directory(path: Path) -> None:
    """An unreadable directory (or folder in it) is a permission error, not an empty one."""
    for folder, dirs, _ in os.walk(path):
        if not os.access(folder, os.R_OK | os.X_OK):
            raise InputError(f"{folder}: permission denied (the directory cannot be read; "
                             "check its permissions, e.g. chmod +rx)")
        for d in dirs:
            sub = os.path.join(folder, d)
            if not os.access(sub, os.R_OK | os.X_OK):
                raise InputError(f"{sub}: permission denied (the directory cannot be read; "
                                 "check its permissions, e.g. chmod +rx)")


def _flat(record: dict[str, Any], name: str, n: int) -> dict[str, Any]:
    for key, value in record.items():
        if isinstance(value, dict) or (isinstance(value, list) and any(
                isinstance(v, dict | list) for v in value)):
            raise InputError(f"{name}: record {n} field {key!r} holds nested records; xrr "
                             f"reads {WORKS}")
    return record


def read_json(text: str, name: str) -> pd.DataFrame:
    """A JSON array of records as one row per record; a record holding one list of
    per-annotator records becomes one row per annotator, with the record's other
    fields repeated. Anything else is an InputError naming what works.

    Examples
    --------
    >>> read_json('[{"item": 1, "ratings": [{"rater": "a", "joy": 1}, '
    ...           '{"rater": "b", "joy": 0}]}]', "x.json")
       item rater  joy
    0     1     a    1
    1     1     b    0
    """
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        if exc.msg == "Extra data":  # JSON Lines under a .json name
            return _json_lines(text, name)
        raise InputError(f"{name} is not valid JSON ({exc.msg} at line {exc.lineno}, "
                         f"column {exc.colno}); xrr reads {WORKS}") from None
    except (ValueError, RecursionError) as exc:
        raise InputError(f"{name} cannot be read as JSON ({str(exc)[:80]}); xrr reads "
                         f"{WORKS}") from None
    if isinstance(doc, dict):
        raise InputError(f"{name} holds one JSON object, not an array of records; xrr "
                         f"reads {WORKS}")
    if not isinstance(doc, list) or not doc or not all(isinstance(r, dict) for r in doc):
        what = "an empty array" if doc == [] else "an array of values, not of records"
        raise InputError(f"{name} holds {what}; xrr reads {WORKS}")
    check_json_text(text, ((f"record {n}", r) for n, r in enumerate(doc, 1)), name, "")
    nested = {k for r in doc for k, v in r.items()
              if isinstance(v, list) and v and all(isinstance(s, dict) for s in v)}
    if len(nested) > 1:
        raise InputError(f"{name}: records hold several lists of records "
                         f"({', '.join(sorted(map(repr, nested)))}); xrr reads {WORKS}")
    if not nested:
        return pd.DataFrame.from_records([_flat(r, name, n) for n, r in enumerate(doc, 1)])
    (key,) = nested
    rows = []
    for n, record in enumerate(doc, 1):
        outer = {k: v for k, v in record.items() if k != key}
        _flat(outer, name, n)
        subs = record.get(key) or []
        if not isinstance(subs, list):
            raise InputError(f"{name}: record {n} field {key!r} is not a list of records; "
                             f"xrr reads {WORKS}")
        for sub in subs:
            if not isinstance(sub, dict):
                raise InputError(f"{name}: record {n} field {key!r} holds a "
                                 f"{type(sub).__name__}, not a record; xrr reads {WORKS}")
            rows.append({**outer, **_flat(sub, name, n)})
    return pd.DataFrame.from_records(rows)


def _json_lines(text: str, name: str) -> pd.DataFrame:
    rows = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except (ValueError, RecursionError):
            raise InputError(f"{name}: line {n} is not valid JSON; xrr reads "
                             f"{WORKS}") from None
        if not isinstance(record, dict):
            raise InputError(f"{name}: line {n} is not a record; xrr reads {WORKS}")
        check_json_text(line, [(f"line {n}", record)], name, "")
        rows.append(_flat(record, name, n))
    return pd.DataFrame.from_records(rows)


def _read_json_file(path: Path, name: str) -> pd.DataFrame:
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InputError(f"{name} is not UTF-8 text; save it as UTF-8") from None
    return read_json(text, name)


def _one_file(path: Path, name: str, sep: str | None, fmt: str | None,
              named: dict[str, str | None]) -> pd.DataFrame:
    if not os.access(path, os.R_OK):
        raise InputError(f"{name}: permission denied (the file cannot be read; check its "
                         "permissions, e.g. chmod +r)")
    compressed = path.suffix.lower() in (".gz", ".bz2", ".xz", ".zip", ".zst")
    with open(path, "rb") as fh:
        head = fh.read(8192)
    if fmt is None and not compressed:
        if head.startswith(b"PAR1"):
            fmt = "parquet"
        elif path.suffix.lower() == ".json":
            fmt = "json"
    if fmt != "parquet" and not compressed:
        kind = binary(head)
        if kind is not None:
            raise InputError(f"{name} is {kind}, not text; xrr reads {WORKS}")
        _utf8(head, name)
    if fmt == "json":
        return _not_empty(_read_json_file(path, name), name)
    try:
        ids = id_columns(path, named, fmt)
        return _not_empty(read_file(path, sep=sep, format=fmt, ids=ids), name)
    except InputError as exc:
        text = str(exc).replace(str(path), name)
        if sep is None:  # the user gave no delimiter: say it was sniffed, not given
            text = re.sub(r"as a table with sep=('[^']*'|\"[^\"]*\")",
                          r"as a table (delimiter \1, sniffed from its first lines; give "
                          r"another with --sep)", text)
        raise InputError(text) from None


def _not_empty(df: pd.DataFrame, name: str) -> pd.DataFrame:
    """``df``, or an error naming the file when it holds no row (a header alone)."""
    if df.empty:
        raise InputError(f"{name} holds no annotations (no rows"
                         + (f" under its header: {', '.join(map(str, df.columns))}"
                            if len(df.columns) else "") + ")")
    return df


def _utf8(head: bytes, name: str) -> None:
    """Text that is not UTF-8 is refused with the fix, not a parser error."""
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start < len(head) - 3:  # not a character cut at the end of the sample
            raise InputError(f"{name} is not UTF-8 text (byte {head[exc.start]:#04x} at "
                             f"position {exc.start}); save it as UTF-8, e.g. iconv -f "
                             f"latin1 -t utf-8 {name} > utf8.csv") from None


def read_table(path: str, sep: str | None = None, file_column: str | None = None,
               item: str | None = None, fmt: str | None = None, rater: str | None = None,
               replication: str | None = None, counts: bool = False,
               categories: list[str] | None = None) -> pd.DataFrame:
    """:func:`read_input`, or with ``counts`` a count table (items x categories, no
    rater ids) as one row per rating (:func:`xrr_accessor.from_counts`: ``categories``
    names the count columns in order, default every numeric column).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "counts.csv"
    >>> _ = p.write_text("question,yes,no\\nq1,2,1\\nq2,0,3\\n")
    >>> read_table(str(p), counts=True).groupby("question").size().tolist()
    [3, 3]
    """
    df = read_input(path, sep, file_column, item, fmt, rater, replication)
    if not counts:
        return df
    if rater is not None:
        raise InputError(f"--rater {rater} with --counts: a count table has no rater ids "
                         "(its ratings are anonymous); leave --rater out")
    from ..io.counts import from_counts

    try:
        return from_counts(df, item=item, categories=categories)
    except InputError as exc:
        raise InputError(re.sub(r"fill them with 0 if none chose it: table\.fillna\([^)]*\)",
                                f"write 0 in the empty cells of {path} if none chose it",
                                str(exc))) from None


def read_input(path: str, sep: str | None = None, file_column: str | None = None,
               item: str | None = None, fmt: str | None = None, rater: str | None = None,
               replication: str | None = None) -> pd.DataFrame:
    """One input as a DataFrame: ``-`` (stdin) or a pipe, read whole, in
    ``fmt`` or the format its first bytes show; a file (CSV/TSV with the
    delimiter sniffed, Parquet with the ``io`` extra, JSON, JSON Lines); or a
    directory or glob of them, stacked (:func:`xrr_accessor.io.read_annotations`;
    ``file_column`` names a column holding each row's file name). ``item``,
    ``rater``, ``replication``: their columns, when not found by name; a text
    table's id columns are read as text, as by ``read_annotations``.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "a.json"
    >>> _ = p.write_text('[{"item": 1, "rater": "a", "joy": 1}]')
    >>> read_input(str(p)).columns.tolist()
    ['item', 'rater', 'joy']
    """
    named = {"item": item, "rater": rater, "replication": replication}
    if path == "-" or is_stream(path):
        name = "stdin (-)" if path == "-" else path
        if path == "-":
            what = stdin_kind()
            if what is not None:
                raise InputError(f"stdin (-) is {what}, not a pipe or a file; pipe the data "
                                 "in (xrr ... - < FILE, or cat FILE | xrr ... -) or give "
                                 "the file's path")
            tmp, kind = spool(name, sys.stdin.buffer, fmt)
        else:
            with open(path, "rb") as stream:
                tmp, kind = spool(name, stream, fmt)
        try:
            return _one_file(tmp, name, sep, kind, named)
        finally:
            tmp.unlink(missing_ok=True)
    p = Path(path)
    what = kind_of(p)
    if what is not None and what != "a directory":
        raise InputError(f"{path} is {what}, not a file: xrr reads files, directories of "
                         "them, and pipes (- for stdin); give the path of a file")
    if p.is_dir():
        _check_directory(p)
    if p.is_dir() or glob.has_magic(path) or file_column is not None:
        return read_annotations(path, sep=sep, file_column=file_column, item=item,
                                rater=rater, replication=replication)
    if not p.exists():
        raise InputError(f"{path}: no such file")
    return _one_file(p, path, sep, fmt, named)


def has_replication(df: pd.DataFrame, given: str | None) -> bool:
    """Whether ``df`` has a replication column (named with --replication, or by alias).

    Examples
    --------
    >>> import pandas as pd
    >>> has_replication(pd.DataFrame(columns=["item", "pool"]), None)
    True
    """
    return given is not None or any(norm(c) in ROLE_ALIASES["replication"]
                                    for c in df.columns)


def with_replication(frames: list[pd.DataFrame], paths: list[str],
                     column: str = "replication") -> pd.DataFrame:
    """Two files without a replication column as one frame, each file a replication
    named after its file name (``crowd.csv`` -> ``crowd``).

    Examples
    --------
    >>> import pandas as pd
    >>> a = pd.DataFrame({"item": [1], "joy": [0]})
    >>> with_replication([a, a], ["crowd.csv", "x/expert.v2.tsv"])["replication"].tolist()
    ['crowd', 'expert.v2']
    """
    a, b = (set(map(str, f.columns)) for f in frames)
    if a != b:
        raise InputError(
            f"{paths[0]} and {paths[1]} have different columns (only in {paths[0]}: "
            f"{', '.join(sorted(a - b)) or '-'}; only in {paths[1]}: "
            f"{', '.join(sorted(b - a)) or '-'}); two replications need the same columns: "
            "rename them to match, or leave extra ones out with --exclude")
    names = [stem(p) for p in paths]
    if len(set(names)) < len(names):
        names = list(paths)
    return pd.concat([f.assign(**{column: n}) for f, n in zip(frames, names, strict=True)],
                     ignore_index=True)


def stem(path: str) -> str:
    """A file's name without its format suffixes (``crowd.v1.csv.gz`` -> ``crowd.v1``;
    ``-`` -> ``stdin``).

    Examples
    --------
    >>> stem("data/crowd.v1.csv.gz"), stem("-")
    ('crowd.v1', 'stdin')
    """
    if path == "-":
        return "stdin"
    name = printable(Path(path).name)
    for _ in range(2):
        suffix = Path(name).suffix.lower()
        if suffix in (".gz", ".bz2", ".xz", ".zip", ".zst", ".csv", ".tsv", ".tab", ".txt",
                      ".json", ".jsonl", ".ndjson", ".parquet", ".pq"):
            name = name[: -len(suffix)]
    return name or path


def _text_lists(df: pd.DataFrame) -> pd.DataFrame:
    """Cells holding lists written as text (``["a", "b"]``) as lists (set levels)."""
    out = df.copy()
    for col in df.columns:
        values = df[col].dropna()
        if values.empty or not values.map(lambda v: isinstance(v, str)).all():
            continue
        text = values.str.strip()
        if not (text.str.startswith("[") & text.str.endswith("]")).all():
            continue
        try:
            parsed = text.map(_text_list)
        except (ValueError, SyntaxError, RecursionError, MemoryError):
            raise InputError(f"column {col!r} holds lists written as text that are not "
                             "lists of labels; write each as [\"a\", \"b\"]") from None
        out[col] = out[col].astype(object)
        out.loc[parsed.index, col] = pd.Series(parsed.tolist(), index=parsed.index,
                                               dtype=object)
    return out


def _text_list(text: str) -> list[Any]:
    """``["a", "b"]`` (JSON) or ``['a', 'b']`` (Python's repr) as a list of labels."""
    try:
        value = json.loads(text)
    except ValueError:
        value = ast.literal_eval(text)  # literals only: never runs code
    if not isinstance(value, list | tuple) or any(isinstance(v, list | tuple | dict | set)
                                                  for v in value):
        raise ValueError(text)
    return list(value)


def set_cells_of(df: pd.DataFrame, roles: dict[str, Any]) -> pd.DataFrame:
    """A set level: lists in cells are kept; one row per label is collected into sets."""
    df = _text_lists(df)
    if df.map(lambda v: isinstance(v, list | tuple | set | frozenset)).to_numpy().any():
        return df
    by = roles.get("replication")
    return set_cells(df, item=roles.get("item"), rater=roles.get("rater"),
                     value=roles.get("value"), by=by)
