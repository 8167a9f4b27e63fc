"""Annotation tables from files and DuckDB: ``read_annotations``, ``read_file``,
``from_duckdb``. Every round trip compares coefficients with those of the frame
the files were written from."""

from __future__ import annotations

import gzip
import json
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import xrr_accessor  # noqa: F401  (registers .xrr)
from xrr_accessor.datasets import simulate
from xrr_accessor.errors import InputError
from xrr_accessor.io import from_duckdb, read_annotations, read_file

duckdb = pytest.importorskip("duckdb")


@pytest.fixture(scope="module")
def annotations() -> pd.DataFrame:
    """Long annotations of two pools, with missing annotations."""
    df = simulate(n_items=120, labels=["joy", "awe"], pools=["crowd", "experts"], seed=11)
    df = df.rename(columns={"item_id": "item", "pool": "replication"})
    keep = np.random.default_rng(0).random(len(df)) > 0.1  # some annotations missing
    return df[keep].reset_index(drop=True)


def _numbers(df: pd.DataFrame) -> np.ndarray:
    """IRR of each replication and kappa_x of the pair, for every label."""
    irr = df.xrr.irr().to_numpy(dtype=float).ravel()
    kx = df.xrr.cross_kappa().to_numpy(dtype=float).ravel()
    return np.concatenate([irr, kx])


def _same(read: pd.DataFrame, original: pd.DataFrame) -> None:
    np.testing.assert_allclose(_numbers(read), _numbers(original), rtol=0, atol=1e-12)


@pytest.mark.parametrize("name", ["a.csv", "a.tsv", "a.csv.gz", "a.parquet", "a.jsonl",
                                  "a.ndjson.gz", "a.txt"])
def test_each_format_round_trips(annotations, tmp_path, name):
    path = tmp_path / name
    fmt = name.split(".")[1]
    if fmt in ("csv", "txt"):
        annotations.to_csv(path, index=False, sep=";" if fmt == "txt" else ",")
    elif fmt == "tsv":
        annotations.to_csv(path, index=False, sep="\t")
    elif fmt == "parquet":
        annotations.to_parquet(path)
    else:
        annotations.to_json(path, orient="records", lines=True)
    df = read_annotations(path, item="item", rater="rater")
    assert df.attrs["files"] == [str(path)]
    assert len(df) == len(annotations)
    _same(df, annotations)


def test_glob_with_file_column_makes_replications(annotations, tmp_path):
    for name, part in annotations.groupby("replication"):
        part.drop(columns="replication").to_parquet(tmp_path / f"{name}.parquet")
    (tmp_path / "notes.md").write_text("not read: not an annotation file")
    df = read_annotations(tmp_path / "*.parquet", file_column="replication")
    assert sorted(df["replication"].unique()) == ["crowd", "experts"]
    assert [Path(f).name for f in df.attrs["files"]] == ["crowd.parquet", "experts.parquet"]
    _same(df, annotations)


def test_directory_reads_hive_partitions(annotations, tmp_path):
    for name, part in annotations.groupby("replication"):
        part = part.drop(columns="replication").reset_index(drop=True)
        for k, start in enumerate(range(0, len(part), 40)):
            chunk = part.iloc[start:start + 40]
            folder = tmp_path / f"replication={name}"
            folder.mkdir(exist_ok=True)
            chunk.to_parquet(folder / f"part-{k}.parquet")
    df = read_annotations(tmp_path)
    assert len(df.attrs["files"]) > 4
    assert len(df) == len(annotations)
    _same(df, annotations)


def test_files_with_other_columns_are_refused(annotations, tmp_path):
    annotations.to_csv(tmp_path / "a.csv", index=False)
    annotations.rename(columns={"joy": "happiness"}).to_csv(tmp_path / "b.csv", index=False)
    with pytest.raises(InputError, match=r"only in b.csv: happiness; only in a.csv: joy"):
        read_annotations(tmp_path / "*.csv")


def test_parquet_without_the_role_columns(annotations, tmp_path):
    path = tmp_path / "a.parquet"
    annotations.rename(columns={"item": "tweet", "rater": "who"}).to_parquet(path)
    with pytest.raises(InputError, match=r"a.parquet has no column 'worker' \(given as "
                                         r"rater=\).*'tweet', 'replication', 'who'.*Pass "
                                         r"the right name as rater="):
        read_annotations(path, item="tweet", rater="worker")
    with pytest.raises(InputError, match=r"no item column.*'tweet'.*item='<column>'"):
        read_annotations(path)
    assert len(read_annotations(path, item="tweet", rater="who")) == len(annotations)


