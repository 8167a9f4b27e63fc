"""Issue 36, part 1: ``from_duckdb`` reads and never writes.

Every hostile statement below passes (or passed) DuckDB's "one SELECT" test or is a plain
write; each is refused with the library's InputError naming what it refused, before
anything runs (so before any network access: the URLs are refused by name, not by a
failed download), on a database file given by path, on ``":memory:"``, and on a caller's
connection (a file database and an in-memory one). After each, the table, the sequence,
the caller's settings and the files around are as before; after all of them, no extension
was installed and nothing appeared in the (temporary) home directory. The legitimate reads
return what DuckDB itself returns for them.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from xrr_accessor.errors import InputError
from xrr_accessor.io import from_duckdb
from xrr_accessor.io import sql as sql_module

duckdb = pytest.importorskip("duckdb")

ROWS = [(1, "x", 1), (1, "y", 0), (2, "x", 1), (2, "y", 1)]
SETUP = [
    "CREATE TABLE ann AS SELECT * FROM (VALUES " + ", ".join(map(str, ROWS))
    + ") t(item, rater, joy)",
    "CREATE SEQUENCE seq",
    "CREATE MACRO bump() AS nextval('seq')",
    "CREATE MACRO bump_rows() AS TABLE SELECT nextval('seq') AS item",
    "CREATE MACRO rows_of(i) AS TABLE SELECT * FROM ann WHERE item = i",
    "CREATE VIEW bumped AS SELECT nextval('seq') AS item",
    "CREATE VIEW on_bumped AS SELECT * FROM bumped",
    "CREATE VIEW ones AS SELECT * FROM ann WHERE joy = 1",
]
URL = "https://example.com/ann.csv"
REFUSED = r"from_duckdb: (refused|the query holds)"
ONE = r"exactly one SELECT"

# (statement, what the message must name); {out}, {other}, {dir} are paths in tmp_path.
# "*" marks those that use the database's own macros and views (absent from ":memory:",
# where the statement fails or is refused otherwise, never runs).
HOSTILE: list[tuple[str, str]] = [
    # a DELETE / INSERT / UPDATE / COPY in a WITH clause, at the top and nested
    ("WITH x AS (DELETE FROM ann RETURNING *) SELECT * FROM x", "refused a DELETE"),
    ("WITH x AS (INSERT INTO ann VALUES (9, 'z', 9) RETURNING *) SELECT * FROM x",
     "refused an INSERT"),
    ("WITH x AS (UPDATE ann SET joy = 0 RETURNING *) SELECT * FROM x", "refused an UPDATE"),
    ("WITH x AS MATERIALIZED (DELETE FROM ann RETURNING *) SELECT * FROM x",
     "refused a DELETE"),
    ("with x as (insert into ann select * from ann returning *) from x", "refused an INSERT"),
    ("WITH a AS (SELECT 1), x AS (UPDATE ann SET rater = 'q' RETURNING *) SELECT * FROM ann",
     "refused an UPDATE"),
    ("WITH x AS (COPY ann TO '{out}') SELECT * FROM x", "refused a COPY"),
    ("SELECT * FROM (WITH x AS (DELETE FROM ann RETURNING *) SELECT * FROM x) s",
     "refused a DELETE"),
    ("SELECT * FROM ann WHERE item IN (WITH x AS (DELETE FROM ann RETURNING item) "
     "SELECT item FROM x)", "refused a DELETE"),
    ("SELECT * FROM ann UNION ALL (WITH x AS (DELETE FROM ann RETURNING *) SELECT * FROM x)",
     "refused a DELETE"),
    ("SELECT * FROM ann WHERE EXISTS (WITH x AS (DELETE FROM ann RETURNING 1) "
     "SELECT * FROM x)", "refused a DELETE"),
    ("SELECT (WITH x AS (DELETE FROM ann RETURNING item) SELECT max(item) FROM x) AS item",
     "refused a DELETE"),
    ("SELECT * FROM ann, LATERAL (WITH x AS (INSERT INTO ann VALUES (9, 'z', 9) "
     "RETURNING item) SELECT * FROM x) l", "refused an INSERT"),
    # functions with side effects, wherever they are
    ("SELECT nextval('seq') AS item", r"function nextval\(\)"),
    ("SELECT setval('seq', 100) AS item", r"function setval\(\)"),
    ("SELECT * FROM ann WHERE nextval('seq') > 0", r"function nextval\(\)"),
    ("SELECT * FROM ann WHERE item IN (SELECT nextval('seq'))", r"function nextval\(\)"),
    ("SELECT *, NEXTVAL('seq') AS n FROM ann", r"function nextval\(\)"),
    ('SELECT *, "nextval"(\'seq\') AS n FROM ann', r"function nextval\(\)"),
    ("SELECT *, system.main.nextval('seq') AS n FROM ann", r"function nextval\(\)"),
    ("SELECT * FROM ann ORDER BY nextval('seq')", r"function nextval\(\)"),
    ("SELECT list_transform([1, 2], x -> nextval('seq')) AS item", r"function nextval\(\)"),
    ("SELECT CASE WHEN true THEN nextval('seq') END AS item", r"function nextval\(\)"),
    ("SELECT setseed(0.5) AS item", r"function setseed\(\)"),
    ("SELECT write_log('hello') AS item", r"function write_log\(\)"),
    ("*SELECT bump() AS item", r"function nextval\(\) in the macro bump"),
    ("*SELECT * FROM bump_rows()", r"function nextval\(\) in the macro bump_rows"),
    ("*SELECT * FROM on_bumped", r"function nextval\(\) in the view bumped"),
    # table functions that run SQL or change the database
    ("SELECT * FROM query('DELETE FROM ann RETURNING *')", r"table function query\(\)"),
    ("SELECT * FROM json_execute_serialized_sql(json_serialize_sql('SELECT 1'))",
     r"json_execute_serialized_sql\(\)"),
    ("SELECT * FROM checkpoint()", r"table function checkpoint\(\)"),
    ("SELECT * FROM ann, force_checkpoint()", r"table function force_checkpoint\(\)"),
    ("SELECT * FROM enable_logging()", r"table function enable_logging\(\)"),
    ("SELECT * FROM truncate_duckdb_logs()", r"table function truncate_duckdb_logs\(\)"),
    ("SELECT * FROM create_external_resource('x')",
     r"table function create_external_resource\(\)"),
    # URLs: refused by name, before DuckDB loads (or downloads) httpfs
    (f"SELECT * FROM read_csv('{URL}')", re.escape(f"URL '{URL}'")),
    ("SELECT * FROM read_parquet('s3://bucket/ann.parquet')", "URL 's3://bucket/ann.parquet'"),
    ("FROM 'https://example.com/ann.parquet'", "URL 'https://example.com/ann.parquet'"),
    ("SELECT * FROM read_json(['{out}', 'http://example.com/b.json'])",
     "URL 'http://example.com/b.json'"),
    ("SELECT * FROM ann WHERE item IN (SELECT item FROM 'hf://datasets/a/b.csv')",
     "URL 'hf://datasets/a/b.csv'"),
    (f"DESCRIBE '{URL}'", re.escape(f"URL '{URL}'")),
    # statements that are not one SELECT
    ("COPY ann TO '{out}'", ONE),
    ("COPY (SELECT * FROM ann) TO '{out}'", ONE),
    ("ATTACH '{other}' AS other", ONE),
    ("DETACH other", ONE),
    ("INSTALL httpfs", ONE),
    ("LOAD httpfs", ONE),
    ("PRAGMA enable_profiling", ONE),
    ("SET GLOBAL autoinstall_known_extensions = true", ONE),
    ("CALL checkpoint()", ONE),
    ("CREATE TABLE b AS SELECT 1 AS item", ONE),
    ("DROP TABLE ann", ONE),
    ("DELETE FROM ann", ONE),
    ("SELECT * FROM ann; DELETE FROM ann", ONE),
    ("SELECT * FROM ann /* ; */; DROP TABLE ann", ONE),
    ("SELECT * FROM ann -- a comment\n; UPDATE ann SET joy = 0", ONE),
    ("EXPORT DATABASE '{dir}'", ONE),
]
NEEDS_DB = {sql for sql, _ in HOSTILE if sql.startswith("*")}


def _sql(sql: str, tmp: Path) -> str:
    return sql.removeprefix("*").format(out=tmp / "out.csv", other=tmp / "other.duckdb",
                                        dir=tmp / "exported")


def _make_db(path: Path | None = None) -> Any:
    con = duckdb.connect(str(path)) if path is not None else duckdb.connect()
    for statement in SETUP:
        con.execute(statement)
    return con


def _state(con: Any) -> tuple[Any, ...]:
    """The table, the sequence, the settings and the catalog of a connection."""
    return (con.execute("SELECT * FROM ann ORDER BY ALL").fetchall(),
            con.execute("SELECT last_value FROM duckdb_sequences()").fetchall(),
            con.execute("SELECT name, value FROM duckdb_settings() ORDER BY name").fetchall(),
            con.execute("SELECT table_name FROM duckdb_tables() ORDER BY ALL").fetchall(),
            con.execute("SELECT database_name FROM duckdb_databases() ORDER BY ALL").fetchall())


def _files(root: Path) -> dict[str, tuple[int, int]]:
    """Every file under ``root`` with its size and time of change (a database file too)."""
    return {str(p.relative_to(root)): (p.stat().st_size, p.stat().st_mtime_ns)
            for p in root.rglob("*")}


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home directory of our own, seen by DuckDB (its extensions would land there)."""
    home = tmp_path / "home"
    home.mkdir()
    (home / "marker.txt").write_text("")
    monkeypatch.setenv("HOME", str(home))
    found = duckdb.connect().execute("SELECT file FROM glob('~/marker.txt')").fetchall()
    assert found == [(str(home / "marker.txt"),)]
    return home


