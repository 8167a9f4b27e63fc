"""Reading the ``xrr`` command's input: files (CSV/TSV with the delimiter sniffed,
Parquet, JSON Lines), directories and globs of them."""

from __future__ import annotations

import glob
from pathlib import Path

import pandas as pd

from ..errors import InputError
from ..io.tables import read_annotations, read_file
from ..schema.roles import ROLE_ALIASES, norm

__all__ = ["has_replication", "read_table", "with_replication"]


def read_table(path: str, sep: str | None = None, file_column: str | None = None,
               item: str | None = None) -> pd.DataFrame:
    """One input as a DataFrame: a file (:func:`xrr_accessor.io.read_file`: CSV/TSV
    with the delimiter sniffed, Parquet with the ``io`` extra, JSON Lines), or a
    directory or glob of them, stacked (:func:`xrr_accessor.io.read_annotations`;
    ``file_column`` names a column holding each row's file name; ``item`` the item
    column, when not found by name)."""
    if Path(path).is_dir() or glob.has_magic(path) or file_column is not None:
        return read_annotations(path, sep=sep, file_column=file_column, item=item)
    return read_file(path, sep=sep)


def has_replication(df: pd.DataFrame, given: str | None) -> bool:
    """Whether ``df`` has a replication column (named with --replication, or by alias)."""
    return given is not None or any(norm(c) in ROLE_ALIASES["replication"]
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
