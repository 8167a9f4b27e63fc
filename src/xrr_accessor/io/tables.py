"""Annotations kept as files: CSV/TSV, Parquet, JSON Lines.

:func:`read_file` reads one file, dispatching on the
extension (:func:`~xrr_accessor.io.sql.from_duckdb` runs a query). Both return the frame
as stored (no renaming: the accessor finds the roles by name, or they are given), check
that the role columns they are told about exist, and refuse to return a partial or
empty read. Parquet needs pyarrow and DuckDB needs duckdb: the ``io`` extra
(``pip install 'xrr_accessor[io]'``), imported only when used.
"""

from __future__ import annotations

import glob
import os
from collections.abc import Hashable, Iterable
from pathlib import Path
from typing import Any

import pandas as pd

from .._optional import require
from ..errors import InputError
from ..schema.roles import ROLE_ALIASES, norm
from .delimited import read_delimited
from .source import (
    COMPRESSIONS,
    check_json_text,
    decode,
    decompress,
    not_a_file,
    parse_jsonl,
    printable,
)

__all__ = ["FORMATS", "check_roles", "file_format", "file_stem", "id_as_text", "id_columns",
           "paths_of", "read_file", "read_one", "same_id_kinds"]

#: File formats by extension (after a compression suffix such as ``.gz``).
FORMATS = {
    ".csv": "csv", ".txt": "csv", ".tsv": "tsv", ".tab": "tsv",
    ".parquet": "parquet", ".pq": "parquet",
    ".jsonl": "jsonl", ".ndjson": "jsonl",
}
_ROLES = ("item", "rater", "replication", "label", "value")


def _suffix(path: Path) -> str:
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes and suffixes[-1] in COMPRESSIONS:
        suffixes = suffixes[:-1]
    return suffixes[-1] if suffixes else ""


def file_stem(path: Path) -> str:
    """A file's name without its directory and without only the known extensions: a
    compression suffix, then a data format's (``crowd.v1.csv.gz`` -> ``crowd.v1``);
    bytes of the name that are not UTF-8 written as ``\\xff`` (a table holds text).

    Examples
    --------
    >>> file_stem(Path("runs/crowd.v1.csv")), file_stem(Path("a.tsv.gz")), file_stem(Path("b.v2"))
    ('crowd.v1', 'a', 'b.v2')
    """
    name = path.name
    for known in (COMPRESSIONS, FORMATS):
        suffix = Path(name).suffix
        if suffix.lower() in known and len(name) > len(suffix):
            name = name[: -len(suffix)]
    return printable(name)


def file_format(path: Path, given: str | None) -> str:
    """The format of ``path``: ``given``, else from its extension ("csv" if unknown)."""
    if given is not None:
        if given not in set(FORMATS.values()):
            raise InputError(f"format={given!r}; use one of "
                             f"{sorted(set(FORMATS.values()))} (or None: from the extension)")
        return given
    return FORMATS.get(_suffix(path), "csv")


def _read_jsonl(path: Path) -> pd.DataFrame:
    try:
        data = decompress(path.read_bytes(), path.name, "read_annotations")
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc}") from exc
    text = decode(data, path.name, "read_annotations")
    rows, lines = [], []
    for number, record in parse_jsonl(text, path.name, "read_annotations"):
        if not isinstance(record, dict):
            raise InputError(f"read_annotations: line {number} of {path.name} is a JSON "
                             f"{type(record).__name__}, not an object; each line must be one "
                             "annotation as {\"item\": ..., \"rater\": ..., ...}")
        rows.append(record)
        lines.append(number)
    check_json_text(text, ((f"line {n}", r) for n, r in zip(lines, rows, strict=True)),
                    path.name, "read_annotations")
    return pd.DataFrame.from_records(rows)


def _read_parquet(path: Path) -> pd.DataFrame:
    require("pyarrow", f"reading {path} (Parquet)")
    try:
        return pd.read_parquet(path)
    except (OSError, ValueError) as exc:
        raise InputError(f"cannot read {path} as Parquet: {exc}") from exc


