"""Reading the ``xrr`` command's input files: CSV/TSV (delimiter sniffed) and Parquet."""

from __future__ import annotations

import csv
import gzip
from pathlib import Path

import pandas as pd

from ..errors import InputError
from ..schema.roles import ROLE_ALIASES, _norm

__all__ = ["PARQUET", "has_replication", "read_table", "with_replication"]

PARQUET = (".parquet", ".pq")
_TSV = (".tsv", ".tab")
_DELIMITERS = ",\t;|"


def _suffix(path: Path) -> str:
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes and suffixes[-1] in (".gz", ".bz2", ".xz", ".zip", ".zst"):
        suffixes = suffixes[:-1]
    return suffixes[-1] if suffixes else ""


def _sniff(path: Path) -> str:
    """The delimiter of a text table, from its first lines (``,`` if unsure)."""
    opener = gzip.open if path.suffix.lower() == ".gz" else open
    try:
        with opener(path, "rt", encoding="utf-8", errors="replace") as fh:
            head = "".join(line for _, line in zip(range(20), fh, strict=False))
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc}") from exc
    try:
        return csv.Sniffer().sniff(head, delimiters=_DELIMITERS).delimiter
    except csv.Error:
        return ","


def read_table(path: str, sep: str | None = None) -> pd.DataFrame:
    """One input file as a DataFrame.

    Parquet (``.parquet``, ``.pq``) needs pyarrow (the ``io`` extra); any
    other file is read as delimited text: ``sep`` if given, tab for ``.tsv``
    and ``.tab``, else the delimiter sniffed from the first lines (``,``,
    tab, ``;`` or ``|``). Compressed text (``.gz``, ...) is read as such.
    """
    p = Path(path)
    if not p.is_file():
        raise InputError(f"{path}: no such file")
    suffix = _suffix(p)
    if suffix in PARQUET:
        try:
            import pyarrow  # noqa: F401
        except ImportError:
            raise InputError(
                f"reading {path} (Parquet) needs pyarrow: pip install 'xrr_accessor[io]'"
            ) from None
        try:
            return pd.read_parquet(p)
        except (OSError, ValueError) as exc:
            raise InputError(f"cannot read {path} as Parquet: {exc}") from exc
    if sep is None:
        sep = "\t" if suffix in _TSV else _sniff(p)
    try:
        df = pd.read_csv(p, sep=sep)
    except (ValueError, OSError, UnicodeError, pd.errors.ParserError) as exc:
        raise InputError(f"cannot read {path} as a table with --sep {sep!r}: {exc}") from exc
    if df.shape[1] == 1 and any(d in str(df.columns[0]) for d in _DELIMITERS if d != sep):
        raise InputError(f"{path} was read as one column ({str(df.columns[0])[:40]!r}); "
                         "give its delimiter with --sep (e.g. --sep ';' or --sep '\\t')")
    return df


def has_replication(df: pd.DataFrame, given: str | None) -> bool:
    """Whether ``df`` has a replication column (named with --replication, or by alias)."""
    return given is not None or any(_norm(c) in ROLE_ALIASES["replication"]
                                    for c in df.columns)


def with_replication(frames: list[pd.DataFrame], paths: list[str],
                     column: str = "replication") -> pd.DataFrame:
    """Two files without a replication column as one frame, each file a replication
    named after its file name (``crowd.csv`` -> ``crowd``)."""
    a, b = (set(map(str, f.columns)) for f in frames)
    if a != b:
        raise InputError(
            f"{paths[0]} and {paths[1]} have different columns (only in {paths[0]}: "
            f"{', '.join(sorted(a - b)) or '-'}; only in {paths[1]}: "
            f"{', '.join(sorted(b - a)) or '-'}); two replications need the same columns: "
            "rename them to match, or leave extra ones out with --exclude")
    names = [Path(p).name.split(".")[0] for p in paths]
    if len(set(names)) < len(names):
        names = list(paths)
    return pd.concat([f.assign(**{column: n}) for f, n in zip(frames, names, strict=True)],
                     ignore_index=True)
