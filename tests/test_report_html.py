"""The HTML report (``Report.to_html``, ``xrr report --format html``) and the
plain-language readings behind it.

The page is parsed back (html5lib, strict) and its table checked cell by cell
against ``report.frame``; the browser test at the end opens it in headless
Chromium."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import warnings
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import xrr_accessor as xa
from xrr_accessor.cli import main
from xrr_accessor.datasets import simulate
from xrr_accessor.reporting.reading import LOW_IRR, readings
from xrr_accessor.reporting.report import Report
from xrr_accessor.reporting.report_html import MAX_PAIR_FIGURES, MIN_HIST_LABELS

html5lib = pytest.importorskip("html5lib")
pytest.importorskip("jinja2")
pytest.importorskip("matplotlib")

NS = "{http://www.w3.org/1999/xhtml}"


@pytest.fixture(scope="module")
def three_pools() -> Report:
    df = simulate(n_items=250, labels=["joy", "awe", "fear"], pools=["A", "B", "C"], seed=4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return xa.report(df, ci=0.9, n_boot=120, seed=2)


def parse(page: str) -> ET.Element:
    """The page as a tree; html5lib in strict mode raises on any parse error."""
    return html5lib.HTMLParser(strict=True, namespaceHTMLElements=True).parse(page)


def by_id(tree: ET.Element, ident: str) -> ET.Element:
    found = [e for e in tree.iter() if e.get("id") == ident]
    assert len(found) == 1, ident
    return found[0]


def text(e: ET.Element) -> str:
    return " ".join("".join(e.itertext()).split())


def test_page_is_valid_html_and_self_contained(three_pools):
    page = three_pools.to_html()
    tree = parse(page)
    assert page.startswith("<!DOCTYPE html>")
    assert not [e for e in tree.iter() if e.tag in (f"{NS}script", f"{NS}link",
                                                   f"{NS}iframe", f"{NS}object")]
    for e in tree.iter():
        for attr in ("src", "href", "data", "srcset", "poster"):
            value = e.get(attr)
            assert value is None or value.startswith(("data:", "#")), (e.tag, value[:60])
    style = text(by_tag(tree, "style")[0])
    assert "url(" not in style and "@import" not in style
    assert not re.search(r"https?://", re.sub(r"data:[^\"']+", "", page))


def by_tag(tree: ET.Element, tag: str) -> list[ET.Element]:
    return list(tree.iter(f"{NS}{tag}"))


def test_table_matches_the_report_cell_by_cell(three_pools):
    frame = three_pools.frame
    tree = parse(three_pools.to_html(figures=False, digits=4))
    table = by_id(tree, "xrr-report")
    head = by_tag(table, "thead")[0]
    header_rows = by_tag(head, "tr")
    groups = [(text(th), int(th.get("colspan"))) for th in by_tag(header_rows[0], "th")[1:]]
    assert groups == [("IRR", 3), ("kappa_x", 3), ("normalized kappa_x", 3)]
    cells = [text(th) for th in by_tag(header_rows[1], "th")]
    assert cells == ["A", "B", "C", *["A x B", "A x C", "B x C"] * 2]
    body = by_tag(by_tag(table, "tbody")[0], "tr")
    assert [text(by_tag(r, "th")[0]) for r in body] == ["joy", "awe", "fear"]
    stats = ["irr"] * 3 + ["kappa_x"] * 3 + ["normalized"] * 3
    for row in body:
        label = text(by_tag(row, "th")[0])
        for td, stat, cell in zip(by_tag(row, "td"), stats, cells, strict=True):
            a, _, b = cell.partition(" x ")
            want = frame[(frame["label"] == label) & (frame["statistic"] == stat)
                         & (frame["replication"] == a)
                         & ((frame["replication_other"] == b) if b
                            else frame["replication_other"].isna())].iloc[0]
            shown = text(td)
            numbers = [float(v) for v in re.findall(r"-?\d+\.\d+", shown)]
            np.testing.assert_allclose(numbers, [want["estimate"], want["lower"],
                                                 want["upper"]], atol=5e-5)
            assert td.get("title").startswith(f"{want['n_items']:,} items, "
                                               f"{want['n_annotations']:,} annotations")
            if stat != "normalized":
                assert shown.startswith(want["band"] + " ")


def test_figures_are_inline_png(three_pools):
    tree = parse(three_pools.to_html())
    images = by_tag(tree, "img")
    assert len(images) == 1 + 3  # heatmap, one IRR-vs-kappa_x per pair (3 labels: no histogram)
    for img in images:
        assert img.get("src").startswith("data:image/png;base64,iVBORw0KGgo")  # PNG magic
        assert int(img.get("width")) > 100 and int(img.get("height")) > 100
        assert img.get("alt")


def test_many_pairs_are_drawn_up_to_the_cap():
    pools = [f"P{k}" for k in range(5)]  # 10 pairs
    df = simulate(n_items=120, labels=["joy"], pools=pools, seed=8)
    page = xa.report(df).to_html()
    assert len(by_tag(parse(page), "img")) == 1 + MAX_PAIR_FIGURES
    assert "4 more pairs not drawn one by one" in page


def test_histogram_from_eight_labels_on():
    labels = [f"l{k}" for k in range(MIN_HIST_LABELS)]
    df = simulate(n_items=150, labels=labels, pools=["A", "B"], seed=8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rep = xa.report(df)
    alts = [img.get("alt") for img in by_tag(parse(rep.to_html()), "img")]
    assert alts[0] == "Histogram of the IRR of each label by replication" and len(alts) == 3
    fewer = xa.report(df[["item_id", "pool", "rater", *labels[:-1]]])
    assert len(by_tag(parse(fewer.to_html()), "img")) == 2


def test_without_figures_no_matplotlib_is_needed(three_pools, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    page = three_pools.to_html(figures=False)
    assert "<img" not in page
    with pytest.raises(ImportError, match=r"xrr_accessor\[plot\]"):
        three_pools.to_html()


def test_missing_jinja2_names_the_extra(three_pools, monkeypatch):
    monkeypatch.setitem(sys.modules, "jinja2", None)
    with pytest.raises(ImportError, match=r"jinja2: pip install 'xrr_accessor\[io\]'"):
        three_pools.to_html(figures=False)


def test_text_is_escaped():
    df = simulate(n_items=150, labels=["joy"], pools=["<b>crowd</b>", "experts & co"],
                  seed=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # whether this small draw's IRRs are defined
        page = xa.report(df).to_html(figures=False, title="<i>mine</i>")
    assert "<b>crowd</b>" not in page and "&lt;b&gt;crowd&lt;/b&gt;" in page
    assert "experts &amp; co" in page and "&lt;i&gt;mine&lt;/i&gt;" in page
    parse(page)


def test_page_written_to_a_path_and_replications_counted(three_pools, tmp_path):
    path = tmp_path / "r.html"
    assert three_pools.to_html(path) is None
    tree = parse(path.read_text(encoding="utf-8"))
    rows = by_tag(by_id(tree, "xrr-replications"), "tr")[1:]
    df = simulate(n_items=250, labels=["joy", "awe", "fear"], pools=["A", "B", "C"], seed=4)
    want = df.groupby("pool").agg(items=("item_id", "nunique"), raters=("rater", "nunique"),
                                  rows=("pool", "size"))
    got = [[text(c) for c in r] for r in rows]
    assert got == [[p, f"{w['items']:,}", f"{w['raters']:,}", f"{w['rows']:,}"]
                   for p, w in want.iterrows()]


def test_warnings_are_notes_in_the_page():
    df = simulate(n_items=150, labels=["joy"], pools=["<b>crowd</b>", "experts & co"],
                  seed=3)  # an IRR below 0: normalized kappa_x undefined
    with pytest.warns(xa.errors.UndefinedWarning, match="normalized kappa_x is undefined"):
        rep = xa.report(df)
    assert any("normalized kappa_x is undefined" in n for n in rep.attrs["notes"])
    notes = by_tag(by_id(parse(rep.to_html(figures=False)), "notes"), "li")
    assert [text(li) for li in notes] == [" ".join(n.split()) for n in rep.attrs["notes"]]
    quiet = xa.report(simulate(n_items=300, labels=["joy"], pools=["A", "B"], seed=5))
    assert quiet.attrs["notes"] == [] and 'id="notes"' not in quiet.to_html(figures=False)


# --- readings -----------------------------------------------------------------------


def _frame(irr: dict[str, float], kx: float, norm: tuple[float, float, float] | None,
           ci: bool = True, reference: str = "both") -> Report:
    """A hand-made report of one label and one pair (A, B)."""
    est, lo, hi = norm if norm is not None else (np.nan, np.nan, np.nan)
    rows = [{"label": "joy", "statistic": "irr", "replication": r, "replication_other": np.nan,
             "estimate": v, "lower": v - 0.05, "upper": v + 0.05} for r, v in irr.items()]
    rows.append({"label": "joy", "statistic": "kappa_x", "replication": "A",
                 "replication_other": "B", "estimate": kx, "lower": kx - 0.05,
                 "upper": kx + 0.05})
    rows.append({"label": "joy", "statistic": "normalized", "replication": "A",
                 "replication_other": "B", "estimate": est, "lower": lo, "upper": hi,
                 "reference": reference})
    frame = pd.DataFrame(rows)
    if not ci:
        frame = frame.drop(columns=["lower", "upper"])
    return Report(frame, {})


@pytest.mark.parametrize(("norm", "verdict", "phrase"), [
    ((0.97, 0.90, 1.04), "replicates", "A and B replicate each other on joy: normalized "
                                       "kappa_x 0.97 [0.90, 1.04]; the interval reaches 1"),
    ((0.70, 0.55, 0.85), "in part", "A and B replicate each other only in part on joy: "
                                    "normalized kappa_x 0.70 [0.55, 0.85]; the pools agree "
                                    "with each other at 55%-85% of what their own agreement "
                                    "allows."),
    ((0.08, -0.02, 0.18), "not shown", "A and B do not replicate each other on joy: "
                                       "normalized kappa_x 0.08 [-0.02, 0.18]; the interval "
                                       "reaches 0"),
    ((0.89, 0.32, 2.90), "inconclusive", "A and B on joy: normalized kappa_x 0.89 [0.32, "
                                         "2.90], an interval too wide (over 0.5) to say "
                                         "whether A and B replicate each other"),
    ((0.30, 0.05, 0.56), "inconclusive", "too wide"),
    ((0.30, 0.06, 0.55), "in part", "at 6%-55% of what"),
])
def test_reading_rules(norm, verdict, phrase):
    out = readings(_frame({"A": 0.6, "B": 0.5}, 0.4, norm))
    assert out.loc[0, "verdict"] == verdict
    assert phrase in out.loc[0, "text"]
    assert "noisy" not in out.loc[0, "text"]


def test_reading_without_intervals():
    out = readings(_frame({"A": 0.6, "B": 0.5}, 0.4, (0.73, np.nan, np.nan), ci=False))
    assert out.loc[0, "verdict"] == "estimate only"
    assert "at 73% of what their own agreement allows (no interval: ci=0.95, or --ci 0.95 " \
           "in the shell" in out.loc[0, "text"]
    out = readings(_frame({"A": 0.6, "B": 0.5}, 0.6, (1.10, np.nan, np.nan), ci=False))
    assert "agree with each other as much as their own agreement allows" in out.loc[0, "text"]


def test_reading_of_low_irrs_says_the_pools_are_noisy():
    # the paper's awe (Fig 6): IRRs 0.1208 and 0.117, kappa_x 0.0817, normalized 0.6872
    out = readings(_frame({"A": 0.1208, "B": 0.117}, 0.0817, (0.6872, 0.40, 0.95)))
    assert "Both IRRs are low (0.12, 0.12), so this compares noisy pools: kappa_x itself " \
           "is 0.08." in out.loc[0, "text"]
    high = readings(_frame({"A": 0.1208, "B": LOW_IRR + 0.01}, 0.0817, (0.68, 0.4, 0.95)))
    assert "noisy" not in high.loc[0, "text"]


def test_reading_of_undefined_says_why():
    out = readings(_frame({"A": 0.5, "B": -0.05}, 0.1, None))
    assert out.loc[0, "verdict"] == "undefined"
    assert "the IRR of B is -0.050, not above 0" in out.loc[0, "text"]
    out = readings(_frame({"A": np.nan, "B": 0.3}, 0.1, None))
    assert "the IRR of A is undefined" in out.loc[0, "text"]


def test_reading_with_a_reference_reads_it_as_the_original():
    out = readings(_frame({"A": 0.3, "B": 0.8}, 0.5, (0.62, 0.5, 0.75), reference="B"))
    assert out.loc[0, "pair"] == "A against B"
    assert out.loc[0, "text"].startswith("A replicates B only in part on joy")
    assert "A agrees with B at 50%-75% of what B's own agreement allows" in out.loc[0, "text"]
    out = readings(_frame({"A": 0.8, "B": 0.3}, 0.5, (0.62, 0.5, 0.75), reference="A"))
    assert out.loc[0, "text"].startswith("B replicates A only in part on joy")
    # only the reference's IRR makes the ceiling: a low IRR on the other side is no note
    low_other = readings(_frame({"A": 0.1, "B": 0.8}, 0.5, (0.62, 0.5, 0.75), reference="B"))
    assert "noisy" not in low_other.loc[0, "text"]


def test_readings_of_a_real_report_follow_its_intervals(three_pools):
    out = three_pools.readings()
    norm = three_pools.frame[three_pools.frame["statistic"] == "normalized"]
    assert len(out) == len(norm) == 9
    for r, n in zip(out.itertuples(), norm.itertuples(), strict=True):
        want = ("inconclusive" if n.upper - n.lower > 0.5 else "replicates" if n.upper >= 1
                else "not shown" if n.lower <= 0 else "in part")
        assert r.verdict == want
        assert f"{n.estimate:.2f} [{n.lower:.2f}, {n.upper:.2f}]" in r.text


def test_reading_summaries_in_the_page(three_pools):
    tree = parse(three_pools.to_html(figures=False))
    section = by_id(tree, "readings")
    assert [text(h) for h in by_tag(section, "h3")] == ["A x B", "A x C", "B x C"]
    summaries = [text(p) for p in by_tag(section, "p")]
    out = three_pools.readings()
    for (a, b), part in out.groupby(["replication", "replication_other"], sort=False):
        counts = part["verdict"].value_counts()
        line = next(s for s in summaries if s.startswith(f"{a} and {b}, 3 labels:"))
        for verdict, n in counts.items():
            assert f"{verdict} on {n}" in line
    assert len(by_tag(section, "li")) == 9


# --- the command ----------------------------------------------------------------------


def test_cli_writes_the_page(tmp_path, capsys):
    df = simulate(n_items=150, labels=["joy", "awe"], pools=["crowd", "experts"], seed=6)
    df.to_csv(tmp_path / "pools.csv", index=False)
    out = tmp_path / "r.html"
    assert main(["report", str(tmp_path / "pools.csv"), "--replication", "pool",
                 "--format", "html", "--output", str(out)]) == 0
    tree = parse(out.read_text(encoding="utf-8"))
    assert text(by_tag(tree, "h1")[0]) == "xRR report: pools.csv"
    assert len(by_tag(by_tag(by_id(tree, "xrr-report"), "tbody")[0], "tr")) == 2
    assert main(["irr", str(tmp_path / "pools.csv"), "--format", "html"]) == 2
    assert "--format html is a page for xrr report" in capsys.readouterr().err


# --- in a browser -------------------------------------------------------------------

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
PROBE = """<script>
window.addEventListener("load", () => {
  const imgs = Array.from(document.images);
  const table = document.getElementById("xrr-report");
  document.body.setAttribute("data-probe", JSON.stringify({
    rows: table.querySelectorAll("tbody tr").length,
    tableHeight: table.getBoundingClientRect().height,
    images: imgs.length,
    decoded: imgs.filter(i => i.complete && i.naturalWidth > 0).length,
    shown: imgs.filter(i => i.getBoundingClientRect().width > 100).length,
  }));
});
</script>"""


def _chromium(*args: str, tmp: Path) -> subprocess.CompletedProcess[str]:
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
             "--no-first-run", "--disable-background-networking",
             "--disable-component-update", "--disable-sync", "--hide-scrollbars",
             f"--user-data-dir={tmp / 'profile'}"]
    return subprocess.run([CHROMIUM, *flags, *args], capture_output=True, text=True,
                          timeout=120, check=True)


@pytest.mark.browser
@pytest.mark.skipif(CHROMIUM is None and not os.environ.get("XRR_REQUIRE_BROWSER"),
                    reason="no chromium on this machine (.ci/run installs Debian's)")
def test_page_renders_in_headless_chromium(three_pools, tmp_path):
    assert CHROMIUM is not None, "XRR_REQUIRE_BROWSER is set but chromium is missing"
    page = three_pools.to_html(title="xRR report in a browser")
    probed = tmp_path / "probed.html"  # the page plus a test-only script that measures it
    probed.write_text(page.replace("</body>", PROBE + "\n</body>"), encoding="utf-8")
    dom = _chromium("--virtual-time-budget=5000", "--dump-dom", probed.as_uri(),
                    tmp=tmp_path).stdout
    probe = re.search(r'data-probe="([^"]*)"', dom)
    assert probe is not None, dom[:500]
    result = json.loads(probe.group(1).replace("&quot;", '"'))
    assert result["rows"] == 3 and result["tableHeight"] > 50
    assert result["images"] == result["decoded"] == result["shown"] == 4
    page_file = tmp_path / "page.html"
    page_file.write_text(page, encoding="utf-8")
    shot = tmp_path / "page.png"
    _chromium("--window-size=1280,2000", f"--screenshot={shot}", page_file.as_uri(),
              tmp=tmp_path)
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20_000
