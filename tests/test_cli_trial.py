"""What the new-user trial found in the command (issue 37): ties of ``xrr items`` as one
row, notes of ``xrr raters`` about the rows printed, the one-pool title, the reading's
order and advice said once, the rater interval named, no Python call in a sentence, the
caption above the table, the classic family's column and weights named."""

from __future__ import annotations

import io
import json
import re
import warnings

import numpy as np
import pandas as pd
import pytest

import xrr_accessor as xrr
from xrr_accessor.cli import main
from xrr_accessor.cli.parser import parser
from xrr_accessor.cli.phrases import in_cli
from xrr_accessor.cli.reading_text import verdict_order
from xrr_accessor.reporting.agreement import no_interval
from xrr_accessor.reporting.bands import BAND_ORDER
from xrr_accessor.reporting.pool_html import collapse_reasons, family_title
from xrr_accessor.reporting.rater_view import unranked_sentence

LEFT_OVER = re.compile(r"\bci=|\(data\b|min_items=|items=\"|method='")


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xrr.XRRWarning)
        return fn(*args, **kwargs)


def _run(capsys, *args: str) -> tuple[str, str]:
    assert main(list(args)) == 0
    got = capsys.readouterr()
    return got.out, got.err


def _notes(err: str) -> list[str]:
    return [ln[len("note: "):] for ln in err.splitlines() if ln.startswith("note: ")]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """A crowd of five raters on binary labels (many items tie at the largest D; label
    ``a`` noisy, ``b`` clean: two bands) with a sixth rater ``z`` who says 0 on twelve
    items where everyone says 0 (kappa_x undefined); the crowd split in two files; and
    ratings from 1 to 5 (ordinal: the classic family's linear weights)."""
    d = tmp_path_factory.mktemp("trial")
    rng = np.random.default_rng(37)
    truth = rng.integers(0, 2, size=(60, 2))
    keep = np.array([0.55, 0.97])  # each label's chance of the rater saying the truth
    rows = [(f"i{i}", f"r{r}", *np.where(rng.random(2) < keep, truth[i], 1 - truth[i]))
            for i in range(60) for r in range(5)]
    rows += [(f"z{i}", r, 0, 0) for i in range(12) for r in ("r0", "r1", "r2", "z")]
    crowd = pd.DataFrame(rows, columns=["item", "rater", "a", "b"])
    crowd.to_csv(d / "crowd.csv", index=False)
    crowd[crowd["rater"].isin(["r0", "r1", "r2"])].to_csv(d / "left.csv", index=False)
    crowd[crowd["rater"].isin(["r3", "r4"])].to_csv(d / "right.csv", index=False)
    base = rng.integers(1, 6, size=40)
    scores = pd.DataFrame([(f"q{i}", f"s{r}", int(np.clip(base[i] + rng.integers(-1, 2),
                                                          1, 5)))
                           for i in range(40) for r in range(4)],
                          columns=["item", "rater", "score"])
    scores.to_csv(d / "scores.csv", index=False)
    return d, crowd, scores


# --- 1. xrr items: a tie past the rows shown is one row ----------------------------------

def test_items_collapse_a_tie_past_the_rows_shown_into_one_row(files, capsys):
    d, _, _ = files
    path, top = str(d / "crowd.csv"), 5
    every = pd.read_csv(io.StringIO(_run(capsys, "items", path, "--level", "nominal",
                                         "--format", "csv")[0]))
    doc = json.loads(_run(capsys, "items", path, "--level", "nominal", "--top", str(top),
                          "--format", "json")[0])
    got = pd.DataFrame(doc["records"])
    singles, tied = 0, 0
    for label, part in every.groupby("label", sort=False):  # naive: the page's rule
        d_ = part["disagreement"].dropna().sort_values(ascending=False, kind="stable")
        last = d_.iloc[top - 1]
        mine = got[got["label"] == label]
        assert (d_ == last).sum() > (d_.iloc[:top] == last).sum()  # the fixture ties
        want = part.loc[d_[d_ > last].index, "item"].tolist()
        assert mine.loc[mine["item"].notna(), "item"].tolist() == want
        tie = mine[mine["item"].isna()]
        assert tie["n_items"].tolist() == [int((d_ == last).sum())]
        assert tie["disagreement"].tolist() == [pytest.approx(last, abs=0)]
        assert tie.drop(columns=["label", "replication", "item", "disagreement",
                                 "n_items"]).isna().all(axis=None)  # blank but its count
        singles, tied = singles + len(want), tied + int((d_ == last).sum())
    first = doc["notes"][0]
    assert first.startswith(f"{len(every) - singles} of {len(every)} items not listed one "
                            f"by one, {tied} of them in tie rows (the {top} most")
    ties = [n for n in doc["notes"] if " items tied at D = " in n]
    assert len(ties) == every["label"].nunique()
    assert doc["attrs"]["rows_not_shown"] == len(every) - singles
    table = _run(capsys, "items", path, "--level", "nominal", "--top", str(top))[0]
    assert len(table.splitlines()) == 1 + len(got)  # header, one line a row


