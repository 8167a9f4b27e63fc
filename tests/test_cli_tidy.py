"""The ``xrr`` command's flags read as the library reads them: metric names in any case or
by alias, one meaning per flag name, the demo naming itself, short stderr notes."""

from __future__ import annotations

import argparse
import io
import json

import numpy as np
import pandas as pd
import pytest
from cli_helpers import cli_csv, cli_error

from xrr_accessor.cli import commands, main
from xrr_accessor.cli.parser import parser
from xrr_accessor.coefficients import REGISTRY, lookup
from xrr_accessor.datasets import load_demo

#: (command and its flag, the names it takes)
METRIC_FLAGS = {
    ("irr", "--metric"): [e.name for e in REGISTRY.values() if e.kind == "irr"],
    ("report", "--irr"): [e.name for e in REGISTRY.values() if e.normalizes],
    ("report", "--metric"): [e.name for e in REGISTRY.values() if e.normalizes],
    ("demo", "--irr"): [e.name for e in REGISTRY.values() if e.normalizes],
    ("raters", "--metric"): ["kappa_x", "alpha"],
    ("pairwise", "--metric"): ["cohen", "kappa_x"],
}


def _spellings(name: str) -> list[str]:
    entry = REGISTRY[name]
    return [s for n in (entry.name, *entry.aliases)
            for s in (n.upper(), n.title(), n.replace("_", " "), n.replace("_", "-"))]


@pytest.mark.parametrize("where", list(METRIC_FLAGS), ids="-".join)
def test_every_metric_flag_takes_what_lookup_takes(where):
    command, flag = where
    head = [command] if command == "demo" else [command, "f.csv"]
    xrr = parser()
    for name in METRIC_FLAGS[where]:
        for spelling in _spellings(name):
            assert lookup(spelling, None).name == name  # the library reads it so
            args = xrr.parse_args([*head, flag, spelling])
            assert (args.irr if flag == "--irr" or command == "report" else args.metric) \
                == name, (where, spelling)


@pytest.fixture(scope="module")
def ratings(tmp_path_factory) -> str:
    path = tmp_path_factory.mktemp("tidy") / "ratings.csv"
    pd.DataFrame({"item": [1, 1, 2, 2, 3, 3, 4, 4, 5, 5], "rater": ["a", "b"] * 5,
                  "spam": [1, 1, 0, 0, 1, 0, 0, 0, 1, 1]}).to_csv(path, index=False)
    return str(path)


def test_a_capitalised_metric_gives_the_same_records(ratings, capsys):
    plain = cli_csv(capsys, "irr", ratings, "--metric", "fleiss")
    assert plain["statistic"].tolist() == ["fleiss"]
    pd.testing.assert_frame_equal(cli_csv(capsys, "irr", ratings, "--metric", "Fleiss"), plain)
    pd.testing.assert_frame_equal(
        cli_csv(capsys, "irr", ratings, "--metric", "Fleiss Kappa"), plain)


def test_an_unknown_metric_is_refused_listing_the_names(ratings, capsys):
    err = cli_error(capsys, "irr", ratings, "--metric", "nonsense")
    assert "invalid choice: 'nonsense'" in err
    for name in METRIC_FLAGS[("irr", "--metric")]:
        assert f"'{name}'" in err
    err = cli_error(capsys, "raters", ratings, "--metric", "Cohen")  # a name, not here
    assert "(choose from 'kappa_x', 'alpha')" in err


def test_demo_labels_names_labels_and_n_labels_counts_them(capsys):
    labels = list(load_demo().columns[3:])
    first = cli_csv(capsys, "demo", "--n-labels", "2")
    assert list(dict.fromkeys(first["label"])) == labels[:2]
    named = cli_csv(capsys, "demo", "--labels", f"{labels[5]},{labels[1]}")
    assert list(dict.fromkeys(named["label"])) == [labels[5], labels[1]]
    assert main(["demo", "--labels", "2", "--format", "csv"]) == 0  # the old spelling
    out, err = capsys.readouterr()
    pd.testing.assert_frame_equal(pd.read_csv(io.StringIO(out)), first)
    assert "note: xrr demo --labels 2 is deprecated: use --n-labels 2" in err
    assert "no such label" in cli_error(capsys, "demo", "--labels", "joyful")


def test_demo_json_names_the_demo_and_stderr_counts_the_cells_above_one(capsys):
    assert main(["demo", "--labels", "disgust,pride,sadness,anger", "--format", "json"]) == 0
    out, err = capsys.readouterr()
    doc = json.loads(out)
    assert doc["attrs"]["command"] == "demo"
    records = pd.DataFrame(doc["records"])
    above = records[(records["role"] == "normalized") & (records["estimate"] > 1)]
    assert len(above) == 3  # disgust, pride and sadness: one pair each
    [full] = [n for n in doc["notes"] if n.startswith("normalized kappa_x exceeds 1")]
    for label in above["label"]:
        assert f"'{label}'" in full  # json keeps every cell
    [short] = [ln for ln in err.splitlines() if "normalized kappa_x" in ln]
    assert short == ("note: 3 normalized kappa_x values exceed 1 where the IRRs and kappa_x "
                     "use different item sets (--format json lists them; --items common "
                     "computes all three on the same items)")
    assert len(err) < 300


