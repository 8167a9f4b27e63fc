"""The read-only check of :func:`~xrr_accessor.io.sql.from_duckdb` (issue 36).

DuckDB's parser takes ``WITH x AS (DELETE FROM t RETURNING *) SELECT * FROM x`` for one
SELECT statement, and a SELECT can call functions that change the database or the machine
(``nextval``, ``query('...')``, ``checkpoint()``; a URL in ``read_csv`` makes DuckDB download
and install an extension). The check reads the query's syntax tree as DuckDB
serializes it (``json_serialize_sql``) and refuses, before anything runs
(:func:`check_syntax`, then :func:`check_catalog` for what a database defines):

* a query node that is not a SELECT (:data:`QUERY_NODES`): the DELETE, INSERT, UPDATE or
  COPY of a ``WITH`` clause, wherever it is nested;
* a table function outside :data:`READERS` (file readers, series, catalog readers), unless
  it is a table macro of the database whose definition passes the same check;
* a function of :data:`DENIED_FUNCTIONS`, or one ending in ``_execute``;
* a URL (``scheme://``) as a table name or in a table function's arguments (or in the
  params when a table function takes one);
* the same, one level down and further, in the views and macros the query names.
"""

from __future__ import annotations

import json
import os
import re
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ..errors import InputError

__all__ = ["DENIED_FUNCTIONS", "QUERY_NODES", "READERS", "TABLE_REFS", "check_catalog",
           "check_syntax", "parser"]

#: Query nodes of a read (a CTE of DELETE/INSERT/UPDATE/COPY is a ``*_QUERY_NODE``).
QUERY_NODES = frozenset({"SELECT_NODE", "SET_OPERATION_NODE", "RECURSIVE_CTE_NODE",
                         "CTE_NODE"})
#: Table references of a read (PIVOT also stands for UNPIVOT; SHOW_REF for DESCRIBE,
#: SUMMARIZE and SHOW).
TABLE_REFS = frozenset({"BASE_TABLE", "JOIN", "SUBQUERY", "TABLE_FUNCTION", "EXPRESSION_LIST",
                        "EMPTY", "PIVOT", "SHOW_REF"})
#: Table functions that only read: files, series, and the catalog.
READERS = frozenset({
    # files (core, parquet, json)
    "read_csv", "read_csv_auto", "sniff_csv", "read_parquet", "parquet_scan",
    "parquet_metadata", "parquet_schema", "parquet_file_metadata", "parquet_kv_metadata",
    "parquet_full_metadata", "parquet_bloom_probe", "parquet_page_index", "read_json",
    "read_json_auto", "read_json_objects", "read_json_objects_auto", "read_ndjson",
    "read_ndjson_auto", "read_ndjson_objects", "read_text", "read_blob", "glob",
    # series and values
    "range", "generate_series", "unnest", "repeat", "repeat_row", "json_each", "json_tree",
    "query_table",
    # the catalog
    "duckdb_columns", "duckdb_constraints", "duckdb_databases", "duckdb_dependencies",
    "duckdb_extensions", "duckdb_functions", "duckdb_indexes", "duckdb_keywords",
    "duckdb_optimizers", "duckdb_schemas", "duckdb_sequences", "duckdb_settings",
    "duckdb_tables", "duckdb_temporary_files", "duckdb_types", "duckdb_views",
    "duckdb_memory", "pragma_table_info", "pragma_storage_info", "pragma_database_size",
    "pragma_metadata_info", "pragma_show", "pragma_version", "pragma_platform",
    "pragma_collations", "pg_timezone_names", "icu_calendar_names",
    # extension readers (used when the extension is already loaded on the connection)
    "sqlite_scan", "read_xlsx", "delta_scan", "iceberg_scan", "iceberg_metadata",
    "iceberg_snapshots", "read_avro", "st_read",
})
#: Scalar functions with side effects (and any name ending in ``_execute``).
DENIED_FUNCTIONS = frozenset({"nextval", "setval", "setseed", "write_log"})

_URL = re.compile(r"[a-z][a-z0-9+.-]*://", re.IGNORECASE)
_DEPTH = 8  # views and macros naming views and macros: how deep the check follows them
_RUN_IT = "run it yourself on your connection, then pass from_duckdb a SELECT"
_PARSERS: dict[int, Any] = {}  # process id: its parsing database (kept: see parser())
_BUILT_IN: set[str] = set()  # DuckDB's own table functions that are not READERS
_LOCK = threading.Lock()