# --- 2. xrr raters: notes about what is printed ------------------------------------------

def test_raters_notes_say_which_rows_are_undefined(files, capsys):
    d, _, _ = files
    path = str(d / "crowd.csv")
    every = pd.read_csv(io.StringIO(_run(capsys, "raters", path, "--level", "nominal",
                                         "--format", "csv")[0]))
    n_nan = int(every["kappa_x"].isna().sum())
    assert n_nan == 2  # z, on both labels
    said = (f"rater_agreement is undefined (NaN) for kappa_x for {n_nan} rater(s) whose "
            "shared items hold one value on both sides (no expected disagreement).")
    assert said in _notes(_run(capsys, "raters", path, "--level", "nominal")[1])
    notes = _notes(_run(capsys, "raters", path, "--level", "nominal", "--top", "1")[1])
    assert f"Of the rows not shown (--top 0 shows them): {said}" in notes
    assert not any(n.startswith("rater_agreement is undefined") for n in notes)
    notes = _notes(_run(capsys, "raters", path, "--level", "nominal", "--min-items", "13")[1])
    assert ("Of the rows not shown (--min-items 1 ranks the raters with fewer items): "
            + said) in notes


# --- 3. the one-pool title ---------------------------------------------------------------

def test_title_is_the_reports_own(files, capsys):
    d, crowd, _ = files
    rep = _quiet(xrr.report, crowd, level="nominal")
    out = _run(capsys, "report", str(d / "crowd.csv"), "--level", "nominal")[0]
    assert out.splitlines()[0] == f"{rep.title}: crowd.csv" == "IRR report: crowd.csv"
    out = _run(capsys, "report", str(d / "left.csv"), str(d / "right.csv"), "--level",
               "nominal")[0]
    assert out.splitlines()[0] == "xRR report: left.csv and right.csv"


# --- 4. the reading's summary in the page's order ----------------------------------------

def test_verdict_counts_in_the_pages_order(files, capsys):
    d, crowd, _ = files
    c = pd.Series({"slight": 11, "moderate": 2, "fair": 17, "substantial": 1, "odd": 3})
    got = verdict_order(c, one_pool=True)
    assert [v for v, _ in got] == ["substantial", "moderate", "fair", "slight", "odd"]
    assert dict(got) == c.to_dict()
    rep = _quiet(xrr.report, crowd, level="nominal")
    read = rep.readings()
    assert read["verdict"].nunique() == 2  # the fixture's two bands, the worse first
    out = _run(capsys, "report", str(d / "crowd.csv"), "--level", "nominal")[0]
    line = next(ln for ln in out.splitlines() if ln.startswith("crowd, 2 labels: "))
    said = re.findall(r"([a-z ]+) on (\d+)", line.split(": ", 1)[1])
    assert [BAND_ORDER.index(v.strip()) for v, _ in said] == sorted(
        BAND_ORDER.index(v.strip()) for v, _ in said)
    assert {v.strip(): int(n) for v, n in said} == read["verdict"].value_counts().to_dict()


# --- 5. the raters' interval named -------------------------------------------------------