def test_jsonl_errors_name_the_line(tmp_path):
    path = tmp_path / "a.jsonl"
    path.write_text('{"item": 1, "rater": "a", "joy": 1}\n\n{"item": 1, "rater": "b", joy}\n')
    with pytest.raises(InputError, match=r"line 3 of a.jsonl"):
        read_annotations(path)
    path.write_text('{"item": 1, "rater": "a", "joy": 1}\n[1, "b", 0]\n')
    with pytest.raises(InputError, match=r"line 2 of a.jsonl is a JSON list, not an object"):
        read_annotations(path)


def test_nothing_to_read(tmp_path):
    with pytest.raises(InputError, match="no such file or directory"):
        read_annotations(tmp_path / "missing.csv")
    with pytest.raises(InputError, match="matches no file"):
        read_annotations(tmp_path / "*.parquet")
    with pytest.raises(InputError, match="no annotation files"):
        read_annotations(tmp_path)
    (tmp_path / "empty.csv").write_text("item,rater,joy\n")
    with pytest.raises(InputError, match="holds no annotations"):
        read_annotations(tmp_path / "empty.csv")
    (tmp_path / "blank.csv").write_text("")
    with pytest.raises(InputError, match="is empty"):
        read_file(tmp_path / "blank.csv")
    with pytest.raises(InputError, match="format='xlsx'"):
        read_file(tmp_path / "empty.csv", format="xlsx")


def test_a_bad_file_in_a_glob_fails_the_whole_read(annotations, tmp_path):
    annotations.to_json(tmp_path / "a.jsonl", orient="records", lines=True)
    text = (tmp_path / "a.jsonl").read_text().splitlines()
    (tmp_path / "b.jsonl").write_text("\n".join([*text[:5], "{broken", *text[5:]]) + "\n")
    with pytest.raises(InputError, match=r"line 6 of b\.jsonl"):
        read_annotations(tmp_path / "*.jsonl")


def test_one_column_read_points_to_sep(tmp_path):
    path = tmp_path / "a.csv"
    path.write_text("item;rater;joy\n1;a;1\n1;b;0\n")
    assert read_file(path).shape == (2, 3)  # sniffed
    with pytest.raises(InputError, match=r"read as one column.*sep="):
        read_file(path, sep=",")


def test_compressed_jsonl(tmp_path):
    rows = [{"item": i, "rater": r, "joy": (i + len(r)) % 2} for i in range(4) for r in "ab"]
    with gzip.open(tmp_path / "a.jsonl.gz", "wt") as fh:
        fh.write("\n".join(json.dumps(r) for r in rows))
    pd.testing.assert_frame_equal(read_file(tmp_path / "a.jsonl.gz"), pd.DataFrame(rows))


def test_missing_extras_are_named(annotations, tmp_path, monkeypatch):
    path = tmp_path / "a.parquet"
    annotations.to_parquet(path)
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    with pytest.raises(ImportError, match=r"pip install 'xrr_accessor\[io\]'"):
        read_annotations(path)
    monkeypatch.setitem(sys.modules, "duckdb", None)
    with pytest.raises(ImportError, match=r"from_duckdb needs duckdb.*xrr_accessor\[io\]"):
        from_duckdb(":memory:", "select 1")


def test_duckdb_table_gives_the_same_coefficients(annotations):
    con = duckdb.connect()
    con.register("frame", annotations)
    con.execute("create table annotations as select * from frame")
    con.unregister("frame")
    df = from_duckdb(con, "select * from annotations where replication in (?, ?)",
                     ["crowd", "experts"], item="item", rater="rater")
    assert len(df) == len(annotations)
    _same(df, annotations)
    one = from_duckdb(con, "select * from annotations where replication = $r",
                      {"r": "crowd"})
    np.testing.assert_allclose(
        one.xrr.irr().to_numpy(dtype=float),
        annotations[annotations["replication"] == "crowd"].xrr.irr().to_numpy(dtype=float),
        atol=1e-12)
    con.execute("select 1")  # a connection given stays open