@dataclass
class _Names:
    """What one query (or definition) names: looked up as views and macros."""

    tables: set[str] = field(default_factory=set)
    functions: set[str] = field(default_factory=set)
    table_functions: set[str] = field(default_factory=set)
    reader_params: bool = False


def parser(duckdb: Any) -> Any:
    """A new cursor of this process's own empty in-memory database: to parse a query
    before any database of the caller's is opened (a forked process makes its own)."""
    with _LOCK:
        con = _PARSERS.get(os.getpid())
        if con is None:
            con = _PARSERS[os.getpid()] = duckdb.connect(config={
                "threads": 1, "autoinstall_known_extensions": False,
                "autoload_known_extensions": False})
            _BUILT_IN.update(name for (name,) in con.execute(
                "SELECT DISTINCT lower(function_name) FROM duckdb_functions() "
                "WHERE internal AND function_type = 'table'").fetchall())
            _BUILT_IN.difference_update(READERS)
        return con.cursor()


def check_syntax(parser: Any, query: str,
                 params: Iterable[Any] | dict[str, Any] | None = None) -> _Names:
    """Refuse ``query`` (an InputError) unless its syntax tree only reads; run nothing.

    Parameters
    ----------
    parser : duckdb connection
        Parses the query (:func:`parser`; any connection will do).
    query : str
        One SELECT statement (checked as such by the caller).
    params : sequence or mapping, optional
        The query's params: a URL among them is refused when a table function takes one.

    Returns
    -------
    names
        The tables and functions the query names, for :func:`check_catalog`.

    Raises
    ------
    InputError
        Naming what was refused, where, and the fix.
    """
    names = _Names()
    _walk(_tree(parser, query, "the query"), names, "the query", None)
    if names.reader_params:
        values = params.values() if isinstance(params, dict) else (params or ())
        for value in values:
            if isinstance(value, str) and _URL.search(value):
                raise _refuse(f"the URL {value!r} (a param read by a table function)",
                              "the query", _URL_FIX)
    return names


def check_catalog(con: Any, names: _Names) -> None:
    """Refuse the table functions of ``names`` that are neither readers nor table macros
    of ``con``'s database, and check the views and macros it names as the query was (a
    database's macro can shadow a built-in function, ``range`` or ``sum`` included)."""
    _follow(con, names, set(), 0)


_URL_FIX = ("from_duckdb reads local files and the database only: a URL makes DuckDB load "
            "(or download and install) an extension and reach the network. Download the "
            "file yourself and pass its local path")


def _refuse(what: str, where: str, fix: str) -> InputError:
    return InputError(f"from_duckdb: refused {what} in {where}. {fix}; nothing was run.")


def _tree(con: Any, sql: str, where: str) -> Any:
    """DuckDB's syntax tree of ``sql`` as JSON (an InputError when it gives none)."""
    text = con.execute("SELECT json_serialize_sql(?)", [sql]).fetchall()[0][0]
    tree: dict[str, Any] = json.loads(text) if text else {"error": True,
                                                          "error_message": "no SQL"}
    if tree.get("error") or len(tree.get("statements", ())) != 1:
        reason = tree.get("error_message") or "not one statement"
        raise _refuse(f"what DuckDB could not serialize ({reason})", where,
                      "from_duckdb runs only a plain SELECT whose syntax tree it can check "
                      "(a PIVOT needs its IN list)")
    return tree


def _walk(node: Any, names: _Names, where: str, reader: str | None) -> None:
    """Check every query node, table reference and function call under ``node``."""
    if isinstance(node, list):
        for child in node:
            _walk(child, names, where, reader)
        return
    if not isinstance(node, dict):
        return
    kind = node.get("type")
    if "class" in node:  # an expression
        if node["class"] == "FUNCTION":
            _function(node, names, where)
        elif node["class"] == "PARAMETER" and reader is not None:
            names.reader_params = True
    elif isinstance(kind, str):
        if "cte_map" in node or kind.endswith("_NODE"):
            if kind not in QUERY_NODES:
                verb = kind.removesuffix("_NODE").removesuffix("_QUERY")
                article = "an" if verb[:1] in "AEIOU" else "a"
                raise _refuse(f"{article} {verb} (a {kind} inside the SELECT, e.g. WITH x AS "
                              f"({verb} ... RETURNING *) SELECT * FROM x)", where,
                              f"from_duckdb only reads; to {verb.lower()}, {_RUN_IT}")
        elif "sample" in node and "alias" in node:  # a table reference
            reader = _table(node, kind, names, where, reader)
    if reader is not None:
        for value in node.values():
            if isinstance(value, str) and _URL.search(value):
                raise _refuse(f"the URL {value!r} (read by {reader}())", where, _URL_FIX)
    for child in node.values():
        if isinstance(child, dict | list):
            _walk(child, names, where, reader)


