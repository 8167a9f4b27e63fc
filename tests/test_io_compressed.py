"""Issue 25, files and databases: compressed inputs, file names, repeated headers, DuckDB.

Every compression (gzip, bz2, xz, zip, zstd) reads to the same frame as the plain file,
for the table files of ``read_annotations`` and for the platform readers; a truncated or
corrupt file is an InputError naming it. ``from_duckdb`` runs exactly one SELECT.
"""

from __future__ import annotations

import gzip
import io
import json
import sqlite3
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from xrr_accessor.cli import main
from xrr_accessor.errors import InputError
from xrr_accessor.io import (
    from_duckdb,
    read_annotations,
    read_doccano,
    read_label_studio,
    read_mturk,
    read_prodigy,
    read_toloka,
)

duckdb = pytest.importorskip("duckdb")
pa = pytest.importorskip("pyarrow")

from fuzzing import COMPRESS, _zip, _zstd  # noqa: E402  (one set of compressors)

CSV = b"item,rater,joy\n001,a,1\n001,b,1\n002,a,0\n002,b,1\n003,a,2\n003,b,2\n"
TABLES = {".csv": CSV, ".tsv": CSV.replace(b",", b"\t"),
          ".jsonl": b"".join(json.dumps(r).encode() + b"\n" for r in pd.read_csv(
              io.BytesIO(CSV), dtype={"item": str}).to_dict("records"))}


@pytest.mark.parametrize("suffix", COMPRESS)
@pytest.mark.parametrize("fmt", TABLES)
def test_compressed_tables_read_as_the_plain_file(tmp_path: Path, fmt: str, suffix: str) -> None:
    plain = tmp_path / f"a{fmt}"
    plain.write_bytes(TABLES[fmt])
    packed = tmp_path / f"b{fmt}{suffix}"
    packed.write_bytes(COMPRESS[suffix](TABLES[fmt]))
    expected = read_annotations(plain, file_column="file")
    got = read_annotations(packed, file_column="file")
    assert got["file"].unique().tolist() == ["b"]
    pd.testing.assert_frame_equal(got.drop(columns="file"), expected.drop(columns="file"))
    assert got["item"].tolist()[:2] == ["001", "001"]  # ids kept as text
    lazy = read_annotations(packed, file_column="file", lazy=True).compute()
    pd.testing.assert_frame_equal(lazy.reset_index(drop=True), got, check_dtype=False)