def test_hostile_statements_are_refused_everywhere(tmp_path: Path, home: Path) -> None:
    assert len(HOSTILE) >= 53
    work = tmp_path / "work"
    work.mkdir()
    path_db, caller_db = tmp_path / "by_path.duckdb", tmp_path / "caller.duckdb"
    _make_db(path_db).close()
    callers = {"caller's file": _make_db(caller_db), "caller's memory": _make_db()}
    extensions = duckdb.connect().execute(
        "SELECT extension_name FROM duckdb_extensions() WHERE installed").fetchall()
    states = {kind: _state(con) for kind, con in callers.items()}
    assert states["caller's file"][0] == ROWS
    files = _files(tmp_path)
    for raw, named in HOSTILE:
        sql = _sql(raw, work)
        targets: dict[str, Any] = {"path": str(path_db), ":memory:": ":memory:", **callers}
        for kind, con in targets.items():
            with pytest.raises(InputError) as caught:
                from_duckdb(con, sql)
            message = str(caught.value)
            if kind == ":memory:" and raw in NEEDS_DB:
                assert message.startswith("from_duckdb: "), (kind, sql, message)
            else:
                assert re.search(REFUSED, message), (kind, sql, message)
                assert re.search(named, message), (kind, sql, message)
                assert "the query failed" not in message and "IO Error" not in message
            if kind in callers:
                assert _state(con) == states[kind], (kind, sql)
            assert _files(tmp_path) == files, (kind, sql)  # by_path.duckdb unchanged too
    memory = callers["caller's memory"]
    assert memory.execute("SELECT nextval('seq')").fetchall() == [(1,)]
    for con in callers.values():
        con.close()
    for path in (path_db, caller_db):
        with duckdb.connect(str(path)) as con:
            assert con.execute("SELECT * FROM ann ORDER BY ALL").fetchall() == ROWS
            assert con.execute("SELECT nextval('seq')").fetchall() == [(1,)]
    assert duckdb.connect().execute(
        "SELECT extension_name FROM duckdb_extensions() WHERE installed").fetchall() \
        == extensions
    assert set(_files(home)) == {"marker.txt"}


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    frame = pd.DataFrame(ROWS, columns=["item", "rater", "joy"])
    frame.to_parquet(tmp_path / "ann.parquet")
    frame.to_csv(tmp_path / "ann.csv", index=False)
    return {"parquet": tmp_path / "ann.parquet", "csv": tmp_path / "ann.csv"}


