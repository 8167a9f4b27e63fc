"""``xrr alt-test`` and ``xrr report`` with the models page: the records are the
library's numbers (alt_test, report(epsilon=...)), two files are the humans and their
candidates, and bad options fail in one line naming the flag."""

from __future__ import annotations

import warnings
from pathlib import Path

import pandas as pd
import pytest
from cli_helpers import cli_csv, cli_error

import xrr_accessor as xa
from xrr_accessor.io import read_annotations

DATA = Path(__file__).parent / "data"


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, Path]:
    df = pd.read_csv(DATA / "llmfao.csv.gz")
    root = tmp_path_factory.mktemp("llmfao")
    out = {"all": root / "all.csv", "crowd": root / "crowd.csv", "models": root / "models.csv"}
    df.to_csv(out["all"], index=False)
    df[df["source"] == "crowd"].drop(columns="source").to_csv(out["crowd"], index=False)
    df[df["source"] != "crowd"].drop(columns="source").to_csv(out["models"], index=False)
    return out


def _lib(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


ROLES = ["--item", "pair", "--rater", "worker"]


def test_alt_test_two_files_each_model_a_candidate(files, capsys):
    got = cli_csv(capsys, "alt-test", str(files["crowd"]), str(files["models"]), *ROLES,
                  "--epsilon", "0.2")
    df = pd.read_csv(files["all"])
    want = _lib(xa.alt_test, df, reference="crowd", epsilon=0.2, item="pair", rater="worker",
                replication="source").summary.reset_index()
    assert got["candidate"].tolist() == ["gpt35", "gpt4"]
    for col in ("winning_rate", "advantage_probability", "n_humans", "n_won", "n_items"):
        assert got[col].tolist() == pytest.approx(want[col].tolist(), abs=1e-12)


def test_alt_test_one_file_per_human_table(files, capsys):
    got = cli_csv(capsys, "alt-test", str(files["all"]), *ROLES, "--replication", "source",
                  "--reference", "crowd", "--epsilon", "0.1", "--humans", "--min-items", "20",
                  "--candidates", "gpt4")
    df = pd.read_csv(files["all"])
    want = _lib(xa.alt_test, df, reference="crowd", candidates="gpt4", epsilon=0.1,
                min_items=20, item="pair", rater="worker", replication="source").humans
    assert len(got) == len(want)
    assert got["p_value"].tolist() == pytest.approx(want["p_value"].tolist(), nan_ok=True)
    assert got["won"].tolist() == want["won"].tolist()


def test_report_with_epsilon_prints_the_models_table(files, capsys):
    got = cli_csv(capsys, "report", str(files["all"]), *ROLES, "--replication", "source",
                  "--reference", "crowd", "--epsilon", "0.2", "--ci", "0.95", "--n-boot",
                  "100", "--seed", "1")
    # ids as text, as the command reads them (the bootstrap's draws are keyed by id)
    df = read_annotations(files["all"], item="pair", rater="worker", replication="source")
    rep = _lib(xa.report, df, reference="crowd", epsilon=0.2, ci=0.95, n_boot=100, seed=1,
               item="pair", rater="worker", replication="source")
    assert got["replication"].tolist() == rep.models["replication"].tolist()
    assert got["advantage_lower"].tolist() == pytest.approx(
        rep.models["advantage_lower"].tolist(), nan_ok=True)
    assert got["normalized"].tolist() == pytest.approx(rep.models["normalized"].tolist(),
                                                       nan_ok=True)


def test_bad_models_options_fail_in_one_line(files, capsys):
    assert "--epsilon" in cli_error(capsys, "alt-test", str(files["crowd"]), *ROLES)
    assert "not in [0, 1)" in cli_error(capsys, "alt-test", str(files["crowd"]),
                                        str(files["models"]), *ROLES, "--epsilon", "1.5")
    err = cli_error(capsys, "alt-test", str(files["crowd"]), *ROLES, "--epsilon", "0.2")
    assert "one pool" in err and "--replication" in err


def test_report_table_ends_with_the_answer_in_words(files, capsys):
    from xrr_accessor.cli import main

    assert main(["report", str(files["crowd"]), str(files["models"]), *ROLES,
                 "--epsilon", "0.2"]) == 0
    out = capsys.readouterr().out
    df = pd.read_csv(files["all"])
    crowd = df[df["source"] == "crowd"].drop(columns="source")
    models = df[df["source"] != "crowd"].drop(columns="source")
    rep = _lib(xa.report, crowd, models, epsilon=0.2, item="pair", rater="worker")
    assert "Can these models replace the annotators?" in out
    from xrr_accessor.cli.phrases import in_cli

    for text in rep.readings()["text"]:  # in the command's words
        assert in_cli(text) in out and "ci=0.95" not in in_cli(text)