@pytest.mark.parametrize("flags", [(), ("--ci", "0.9", "--n-boot", "40", "--seed", "1")])
def test_rater_interval_says_what_it_is(files, capsys, flags):
    d, crowd, _ = files
    kw = {"ci": 0.9, "n_boot": 40, "seed": 1, "progress": False} if flags else {}
    rep = _quiet(xrr.report, crowd, level="nominal", **kw)
    a = rep.raters.attrs
    line = (f"kappa_x_lower and kappa_x_upper: a {a['ci']:.0%} {a['interval']} interval "
            f"from {a['n_boot']} bootstrap replicates of items")
    line += "." if flags else " (the rater table's own, drawn without --ci; --ci sets it)."
    assert (a["ci"], a["interval"], a["n_boot"]) == ((0.9, "bca", 40) if flags else
                                                     (0.95, "percentile", 200))
    args = ["report", str(d / "crowd.csv"), "--level", "nominal", *flags]
    assert line in _run(capsys, *args)[0].splitlines()
    assert line in json.loads(_run(capsys, *args, "--format", "json")[0])["said"]["raters"]
    notes = _notes(_run(capsys, "raters", *args[1:])[1])
    assert (line in notes) == bool(flags)  # xrr raters: with --ci, the same line


# --- 6. sentences and reasons in the command's words -------------------------------------

def _library_phrases(crowd: pd.DataFrame) -> list[tuple[str, str]]:
    """Each phrase as the library writes it, and what the command says instead."""
    pool = _quiet(xrr.report, crowd, level="nominal").readings()["text"].iloc[0]
    pairs = _quiet(xrr.report, crowd.assign(pool=np.where(crowd["rater"].isin(
        ["r0", "r1", "r2"]), "A", "B")), replication="pool", level="nominal")
    scott = no_interval("scott", 0.95, "linear")
    both = collapse_reasons(pd.DataFrame(
        {"reason": [no_interval("scott", 0.9), no_interval("light", 0.9)]},
        index=pd.MultiIndex.from_tuples([("a", "scott"), ("a", "light")],
                                        names=["label", "metric"])))[0]
    cut = pd.DataFrame({"label": ["a"]})
    cut.attrs = {"min_items": 10, "n_below_min_items": 3}
    return [
        (pool, "(no interval: --ci 0.95 says how far it can move)."),
        (pairs.readings()["text"].iloc[0], "(no interval: --ci 0.95 says whether a perfect"),
        (scott, "xrr irr FILE --metric scott --weights linear --ci 0.95 gives a bootstrap"),
        (both, "xrr irr FILE --metric scott --ci 0.9 (likewise --metric light) gives"),
        ("The difference, 0.10, has no interval (ci=0.95 says whether it is more than "
         "chance).", "(--ci 0.95 says whether it is more than chance)"),
        ('kappa_x on 40): items="common" compares them on the items both pools rated',
         "--items common compares them"),
        ("agreement_table(data, weights='quadratic') weighs ratios as interval numbers",
         "xrr agreement FILE --weights quadratic weighs ratios"),
        (unranked_sentence(cut), "(they keep their row; --min-items 1 ranks every rater)"),
    ]


def test_each_known_phrase_is_said_with_the_commands_flags(files):
    _, crowd, _ = files
    for text, want in _library_phrases(crowd):
        assert LEFT_OVER.search(text), text  # the library's phrase, as it is
        said = in_cli(text)
        assert want in said and not LEFT_OVER.search(said), said
    for argv in (["report", "x.csv", "--items", "common", "--min-items", "1", "--ci",
                  "0.95"], ["agreement", "x.csv", "--weights", "quadratic"],
                 ["irr", "x.csv", "--metric", "light", "--weights", "linear"]):
        parser().parse_args(argv)  # the flags the sentences name exist


def test_the_named_command_gives_the_bootstrap_interval(files, capsys):
    d, _, _ = files
    out = _run(capsys, "irr", str(d / "scores.csv"), "--metric", "scott", "--weights",
               "linear", "--ci", "0.95", "--n-boot", "30", "--seed", "0", "--format",
               "csv")[0]
    row = pd.read_csv(io.StringIO(out)).iloc[0]
    assert row["method"].startswith("bootstrap") and row["lower"] < row["upper"]