def read_file(path: str | os.PathLike[str], sep: str | None = None,
              format: str | None = None, ids: Iterable[str] = ()) -> pd.DataFrame:
    """One file as a DataFrame, its format from the extension.

    Parameters
    ----------
    path : str or path
        A ``.csv``/``.txt`` (delimiter ``sep``, else sniffed from the first lines
        among ``,``, tab, ``;``, ``|``), ``.tsv``/``.tab``, ``.parquet``/``.pq``
        (the ``io`` extra) or ``.jsonl``/``.ndjson`` (one JSON object per line)
        file; text formats may be compressed (``.gz``, ``.bz2``, ``.xz``, a
        ``.zip`` of one file, ``.zst`` through pyarrow), recognised by the
        suffix or the first bytes; a truncated or corrupt file is an InputError
        naming it. Other extensions are read as delimited text.
    sep : str, optional
        Delimiter of a text table.
    format : {"csv", "tsv", "parquet", "jsonl"}, optional
        Overrides the extension.
    ids : columns, optional
        Columns of a text table read as text, not numbers (ids such as
        ``"00012"`` keep their zeros).

    Returns
    -------
    DataFrame

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "a.csv"
    >>> _ = p.write_text("item;rater;joy\\n1;a;1\\n1;b;0\\n")
    >>> read_file(p).columns.tolist()
    ['item', 'rater', 'joy']
    """
    p = Path(path)
    if not p.is_file():
        raise not_a_file(p, "read_file") or InputError(f"{path}: no such file")
    fmt = file_format(p, format)
    if fmt == "parquet":
        return _read_parquet(p)
    if fmt == "jsonl":
        return _read_jsonl(p)
    return read_delimited(p, fmt, sep, list(ids))


def id_columns(path: Path, named: dict[str, Any], format: str | None = None) -> list[str]:
    """The columns of a text table to read as text, not numbers (ids such as ``007``
    and ``7`` stay two ids): the item, rater and replication columns ``named``, else
    the roles whose columns the header calls so (``item_id``, ``worker``, ``pool``,
    ...); none for other formats, which store their types. ``read_annotations`` and
    the ``xrr`` command read files with this one rule.

    Examples
    --------
    >>> id_columns(Path("a.csv"), {"item": "task", "rater": None})
    ['task', 'rater', 'replication']
    >>> id_columns(Path("a.parquet"), {"item": "task"})
    []
    """
    if file_format(path, format) not in ("csv", "tsv"):
        return []
    out = [v for v in named.values() if isinstance(v, str)]
    found = {r for r, v in named.items() if v is not None}
    return out + [r for r in ("item", "rater", "replication") if r not in found]


def same_id_kinds(frames: list[pd.DataFrame], named: dict[str, Any]) -> list[pd.DataFrame]:
    """Id columns stored as numbers in one file and as text in another, made text in
    all, so that item 1 of a Parquet file meets item "1" of a CSV (they would never
    pair). Only where the other files' column is all text: a column that mixes text
    and numbers (``"1"`` and ``1.0`` in one JSON file) is left as it is, for the
    accessor to refuse as it refuses it in one file (and as the lazy read does).

    Examples
    --------
    >>> a, b = pd.DataFrame({"item": [1, 2]}), pd.DataFrame({"item": ["1", "3"]})
    >>> [f["item"].tolist() for f in same_id_kinds([a, b], {})]
    [['1', '2'], ['1', '3']]
    """
    shared = [c for c in frames[0].columns if all(c in f.columns for f in frames[1:])]
    for column in shared:
        kinds = {_id_kind(f[column]) for f in frames}
        if _is_id(column, named) and kinds == {"numbers", "text"}:
            frames = [_as_text_column(f, column) if _id_kind(f[column]) == "numbers"
                      else f for f in frames]
        bools = [pd.api.types.is_bool_dtype(f[column]) for f in frames]
        if _is_id(column, named) and any(bools) and not all(bools):
            # concat would make True the number 1: kept objects, for the identity rule
            frames = [f.astype({column: object}) if b else f
                      for f, b in zip(frames, bools, strict=True)]
    return frames