# (query, params); {parquet} and {csv} are files holding the table ann.
LEGIT: list[tuple[str, Any]] = [
    ("SELECT * FROM ann", None),
    ("FROM ann", None),
    ("WITH t AS (SELECT * FROM ann WHERE joy = 1) SELECT * FROM t", None),
    ("WITH RECURSIVE r(item) AS (SELECT 1 UNION ALL SELECT item + 1 FROM r WHERE item < 3) "
     "SELECT item FROM r", None),
    ("SELECT * FROM ann UNION ALL SELECT * FROM ann ORDER BY ALL", None),
    ("SELECT * FROM ann EXCEPT SELECT * FROM ann WHERE joy = 0 ORDER BY ALL", None),
    ("PIVOT ann ON rater IN ('x', 'y') USING sum(joy) GROUP BY item ORDER BY item", None),
    ("UNPIVOT (SELECT 1 AS item, 2 AS x, 3 AS y) ON x, y INTO NAME rater VALUE joy", None),
    ("SELECT *, row_number() OVER (PARTITION BY item ORDER BY rater) AS rn FROM ann "
     "QUALIFY rn = 1 ORDER BY item", None),
    ("FROM (VALUES (1, 'x', 1), (2, 'y', 0)) v(item, rater, joy)", None),
    ("SELECT * FROM ann WHERE item IN (SELECT item FROM ann WHERE joy = 0) ORDER BY ALL", None),
    ("SELECT a.*, l.k FROM ann a, LATERAL (SELECT a.item * 10 AS k) l ORDER BY ALL", None),
    ("SELECT * FROM read_parquet('{parquet}') ORDER BY ALL", None),
    ("FROM '{parquet}' ORDER BY ALL", None),
    ("SELECT * FROM read_csv('{csv}') WHERE rater = ? ORDER BY ALL", ["x"]),
    ("SELECT * FROM ann WHERE item = $item AND rater = $rater", {"item": 2, "rater": "y"}),
    ("SELECT * FROM ann, range(2) r(k) ORDER BY ALL", None),
    ("SELECT * FROM rows_of(2) ORDER BY ALL", None),
    ("SELECT * FROM ones ORDER BY ALL", None),
]


