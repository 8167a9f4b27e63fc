"""Files of annotations as a dask DataFrame, for the lazy path (the ``dask`` extra).

:func:`~xrr_accessor.io.read_annotations` with ``lazy=True`` lands here. Parquet
files (and directories of them, Hive partitions included) go to
``dask.dataframe.read_parquet``, which splits large files by row group; every
other format is read one partition per file by the same reader as in memory
(:func:`~.tables.read_file`: delimiter sniffing, ids as text, Hive and file
columns), so a file parses the same way lazily or not.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pandas as pd

from .._optional import require
from ..errors import InputError
from .tables import check_roles, file_format, read_one

__all__ = ["read_lazy", "read_like"]


def read_like(path: Path, columns: list[str], first: str, **options: Any) -> pd.DataFrame:
    """One file read by :func:`.tables.read_one`, refused (InputError, at compute time)
    when its columns are not ``columns``, those of the first file ``first``: the eager
    path refuses such files too, where dask would fill the gaps with NaN."""
    df = read_one(path, **options)
    if set(map(str, df.columns)) != set(columns):
        this = set(map(str, df.columns))
        raise InputError(
            f"{path.name} has other columns than {first} (only in {path.name}: "
            f"{', '.join(sorted(this - set(columns))) or '-'}; only in {first}: "
            f"{', '.join(sorted(set(columns) - this)) or '-'}); files read together need the "
            "same columns: read them one at a time and rename, or select the files with a "
            "narrower pattern")
    return df


def read_lazy(paths: list[Path], source: str | os.PathLike[str], sep: str | None,
              format: str | None, file_column: str | None,
              roles: dict[str, Any]) -> Any:
    """A dask DataFrame over ``paths`` (found by ``read_annotations``), roles checked
    against its columns; nothing is read but schemas (and, for text formats, the
    first file, which gives the columns and dtypes)."""
    dd = require("dask.dataframe", "read_annotations(..., lazy=True)", extra="dask")
    import dask

    root = Path(os.fspath(source))
    named = {k: roles.get(k) for k in ("item", "rater", "replication")}
    parquet = all(file_format(p, format) == "parquet" for p in paths)
    if parquet and file_column is None:
        require("pyarrow", "reading Parquet")
        where = str(root) if root.is_dir() else [str(p) for p in paths]
        try:
            ddf = dd.read_parquet(where)
        except Exception as exc:  # pyarrow's ArrowInvalid, OSError: a damaged file
            reason = " ".join(str(exc).split())[:300]
            raise InputError(f"cannot read {where} as Parquet: {reason}. Check the file "
                             "(re-export it), or read the others with a narrower "
                             "pattern") from exc
    else:
        options: dict[str, Any] = {"root": root, "sep": sep, "format": format,
                                   "file_column": file_column, "named": named}
        head = read_one(paths[0], **options)
        if head.empty and len(paths) == 1:
            raise InputError(f"{paths[0]} holds no annotations (no rows)")
        # Object columns stay objects (not dask's text), so each partition's reader sees
        # the ids as the eager reader does: 1 and "1" in one file are refused, not merged.
        with dask.config.set({"dataframe.convert-string": False}):
            ddf = dd.from_map(read_like, paths, columns=[str(c) for c in head.columns],
                              first=paths[0].name, **options, meta=head.iloc[:0],
                              enforce_metadata=False)
    name = str(paths[0]) if len(paths) == 1 else f"{os.fspath(source)} ({len(paths)} files)"
    check_roles(ddf._meta, name, roles)
    return ddf