def _id_kind(values: pd.Series) -> str:
    """"numbers", "text" (strings and missing values only) or "mixed"."""
    if pd.api.types.is_numeric_dtype(values):
        return "numbers"
    kind = pd.api.types.infer_dtype(values, skipna=True)
    return "text" if kind in ("string", "empty") else "mixed"


def _as_text_column(df: pd.DataFrame, column: Any) -> pd.DataFrame:
    out = df.copy(deep=False)
    out[column] = df[column].map(id_as_text, na_action="ignore").astype(object)
    return out


def _is_id(column: Any, named: dict[str, Any]) -> bool:
    if column in [v for v in named.values() if v is not None]:
        return True
    return any(norm(column) in ROLE_ALIASES[r] for r in ("item", "rater", "replication")
               if named.get(r) is None)


def id_as_text(v: Any) -> str:
    """An id as text: 3.0 -> "3" (a float column of whole numbers is an id column with
    missing values), else str().

    Examples
    --------
    >>> id_as_text(3.0), id_as_text(3.5), id_as_text(7)
    ('3', '3.5', '7')
    """
    return str(int(v)) if isinstance(v, float) and v.is_integer() else str(v)


def paths_of(source: str | os.PathLike[str]) -> list[Path]:
    """The files a path, directory or glob stands for (sorted; a directory: the files
    of known formats in it and its subdirectories)."""
    text = os.fspath(source)
    p = Path(text)
    if p.is_file():
        return [p]
    if p.is_dir():
        found = sorted(f for f in p.rglob("*") if f.is_file() and _suffix(f) in FORMATS)
        if not found:
            raise InputError(f"{text}: a directory with no annotation files in it (looked for "
                             f"{', '.join(sorted(FORMATS))}, also compressed)")
        return found
    if glob.has_magic(text):
        found = sorted(Path(f) for f in glob.glob(text, recursive=True) if Path(f).is_file())
        if not found:
            raise InputError(f"{text}: the pattern matches no file")
        return found
    raise not_a_file(p, "read_annotations") or InputError(
        f"{text}: no such file or directory")


def _hive(path: Path, root: Path) -> dict[str, str]:
    """Hive-style partition columns (``replication=crowd/part-0.parquet``) of a file
    under ``root``."""
    parts = path.relative_to(root).parts[:-1]
    return dict(printable(part).split("=", 1) for part in parts if "=" in part)


def read_one(path: Path, root: Path, sep: str | None, format: str | None,
             file_column: str | None, named: dict[str, Any]) -> pd.DataFrame:
    """One file of a ``read_annotations`` source, with its Hive partition columns (when
    ``root`` is a directory) and ``file_column``."""
    df = read_file(path, sep=sep, format=format, ids=id_columns(path, named, format))
    if root.is_dir():
        for key, val in _hive(path, root).items():
            if key not in df.columns:
                df[key] = val
    if file_column is not None:
        df[file_column] = file_stem(path)
    return df


def check_roles(df: pd.DataFrame, source: str, roles: dict[str, Any]) -> None:
    """An InputError when a role column named in ``roles`` is not in ``df``, or, with
    no item named, when no column is called like an item (``item``, ``item_id``, ...)."""
    columns = [str(c) for c in df.columns]
    shown = ", ".join(repr(c) for c in columns[:15]) + (", ..." if len(columns) > 15 else "")
    for role, name in roles.items():
        if name is None:
            continue
        names = [name] if isinstance(name, Hashable) and not isinstance(name, tuple) else name
        for column in names:
            if column not in df.columns:
                raise InputError(f"{source} has no column {column!r} (given as {role}=); its "
                                 f"columns are {shown}. Pass the right name as {role}=.")
    if roles.get("item") is None and not any(norm(c) in ROLE_ALIASES["item"]
                                             for c in df.columns):
        raise InputError(f"{source} has no item column: none of its columns ({shown}) is "
                         "called item, item_id, unit, task, ... Name it with item='<column>'.")