@pytest.mark.parametrize("kind", ["path", "caller"])
def test_legitimate_reads_return_what_duckdb_returns(tmp_path: Path, files: dict[str, Path],
                                                     kind: str) -> None:
    path = tmp_path / "a.duckdb"
    _make_db(path).close()
    oracle = duckdb.connect(str(path), read_only=True)
    con = _make_db() if kind == "caller" else str(path)
    for query, params in LEGIT:
        sql = query.format(**files)
        expected = oracle.execute(sql, params).df()
        got = from_duckdb(con, sql, params)
        pd.testing.assert_frame_equal(got, expected)
        assert len(got) > 0
    settings = ("SELECT current_setting('autoinstall_known_extensions'), "
                "current_setting('autoload_known_extensions')")
    # the file is open here with other settings: from_duckdb turned them off and back on
    assert oracle.execute(settings).fetchall() == [(True, True)]
    oracle.close()
    pivot = from_duckdb(con, LEGIT[6][0])
    assert pivot.to_dict("list") == {"item": [1, 2], "x": [1, 1], "y": [0, 1]}
    named = from_duckdb(con, LEGIT[15][0], LEGIT[15][1])
    assert named.values.tolist() == [[2, "y", 1]]


def test_files_in_memory_are_read(files: dict[str, Path]) -> None:
    df = from_duckdb(":memory:", f"SELECT * FROM read_csv('{files['csv']}') ORDER BY ALL")
    assert df.values.tolist() == [list(row) for row in ROWS]


