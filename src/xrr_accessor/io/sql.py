"""Annotations kept in a database: :func:`from_duckdb` (the ``io`` extra: duckdb)."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pandas as pd

from .._optional import require
from ..errors import InputError
from .sql_check import check_catalog, check_syntax, parser
from .tables import check_roles

__all__ = ["from_duckdb"]

#: DuckDB's automatic extension install (a download) and load, off while a query runs.
_QUIET = {"autoinstall_known_extensions": False, "autoload_known_extensions": False}


def from_duckdb(con: Any, query: str, params: Iterable[Any] | dict[str, Any] | None = None,
                *, item: Any = None, rater: Any = None, replication: Any = None,
                label: Any = None, value: Any = None) -> pd.DataFrame:
    """Annotations from a DuckDB query that only reads (the ``io`` extra: duckdb).

    Parameters
    ----------
    con : duckdb connection or str or path
        An open connection (used and left open), or the path of a database
        file, opened read-only and closed again (``":memory:"`` for an empty
        in-memory database, e.g. to query Parquet or CSV files with
        ``read_parquet('dir/*.parquet')``).
    query : str
        One SELECT statement (``WITH ... SELECT``, ``FROM ...`` and ``VALUES`` too),
        checked by DuckDB's parser and then on its syntax tree, before anything runs.
        Refused, as they write the database, the files or the machine although the
        parser calls them a SELECT: any statement but one SELECT (``COPY``, ``ATTACH``,
        ``INSTALL``, ``PRAGMA``, ``SET``, several statements); a DELETE, INSERT, UPDATE
        or COPY in a ``WITH`` clause (``WITH x AS (DELETE FROM t RETURNING *) SELECT *
        FROM x`` deletes the rows); the functions ``nextval``, ``setval`` (a sequence
        is not rolled back), ``setseed``, ``write_log`` and ``*_execute``; table
        functions other than the readers of ``xrr_accessor.io.sql_check.READERS``
        (``read_csv``, ``read_parquet``, ``read_json``, ``glob``, ``range``, the
        ``duckdb_*()`` catalog, ...: ``query('...')`` runs SQL from a string,
        ``checkpoint()`` writes); and URLs (``read_csv('https://...')``, ``FROM
        's3://...'``: DuckDB would download and install an extension). The views and
        macros the query names are checked the same way. A PIVOT needs its ``IN`` list.
        The result rows are the annotations.
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
        The query is not one SELECT statement, or does more than read (the message
        names what was refused and the fix: run it yourself, then pass a SELECT); the
        query fails (the message gives DuckDB's reason and the query); the database
        cannot be opened (not a DuckDB file, locked by a writer); ``con`` is not a
        duckdb connection (e.g. sqlite3); a named role column is missing, or the query
        returns no rows.

    Notes
    -----
    The query is parsed and checked before any database is opened; the views and
    macros it names are then looked up in the database and checked too (a database's
    macro can shadow a built-in function). Besides the check, so that what it cannot
    see (a URL the query puts together from pieces) still writes nothing: a database
    the function opens has DuckDB's automatic install and load of extensions off (a
    file is opened read-only); on your connection the two settings
    (``autoinstall_known_extensions``, ``autoload_known_extensions``: global to the
    database, so its other cursors see them meanwhile) are off while the query runs,
    your values restored after, and the query runs in a transaction that is rolled
    back, on your connection itself (your temporary tables are read). Inside a
    transaction of yours it runs in yours. Readers of an extension (``read_xlsx``,
    ``sqlite_scan``, ...) run on a connection where you loaded it.

    Examples
    --------
    >>> import duckdb
    >>> con = duckdb.connect()
    >>> _ = con.execute("create table a as select * from (values (1, 'x', 1), "
    ...                 "(1, 'y', 1), (2, 'x', 0), (2, 'y', 1)) t(item, rater, joy)")
    >>> df = from_duckdb(con, "select * from a where item <= ?", [2])
    >>> df.shape
    (4, 3)
    >>> from_duckdb(con, "with x as (delete from a returning *) select * from x")
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    xrr_accessor.errors.InputError: from_duckdb: refused a DELETE ... nothing was run.
    >>> con.execute("select count(*) from a").fetchall()
    [(4,)]
    """
    duckdb = require("duckdb", "from_duckdb")
    if not isinstance(query, str) or not query.strip():
        raise InputError(f"from_duckdb: query={query!r}; pass one SELECT statement as a string "
                         "(e.g. \"SELECT * FROM annotations\")")
    own, quiet = isinstance(con, str | os.PathLike), False
    if not own and not isinstance(con, duckdb.DuckDBPyConnection):
        raise InputError(f"from_duckdb: cannot query an object of type {type(con).__name__}; "
                         "pass a duckdb connection (duckdb.connect(...)) or the path of a "
                         "DuckDB database file")
    try:  # the query is checked before any database is opened
        cursor = parser(duckdb)
        try:
            _one_select(duckdb, cursor, query)
            names = check_syntax(cursor, query, params)
        finally:
            cursor.close()
    except duckdb.Error as exc:
        raise _failed(query, params, exc) from exc
    if own:
        con, quiet = _connect(duckdb, os.fspath(con))
    try:
        check_catalog(con, names)
        df = _run(duckdb, con, query, params, quiet)
    except duckdb.Error as exc:
        raise _failed(query, params, exc) from exc
    finally:
        if own:
            con.close()
    if df.empty:
        raise InputError("from_duckdb: the query returned no rows; check its FROM and WHERE")
    check_roles(df, "the query's result", {"item": item, "rater": rater,
                                           "replication": replication, "label": label,
                                           "value": value})
    return df


def _failed(query: str, params: Any, exc: Exception) -> InputError:
    short = " ".join(query.split())
    short = short if len(short) <= 200 else short[:197] + "..."
    reason = " ".join(str(exc).split())
    fix = "Fix the SQL or its params" if params is not None else "Fix the SQL"
    return InputError(f"from_duckdb: the query failed: {reason} (query: {short}). {fix}; "
                      "nothing was read.")


def _connect(duckdb: Any, target: str) -> tuple[Any, bool]:
    """A database file opened read-only (``":memory:"``: a new in-memory database), and
    whether its extension settings are off already (not so when this process holds the
    file open with other settings: the settings are then changed while the query runs)."""
    if target != ":memory:" and not Path(target).is_file():
        raise InputError(f"from_duckdb: no database file at {target!r}; pass a path to "
                         "a DuckDB file, ':memory:', or an open duckdb connection")
    read_only = target != ":memory:"
    try:
        try:
            return duckdb.connect(target, read_only=read_only, config=dict(_QUIET)), True
        except duckdb.ConnectionException as exc:
            if "different configuration" not in str(exc):
                raise
            return duckdb.connect(target, read_only=read_only), False
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


def _run(duckdb: Any, con: Any, query: str, params: Any, quiet: bool) -> pd.DataFrame:
    """The query's result, read whole before the transaction around it is rolled back.

    Unless ``quiet`` (set when the connection was opened), the extension settings are off
    meanwhile and their values come back after; they are global (no session scope), so
    they are set through a cursor of their own, whatever the state of the caller's
    transaction; under ``lock_configuration`` they are left as they are (the check still
    refuses). In a transaction the caller opened, the query runs in it: DuckDB nests none.
    """
    aside = None if quiet else con.cursor()
    saved: dict[str, Any] = {}
    try:
        if aside is not None and not _setting(aside, "lock_configuration"):
            for name, off in _QUIET.items():
                saved[name] = _setting(aside, name)
                aside.execute(f"SET GLOBAL {name} = ?", [off])
        ids = [con.execute("SELECT txid_current()").fetchall() for _ in range(2)]
        if ids[0] == ids[1]:  # one id for two statements: the caller's transaction is open
            return _fetch(con, query, params)
        con.execute("BEGIN TRANSACTION")
        try:
            return _fetch(con, query, params)
        finally:
            con.execute("ROLLBACK")
    finally:
        if aside is not None:
            try:
                for name, before in saved.items():
                    aside.execute(f"SET GLOBAL {name} = ?", [before])
            finally:
                aside.close()


def _setting(con: Any, name: str) -> Any:
    return con.execute("SELECT current_setting(?)", [name]).fetchall()[0][0]


def _fetch(con: Any, query: str, params: Any) -> pd.DataFrame:
    result = con.execute(query, params) if params is not None else con.execute(query)
    return result.df()
