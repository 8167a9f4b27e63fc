"""``xrr report`` and ``xrr demo`` in every format carry the page's sections (the reading,
the IRR table, and for one pool the classic family, the raters or why there are none, and
the items with ties collapsed), with the Report's numbers; the demo and the report choose
the same IRR and say which and why; tables with intervals line up; ``xrr raters`` on pools
of two raters prints no NaN rows."""

from __future__ import annotations

import io
import json
import re
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import xrr_accessor as xrr
from xrr_accessor.cli import main
from xrr_accessor.cli.output import banded
from xrr_accessor.cli.phrases import in_cli
from xrr_accessor.cli.report_text import collapsed_items
from xrr_accessor.datasets import load_demo
from xrr_accessor.reporting.bands import band_of
from xrr_accessor.reporting.cells import SCALES, cell_names, shown
from xrr_accessor.reporting.pool_html import no_rater_table
from xrr_accessor.reporting.rater_view import ranked
from xrr_accessor.reporting.report_html import TOP_ROWS


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xrr.XRRWarning)
        return fn(*args, **kwargs)


def _run(capsys, *args: str) -> tuple[str, str]:
    assert main(list(args)) == 0
    got = capsys.readouterr()
    return got.out, got.err


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """Two pools of the demo (two raters each), one crowd of five raters (binary labels:
    many items tie at the largest D), and the demo's two-rater pools split in four."""
    d = tmp_path_factory.mktemp("sections")
    demo = load_demo().iloc[:, :5]
    two = demo[demo["pool"].isin(["Budapest", "Mexico City"])].groupby("pool").head(400)
    two.to_csv(d / "pairs.csv", index=False)
    rng = np.random.default_rng(7)
    truth = rng.integers(0, 2, size=(60, 2))
    rows = [(f"i{i}", f"r{r}", *(np.where(rng.random(2) < 0.8, truth[i], 1 - truth[i])))
            for i in range(60) for r in range(5)]
    crowd = pd.DataFrame(rows, columns=["item", "rater", "joy", "awe"])
    crowd.to_csv(d / "crowd.csv", index=False)
    duo = crowd[crowd["rater"].isin(["r0", "r1"])]
    duo.to_csv(d / "duo.csv", index=False)
    return d, two, crowd, duo


# --- reading printed tables ------------------------------------------------------------

_TOKEN = re.compile(r"\S+(?: \S+)*")


def parse_table(lines: list[str], right: set[int]) -> list[list[str]]:
    """The cells of an aligned table. Its columns are the spans between gutters (runs of
    two or more positions blank on every line); there must be one per header name, and
    on every row a right-aligned column's text (index in ``right``) ends where its span
    ends, a left-aligned one's starts where its span starts. Fails on a misaligned row."""
    width = max(map(len, lines))
    rows = [ln.ljust(width) for ln in lines]
    used = [any(r[i] != " " for r in rows) for i in range(width)] + [False, False]
    spans, start, blank = [], 0, 0
    for i, u in enumerate(used):
        if u:
            if blank >= 2 and i - blank > start:
                spans.append((start, i - blank))
                start = i
            elif blank >= 2:
                start = i
            blank = 0
        else:
            blank += 1
    spans.append((start, width))
    names = [m.group() for m in _TOKEN.finditer(lines[0])]
    assert len(spans) == len(names), (spans, names)
    out = []
    for row in rows[1:]:
        cells = []
        for j, (a, b) in enumerate(spans):
            text = row[a:b]
            if text.strip():
                assert (text[-1] if j in right else text[0]) != " ", (row, j)
            cells.append(text.strip())
        out.append(cells)
    return out


def _blocks(text: str) -> dict[str, list[str]]:
    """The report's titled blocks in the table format: title -> its lines."""
    out, title = {}, None
    for line in text.splitlines():
        if not line.strip():
            title = None
        elif title is None:
            title = line
            out[title] = []
        else:
            out[title].append(line)
    return out


_CELL = re.compile(r"^(NaN|-?\d+\.\d+)(?: \[ *(-?\d+\.\d+), *(-?\d+\.\d+)\])?$")