def test_no_python_call_reaches_the_commands_output(files, capsys):
    d, _, _ = files
    path = str(d / "scores.csv")
    flags = ["--ci", "0.95", "--n-boot", "30", "--seed", "0"]
    texts = [_run(capsys, "report", path, "--format", f)[0] for f in ("table", "json",
                                                                      "csv")]
    texts += [_run(capsys, "report", path, *flags, "--format", f)[0] for f in ("table",
                                                                               "json")]
    agree = _run(capsys, "agreement", path, "--ci", "0.95", "--format", "csv")[0]
    assert "xrr irr FILE --metric scott --weights linear --ci 0.95" in agree
    for text in [*texts, agree]:
        assert not LEFT_OVER.search(text), LEFT_OVER.search(text)


# --- 7. the caption above the table ------------------------------------------------------

@pytest.mark.parametrize("flags", [(), ("--ci", "0.95", "--n-boot", "30", "--seed", "0")])
def test_caption_is_above_the_table_with_or_without_ci(files, capsys, flags):
    d, crowd, _ = files
    kw = {"ci": 0.95, "n_boot": 30, "seed": 0, "progress": False} if flags else {}
    rep = _quiet(xrr.report, crowd, level="nominal", **kw)
    args = ["report", str(d / "crowd.csv"), "--level", "nominal", *flags]
    lines = _run(capsys, *args)[0].splitlines()
    at = lines.index(rep.caption())
    assert lines[at - 1].startswith("IRR of each replication")
    assert lines[at + 1].startswith("label / replication")
    assert lines.count(rep.caption()) == 1
    md = _run(capsys, *args, "--format", "markdown")[0].splitlines()
    at = md.index(f"- {rep.caption()}")
    assert md[at - 2].startswith("## IRR of each replication") and md[at + 2].startswith("|")


# --- 8. the demo: one heading, the advice once ---------------------------------------------

def test_demo_says_its_heading_and_advice_once(capsys):
    lines = _run(capsys, "demo", "--n-labels", "9")[0].splitlines()
    assert lines[0] == "xRR report: demo data (simulated, IRep-shaped)"
    assert re.fullmatch(r"2,904 items, [\d,]+ rows, [\d,]+ binary annotations, pools "
                        r"Budapest, Kuala Lumpur, Mexico City\.", lines[1])
    assert not any(ln.startswith("Demo (") for ln in lines)
    reading = lines[lines.index("Reading") + 1:]
    reading = reading[:reading.index("")]
    assert reading == [
        "Each of 3 pairs (Budapest and Kuala Lumpur; Budapest and Mexico City; Kuala Lumpur "
        "and Mexico City), 9 labels: estimate only on 9.",
        "No interval: --ci 0.95 gives each a verdict; the 27 sentences are not printed: "
        "--format json or html holds them, and at most 8 labels (--labels A,B) print them "
        "here."]


# --- 9 and 10. the classic family: statistic, its weights named ----------------------------

def test_classic_family_column_is_statistic_and_its_weights_are_named(files, capsys):
    d, _, scores = files
    rep = _quiet(xrr.report, scores)
    title = family_title(rep.agreement)
    assert title == "Classic family, linear weights"  # ordinal 1-5: the level's weights
    path = str(d / "scores.csv")
    lines = _run(capsys, "report", path)[0].splitlines()
    at = lines.index(f"{title}: every coefficient side by side")
    assert lines[at + 1].split()[:2] == ["label", "statistic"]
    md = _run(capsys, "report", path, "--format", "markdown")[0]
    assert f"## {title}: every coefficient side by side" in md
    doc = json.loads(_run(capsys, "report", path, "--format", "json")[0])
    assert doc["agreement_title"] == title
    assert all("statistic" in r and "metric" not in r for r in doc["agreement"])
    assert [r["statistic"] for r in doc["agreement"]] == list(
        rep.agreement.index.get_level_values("metric"))
    agree = pd.read_csv(io.StringIO(_run(capsys, "agreement", path, "--format", "csv")[0]))
    assert "statistic" in agree.columns and "metric" not in agree.columns
