"""What ``xrr`` prints: one record schema for every command and format, read back and
checked against the library, a naive formula and a peer package."""

from __future__ import annotations

import io
import json
import re
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import xrr_accessor as xrr
from xrr_accessor.cli import main
from xrr_accessor.cli.output import KEYS
from xrr_accessor.datasets import load_demo

import naive

PARAPHRASE = (Path(__file__).resolve().parents[2] / "shared" / "data" / "real"
              / "lewidi_paraphrase" / "paraphrase_long.csv")
if not PARAPHRASE.exists():  # the worktree layout: /work/wt-x/tests -> /work/shared
    PARAPHRASE = Path("/work/shared/data/real/lewidi_paraphrase/paraphrase_long.csv")
REGRESSION = ["irr", str(PARAPHRASE), "--level", "interval", "--exclude", "split", "--ci",
              "0.95"]


def _out(capsys, *args: str) -> str:
    assert main(list(args)) == 0
    return capsys.readouterr().out


def _table_cells(text: str) -> list[list[str]]:
    """The cells of ``--format table``: fields are the runs of positions that are not
    blank on every line (an empty cell keeps its column)."""
    lines = text.rstrip("\n").splitlines()
    width = max(map(len, lines))
    lines = [ln.ljust(width) for ln in lines]
    used = [any(ln[i] != " " for ln in lines) for i in range(width)]
    spans, start = [], None
    for i, u in enumerate([*used, False]):
        if u and start is None:
            start = i
        elif not u and start is not None:
            spans.append((start, i))
            start = None
    return [[ln[a:b].strip() for a, b in spans] for ln in lines]


def _markdown_cells(text: str) -> list[list[str]]:
    lines = [ln for ln in text.strip().splitlines() if not ln.startswith("|---")]
    return [[c.strip() for c in ln.strip("|").split(" | ")] for ln in lines]


@pytest.fixture(scope="module")
def paraphrase():
    df = pd.read_csv(PARAPHRASE)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xrr.XRRWarning)
        want = xrr.irr(df.drop(columns="split"), level="interval", ci=0.95)
    return df, want


@pytest.mark.skipif(not PARAPHRASE.exists(), reason="the real paraphrase data set")
def test_paraphrase_record_keeps_label_counts_and_interval_in_every_format(paraphrase,
                                                                          capsys):
    """Issue 21's reproducer: rows named estimate, se, lower printed as labels."""
    df, want = paraphrase
    units = {i: g["value"].tolist() for i, g in df.groupby("item")}
    pairable = {i: v for i, v in units.items() if len(v) >= 2}
    krippendorff = pytest.importorskip("krippendorff")
    reliability = df.pivot(index="rater", columns="item", values="value").to_numpy(float)
    peer = krippendorff.alpha(reliability_data=reliability, level_of_measurement="interval")
    own = naive.alpha(units, "interval")
    assert own == pytest.approx(peer, rel=1e-10)

    csv = pd.read_csv(io.StringIO(_out(capsys, *REGRESSION, "--format", "csv")))
    assert len(csv) == 1 and not csv["label"].isin(["estimate", "se", "lower"]).any()
    row = csv.iloc[0]
    assert (row["label"], row["statistic"], row["replication"]) == (
        "value", "alpha", "paraphrase_long")
    assert row["estimate"] == pytest.approx(own, rel=1e-10)
    assert row["n_items"] == len(pairable) and row["n_values"] == sum(
        map(len, pairable.values()))
    for col in ("estimate", "se", "lower", "upper", "p_value"):
        assert row[col] == pytest.approx(want[col], rel=1e-12), col
    assert row["method"] == "analytic" and row["lower"] < own < row["upper"]

    doc = json.loads(_out(capsys, *REGRESSION, "--format", "json"))
    assert isinstance(doc["notes"], list)
    assert doc["attrs"]["method"] == "analytic" and doc["attrs"]["ci"] == 0.95
    for claimed in ("n_boot", "interval", "seed"):  # nothing was resampled
        assert claimed not in doc["attrs"]
    (record,) = doc["records"]
    assert record["p_value"] == pytest.approx(want["p_value"]) and record["p_value"] < 1e-3
    assert record["n_items"] == len(pairable) and record["label"] == "value"

    table = _table_cells(_out(capsys, *REGRESSION))
    mark = _markdown_cells(_out(capsys, *REGRESSION, "--format", "markdown"))
    header = ["label", "statistic", "replication", "replication_other", "estimate", "se",
              "lower", "upper", "p_value", "method", "n_items", "n_unpairable", "n_values"]
    assert table[0] == header
    shown = dict(zip(table[0], table[1], strict=True))
    assert shown["p_value"] == "<0.001" and shown["estimate"] == f"{own:.3f}"
    assert shown["n_items"] == str(len(pairable))
    md = dict(zip(mark[0], mark[1], strict=True))
    assert md["p_value"] == "<0.001" and md["replication_other"] == ""
    assert {k: v for k, v in md.items() if k in shown} == shown  # the same rounding