def _check_block(lines: list[str], rep, stat: str, decimals: int) -> int:
    """A report block aligned and holding the Report's numbers, printed by the page's
    rule (:func:`shown`); in each column the brackets at one place on every row (the
    limits padded). Returns the number of cells read."""
    frame = rep.frame[rep.frame["statistic"] == stat]
    frame = frame.assign(cell=cell_names(frame))
    names = [m.group() for m in _TOKEN.finditer(lines[0])][1:]
    rows = parse_table(lines, set(range(1, len(names) + 1)))
    seen = 0
    for j, name in enumerate(names, start=1):
        for row in rows:
            want = frame[(frame["label"] == row[0]) & (frame["cell"] == name)].iloc[0]
            lo, hi = float(want.get("lower", np.nan)), float(want.get("upper", np.nan))
            est, interval = shown(float(want["estimate"]), lo, hi, decimals,
                                  scale=SCALES[stat])
            printed = re.sub(r"\[ +", "[", re.sub(r", +", ", ", row[j]))
            assert printed == (f"{est} {interval}" if interval else est)
            found = _CELL.match(row[j])
            assert found is not None, row[j]
            for text, value in zip(found.groups(), (want["estimate"], lo, hi), strict=True):
                if text is not None and text != "NaN":  # reads back to the Report's number
                    d = len(text.split(".")[1])
                    assert abs(float(text) - value) <= 0.5 * 10 ** -d + 1e-12
            seen += 1
        cells = [row[j] for row in rows]
        for mark in "[,]":  # each column's brackets and comma at one place
            places = {c.index(mark) - len(c) for c in cells if mark in c}
            assert len(places) <= 1, (name, mark, cells)
    return seen


# --- 1. the demo and the report: one default IRR, said with its reason -------------------

def test_demo_and_report_choose_the_same_irr_and_say_why(files, capsys, tmp_path):
    demo = load_demo().iloc[:, :5]
    demo.to_csv(tmp_path / "demo.csv", index=False)
    by_demo = pd.read_csv(io.StringIO(_run(capsys, "demo", "--n-labels", "2",
                                           "--format", "csv")[0]))
    by_report = pd.read_csv(io.StringIO(_run(capsys, "report", str(tmp_path / "demo.csv"),
                                             "--format", "csv")[0]))
    assert set(by_demo.loc[by_demo["role"] == "irr", "statistic"]) == {"cohen"}
    pd.testing.assert_frame_equal(by_demo, by_report)
    want = _quiet(xrr.report, demo)
    assert want.attrs["irr"] == "cohen"  # the library's default, two raters a pool
    np.testing.assert_allclose(by_demo["estimate"], want.frame["estimate"], rtol=1e-12)
    line = ("IRR: Cohen's kappa, the default where no pool has more than two raters (the "
            "paper's Table 5); --irr alpha gives Krippendorff's alpha.")
    for args in (["demo", "--n-labels", "2"], ["report", str(tmp_path / "demo.csv")]):
        assert line in _run(capsys, *args)[0].splitlines()[:4]
    boot = ["--ci", "0.95", "--n-boot", "30", "--seed", "1", "--format", "csv"]
    by_demo = pd.read_csv(io.StringIO(_run(capsys, "demo", "--n-labels", "2", *boot)[0]))
    by_report = pd.read_csv(io.StringIO(_run(capsys, "report", str(tmp_path / "demo.csv"),
                                             *boot)[0]))
    pd.testing.assert_frame_equal(by_demo, by_report)  # --ci too: the same draws
    assert by_demo["lower"].notna().all()
    out = _run(capsys, "demo", "--n-labels", "2", "--irr", "alpha")[0]
    assert "IRR: Krippendorff's alpha (--irr alpha)." in out
    assert "IRR of each replication (alpha, nominal)" in out
    d = files[0]  # five raters: the report's default is alpha, and says so
    out = _run(capsys, "report", str(d / "crowd.csv"), "--level", "nominal")[0]
    assert ("IRR: Krippendorff's alpha, the default where a pool has more than two raters "
            "(Cohen's kappa compares two); --irr names another.") in out


# --- 2 and 5. aligned tables, cells by the page's rule -----------------------------------

