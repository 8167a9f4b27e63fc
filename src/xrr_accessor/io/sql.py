"""Annotations kept in a database: :func:`from_duckdb` (the ``io`` extra: duckdb)."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pandas as pd

from .._optional import require
from ..errors import InputError
from .tables import check_roles

__all__ = ["from_duckdb"]


def from_duckdb(con: Any, query: str, params: Iterable[Any] | dict[str, Any] | None = None,
                *, item: Any = None, rater: Any = None, replication: Any = None,
                label: Any = None, value: Any = None) -> pd.DataFrame:
    """Annotations from a DuckDB query (the ``io`` extra: duckdb).

    Parameters
    ----------
    con : duckdb connection or str or path
        An open connection (used and left open), or the path of a database
        file, opened read-only and closed again (``":memory:"`` for an empty
        in-memory database, e.g. to query Parquet or CSV files with
        ``read_parquet('dir/*.parquet')``).
    query : str
        The SQL; its result rows are the annotations.
    params : sequence or mapping, optional
        Values for the query's ``?`` or ``$name`` placeholders.
    item, rater, replication, label, value : column names, optional
        Checked as in :func:`read_annotations`.

    Returns
    -------
    DataFrame

    Raises
    ------
    InputError
        The query fails (the message gives DuckDB's reason and the query), a
        named role column is missing, or the query returns no rows.

    Examples
    --------
    >>> import duckdb
    >>> con = duckdb.connect()
    >>> _ = con.execute("create table a as select * from (values (1, 'x', 1), "
    ...                 "(1, 'y', 1), (2, 'x', 0), (2, 'y', 1)) t(item, rater, joy)")
    >>> df = from_duckdb(con, "select * from a where item <= ?", [2])
    >>> df.shape
    (4, 3)
    """
    duckdb = require("duckdb", "from_duckdb")
    own = isinstance(con, str | os.PathLike)
    if own:
        target = os.fspath(con)
        if target != ":memory:" and not Path(target).is_file():
            raise InputError(f"from_duckdb: no database file at {target!r}; pass a path to "
                             "a DuckDB file, ':memory:', or an open duckdb connection")
        con = duckdb.connect(target, read_only=target != ":memory:")
    elif not hasattr(con, "execute"):
        raise InputError(f"from_duckdb: cannot query an object of type {type(con).__name__}; "
                         "pass a duckdb connection or the path of a database file")
    try:
        df = con.execute(query, params).df() if params is not None else con.execute(
            query).df()
    except duckdb.Error as exc:
        short = " ".join(query.split())
        short = short if len(short) <= 200 else short[:197] + "..."
        reason = " ".join(str(exc).split())
        fix = ("Fix the SQL or its params" if params is not None else "Fix the SQL")
        raise InputError(f"from_duckdb: the query failed: {reason} (query: {short}). {fix}; "
                         "nothing was read.") from exc
    finally:
        if own:
            con.close()
    if df.empty:
        raise InputError("from_duckdb: the query returned no rows; check its FROM and WHERE")
    check_roles(df, "the query's result", {"item": item, "rater": rater,
                                           "replication": replication, "label": label,
                                           "value": value})
    return df