def test_duckdb_file_and_parquet_through_sql(annotations, tmp_path):
    db = tmp_path / "w.duckdb"
    con = duckdb.connect(str(db))
    con.register("frame", annotations)
    con.execute("create table annotations as select * from frame")
    con.close()
    _same(from_duckdb(db, "select * from annotations"), annotations)
    duckdb.connect(str(db)).close()  # the read-only connection was closed: writable again
    annotations.to_parquet(tmp_path / "a.parquet")
    _same(from_duckdb(":memory:", f"select * from read_parquet('{tmp_path / 'a.parquet'}')"),
          annotations)


def test_duckdb_bad_queries(annotations, tmp_path):
    con = duckdb.connect()
    with pytest.raises(InputError, match=r"the query failed: .*nope.*\(query: select \* from "
                                         r"nope\)"):
        from_duckdb(con, "select *\n  from nope")
    con.execute("create table t as select 1 as item, 'a' as rater, 1 as joy")
    with pytest.raises(InputError, match="returned no rows"):
        from_duckdb(con, "select * from t where item > 1")
    with pytest.raises(InputError, match=r"no column 'worker' \(given as rater=\)"):
        from_duckdb(con, "select * from t", rater="worker")
    with pytest.raises(InputError, match="no database file"):
        from_duckdb(tmp_path / "missing.duckdb", "select 1")
    with pytest.raises(InputError, match="cannot query an object of type int"):
        from_duckdb(3, "select 1")


def test_columns_in_another_order_are_stacked(tmp_path):
    (tmp_path / "a.csv").write_text("item,rater,joy\n1,a,1\n1,b,1\n2,a,0\n2,b,0\n")
    (tmp_path / "b.csv").write_text("rater,joy,item\nx,1,1\ny,1,1\nx,0,2\ny,1,2\n")
    df = read_annotations(tmp_path, file_column="replication")
    assert df.columns.tolist() == ["item", "rater", "joy", "replication"]
    assert df[df["replication"] == "b"]["joy"].tolist() == [1, 1, 0, 1]
    assert df.xrr.cross_kappa().loc["joy"].round(3).tolist() == [0.5]


def test_ids_meet_across_file_formats(tmp_path):
    rows = [("00001", "a", 1), ("00001", "b", 1), ("00002", "a", 0), ("00002", "b", 0),
            ("00003", "a", 1), ("00003", "b", 0)]
    frame = pd.DataFrame(rows, columns=["item_id", "rater", "joy"])
    frame.to_csv(tmp_path / "crowd.csv", index=False)
    frame.assign(rater=frame["rater"].str.upper()).to_json(
        tmp_path / "experts.jsonl", orient="records", lines=True)
    df = read_annotations(tmp_path, file_column="replication")
    assert sorted(df["item_id"].unique()) == ["00001", "00002", "00003"]  # zeros kept
    numeric = frame.assign(item_id=frame["item_id"].astype(int))
    numeric.to_parquet(tmp_path / "experts.parquet")  # ids stored as numbers here
    (tmp_path / "experts.jsonl").unlink()
    df = read_annotations(tmp_path, file_column="replication")
    assert set(df["item_id"]) == {"1", "2", "3", "00001", "00002", "00003"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "00001" never meets "1": no shared items
        assert np.isnan(df.xrr.cross_kappa().loc["joy"].iloc[0])
    numeric.to_csv(tmp_path / "crowd.csv", index=False)  # 1, 2, 3 in both now
    df = read_annotations(tmp_path, file_column="replication")
    assert set(df["item_id"]) == {"1", "2", "3"}
    np.testing.assert_allclose(df.xrr.cross_kappa().loc["joy"].iloc[0],
                               numeric.assign(replication=["a"] * 6).pipe(
                                   lambda f: pd.concat([f, f.assign(replication="b")]))
                               .xrr.cross_kappa().loc["joy"].iloc[0])


def test_hive_folders_with_other_keys_are_named_by_relative_path(annotations, tmp_path):
    for key in ("pool", "group"):
        (tmp_path / f"{key}=x").mkdir()
        annotations.drop(columns="replication").to_parquet(tmp_path / f"{key}=x" / "p.parquet")
    with pytest.raises(InputError, match=r"pool=x/p.parquet has other columns than "
                                         r"group=x/p.parquet \(only in pool=x/p.parquet: pool"):
        read_annotations(tmp_path)


def test_duckdb_bad_params_are_named(annotations):
    con = duckdb.connect()
    con.execute("create table t as select 1 as item, 'a' as rater, 1 as joy")
    with pytest.raises(InputError, match="Fix the SQL or its params"):
        from_duckdb(con, "select * from t where item = ? and rater = ?", [1])