def test_report_blocks_with_intervals_line_up_and_hold_the_reports_numbers(files, capsys):
    d, two, _, _ = files
    args = ["--ci", "0.95", "--n-boot", "60", "--seed", "3"]
    out = _run(capsys, "report", str(d / "pairs.csv"), *args)[0]
    rep = _quiet(xrr.report, two, ci=0.95, n_boot=60, seed=3, progress=False)
    blocks = _blocks(out)
    titles = {s: next(t for t in blocks if t.startswith(p)) for s, p in (
        ("irr", "IRR of each replication"), ("kappa_x", "kappa_x: agreement"),
        ("normalized", "normalized kappa_x: replication"))}
    assert blocks[titles["irr"]][0] == rep.caption()  # what the table holds, above it
    blocks[titles["irr"]] = blocks[titles["irr"]][1:]
    seen = sum(_check_block(blocks[titles[s]], rep, s, 3) for s in titles)
    assert seen == len(rep.frame)  # every cell of the Report, once
    assert any(re.search(r"\[ +0\.", ln) for t in titles.values() for ln in blocks[t]) or \
        not (rep.frame["lower"] < 0).any()  # a negative limit pads the others of its column


@pytest.mark.parametrize("command", ["irr", "cross-kappa"])
def test_statistic_tables_with_intervals_line_up(files, capsys, command):
    d = files[0]
    args = [command, str(d / "pairs.csv"), "--ci", "0.95", "--n-boot", "60", "--seed", "3"]
    text = _run(capsys, *args)[0]
    csv = pd.read_csv(io.StringIO(_run(capsys, *args, "--format", "csv")[0]))
    lines = text.rstrip("\n").splitlines()
    names = [m.group() for m in _TOKEN.finditer(lines[0])]
    right = {j for j, n in enumerate(names) if pd.api.types.is_numeric_dtype(csv[n])}
    rows = parse_table(lines, right)
    assert len(rows) == len(csv)
    for j, name in enumerate(names):
        if name in ("estimate", "lower", "upper"):
            np.testing.assert_allclose([float(r[j]) for r in rows], csv[name], atol=5e-4)


# --- 3. every format carries the page's sections -----------------------------------------

def test_one_pool_report_in_every_format_has_every_section(files, capsys):
    d, _, crowd, _ = files
    rep = _quiet(xrr.report, crowd.assign(pool="crowd"), replication="pool",
                 level="nominal", ci=0.95, n_boot=60, seed=1, progress=False)
    path = str(d / "crowd.csv")
    flags = ["--level", "nominal", "--ci", "0.95", "--n-boot", "60", "--seed", "1"]
    doc = json.loads(_run(capsys, "report", path, *flags, "--format",
                          "json")[0])
    assert {"records", "readings", "agreement", "raters", "items", "said"} <= set(doc)
    read = rep.readings()
    read["text"] = read["text"].map(in_cli)  # in the command's words
    assert [r["text"] for r in doc["readings"]] == read["text"].tolist()
    np.testing.assert_allclose([r["estimate"] for r in doc["records"]],
                               rep.frame["estimate"], rtol=1e-12)
    agree = rep.agreement.reset_index()
    np.testing.assert_allclose([r["estimate"] for r in doc["agreement"]],
                               agree["estimate"], rtol=1e-12, equal_nan=True)
    want_raters = ranked(rep.raters, TOP_ROWS)
    assert [r["rater"] for r in doc["raters"]] == want_raters.index.get_level_values(
        "rater").tolist()
    for col in ("kappa_x", "kappa_x_lower", "kappa_x_upper"):  # the same draws
        np.testing.assert_allclose([r[col] for r in doc["raters"]], want_raters[col])
    _check_items(doc["items"], rep.items)
    table = _run(capsys, "report", path, *flags)[0]
    markdown = _run(capsys, "report", path, *flags, "--format", "markdown")[0]
    order = ["Reading", "IRR of each replication", "Classic family, unweighted",
             "Raters against the rest of the pool", "Items most disagreed on"]
    for text, mark in ((table, ""), (markdown, "## ")):
        where = [next(i for i, ln in enumerate(text.splitlines()) if ln.startswith(mark + t))
                 for t in order]
        assert where == sorted(where)  # the page's order
        for sentence in read["text"]:
            assert sentence.replace("|", "\\|") in text
        for tie in doc["said"]["items"]:
            assert tie in text
    blocks = _blocks(table)
    # the classic family of two labels: a row per label, a column per coefficient (as the
    # page), each cell the estimate and interval by the one printing rule
    classic = blocks[next(t for t in blocks if t.startswith(order[2]))]
    names = [m.group() for m in _TOKEN.finditer(classic[0])]
    n_labels = agree["label"].nunique()
    rows = parse_table(classic[:n_labels + 1], set(range(1, len(names))))
    assert [r[0] for r in rows] == list(pd.unique(agree["label"]))
    for row in rows:
        for j, metric in enumerate(names[1:], start=1):
            want = agree[(agree["label"] == row[0]) & (agree["metric"] == metric)].iloc[0]
            lo, hi = float(want.get("lower", np.nan)), float(want.get("upper", np.nan))
            scale = "band" if isinstance(want["band"], str) else None
            text = " ".join(filter(None, shown(float(want["estimate"]), lo, hi, 3,
                                               scale=scale)))
            assert re.sub(r"\[ +", "[", row[j]) == (text if text != "NaN" else ""), metric
    assert set(names[1:]) == set(agree["metric"])
    csv = pd.read_csv(io.StringIO(_run(capsys, "report", path, *flags, "--format",
                                       "csv")[0]))
    irr = csv[csv["role"] == "irr"]
    assert irr["reading"].tolist() == read["text"].tolist()
    assert irr["verdict"].tolist() == read["verdict"].tolist()