def test_decimals_round_table_and_markdown_alike(capsys, tmp_path):
    path = tmp_path / "demo.csv"
    load_demo().iloc[:, :5].to_csv(path, index=False)
    csv = pd.read_csv(io.StringIO(_out(capsys, "irr", str(path), "--metric", "gwet",
                                       "--ci", "0.9", "--format", "csv")))
    for flag, n in (("--decimals", 2), ("--decimal", 4), ("--digits", 1), ("--decimals", 0)):
        args = ["irr", str(path), "--metric", "gwet", "--ci", "0.9", flag, str(n)]
        table = _table_cells(_out(capsys, *args))
        mark = _markdown_cells(_out(capsys, *args, "--format", "markdown"))
        head = table[0]
        for k, row in enumerate(table[1:]):
            cells = dict(zip(head, row, strict=True))
            md = dict(zip(mark[0], mark[k + 1], strict=True))
            for col in ("estimate", "se", "lower", "upper"):
                assert cells[col] == md[col] == f"{csv[col][k]:.{n}f}", (flag, col)
                shape = rf"-?\d+\.\d{{{n}}}" if n else r"-?\d+"  # zeros kept: 0.10, not 0.1
                assert re.fullmatch(shape, cells[col]), (flag, cells[col])
    tiny = tmp_path / "tiny.csv"  # percent agreement 3/4: trailing zeros must show
    tiny.write_text("item,rater,joy\n1,a,1\n1,b,1\n2,a,0\n2,b,0\n3,a,1\n3,b,1\n4,a,1\n4,b,0\n")
    for fmt in ("table", "markdown"):
        for n, shown in ((3, "0.750"), (1, "0.8"), (0, "1")):
            out = _out(capsys, "irr", str(tiny), "--metric", "percent", "--format", fmt,
                       "--decimals", str(n))
            cells = (_table_cells(out) if fmt == "table" else _markdown_cells(out))
            assert dict(zip(cells[0], cells[1], strict=True))["estimate"] == shown, (fmt, n)
    for bad in ("-1", "x", "16"):
        with pytest.raises(SystemExit) as exit_:  # argparse's usage error
            main(["irr", str(path), "--decimals", bad])
        assert exit_.value.code == 2
        err = capsys.readouterr().err
        assert err.startswith("xrr: error:") and err.count("\n") == 1
        assert "decimals" in err and "Format specifier" not in err


def test_every_statistic_command_prints_the_same_schema(capsys, tmp_path):
    demo = load_demo().iloc[:, :5]  # item_id, pool, rater, amusement, anger
    path = tmp_path / "pools.csv"
    demo.to_csv(path, index=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xrr.XRRWarning)
        irr = demo.xrr.irr()
        kx = demo.xrr.cross_kappa()
        table = xrr.agreement_table(demo)
    got = {}
    for cmd in ("irr", "cross-kappa", "agreement", "report"):
        for fmt in ("csv", "json"):
            text = _out(capsys, cmd, str(path), "--format", fmt)
            frame = (pd.read_csv(io.StringIO(text)) if fmt == "csv"
                     else pd.DataFrame(json.loads(text)["records"]))
            assert list(frame.columns[:5]) == [*KEYS, "estimate"], (cmd, fmt)
            got[cmd, fmt] = frame
        csv, js = (got[cmd, f].astype(object) for f in ("csv", "json"))
        pd.testing.assert_frame_equal(csv.where(csv.notna(), None),
                                      js.where(js.notna(), None), check_dtype=False)
    one = got["irr", "csv"]
    assert len(one) == irr.size and set(one["statistic"]) == {"alpha"}
    for _, r in one.iterrows():
        assert r["estimate"] == pytest.approx(irr.loc[r["label"], r["replication"]])
        assert r["n_items"] == irr.attrs["n_items"][r["replication"]][r["label"]]
    pairs = got["cross-kappa", "csv"]
    assert len(pairs) == kx.size
    for _, r in pairs.iterrows():
        cell = (r["replication"], r["replication_other"])
        assert r["estimate"] == pytest.approx(kx.loc[r["label"], cell])
        assert r["n_unpairable"] == kx.attrs["n_unpairable"][cell][r["label"]]
    agree = got["agreement", "csv"]
    assert len(agree) == len(table)
    want = table.reset_index()
    np.testing.assert_allclose(agree["estimate"], want["estimate"])
    assert agree["statistic"].tolist() == want["metric"].tolist()
    assert agree["pe"].tolist() == pytest.approx(want["pe"].tolist(), nan_ok=True)


