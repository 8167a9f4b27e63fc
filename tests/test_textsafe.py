"""Exports safe to open (issues 25 and 36): CSV formula injection, Markdown cells, mathtext
in figures. The property tests over hostile names are in tests/test_writers_safe.py."""

from __future__ import annotations

import copy
import io
import re
import warnings

import numpy as np
import pandas as pd
import pytest

import xrr_accessor as xa
from xrr_accessor.datasets import simulate
from xrr_accessor.textsafe import csv_cell, csv_safe, escape_controls, figure_text, markdown_cell

RUNS = ("=", "+", "-", "@", "\t", "\r")
#: skipped before the first visible character (blanks, controls, format characters)
INVISIBLE = " \t\r\n\x00\x1b\x85\u00a0\u200b\u200c\u200d\u2060\ufeff\u2028\u2029\u202e"
EVIL_LABEL = '=HYPERLINK("http://example.invalid","x")'


def _report(labels: dict[str, str], pools: dict[str, str], **kw):
    df = simulate(n_items=80, labels=list(labels), pools=list(pools), seed=2)
    df = df.rename(columns=labels)
    df["pool"] = df["pool"].map(pools)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xa.XRRWarning)
        return xa.report(df, **kw)


@pytest.fixture(scope="module")
def evil():
    return _report({"joy": EVIL_LABEL, "awe": "a|b\nc", "fun": "+cmd|' /C calc'!A0"},
                   {"A": "@A", "B": "-B", "C": "\tC"})


def test_csv_cells_a_spreadsheet_would_run_start_with_a_quote(evil):
    text = evil.to_csv()
    back = pd.read_csv(io.StringIO(text), keep_default_na=False)
    cells = [v for col in back.columns if not pd.api.types.is_numeric_dtype(back[col])
             for v in back[col]]
    assert cells and not [v for v in cells if isinstance(v, str) and v.startswith(RUNS)]
    assert set(back["label"]) == {"'" + EVIL_LABEL, "a|b\\nc", "'+cmd|' /C calc'!A0"}
    assert set(back["replication"]) == {"'@A", "'-B", "\\tC"}  # no tab: C is no formula
    # numbers stay numbers: a negative estimate is written as the number it is
    est = evil.frame["estimate"].to_numpy()
    np.testing.assert_allclose(back["estimate"].to_numpy(), est, rtol=1e-15, equal_nan=True)


def test_negative_estimates_are_written_as_numbers():
    rep = _report({"joy": "joy", "awe": "awe"}, {"A": "A", "B": "B"})
    rep.frame.loc[0, "estimate"] = -0.25
    line = rep.to_csv().splitlines()[1]
    assert ",-0.25," in line and "'-" not in line


def test_raw_csv_writes_names_exactly(evil):
    back = pd.read_csv(io.StringIO(evil.to_csv(raw=True)), keep_default_na=False)
    assert set(back["label"]) == set(evil.frame["label"])
    assert set(back["replication"]) == set(evil.frame["replication"])


def test_csv_to_a_path_is_neutralised_too(evil, tmp_path):
    path = tmp_path / "r.csv"
    assert evil.to_csv(path) is None
    assert path.read_text() == evil.to_csv()


def test_csv_safe_naive_rule_and_inputs_untouched():
    values = ["=1+2", "+x", "-y", "@z", "\tt", "\rr", "-1", "+2.5", "-3e-4", "joy", "", "a=b",
              None, 1.5, -2, " =1", "\u200b@x", "\ufeff\u2060+x", "\t\r-x", "x\r=cmd", "\x00=1",
              "\uff1d1", " -1", "'=x", "\u200b", "a\u2028b\x85c\x7f"]
    df = pd.DataFrame({"v": pd.Series(values, dtype=object), "n": range(len(values))})
    df.columns = ["v", "=n"]
    before = copy.deepcopy(df)
    out = csv_safe(df)
    pd.testing.assert_frame_equal(df, before)

    def naive(v):  # the rule, written out: controls as escapes, then the OWASP quote
        if not isinstance(v, str):
            return v
        shown = "".join(repr(c)[1:-1] if re.fullmatch("[\x00-\x1f\x7f-\x9f\u2028\u2029]", c)
                        else c for c in v)
        first = v.lstrip(INVISIBLE)[:1].replace("\uff1d", "=")
        is_number = re.fullmatch(r"[+-]?[0-9.]+(e[+-]?[0-9]+)?", v)
        return "'" + shown if first in RUNS and not is_number else shown

    assert out["v"].tolist() == [naive(v) for v in values]
    assert list(out.columns) == ["v", "'=n"]
    assert out["'=n"].tolist() == list(range(len(values)))  # numbers untouched


def test_markdown_names_stay_in_their_cells(evil):
    md = evil.to_markdown()
    table = md.split("\n\n")[0].splitlines()
    assert len(table) == 2 + 3  # header, rule, one row per label: a newline adds no row
    cells = [re.split(r"(?<!\\)\|", line)[1:-1] for line in table]
    assert len({len(c) for c in cells}) == 1  # a "|" in a name adds no cell
    assert r"a\|b c" in md and EVIL_LABEL in md


def test_markdown_cell_escapes():
    assert markdown_cell("a|b") == r"a\|b"
    assert markdown_cell("x\r\ny\nz\rw\u2028v") == "x y z w v"
    assert markdown_cell("back\\slash|") == "back\\\\slash\\|"
    assert markdown_cell(3) == "3"
    assert markdown_cell("<script>alert('&')</script>") == (
        "&lt;script&gt;alert('&amp;')&lt;/script&gt;")
    assert markdown_cell("<!-- c --> <http://x>") == "&lt;!-- c --&gt; &lt;http://x&gt;"
    assert markdown_cell("`<b>` ![i](http://t/p.png)") == (
        r"\`&lt;b&gt;\` ![i\](http://t/p.png)")
    assert markdown_cell("nul\x00 esc\x1b[31m tab\t") == r"nul\x00 esc\x1b[31m tab\t"
    assert markdown_cell("0.5 [0.3, 0.7]") == "0.5 [0.3, 0.7]"  # intervals as they are