@pytest.mark.parametrize("suffix", COMPRESS)
def test_truncated_or_corrupt_files_name_the_file(tmp_path: Path, suffix: str) -> None:
    data = COMPRESS[suffix](CSV * 50)
    for name, broken in [(f"cut.csv{suffix}", data[: len(data) // 2]),
                         (f"bad.csv{suffix}", data[:12] + b"\x00" * (len(data) - 12))]:
        path = tmp_path / name
        path.write_bytes(broken)
        with pytest.raises(InputError, match=rf"{name}"):
            read_annotations(path)
        with pytest.raises(InputError, match=rf"{name}"):
            read_mturk(path)


def test_zip_with_damaged_flags_or_several_files(tmp_path: Path) -> None:
    data = bytearray(_zip(CSV))
    central = data.index(b"PK\x01\x02")
    data[6] |= 1  # "encrypted" in the local header and the central directory
    data[central + 8] |= 1
    path = tmp_path / "locked.csv.zip"
    path.write_bytes(bytes(data))
    with pytest.raises(InputError, match=r"locked.csv.zip is a zip file that cannot be "
                                         r"decompressed .*encrypted"):
        read_annotations(path)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as archive:
        archive.writestr("a.csv", CSV)
        archive.writestr("b.csv", CSV)
    path.write_bytes(buf.getvalue())
    with pytest.raises(InputError, match=r"locked.csv.zip holds 2 files \(a.csv, b.csv\)"):
        read_mturk(path)


def test_a_name_promising_a_compression_the_bytes_lack(tmp_path: Path) -> None:
    path = tmp_path / "plain.csv.gz"
    path.write_bytes(CSV)
    with pytest.raises(InputError, match=r"plain.csv.gz ends in '.gz' but is not a gzip file"):
        read_annotations(path)


def test_cli_truncated_gzip_is_one_error_line(tmp_path: Path, capsys: Any) -> None:
    path = tmp_path / "cut.csv.gz"
    path.write_bytes(gzip.compress(CSV * 50)[:40])
    assert main(["summary", str(path)]) == 2
    err = capsys.readouterr().err
    assert "cut.csv.gz" in err and "Traceback" not in err


LS = json.dumps([{"id": i, "annotations": [
    {"completed_by": r, "result": [{"from_name": "q", "type": "choices",
                                    "value": {"choices": [c]}}]}
    for r, c in ((1, "A"), (2, "A" if i % 2 else "B"))]} for i in range(4)]).encode()
PRODIGY = b"".join(json.dumps({"_input_hash": i, "_annotator_id": r, "answer": "accept",
                               "label": "X"}).encode() + b"\n"
                   for i in range(3) for r in "ab")
DOCCANO = b"".join(json.dumps({"id": i, "label": ["x" if i else "y"]}).encode() + b"\n"
                   for i in range(3))
MTURK = b"HITId,WorkerId,Answer.q\nH1,W1,a\nH1,W2,b\nH2,W1,a\n"
TOLOKA = b"INPUT:x\tOUTPUT:q\tASSIGNMENT:worker_id\n1\ta\tw1\n1\tb\tw2\n"
PLATFORMS: list[tuple[Callable[..., pd.DataFrame], bytes, str, dict[str, Any]]] = [
    (read_label_studio, LS, "export.json", {}),
    (read_prodigy, PRODIGY, "db.jsonl", {}),
    (read_doccano, DOCCANO, "ann.jsonl", {"rater": "ann"}),
    (read_mturk, MTURK, "batch.csv", {}),
    (read_toloka, TOLOKA, "pool.tsv", {}),
]


@pytest.mark.parametrize("suffix", [s for s in COMPRESS if s != ".zip"] + [".zip"])
@pytest.mark.parametrize("reader,data,name,kw", PLATFORMS,
                         ids=[r.__name__ for r, *_ in PLATFORMS])
def test_platform_readers_read_every_compression(
        tmp_path: Path, reader: Any, data: bytes, name: str, kw: dict[str, Any],
        suffix: str) -> None:
    plain = tmp_path / name
    plain.write_bytes(data)
    packed = tmp_path / f"{name}{suffix}"
    expected = reader(plain, **kw)
    if reader is read_doccano and suffix == ".zip":  # a doccano zip: one file per user
        packed.write_bytes(_zip(data, "ann.jsonl"))
        kw = {}
    else:
        packed.write_bytes(COMPRESS[suffix](data))
    pd.testing.assert_frame_equal(reader(packed, **kw), expected)
    with open(packed, "rb") as fh:  # an open binary file: recognised by its bytes
        pd.testing.assert_frame_equal(reader(fh, **kw), expected)
    packed.write_bytes(COMPRESS[suffix](data)[:30])
    with pytest.raises(InputError, match=packed.name):
        reader(packed, **kw)


def test_zstd_without_pyarrow_names_the_extra(tmp_path: Path, monkeypatch: Any) -> None:
    path = tmp_path / "a.csv.zst"
    path.write_bytes(_zstd(CSV))
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    with pytest.raises(ImportError, match=r"xrr_accessor\[io\]"):
        read_annotations(path)


def test_file_column_keeps_the_whole_name(tmp_path: Path) -> None:
    (tmp_path / "crowd.v1.csv").write_bytes(CSV)
    (tmp_path / "crowd.v2.csv.gz").write_bytes(gzip.compress(CSV))
    (tmp_path / "crowd.v3.data").write_bytes(CSV)
    df = read_annotations(tmp_path / "crowd.*", file_column="replication")
    assert sorted(df["replication"].unique()) == ["crowd.v1", "crowd.v2", "crowd.v3.data"]
    cross = df.xrr(rater="rater", replication="replication").cross_kappa()
    assert cross.shape[0] == 1  # three replications kept apart, one label


def test_repeated_csv_header_names_column_and_file(tmp_path: Path) -> None:
    path = tmp_path / "twice.csv"
    path.write_text("item,rater,joy,joy\n1,a,1,0\n")
    with pytest.raises(InputError, match=r"twice.csv: column 'joy' appears twice"):
        read_annotations(path)
    path.write_text("item,rater,joy,joy.1\n1,a,1,0\n")  # two names, both kept
    assert read_annotations(path).columns.tolist() == ["item", "rater", "joy", "joy.1"]


# ---- from_duckdb ------------------------------------------------------------------------

@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "a.duckdb"
    con = duckdb.connect(str(path))
    con.execute("create table a as select * from (values (1, 'x', 1), (1, 'y', 1), "
                "(2, 'x', 0), (2, 'y', 1)) t(item, rater, joy)")
    con.close()
    return path


@pytest.mark.parametrize("query", [
    "COPY (SELECT 1 AS item) TO '{out}'; SELECT 1 AS item",
    "COPY (SELECT 1 AS item) TO '{out}'",
    "SELECT 1 AS item; SELECT 2 AS item",
    "ATTACH '{out}' AS other",
    "PRAGMA version",
    "CREATE TABLE b AS SELECT 1 AS item",
    "EXPLAIN SELECT 1 AS item",
    "SET threads = 1",
    "",
])
def test_from_duckdb_runs_only_one_select(tmp_path: Path, db: Path, query: str) -> None:
    out = tmp_path / "written.csv"
    sql = query.format(out=out)
    for con in (str(db), ":memory:", duckdb.connect()):
        with pytest.raises(InputError, match=r"from_duckdb: .*(exactly one SELECT|query=)"):
            from_duckdb(con, sql)
        assert not out.exists()


def test_from_duckdb_select_forms_accepted(db: Path) -> None:
    expected = from_duckdb(db, "select * from a")
    for query in ["with t as (select * from a) select * from t", "from a", "select * from a;"]:
        pd.testing.assert_frame_equal(from_duckdb(db, query), expected)
    assert expected.shape == (4, 3)


def test_from_duckdb_opens_files_read_only(db: Path, monkeypatch: Any) -> None:
    opened: list[dict[str, Any]] = []
    connect = duckdb.connect

    def spy(*args: Any, **kwargs: Any) -> Any:
        opened.append(kwargs)
        return connect(*args, **kwargs)

    from_duckdb(db, "select * from a")  # opens the parser's database (once a process)
    monkeypatch.setattr(duckdb, "connect", spy)
    assert len(from_duckdb(db, "select * from a")) == 4
    quiet = {"autoinstall_known_extensions": False, "autoload_known_extensions": False}
    assert opened == [{"read_only": True, "config": quiet}]  # no extension download (issue 36)


def test_from_duckdb_bad_connections(tmp_path: Path, db: Path) -> None:
    text = tmp_path / "not.duckdb"
    text.write_text("hello")
    with pytest.raises(InputError, match=r"cannot open .*not.duckdb.* read-only"):
        from_duckdb(text, "select 1 as item")
    with pytest.raises(InputError, match=r"type Connection.*duckdb connection"):
        from_duckdb(sqlite3.connect(":memory:"), "select 1 as item")
    with pytest.raises(InputError, match=r"query=None"):
        from_duckdb(db, None)  # type: ignore[arg-type]


def test_from_duckdb_locked_database(db: Path) -> None:
    import subprocess

    holder = subprocess.Popen(
        [sys.executable, "-c", "import duckdb, sys; c = duckdb.connect(sys.argv[1]); "
         "print('open', flush=True); sys.stdin.read()", str(db)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "open"
        with pytest.raises(InputError, match=r"cannot open .*a.duckdb.* read-only"):
            from_duckdb(db, "select * from a")
    finally:
        holder.communicate("")


def test_lazy_refuses_files_with_other_columns(tmp_path: Path) -> None:
    """Eager refuses them; lazily dask filled the gaps with NaN (found by the fuzz suite)."""
    (tmp_path / "a.csv").write_text("item,rater,joy\n1,a,1\n1,b,0\n")
    (tmp_path / "b.csv").write_text("item,rater,awe\n2,a,1\n2,b,0\n")
    with pytest.raises(InputError, match=r"b.csv has other columns than a.csv"):
        read_annotations(tmp_path)
    ddf = read_annotations(tmp_path, lazy=True)
    with pytest.raises(InputError, match=r"b.csv has other columns than a.csv \(only in "
                                         r"b.csv: awe; only in a.csv: joy\)"):
        ddf.compute()