def test_one_pool_names_its_replication_after_the_file(capsys, tmp_path):
    demo = load_demo()
    one = demo[demo["pool"] == "Budapest"].drop(columns="pool").iloc[:, :5]
    path = tmp_path / "crowd.v1.csv"  # a dot in the name is kept
    one.to_csv(path, index=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xrr.XRRWarning)
        want = one.xrr.irr(metric="fleiss", ci=0.95)
    got = pd.read_csv(io.StringIO(_out(capsys, "irr", str(path), "--metric", "fleiss",
                                       "--ci", "0.95", "--format", "csv")))
    assert set(got["replication"]) == {"crowd.v1"}
    assert got["label"].tolist() == want.index.tolist()
    np.testing.assert_allclose(got["lower"], want["lower"], rtol=1e-12)
    assert got["n_items"].tolist() == want["n_items"].tolist()


def test_bootstrap_records_say_how_and_attrs_what_was_used(capsys, tmp_path):
    demo = load_demo().iloc[:, :4]
    path = tmp_path / "pools.csv"
    demo.to_csv(path, index=False)
    doc = json.loads(_out(capsys, "cross-kappa", str(path), "--ci", "0.9", "--n-boot",
                          "200", "--seed", "7", "--interval", "percentile", "--format",
                          "json"))
    assert doc["attrs"]["n_boot"] == 200 and doc["attrs"]["interval"] == "percentile"
    assert doc["attrs"]["method"] == "bootstrap" and doc["attrs"]["seed"] == 7
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xrr.XRRWarning)
        want = demo.xrr.cross_kappa(ci=0.9, n_boot=200, seed=7, interval="percentile")
    assert [r["method"] for r in doc["records"]] == ["bootstrap percentile"] * len(want)
    assert [r["upper"] for r in doc["records"]] == pytest.approx(want["upper"].tolist())
    assert all("p_value" not in r for r in doc["records"])  # the bootstrap gives none


@pytest.mark.parametrize(("args", "weights", "level"), [
    (["--metric", "gwet", "--weights", "quadratic"], "quadratic", None),
    (["--metric", "fleiss"], "unweighted", None),
    (["--metric", "alpha", "--level", "ordinal"], None, "ordinal"),
])
def test_attrs_name_the_level_or_the_weights_a_coefficient_took(capsys, tmp_path, args,
                                                                 weights, level):
    """A coefficient weighted by weights= has agreement weights, not a level: its attrs
    (Python and the CLI's JSON) say which weights, and hold no level (not a placeholder)."""
    demo = load_demo().iloc[:, :4]
    path = tmp_path / "pools.csv"
    demo.to_csv(path, index=False)
    doc = json.loads(_out(capsys, "irr", str(path), *args, "--format", "json"))
    metric = args[1]
    kwargs = {"weights": weights} if weights else {"level": level}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xrr.XRRWarning)
        attrs = demo.xrr.irr(metric=metric, **kwargs).attrs
    for got in (doc["attrs"], attrs):
        assert got.get("weights") == weights and got.get("level") == level, got


def test_json_notes_are_a_list_of_the_stderr_notes(capsys, tmp_path):
    demo = load_demo()
    one = demo[demo["pool"] == "Budapest"].iloc[:, :4]
    path = tmp_path / "pool.csv"
    one.assign(comment="x").to_csv(path, index=False)  # a stray column: left out, noted
    assert main(["irr", str(path), "--format", "json"]) == 0
    captured = capsys.readouterr()
    doc = json.loads(captured.out)
    assert doc["notes"] and all(isinstance(n, str) for n in doc["notes"])
    assert [f"note: {n}" for n in doc["notes"]] == captured.err.strip().splitlines()
    assert any("comment" in n for n in doc["notes"])


def test_report_json_has_records_settings_and_notes(capsys, tmp_path):
    demo = load_demo().groupby("pool").head(400).iloc[:, :4]
    path = tmp_path / "pools.csv"
    demo = demo.assign(comment="x")
    demo.to_csv(path, index=False)
    assert main(["report", str(path), "--ci", "0.9", "--n-boot", "100", "--seed", "3",
                 "--format", "json"]) == 0
    captured = capsys.readouterr()
    doc = json.loads(captured.out)
    assert [f"note: {n}" for n in doc["notes"]] == captured.err.strip().splitlines()
    assert any("comment" in n for n in doc["notes"])
    attrs = doc["attrs"]
    assert (attrs["n_boot"], attrs["seed"], attrs["interval"], attrs["method"]) == (
        100, 3, "bca", "bootstrap")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xrr.XRRWarning)
        want = xrr.report(demo, ci=0.9, n_boot=100, seed=3).frame
    got = pd.DataFrame(doc["records"])
    assert list(got.columns[:5]) == [*KEYS, "estimate"]
    assert len(got) == len(want)
    np.testing.assert_allclose(got["lower"].astype(float), want["lower"], rtol=1e-12)
    assert set(got.loc[got["lower"].notna(), "method"]) == {"bootstrap bca"}
    assert got["n_items"].tolist() == want["n_items"].tolist()
