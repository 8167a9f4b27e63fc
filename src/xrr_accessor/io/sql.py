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
        One SELECT statement (``WITH ... SELECT``, ``FROM ...`` and ``VALUES`` too),
        checked by DuckDB's parser; anything else (``COPY``, ``ATTACH``, ``PRAGMA``,
        several statements) is refused. Its result rows are the annotations.
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
        The query is not one SELECT statement, or fails (the message gives DuckDB's
        reason and the query); the database cannot be opened (not a DuckDB file,
        locked by a writer); ``con`` is not a duckdb connection (e.g. sqlite3); a
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
    if not isinstance(query, str) or not query.strip():
        raise InputError(f"from_duckdb: query={query!r}; pass one SELECT statement as a string "
                         "(e.g. \"SELECT * FROM annotations\")")
    own = isinstance(con, str | os.PathLike)
    if own:
        con = _connect(duckdb, os.fspath(con))
    elif not isinstance(con, duckdb.DuckDBPyConnection):
        raise InputError(f"from_duckdb: cannot query an object of type {type(con).__name__}; "
                         "pass a duckdb connection (duckdb.connect(...)) or the path of a "
                         "DuckDB database file")
    try:
        _one_select(duckdb, con, query)
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


def _connect(duckdb: Any, target: str) -> Any:
    """A database file opened read-only (``":memory:"``: a new in-memory database)."""
    if target != ":memory:" and not Path(target).is_file():
        raise InputError(f"from_duckdb: no database file at {target!r}; pass a path to "
                         "a DuckDB file, ':memory:', or an open duckdb connection")
    try:
        return duckdb.connect(target, read_only=target != ":memory:")
    except duckdb.Error as exc:
        reason = " ".join(str(exc).split())
        raise InputError(f"from_duckdb: cannot open {target!r} read-only: {reason}. Pass a "
                         "DuckDB database file that no other process holds open for writing, "
                         "or an open connection") from exc


def _one_select(duckdb: Any, con: Any, query: str) -> None:
    """An InputError unless ``query`` is exactly one SELECT (``WITH ... SELECT``, ``FROM``,
    ``VALUES`` included) statement, as DuckDB's own parser reads it."""
    statements = con.extract_statements(query)
    kinds = [st.type.name for st in statements]
    if kinds != [duckdb.StatementType.SELECT.name]:
        shown = ", ".join(kinds) or "none"
        raise InputError(f"from_duckdb: the query holds {len(kinds)} statement(s) ({shown}); "
                         "from_duckdb runs exactly one SELECT (or WITH ... SELECT) and nothing "
                         "that writes, attaches or configures: run other statements yourself "
                         "on a connection and pass it")
