"""The ``xrr`` command: demo, report/irr/cross-kappa on files, formats, one-line errors."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest

import xrr_accessor as xrr
from xrr_accessor.cli import main
from xrr_accessor.datasets import load_demo, load_snow2008


def _xrr(*args: str, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "xrr_accessor", *args], capture_output=True,
                          text=True, timeout=300, **kwargs)


def _one_line_error(proc: subprocess.CompletedProcess) -> str:
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("xrr: error:")
    return proc.stderr


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """The Snow et al. RTE task as a crowd CSV, an expert TSV, a ';' file and Parquet."""
    d = tmp_path_factory.mktemp("cli")
    snow = load_snow2008("rte")
    crowd = snow[snow["pool"] == "crowd"].drop(columns="pool").rename(
        columns={"rater": "worker"})
    expert = snow[snow["pool"] == "expert"].drop(columns="pool").rename(
        columns={"rater": "worker"})
    crowd.to_csv(d / "crowd.csv", index=False)
    expert.to_csv(d / "expert.tsv", sep="\t", index=False)
    crowd.to_csv(d / "crowd_semicolon.txt", sep=";", index=False)
    crowd.to_parquet(d / "crowd.parquet")
    demo = load_demo().iloc[:, :6].rename(columns={"pool": "city"})
    demo.to_csv(d / "demo.csv", index=False)
    return d, snow, demo


def test_demo_prints_table_5_layout(capsys):
    assert main(["demo", "--n-labels", "5"]) == 0
    out = capsys.readouterr().out
    for word in ("simulated", "IRR of each replication", "kappa_x", "normalized",
                 "Budapest x Kuala Lumpur", "amusement"):
        assert word in out
    df = load_demo().iloc[:, :8]
    assert f"{df.xrr.irr().loc['amusement', 'Budapest']:.3f}" in out  # the library's numbers
    assert main(["demo", "--n-labels", "2", "--irr", "cohen"]) == 0
    assert "(cohen, nominal)" in capsys.readouterr().out


@pytest.mark.parametrize("fmt", ["csv", "json", "markdown", "table"])
def test_report_formats_hold_the_report(files, fmt, capsys):
    d, _, demo = files
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xrr.errors.UndefinedWarning)
        expected = xrr.report(demo, replication="city").frame
    assert main(["report", str(d / "demo.csv"), "--replication", "city", "--format", fmt]) == 0
    out = capsys.readouterr().out
    if fmt == "csv":
        back = pd.read_csv(io.StringIO(out))
        pd.testing.assert_series_equal(back["estimate"], expected["estimate"])
        assert back["role"].tolist() == expected["statistic"].tolist()
        names = {"irr": "cohen", "kappa_x": "kappa_x", "normalized": "normalized_kappa_x"}
        assert back["statistic"].tolist() == expected["statistic"].map(names).tolist()
    elif fmt == "json":
        doc = json.loads(out)
        assert doc["attrs"]["irr"] == "cohen" and len(doc["records"]) == len(expected)
        got = [r["estimate"] for r in doc["records"]]
        want = expected["estimate"].where(expected["estimate"].notna(), None).tolist()
        assert got == pytest.approx(want, nan_ok=True)
    else:
        value = expected.loc[(expected["label"] == "anger")
                             & (expected["statistic"] == "normalized"), "estimate"].iloc[0]
        assert f"{value:.3f}" in out
        if fmt == "markdown":
            assert out.startswith("# xRR report: demo.csv\n")
            assert "| label | Budapest | Kuala Lumpur | Mexico City |" in out
        else:
            assert "normalized kappa_x" in out and "Items annotated by only one" in out


def test_two_files_are_two_replications_named_after_the_files(files, capsys):
    d, snow, _ = files
    args = ["report", str(d / "crowd.csv"), str(d / "expert.tsv"), "--rater", "worker",
            "--format", "csv"]
    assert main([*args, "--reference", "crowd"]) == 0
    out = pd.read_csv(io.StringIO(capsys.readouterr().out))
    norm = out[out["statistic"] == "normalized_kappa_x"].iloc[0]
    assert (norm["replication"], norm["replication_other"], norm["reference"]) == (
        "crowd", "expert", "crowd")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xrr.errors.UndefinedWarning)
        want = snow.xrr.report(reference="crowd").frame
    assert norm["estimate"] == pytest.approx(want["estimate"].iloc[-1], rel=1e-12)
    # the expert alone has no IRR: NaN, and a note on stderr says what to read instead
    assert main([*args, "--reference", "expert"]) == 0
    captured = capsys.readouterr()
    assert "--reference crowd" in captured.err and "reference=" not in captured.err


def test_delimiters_parquet_and_one_column_hint(files, capsys):
    d, _, _ = files
    outs = []
    for name in ("crowd.csv", "crowd_semicolon.txt", "crowd.parquet"):
        assert main(["irr", str(d / name), "--rater", "worker", "--format", "csv"]) == 0
        outs.append(capsys.readouterr().out)
    frames = [pd.read_csv(io.StringIO(o)) for o in outs]
    assert [f["replication"].tolist() for f in frames] == [  # each file names its pool
        ["crowd"], ["crowd_semicolon"], ["crowd"]]
    for f in frames[1:]:
        pd.testing.assert_frame_equal(f.drop(columns="replication"),
                                      frames[0].drop(columns="replication"))
    assert frames[0]["label"].tolist() == ["response"]  # one label still has its name
    assert main(["irr", str(d / "crowd_semicolon.txt"), "--sep", ","]) == 2
    assert "--sep" in capsys.readouterr().err


def test_parquet_without_pyarrow_names_the_extra(files, capsys, monkeypatch):
    d, _, _ = files
    monkeypatch.setitem(sys.modules, "pyarrow", None)  # import pyarrow now fails
    assert main(["irr", str(d / "crowd.parquet")]) == 2
    assert "xrr_accessor[io]" in capsys.readouterr().err


def test_labels_exclude_output_and_intervals(files, tmp_path, capsys):
    d, _, demo = files
    path = str(d / "demo.csv")
    assert main(["irr", path, "--replication", "city", "--labels", "anger,awe",
                 "--format", "csv"]) == 0
    assert sorted(pd.read_csv(io.StringIO(capsys.readouterr().out))["label"].unique()) == [
        "anger", "awe"]
    assert main(["irr", path, "--replication", "city", "--exclude", "amusement",
                 "--exclude", "anger", "--format", "csv"]) == 0
    assert pd.read_csv(io.StringIO(capsys.readouterr().out))["label"].unique().tolist() == [
        "awe"]
    target = tmp_path / "kx.json"
    assert main(["cross-kappa", path, "--replication", "city", "--labels", "awe", "--ci",
                 "0.9", "--n-boot", "200", "--seed", "3", "--format", "json",
                 "--output", str(target)]) == 0
    assert capsys.readouterr().out == ""
    doc = json.loads(target.read_text())
    assert doc["attrs"]["ci"] == 0.9 and len(doc["records"]) == 3
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xrr.errors.XRRWarning)
        want = demo.xrr(replication="city", labels=["awe"]).cross_kappa(
            ci=0.9, n_boot=200, seed=3)
    assert [r["lower"] for r in doc["records"]] == pytest.approx(want["lower"].tolist())


def test_messages_use_flags_not_python(files, capsys):
    d, _, _ = files
    crowd = str(d / "crowd.csv")
    cases = [
        (["irr", crowd, "--rater", "worker", "--metric", "cohen"], "--metric"),
        (["cross-kappa", crowd, "--rater", "worker"], "--replication"),
        (["irr", crowd, "--labels", "respons"], "--labels"),
        (["irr", crowd, "--replication", "city"], "'city'"),
        (["irr", crowd, "--exclude", "nope"], "--exclude nope"),
        (["irr", str(d / "missing.csv")], "no such file"),
        (["report", str(d / "demo.csv"), "--replication", "city", "--ci", "2"], "ci"),
        (["report", crowd, str(d / "expert.tsv"), "--exclude", "worker"], "--rater"),
        (["report", crowd, str(d / "demo.csv")], "only in"),
    ]
    for args, fix in cases:
        assert main(args) == 2, args
        err = capsys.readouterr().err
        assert err.startswith("xrr: error:") and err.count("\n") == 1, err
        assert fix in err, (args, err)
        for python in (".xrr(", "metric=", "other=", "[0]"):
            assert python not in err, (args, err)


def test_user_errors_are_one_line_exit_2_in_a_real_process(files):
    d, _, _ = files
    for args in (["demo", "--labels", "0"], ["demo", "--n-labels", "-1"],
                 ["report", str(d / "nope.csv")], ["report", str(d / "crowd.csv"),
                                                   "--replication", "nope"],
                 ["report"], ["irr", str(d / "crowd.csv"), "--format", "xml"]):
        _one_line_error(_xrr(*args))


def test_version_help_and_broken_pipe():
    assert _xrr("--version").stdout.strip() == f"xrr {xrr.__version__}"
    help_text = _xrr("report", "--help").stdout
    assert "examples:" in help_text and "--exclude" in help_text
    read, write = os.pipe()
    os.close(read)  # the reader is gone before the first line: `xrr demo | head -0`
    proc = subprocess.run([sys.executable, "-m", "xrr_accessor", "demo", "--n-labels", "1"],
                          stdout=write, stderr=subprocess.PIPE, text=True, timeout=300)
    os.close(write)
    assert proc.returncode == 141 and proc.stderr == ""


def test_two_files_that_cannot_be_two_replications(files, capsys):
    d, _, _ = files
    crowd = str(d / "crowd.csv")
    assert main(["report", crowd, crowd]) == 2
    assert "same file" in capsys.readouterr().err
    pooled = d / "snow_pooled.csv"  # item_id, pool, rater, response
    load_snow2008("rte").to_csv(pooled, index=False)
    plain = d / "snow_plain.csv"
    load_snow2008("rte").drop(columns="pool").to_csv(plain, index=False)
    assert main(["report", str(pooled), str(plain)]) == 2
    err = capsys.readouterr().err
    assert f"{pooled} has a replication column and {plain} has none" in err


def test_weights_flag_and_integer_pool_names(files, tmp_path, capsys):
    _, _, demo = files
    path = tmp_path / "intpool.csv"
    demo.assign(city=demo["city"].map({"Budapest": 1, "Kuala Lumpur": 2,
                                       "Mexico City": 3})).to_csv(path, index=False)
    assert main(["report", str(path), "--replication", "city", "--format", "csv"]) == 0
    text = capsys.readouterr().out
    assert ",kappa_x,1,2," in text and ".0," not in text  # pool 2, not 2.0
    assert main(["irr", str(path), "--replication", "city", "--metric", "gwet", "--weights",
                 "quadratic", "--format", "csv", "--labels", "anger"]) == 0
    got = pd.read_csv(io.StringIO(capsys.readouterr().out))
    want = demo.assign(city=demo["city"].map({"Budapest": 1, "Kuala Lumpur": 2,
                                              "Mexico City": 3})).xrr(
        replication="city", labels=["anger"]).irr(metric="gwet", weights="quadratic")
    assert got["estimate"].tolist() == pytest.approx(want.loc["anger"].tolist())


def test_directory_glob_and_file_column(files, tmp_path, capsys):
    d, _, _ = files
    snow = load_snow2008("rte")
    for pool, part in snow.groupby("pool"):
        folder = tmp_path / "hive" / f"pool={pool}"
        folder.mkdir(parents=True)
        part.drop(columns="pool").to_parquet(folder / "part-0.parquet")
        part.drop(columns="pool").to_csv(tmp_path / f"{pool}.csv", index=False)
    outs = []
    for args in (["report", str(d / "crowd.csv"), str(d / "expert.tsv")],
                 ["report", str(tmp_path / "hive"), "--replication", "pool"],
                 ["report", str(tmp_path / "*.csv"), "--file-column", "pool"]):
        assert main([*args, "--format", "csv"]) == 0
        outs.append(pd.read_csv(io.StringIO(capsys.readouterr().out)))
    for out in outs[1:]:
        np.testing.assert_allclose(out["estimate"], outs[0]["estimate"], atol=1e-12)
        assert (out["n_items"] == outs[0]["n_items"]).all()
    assert main(["report", str(tmp_path / "nothing*.csv")]) == 2
    assert "matches no file" in capsys.readouterr().err


def test_html_notes_are_in_flag_syntax(tmp_path, capsys):
    df = load_demo().iloc[:, :5]
    df["split"] = np.where(df["item_id"].str.len() % 2 == 0, "train", "test")  # item metadata
    df.to_csv(tmp_path / "pools.csv", index=False)
    out = tmp_path / "r.html"
    assert main(["report", str(tmp_path / "pools.csv"), "--format", "html",
                 "--output", str(out)]) == 0
    page = out.read_text(encoding="utf-8")
    notes = page[page.index('<section id="notes">'):page.index("</section>",
                                                               page.index('id="notes"'))]
    assert "left out &#39;split&#39;" in notes and "--labels" in notes
    assert ".xrr(" not in notes


@pytest.mark.parametrize("fmt", ["table", "markdown", "csv", "json", "html"])
def test_report_on_one_pool_file(files, fmt, capsys):
    """One crowd file, no second replication: every format holds the IRR report (the
    table format printed a KeyError on 'kappa_x' once)."""
    d, snow, _ = files
    crowd = snow[snow["pool"] == "crowd"].drop(columns="pool")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = crowd.xrr.irr()
    assert main(["report", str(d / "crowd.csv"), "--format", fmt]) == 0
    out = capsys.readouterr().out
    value = float(want)  # one label ('response'): a number
    if fmt == "csv":
        back = pd.read_csv(io.StringIO(out))
        assert set(back["role"]) == {"irr"} and set(back["statistic"]) == {"alpha"}
        assert back["estimate"].iloc[0] == pytest.approx(value, abs=1e-12)
        assert set(back["replication"]) == {"crowd"}  # named after the file, as `xrr irr`
    elif fmt == "json":
        recs = json.loads(out)["records"]
        assert {(r["statistic"], r["role"]) for r in recs} == {("alpha", "irr")}
        assert recs[0]["estimate"] == pytest.approx(value, abs=1e-12)
    else:
        assert f"{value:.3f}" in out and "response" in out
    if fmt == "table":
        assert "IRR of each replication" in out and "Items annotated by only one" not in out
