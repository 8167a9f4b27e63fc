"""``xrr items`` and ``xrr raters`` with ``--top N``: a screenful of each label and
replication on a terminal, every row with ``--top 0`` or in csv, json and files, and a note
counting the rows left out (the ties of ``xrr items``: tests/test_cli_trial.py)."""

from __future__ import annotations

import io
import json
import os
import pty
import re
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from cli_helpers import cli_csv, cli_error

from xrr_accessor.cli import main
from xrr_accessor.cli.output import SCREEN

N_ITEMS = 3 * SCREEN  # more items than a screenful, in each label


@pytest.fixture(scope="module")
def ratings(tmp_path_factory) -> str:
    rng = np.random.default_rng(37)
    rows = [(f"i{i}", r, int(rng.integers(0, 2)), int(rng.integers(0, 2)))
            for i in range(N_ITEMS) for r in "abcd"]
    path = tmp_path_factory.mktemp("top") / "crowd.csv"
    pd.DataFrame(rows, columns=["item", "rater", "joy", "awe"]).to_csv(path, index=False)
    return str(path)


@pytest.fixture(scope="module")
def scores(tmp_path_factory) -> str:
    """Interval scores: every item its own D (no tie), so a cut is a plain screenful."""
    rng = np.random.default_rng(38)
    rows = [(f"i{i}", r, *rng.normal(size=2)) for i in range(N_ITEMS) for r in "abcd"]
    path = tmp_path_factory.mktemp("top") / "scores.csv"
    pd.DataFrame(rows, columns=["item", "rater", "joy", "awe"]).to_csv(path, index=False)
    return str(path)


@pytest.fixture
def terminal(monkeypatch):
    """stdout as a terminal (capsys's stream is none)."""
    monkeypatch.setattr("xrr_accessor.cli.listing._terminal", lambda: True)


def _notes(err: str) -> list[str]:
    return [ln[len("note: "):] for ln in err.splitlines()
            if "rows not shown" in ln or "not listed one by one" in ln]


def _table_rows(out: str) -> pd.DataFrame:
    return pd.read_csv(io.StringIO(out), sep=r"\s{2,}", engine="python")


def test_items_on_a_terminal_show_a_screenful_and_count_the_rest(scores, terminal, capsys):
    every = cli_csv(capsys, "items", scores, "--level", "interval")  # csv: every row
    assert len(every) == 2 * N_ITEMS and every["disagreement"].is_unique
    assert main(["items", scores, "--level", "interval"]) == 0
    captured = capsys.readouterr()
    shown = _table_rows(captured.out)
    want = every.groupby(["label", "replication"], sort=False).head(SCREEN)
    assert shown["item"].tolist() == want["item"].tolist()  # the most disagreed, in order
    assert shown.groupby("label").size().to_dict() == {"joy": SCREEN, "awe": SCREEN}
    assert _notes(captured.err) == [
        f"{2 * N_ITEMS - 2 * SCREEN} of {2 * N_ITEMS} items not listed one by one (the "
        f"{SCREEN} most disagreed items of each label and replication, a tie reaching past "
        "them as one row whose n_items counts its items): --top 0 lists every item, as "
        "--format csv or json and --output do"]
    assert main(["items", scores, "--level", "interval", "--top", "0"]) == 0
    captured = capsys.readouterr()
    assert len(_table_rows(captured.out)) == 2 * N_ITEMS and not _notes(captured.err)


def test_files_and_json_hold_every_row_unless_top_is_given(scores, terminal, capsys,
                                                           tmp_path):
    out = tmp_path / "items.md"
    assert main(["items", scores, "--level", "interval", "--format", "markdown",
                 "-o", str(out)]) == 0
    assert out.read_text().count("\n") == 2 + 2 * N_ITEMS  # header, rule, every row
    assert not _notes(capsys.readouterr().err)
    assert main(["items", scores, "--level", "interval", "--format", "json", "--top",
                 "4"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert len(doc["records"]) == 8
    assert doc["attrs"]["top"] == 4 and doc["attrs"]["rows_not_shown"] == 2 * N_ITEMS - 8
    [note] = [n for n in doc["notes"] if "not listed one by one" in n]
    assert note.startswith(f"{2 * N_ITEMS - 8} of {2 * N_ITEMS} items") and "--top 0" in note


def test_raters_top_keeps_the_worst_of_each_label(ratings, capsys):
    every = cli_csv(capsys, "raters", ratings, "--level", "nominal")
    top = cli_csv(capsys, "raters", ratings, "--level", "nominal", "--top", "1")
    assert len(every) == 8 and len(top) == 2
    worst = every.loc[every.groupby("label", sort=False)["kappa_x"].idxmin()]
    assert top["rater"].tolist() == worst["rater"].tolist()
    assert _notes(capsys.readouterr().err) == []  # cli_csv read the err already
    for bad in ("-1", "two"):
        assert "--top" in cli_error(capsys, "raters", ratings, "--top", bad)


@pytest.mark.skipif(sys.platform == "win32", reason="a pseudo-terminal")
def test_a_real_terminal_gets_a_screenful(scores):
    """One real process whose stdout is a pseudo-terminal: isatty as a shell sees it."""
    main_fd, term_fd = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "xrr_accessor", "items", scores,
                             "--level", "interval"], stdout=term_fd, stderr=subprocess.PIPE,
                            text=True)
    os.close(term_fd)
    chunks = []
    while True:
        try:
            chunk = os.read(main_fd, 65536)
        except OSError:  # EIO: the terminal's other end closed
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(main_fd)
    err = proc.communicate(timeout=120)[1]
    assert proc.returncode == 0, err
    lines = b"".join(chunks).decode().replace("\r\n", "\n").strip().splitlines()
    assert len(lines) == 1 + 2 * SCREEN
    assert re.search(rf"note: {2 * N_ITEMS - 2 * SCREEN} of {2 * N_ITEMS} items not listed "
                     "one by one", err)


def test_the_docs_say_the_screenful_the_command_shows():
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    guide = (root / "docs" / "guides" / "cli.md").read_text(encoding="utf-8")
    readme = (root / "README.md").read_text(encoding="utf-8")
    assert f"on a terminal, the {SCREEN} worst rows of each label" in guide
    assert f"(default: {SCREEN} when a table or markdown goes to a terminal" in readme