def _table(node: dict[str, Any], kind: str, names: _Names, where: str,
           reader: str | None) -> str | None:
    """Check one table reference; the table function's name when it is one."""
    if kind not in TABLE_REFS:
        raise _refuse(f"a table reference of type {kind}", where,
                      "from_duckdb reads tables, views, subqueries, VALUES, PIVOT and "
                      "the table functions of xrr_accessor.io.sql_check.READERS")
    if kind == "TABLE_FUNCTION":
        name = str(node["function"].get("function_name", "")).lower()
        if name in _BUILT_IN:  # refused at once (so is a database's macro of that name)
            raise _not_a_reader(name, where)
        if name not in READERS:
            names.table_functions.add(name)  # an extension's, or a database's macro
        return name
    for key in ("table_name", "schema_name", "catalog_name"):
        value = node.get(key)
        if isinstance(value, str) and _URL.search(value):
            raise _refuse(f"the URL {value!r} (read as a table)", where, _URL_FIX)
    if isinstance(node.get("table_name"), str) and node["table_name"]:
        names.tables.add(node["table_name"].lower())
    return reader


def _not_a_reader(name: str, where: str) -> InputError:
    return _refuse(f"the table function {name}()", where,
                   f"{name}() is not one of the readers from_duckdb runs (read_csv, "
                   "read_parquet, read_json, read_text, glob, range, unnest, the duckdb_*() "
                   "catalog, ...: xrr_accessor.io.sql_check.READERS) and may run SQL or "
                   f"change the database; {_RUN_IT} that reads its result from a table")


def _function(node: dict[str, Any], names: _Names, where: str) -> None:
    name = str(node.get("function_name", "")).lower()
    if name in DENIED_FUNCTIONS or name.endswith("_execute"):
        raise _refuse(f"the function {name}()", where,
                      f"{name}() changes state a read must leave alone (a sequence, the "
                      "random seed, the log) or runs SQL from a string; call it yourself "
                      "on your connection and pass its value in params")
    names.functions.add(name)


def _follow(con: Any, names: _Names, seen: set[tuple[str, str]], depth: int) -> None:
    """Check the views and macros that ``names`` names (the query's, then theirs)."""
    views = sorted(name for name in names.tables if ("view", name) not in seen)
    macros = sorted(name for name in names.functions | names.table_functions
                    if ("macro", name) not in seen)
    seen.update([("view", name) for name in views] + [("macro", name) for name in macros])
    bodies: list[tuple[str, str]] = []  # (where, SQL to check)
    if views:
        bodies += [(f"the view {name}", _view_body(sql)) for name, sql in con.execute(
            "SELECT view_name, sql FROM duckdb_views() WHERE NOT internal "
            "AND list_contains(?, lower(view_name))", [views]).fetchall()]
    table_macros: set[str] = set()
    if macros:
        for name, kind, body in con.execute(
                "SELECT function_name, function_type, macro_definition FROM duckdb_functions() "
                "WHERE NOT internal AND function_type IN ('macro', 'table_macro') "
                "AND list_contains(?, lower(function_name))", [macros]).fetchall():
            if kind == "table_macro":
                table_macros.add(name.lower())
            if body and kind != "table_macro":
                body = f"SELECT {body}"
            bodies.append((f"the macro {name}", body or ""))  # "": refused
    for name in sorted(names.table_functions - table_macros):
        raise _not_a_reader(name, "the query" if depth == 0 else
                            "a view or macro the query names")
    if not bodies:
        return
    if depth >= _DEPTH:
        raise _refuse(f"{bodies[0][0]} (views and macros nested more than {_DEPTH} deep)",
                      "the query", "Select from the tables themselves")
    deeper = _Names()
    for where, sql in bodies:
        _walk(_tree(con, sql, where), deeper, where, None)
    _follow(con, deeper, seen, depth + 1)


def _view_body(sql: str) -> str:
    """The SELECT of a ``CREATE VIEW name [(columns)] AS SELECT ...`` statement: after its
    first AS keyword (DuckDB's tokenizer skips quoted names and strings)."""
    import duckdb

    tokens = duckdb.tokenize(sql)
    for (start, kind), nxt in zip(tokens, [*tokens[1:], None], strict=True):
        end = nxt[0] if nxt is not None else len(sql)
        if kind == duckdb.token_type.keyword and sql[start:end].strip().upper() == "AS":
            return sql[end:].strip().rstrip(";")
    return sql  # no AS: json_serialize_sql refuses it