def test_report_and_its_alias_call_themselves_report(ratings, capsys):
    for command in ("report", "summary"):
        assert main([command, ratings, "--format", "json"]) == 0
        assert json.loads(capsys.readouterr().out)["attrs"]["command"] == "report"


def test_report_records_join_the_irr_and_cross_kappa_records_by_name(tmp_path, capsys):
    """One vocabulary: ``statistic`` is the coefficient's name in every command, so the
    report's rows read back and join ``xrr irr`` and ``xrr cross-kappa`` on the same keys;
    ``role`` says what each plays in the report."""
    rng = np.random.default_rng(5)
    truth = rng.integers(0, 3, size=(30, 2))  # each rater keeps it 4 times in 5

    def rate(i: int, j: int) -> int:
        return int(truth[i, j]) if rng.random() < 0.8 else int(rng.integers(0, 2 + j))

    rows = [(f"i{i}", f"{pool}{r}", pool, rate(i, 0) % 2, rate(i, 1))
            for i in range(30) for pool in "AB" for r in range(2)]
    path = tmp_path / "pools.csv"
    pd.DataFrame(rows, columns=["item", "rater", "pool", "joy", "awe"]).to_csv(path,
                                                                              index=False)
    report = cli_csv(capsys, "report", str(path), "--irr", "Alpha", "--level", "nominal")
    assert set(zip(report["statistic"], report["role"], strict=True)) == {
        ("alpha", "irr"), ("kappa_x", "kappa_x"), ("normalized_kappa_x", "normalized")}
    irr = cli_csv(capsys, "irr", str(path), "--metric", "alpha", "--level", "nominal")
    cross = cli_csv(capsys, "cross-kappa", str(path), "--level", "nominal")
    for other, keys, n in ((irr, ["label", "statistic", "replication"], 4),
                           (cross, ["label", "statistic", "replication", "replication_other"],
                            2)):
        joined = report.merge(other, on=keys, suffixes=("", "_own"), validate="1:1")
        assert len(joined) == len(other) == n  # 2 labels x 2 pools; x 1 pair
        np.testing.assert_allclose(joined["estimate"], joined["estimate_own"], rtol=1e-12)
    norm = report[report["role"] == "normalized"].set_index("label")["estimate"]
    kx = report[report["role"] == "kappa_x"].set_index("label")["estimate"]
    own = report[report["role"] == "irr"].groupby("label")["estimate"].prod() ** 0.5
    assert norm.notna().all()
    np.testing.assert_allclose(norm, (kx / own).loc[norm.index], rtol=1e-12)  # Eq 13


def test_notes_only_about_the_sections_printed(tmp_path, capsys):
    """A one-pool report computes its items (D_i undefined for an item rated once) and
    prints them in the page, table, markdown and json, with the note; csv (the records
    alone) leaves that note out; ``xrr items`` (which prints them) keeps it."""
    path = tmp_path / "pool.csv"
    rows = [(i, r, (i + (r == "c")) % 2) for i in range(12) for r in "abc"][:-2]  # 11: one
    pd.DataFrame(rows, columns=["item", "rater", "spam"]).to_csv(path, index=False)
    note = "item_disagreement is undefined (NaN) for 1 of 12 row(s)"
    assert main(["items", str(path), "--level", "nominal", "--format", "csv"]) == 0
    items = pd.read_csv(io.StringIO((printed := capsys.readouterr()).out))
    assert f"note: {note}" in printed.err and items["disagreement"].isna().sum() == 1
    for fmt in ("table", "markdown", "csv", "json"):
        assert main(["report", str(path), "--level", "nominal", "--format", fmt,
                     "-o", str(tmp_path / f"out.{fmt}")]) == 0
        said = "item_disagreement" in capsys.readouterr().err
        assert said == (fmt != "csv"), fmt
    doc = json.loads((tmp_path / "out.json").read_text())
    assert doc["records"] and any("item_disagreement" in n for n in doc["notes"])
    # every defined item ties (two raters agree, one differs): one row counts them
    assert [r["n_items"] for r in doc["items"]] == [11] and doc["items"][0]["item"] is None
    assert doc["said"]["items"] == [
        f"On spam / pool: 11 items tied at D = {doc['items'][0]['disagreement']:.3f} (the "
        "first in the data's order: 0, 1, 2, ...)."]
    page = commands._printed(argparse.Namespace(format="html"), "<html>")
    table = commands._printed(argparse.Namespace(format="csv"), "text")
    assert (page.unprinted, table.unprinted) == ((), ("rater_agreement",
                                                      "item_disagreement"))