def test_temp_tables_read_and_the_caller_transaction_kept() -> None:
    con = _make_db()
    con.execute("CREATE TEMP TABLE tmp AS SELECT 7 AS item, 'z' AS rater, 1 AS joy")
    assert from_duckdb(con, "SELECT * FROM tmp").values.tolist() == [[7, "z", 1]]
    con.execute("BEGIN TRANSACTION")  # the caller's own: the query runs inside it
    con.execute("INSERT INTO ann VALUES (3, 'x', 0)")
    assert len(from_duckdb(con, "SELECT * FROM ann")) == 5
    with pytest.raises(InputError, match="refused a DELETE"):
        from_duckdb(con, "WITH x AS (DELETE FROM ann RETURNING *) SELECT * FROM x")
    con.execute("COMMIT")
    assert con.execute("SELECT count(*) FROM ann").fetchall() == [(5,)]
    con.execute("BEGIN TRANSACTION")  # a failing query aborts it, the settings come back
    with pytest.raises(InputError, match=r"the query failed: .*missing"):
        from_duckdb(con, "SELECT * FROM missing")
    con.execute("ROLLBACK")
    assert con.execute("SELECT current_setting('autoinstall_known_extensions'), "
                       "current_setting('autoload_known_extensions')").fetchall() == [
        (True, True)]


def test_extension_settings_off_while_the_query_runs_then_restored() -> None:
    con = _make_db()
    query = ("SELECT current_setting('autoinstall_known_extensions') AS item, "
             "current_setting('autoload_known_extensions') AS rater")
    for before in (True, False):
        con.execute(f"SET GLOBAL autoinstall_known_extensions = {before}")
        assert from_duckdb(con, query).values.tolist() == [[False, False]]
        assert con.execute("SELECT current_setting('autoinstall_known_extensions'), "
                           "current_setting('autoload_known_extensions')").fetchall() == [
            (before, True)]
    with pytest.raises(InputError, match="the query failed"):  # restored after a failure
        from_duckdb(con, "SELECT * FROM missing")
    assert con.execute("SELECT current_setting('autoload_known_extensions')").fetchall() == [
        (True,)]
    locked = _make_db()
    locked.execute("SET lock_configuration = true")  # settings fixed: the check still refuses
    assert len(from_duckdb(locked, "SELECT * FROM ann")) == 4
    with pytest.raises(InputError, match=r"function nextval\(\)"):
        from_duckdb(locked, "SELECT nextval('seq') AS item")
    assert locked.execute("SELECT nextval('seq')").fetchall() == [(1,)]


def test_what_the_check_misses_is_rolled_back(monkeypatch: pytest.MonkeyPatch) -> None:
    """The transaction around the query, seen with the check switched off."""
    monkeypatch.setattr(sql_module, "check_syntax", lambda *args: None)
    monkeypatch.setattr(sql_module, "check_catalog", lambda *args: None)
    con = _make_db()
    deleted = from_duckdb(con, "WITH x AS (DELETE FROM ann RETURNING *) SELECT * FROM x")
    assert len(deleted) == 4  # the frame was read before the rollback
    assert con.execute("SELECT * FROM ann ORDER BY ALL").fetchall() == ROWS


def test_databases_it_opens_have_no_extension_autoloading(tmp_path: Path) -> None:
    query = ("SELECT current_setting('autoinstall_known_extensions') AS item, "
             "current_setting('autoload_known_extensions') AS rater")
    path = tmp_path / "a.duckdb"
    _make_db(path).close()
    for target in (str(path), ":memory:"):
        assert from_duckdb(target, query).values.tolist() == [[False, False]]


def test_a_url_the_check_cannot_see_is_stopped_by_the_settings(tmp_path: Path,
                                                               home: Path) -> None:
    """Defence in depth: a URL put together by the query (no ``://`` in any string of it)
    passes the check, and then fails as httpfs is neither loaded nor installed, instead of
    being downloaded and installed under the home directory."""
    path = tmp_path / "a.duckdb"
    _make_db(path).close()
    caller = _make_db()
    query = "SELECT * FROM read_csv(concat('https:/', '/example.com/ann.csv'))"
    for con in (str(path), ":memory:", caller):
        with pytest.raises(InputError, match=r"the query failed: .*requires the extension "
                                             r"httpfs to be loaded"):
            from_duckdb(con, query)
    assert caller.execute("SELECT current_setting('autoinstall_known_extensions'), "
                          "current_setting('autoload_known_extensions')").fetchall() == [
        (True, True)]
    assert set(_files(home)) == {"marker.txt"}