def _check_items(records: list[dict], items: pd.DataFrame, top: int = TOP_ROWS) -> None:
    """The items section against a naive cut of the Report's items: per label, the
    first ``top`` by D; a tie that runs past the cut as one row counting its items."""
    got = pd.DataFrame(records)
    for label, part in items.reset_index().groupby("label", sort=False):
        d = part["disagreement"].dropna().sort_values(ascending=False, kind="stable")
        last = d.iloc[min(top, len(d)) - 1]
        runs_past = (d == last).sum() > (d.iloc[:top] == last).sum()
        mine = got[got["label"] == label]
        singles = d.iloc[:top]
        if runs_past:
            singles = singles[singles != last]
            tie = mine[mine["item"].isna()]
            assert tie["n_items"].tolist() == [int((d == last).sum())]
            assert tie["disagreement"].tolist() == [last]
        assert mine.loc[mine["item"].notna(), "disagreement"].tolist() == singles.tolist()
    assert any(got["n_items"] > 1)  # the fixture's binary labels tie past the cut


def test_two_rater_pool_says_why_it_has_no_rater_table(files, capsys):
    d, _, _, duo = files
    path = str(d / "duo.csv")
    line = no_rater_table(duo["rater"].nunique(), slots=False)
    assert line.startswith("No rater table: the pool has 2 raters")
    doc = json.loads(_run(capsys, "report", path, "--level", "nominal", "--format",
                          "json")[0])
    assert doc["raters"] == [] and doc["said"]["raters"] == [line]
    for fmt in ("table", "markdown"):
        out = _run(capsys, "report", path, "--level", "nominal", "--format", fmt)[0]
        assert line in out


def test_pools_report_sections_in_json_and_markdown(files, capsys):
    d, two, _, _ = files
    rep = _quiet(xrr.report, two)
    doc = json.loads(_run(capsys, "report", str(d / "pairs.csv"), "--format", "json")[0])
    read = rep.readings()
    read["text"] = read["text"].map(in_cli)  # in the command's words
    assert [r["text"] for r in doc["readings"]] == read["text"].tolist()
    assert not {"agreement", "raters", "items"} & set(doc)  # one pool's sections only
    norm = [r for r in doc["records"] if r["role"] == "normalized"]
    assert [r["verdict"] for r in norm] == read["verdict"].tolist()
    markdown = _run(capsys, "report", str(d / "pairs.csv"), "--format", "markdown")[0]
    for sentence in read["text"]:
        assert f"- {sentence}" in markdown


# --- 4. xrr raters on pools of two raters ------------------------------------------------