def test_csv_cell_and_escape_controls():
    assert csv_cell("x\r=cmd|' /C calc'!A0") == "x\\r=cmd|' /C calc'!A0"
    assert csv_cell("\r=cmd") == "'\\r=cmd"
    assert [csv_cell(c + "=1") for c in " \u200b\u200c\u200d\u2060\ufeff\u00a0\u3000"] == [
        "'" + c + "=1" for c in " \u200b\u200c\u200d\u2060\ufeff\u00a0\u3000"]
    assert csv_cell("-1.5") == "-1.5" and csv_cell("1e-3") == "1e-3"
    assert escape_controls("\x00\x1f\x7f\x9f\u2028\u2029") == r"\x00\x1f\x7f\x9f\u2028\u2029"
    assert escape_controls("joy") == "joy" and escape_controls(None) is None


def _unescaped_dollars(text: str) -> int:
    """Matplotlib's rule: text is mathtext when it holds unescaped ``$`` signs."""
    return text.count("$") - text.count(r"\$")


NAMES = {"joy": "$$", "awe": "${" + "{" * 200 + "$", "fun": "cost $x^2$"}
POOLS = {"A": "$A", "B": "B$$"}


def test_figures_never_parse_names_as_mathtext():
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.text import Text

    rep = _report(NAMES, POOLS)
    axes = [rep.plot.irr_hist(), rep.plot.heatmap(), rep.plot.irr_vs_kappa(),
            rep.plot.label("$$")]
    try:
        for ax in axes:
            ax.figure.canvas.draw()  # main: ValueError / RecursionError here
            texts = [t.get_text() for t in ax.figure.findobj(Text)]
            assert texts and all(_unescaped_dollars(t) == 0 for t in texts)
        shown = {t.get_text().replace(r"\$", "$") for t in axes[2].get_xticklabels()}
        assert shown == set(NAMES.values())  # drawn as written
    finally:
        plt.close("all")


def test_diagnostic_figures_escape_names():
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from xrr_accessor.diagnostics import plots

    # three raters: with two, alpha without one is undefined and no point is drawn (nor named)
    df = simulate(n_items=60, labels=["joy"], pools=["A"], raters_per_item=3, seed=1)
    df = df.rename(columns={"joy": "$$"}).assign(rater=lambda d: "$" + d["rater"] + "$")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xa.XRRWarning)
        ax = plots.raters(xa.rater_agreement(df), label="$$", annotate=2)
        ax2 = plots.items(xa.item_disagreement(df, level="nominal"), label="$$")
    try:
        for a in (ax, ax2):
            a.figure.canvas.draw()
        shown = [t.get_text().replace(r"\$", "$") for t in ax.texts]
        assert len(shown) == 2 and all(re.fullmatch(r"A / \$Rater \d+\$", t) for t in shown)
        assert all(_unescaped_dollars(t.get_text()) == 0 for t in ax.texts)
        assert _unescaped_dollars(ax.get_title()) == 0 and "$$" in ax.get_title().replace(
            "\\", "")
    finally:
        plt.close("all")


def test_html_report_with_dollar_names():
    pytest.importorskip("jinja2")
    pytest.importorskip("matplotlib")
    rep = _report(NAMES, POOLS)
    page = rep.to_html()
    assert page.startswith("<!DOCTYPE html>") and page.count("data:image/png") >= 2
    assert "cost $x^2$" in page


def test_figure_text():
    assert figure_text("a$b") == r"a\$b"
    assert _unescaped_dollars(figure_text(r"a\$b$")) == 0


@pytest.mark.parametrize("command", ["report", "irr"])
def test_cli_csv_and_markdown_are_safe_and_raw_is_exact(tmp_path, capsys, command):
    """The command line writes through the same rules: csv cells a spreadsheet would run
    get a quote (``--raw``: written exactly), a ``|`` or line break stays in its
    Markdown cell."""
    from xrr_accessor.cli import main

    df = simulate(n_items=60, labels=["joy", "awe"], pools=["A", "B"], seed=3)
    df = df.rename(columns={"joy": EVIL_LABEL, "awe": "a|b"})
    df["pool"] = df["pool"].map({"A": "@A", "B": "B"})
    path = tmp_path / "evil.csv"
    df.to_csv(path, index=False)
    base = [command, str(path), "--replication", "pool"]
    assert main([*base, "--format", "csv"]) == 0
    back = pd.read_csv(io.StringIO(capsys.readouterr().out), keep_default_na=False)
    assert "'" + EVIL_LABEL in set(back["label"]) and EVIL_LABEL not in set(back["label"])
    assert "'@A" in set(back["replication"])
    assert main([*base, "--format", "csv", "--raw"]) == 0
    back = pd.read_csv(io.StringIO(capsys.readouterr().out), keep_default_na=False)
    assert EVIL_LABEL in set(back["label"]) and "@A" in set(back["replication"])
    assert main([*base, "--format", "markdown"]) == 0
    out = capsys.readouterr().out
    lines = [ln for ln in out.splitlines() if ln.startswith("|")]
    for block in out.split("\n\n"):  # each table: every row has its header's cells
        rows = [ln for ln in block.splitlines() if ln.startswith("|")]
        assert len({len(re.findall(r"(?<!\\)\|", ln)) for ln in rows}) <= 1
    assert any("a\\|b" in ln for ln in lines)
