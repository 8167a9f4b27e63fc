"""Annotations from a file, a glob or a directory: read now, or lazily with dask.

:func:`read_annotations` lists the files (:func:`~.tables.paths_of`), reads each
with :func:`~.tables.read_one` and checks they fit together; ``lazy=True`` hands
the same files to :func:`~.lazy_tables.read_lazy`. Both sit on :mod:`.tables`.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pandas as pd

from ..errors import InputError
from .tables import check_roles, paths_of, read_one, same_id_kinds

__all__ = ["read_annotations"]


def read_annotations(
    source: str | os.PathLike[str], *, sep: str | None = None, format: str | None = None,
    file_column: str | None = None, item: Any = None, rater: Any = None,
    replication: Any = None, label: Any = None, value: Any = None, lazy: bool = False,
) -> Any:
    """Annotations from a file, a directory of files or a glob, as one DataFrame.

    Parameters
    ----------
    source : str or path
        A file, a directory (every CSV/TSV/Parquet/JSON Lines file in it and
        its subdirectories) or a glob (``"exports/*.parquet"``,
        ``"runs/**/*.csv"``). Each file's format comes from its extension, as
        in :func:`read_file`. Files are read in sorted order and stacked; they
        must have the same columns.
    sep, format
        As in :func:`read_file`.
    file_column : str, optional
        Add a column of this name holding each row's file name (without
        directory or known extensions): to keep one file per replication apart,
        ``file_column="replication"``.
    item, rater, replication, label, value : column names, optional
        The roles you will give the accessor: they are checked now, so a file
        without them fails here, naming the file, rather than later. With no
        ``item`` given, some column must be called like an item (``item``,
        ``item_id``, ``unit``, ``task``, ...).
    lazy : bool
        Return a dask DataFrame (the ``dask`` extra) instead of reading: Parquet
        through ``dask.dataframe.read_parquet`` (partitions by row group),
        other formats one partition per file, parsed as here. The ``.xrr``
        methods on it stay lazy until ``.compute()``. An item's annotations
        may be spread over files: the library finds such items and shuffles
        the rows by item itself (files that each hold whole items skip the
        shuffle). A file with other columns than the first is an InputError
        when computed.

    Returns
    -------
    DataFrame (dask DataFrame with ``lazy=True``)
        The columns as stored, plus Hive-style partition columns of a
        directory (``pool=crowd/part-0.parquet`` gives a ``pool`` column) and
        ``file_column`` (the file name without its directory and without only
        the known extensions: ``crowd.v1.csv.gz`` gives ``crowd.v1``).
        ``df.attrs["files"]`` lists the files read.

    Raises
    ------
    InputError
        No such file, a file that cannot be parsed (the message names it, and
        the line for JSON Lines), files with different columns, a named role
        column that is missing, or no annotations at all. Nothing is returned
        from a partial read.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "crowd.csv").write_text("item,rater,joy\\n1,a,1\\n1,b,1\\n2,a,0\\n2,b,1\\n")
    >>> _ = (d / "experts.csv").write_text("item,rater,joy\\n1,x,1\\n1,y,1\\n2,x,0\\n2,y,0\\n")
    >>> df = read_annotations(d / "*.csv", file_column="replication", rater="rater")
    >>> df.groupby("replication").size().to_dict()
    {'crowd': 4, 'experts': 4}
    >>> df.xrr.cross_kappa().loc["joy"].round(3).tolist()
    [0.5]
    """
    paths = paths_of(source)
    if lazy:
        from .lazy_tables import read_lazy

        return read_lazy(paths, source, sep, format, file_column,
                         {"item": item, "rater": rater, "replication": replication,
                          "label": label, "value": value})
    root = Path(os.fspath(source))
    shown = {p: str(p.relative_to(root)) if root.is_dir() else p.name for p in paths}
    named = {"item": item, "rater": rater, "replication": replication}
    frames: list[pd.DataFrame] = []
    for path in paths:
        df = read_one(path, root, sep, format, file_column, named)
        if frames and set(df.columns) != set(frames[0].columns):
            first, this = set(map(str, frames[0].columns)), set(map(str, df.columns))
            raise InputError(
                f"{shown[path]} has other columns than {shown[paths[0]]} (only in "
                f"{shown[path]}: {', '.join(sorted(this - first)) or '-'}; only in "
                f"{shown[paths[0]]}: {', '.join(sorted(first - this)) or '-'}); files read "
                "together need the same columns: read them one at a time and rename, or "
                "select the files with a narrower pattern")
        frames.append(df)  # concat aligns columns by name
    if len(frames) > 1:
        frames = same_id_kinds(frames, named)
    out = frames[0] if len(frames) == 1 else pd.concat(frames, ignore_index=True)
    name = str(paths[0]) if len(paths) == 1 else f"{os.fspath(source)} ({len(paths)} files)"
    if out.empty:
        raise InputError(f"{name} holds no annotations (no rows)")
    check_roles(out, name, {"item": item, "rater": rater, "replication": replication,
                            "label": label, "value": value})
    out.attrs["files"] = [str(p) for p in paths]
    return out