def test_raters_prints_no_nan_rows_for_two_rater_pools(files, capsys):
    d, two, crowd, _ = files
    out, err = _run(capsys, "raters", str(d / "pairs.csv"), "--format", "csv")
    assert out.strip() == "label,replication,rater"
    n = two.groupby("pool")["rater"].nunique().sum() * 2  # raters x labels, not listed
    assert err.count("note:") == 1 and "alpha_without" not in err
    assert ("rater agreement needs at least 3 raters in a pool: Budapest has 2, Mexico "
            "City has 2") in err and f"{n:,} rows (rater x label) not listed" in err
    mixed = pd.concat([two, crowd.rename(columns={"item": "item_id", "joy": "amusement",
                                                  "awe": "anger"}).assign(pool="crowd")])
    mixed.to_csv(d / "mixed.csv", index=False)
    got = pd.read_csv(io.StringIO(_run(capsys, "raters", str(d / "mixed.csv"), "--level",
                                       "nominal", "--format", "csv")[0]))
    want = _quiet(xrr.rater_agreement, mixed[mixed["pool"] == "crowd"], level="nominal",
                  replication="pool")
    want = ranked(want).reset_index()
    assert set(got["replication"]) == {"crowd"} and got["kappa_x"].notna().all()
    np.testing.assert_allclose(got["kappa_x"], want["kappa_x"], rtol=1e-12)


def test_collapsed_items_against_a_naive_cut():
    rng = np.random.default_rng(3)
    index = pd.MultiIndex.from_product([["a", "b"], [f"i{k}" for k in range(30)]],
                                       names=["label", "item"])
    d = rng.choice([0.2, 0.5, 0.9], size=60, p=[0.5, 0.3, 0.2])
    table = pd.DataFrame({"disagreement": d, "n_annotations": 3}, index=index)
    table = table.sort_values(["label", "disagreement"], ascending=[True, False],
                              kind="stable")
    rows, said = collapsed_items(table, 4)
    _check_items(rows.to_dict("records"), table, 4)
    assert len(said) == (rows["n_items"] > 1).sum()


# --- 5. a number printed beside its band reads back to that band ------------------------

@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([0.0, 0.2, 0.4, 0.6, 0.8]),
                          st.floats(-1e-3, 1e-3), st.floats(0.0, 0.05)), min_size=1,
                max_size=6), st.integers(1, 3))
def test_banded_records_read_back_to_their_band(cells, decimals):
    est = np.array([edge + off for edge, off, _ in cells])
    width = np.array([w for _, _, w in cells])
    frame = pd.DataFrame({"estimate": est, "lower": est - width, "upper": est + width,
                          "band": [band_of(v) for v in est]})
    shown_frame, right = banded(frame, decimals)
    assert right == ("estimate", "lower", "upper")
    for row, want in zip(shown_frame.itertuples(), frame.itertuples(), strict=True):
        for col in right:
            text, value = getattr(row, col), getattr(want, col)
            assert len(text.split(".")[1]) >= decimals
            assert abs(float(text) - value) <= 0.5 * 10 ** -len(text.split(".")[1]) + 1e-15
        assert band_of(float(row.estimate)) == want.band  # "0.60" never beside substantial
        assert len({len(getattr(row, c).split(".")[1]) for c in right}) == 1  # one decimals


def test_agreement_table_prints_the_banded_cells(files, capsys):
    d = files[0]
    args = ["agreement", str(d / "crowd.csv"), "--ci", "0.95", "--decimals", "2"]
    lines = _run(capsys, *args)[0].rstrip("\n").splitlines()
    csv = pd.read_csv(io.StringIO(_run(capsys, *args, "--format", "csv")[0]))
    want, _ = banded(csv, 2)
    names = [m.group() for m in _TOKEN.finditer(lines[0])]
    est = names.index("estimate")
    right = {j for j, n in enumerate(names) if n not in ("label", "statistic", "replication",
                                                         "method", "band", "reason")}
    rows = parse_table(lines, right)
    assert [r[est] for r in rows] == want["estimate"].tolist()


def test_no_control_character_reaches_the_terminal_from_a_name(files, capsys, tmp_path):
    """Names go into the reading's sentences, the tie lines and the titles: escaped there
    too, as in the tables (no carriage return or escape sequence on a terminal)."""
    _, _, crowd, _ = files
    evil = crowd.rename(columns={"joy": "jo\ry", "awe": "a\x1b[31mwe"})
    evil["item"] = evil["item"] + "\r"
    evil.to_json(tmp_path / "evil.json", orient="records")  # a CR in a CSV field: unread
    for fmt in ("table", "markdown"):
        out = _run(capsys, "report", str(tmp_path / "evil.json"), "--level", "nominal",
                   "--format", fmt)[0]
        assert not re.search("[\x00-\x09\x0b-\x1f\x7f-\x9f]", out), fmt
        assert ("jo\\ry" if fmt == "table" else "jo y") in out  # markdown: a break, a space
