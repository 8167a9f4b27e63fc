"""Every writer of names is safe to open (issue 36): hostile labels and replications through
``Report.to_csv/to_markdown/to_json/to_html`` and the command line's csv, markdown, table
and json, read back as a spreadsheet and a Markdown renderer would; a path that cannot be
written raises InputError.

One small report is built per module; the property test renames its labels and
replications (no recomputation), so each example costs a few milliseconds.
"""

from __future__ import annotations

import csv
import errno
import html
import io
import json
import os
import re
import unicodedata
import warnings
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

import xrr_accessor as xa
from xrr_accessor.cli import main
from xrr_accessor.cli.output import schema, write_csv, write_json, write_markdown, write_table
from xrr_accessor.datasets import simulate
from xrr_accessor.reporting.report import Report
from xrr_accessor.textsafe import csv_safe

FORMULA = "=+-@"
NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")
#: what a spreadsheet or a CSV reader splits on, or strips before a formula
CONTROLS = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")
ALPHABET = list("=+-@ \t\r\n\x00\u200b\u200c\u200d\u2060\ufeff\u2028|<>&\"'`[]()!ax1.,;")
NAMES = st.text(st.sampled_from(ALPHABET), min_size=1, max_size=10)
HOSTILE_LABELS = ["x\r=cmd|' /C calc'!A0", "<script>alert(1)</script>",
                  "\u200b=HYPERLINK(\"http://x.invalid\")"]
HOSTILE_POOLS = [" @SUM(A1)", "<img src=x onerror=alert(1)>\n-2+3"]


def _strip(cell: str) -> str:
    """``cell`` past what a spreadsheet may skip: blanks, controls, format characters."""
    i = 0
    while i < len(cell) and unicodedata.category(cell[i])[0] in "ZC":
        i += 1
    return cell[i:]


def _runs(cell: str) -> bool:
    """Whether a spreadsheet would run ``cell`` as a formula."""
    shown = _strip(cell)
    return (shown[:1] in tuple(FORMULA) and not NUMBER.fullmatch(shown)
            and not cell.startswith("'"))


def _decode(cell: str) -> str:
    """A safe CSV cell back to the name (the alphabet holds no backslash)."""
    named = {"t": "\t", "n": "\n", "r": "\r"}
    return re.sub(r"\\(x[0-9a-f]{2}|u[0-9a-f]{4}|[tnr])",
                  lambda m: named.get(m[1]) or chr(int(m[1][1:], 16)), cell)


def _check_csv(text: str, n_rows: int) -> list[list[str]]:
    """``text`` read by the csv module and, line by line, by a spreadsheet that starts a
    row at every CR or LF: no cell runs, no control character, ``n_rows`` records."""
    rows = list(csv.reader(io.StringIO(text, newline="")))
    lines = re.split(r"\r\n|\r|\n", text.rstrip("\r\n"))
    assert len(rows) == len(lines) == n_rows + 1
    for row in [*rows, *(next(csv.reader([ln])) for ln in lines)]:
        assert len(row) == len(rows[0])
        for cell in row:
            assert not _runs(cell), cell
            assert not CONTROLS.search(cell), cell
    return rows


def _rename(rep: Report, labels: list[str], pools: list[str]) -> Report:
    """``rep`` with its two labels and two replications named ``labels`` and ``pools``."""
    frame = rep.frame.copy()
    old_labels = list(pd.unique(frame["label"]))
    old_pools = sorted(set(frame["replication"].dropna()))
    frame["label"] = frame["label"].map(dict(zip(old_labels, labels, strict=True)))
    to = dict(zip(old_pools, pools, strict=True))
    for col in ("replication", "replication_other", "reference"):
        frame[col] = frame[col].map(lambda v, to=to: to.get(v, v))
    return Report(frame, {**rep.attrs, "notes": []})


def _md_cells(line: str) -> list[str]:
    assert line.startswith("| ") and line.endswith(" |")
    return [c[1:-1] for c in re.split(r"(?<!\\)\|", line)[1:-1]]


def _check_markdown(text: str, n_rows: int, names: set[str]) -> list[list[str]]:
    """A Markdown table: no raw HTML (no ``<``, ``>``, bare ``&``), ``n_rows`` rows, each
    with the header's cells, and each name shown as written in one cell."""
    assert "<" not in text and ">" not in text
    assert not re.search(r"&(?!amp;|lt;|gt;)", text)
    assert not CONTROLS.search(text.replace("\n", ""))
    first = next(b for b in text.split("\n\n") if b.startswith("|"))  # the first table
    table = [ln for ln in first.rstrip("\n").split("\n") if not ln.startswith("|---")]
    assert len(table) == n_rows + 1
    cells = [_md_cells(ln) for ln in table]
    assert {len(c) for c in cells} == {len(cells[0])}
    shown = {html.unescape(re.sub(r"\\([\\|`\]])", r"\1", c)) for row in cells for c in row}
    breaks = re.compile("\r\n|[\r\n\u2028\u2029\x0b\x0c\x1c-\x1e\x85]")  # one space each
    want = {CONTROLS.sub(lambda m: repr(m[0])[1:-1], breaks.sub(" ", n)) for n in names}
    assert want <= shown
    return cells


@pytest.fixture(scope="module")
def base() -> Report:
    df = simulate(n_items=30, labels=["joy", "awe"], pools=["A", "B"], seed=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xa.XRRWarning)
        return xa.report(df)


@given(labels=st.lists(NAMES, min_size=2, max_size=2, unique=True),
       pools=st.lists(NAMES, min_size=2, max_size=2, unique=True))
def test_every_writer_keeps_hostile_names_inert(base, labels, pools):
    rep = _rename(base, labels, pools)
    n = len(rep.frame)
    # Report.to_csv: no formula, no split row; the names read back (past the quote)
    rows = _check_csv(rep.to_csv(), n)
    for col in ("label", "replication"):
        for row, want in zip(rows[1:], rep.frame[col], strict=True):
            got = row[rows[0].index(col)]
            assert _decode(got[1:] if got.startswith("'") and not want.startswith("'")
                           else got) == want
    # the command line's csv (and a frame whose column names and index are hostile)
    records = schema(rep.frame, None)
    _check_csv(write_csv(records), n)
    named = rep.frame.rename(columns={"label": labels[0], "band": labels[1]})
    _check_csv(csv_safe(named.set_index(labels[0])).to_csv(), n)
    # Markdown: the report's table (a row per label) and the command line's (per record)
    _check_markdown(rep.to_markdown(), len(labels), set(labels))
    _check_markdown(write_markdown(records, 3), n, {*labels, *pools})
    # the terminal table: no control character but the line ends, a line per record
    table = write_table(records, 3)
    assert not CONTROLS.search(table.replace("\n", "")) and table.count("\n") == n + 1
    # JSON: every control character escaped, names exact
    for text, key in ((rep.to_json(), "rows"), (write_json(records, {}, []), "records")):
        assert not CONTROLS.search(text.replace("\n", ""))
        assert [r["label"] for r in json.loads(text)[key]] == rep.frame["label"].tolist()


def test_html_escapes_names(base):
    pytest.importorskip("jinja2")
    rep = _rename(base, HOSTILE_LABELS[1:], [HOSTILE_POOLS[1], "<b>B</b>"])
    page = rep.to_html(figures=False)
    assert "<script" not in page.lower() and "<img" not in page and "<b>B" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "&lt;img src=x onerror=alert(1)&gt;" in page


@pytest.fixture(scope="module")
def hostile_file(tmp_path_factory) -> Path:
    df = simulate(n_items=40, labels=["joy", "awe", "fun"], pools=["A", "B"], seed=3)
    df = df.rename(columns=dict(zip(["joy", "awe", "fun"], HOSTILE_LABELS, strict=True)))
    df["pool"] = df["pool"].map(dict(zip(["A", "B"], HOSTILE_POOLS, strict=True)))
    path = tmp_path_factory.mktemp("hostile") / "hostile.csv"
    df.to_csv(path, index=False, quoting=csv.QUOTE_ALL)
    return path


@pytest.mark.parametrize("command", ["irr", "report"])
def test_cli_csv_and_markdown_on_hostile_names(hostile_file, capsys, command):
    base_args = [command, str(hostile_file), "--replication", "pool"]
    assert main([*base_args, "--format", "csv"]) == 0
    text = capsys.readouterr().out
    rows = _check_csv(text, 6 if command == "irr" else 12)  # labels x pools, or cells
    labels = {row[0] for row in rows[1:]}
    assert labels == {"x\\r=cmd|' /C calc'!A0", "<script>alert(1)</script>",
                      "'\u200b=HYPERLINK(\"http://x.invalid\")"}
    assert "' @SUM(A1)" in {row[2] for row in rows[1:]}
    assert main([*base_args, "--format", "markdown"]) == 0
    out = capsys.readouterr().out
    names = set(HOSTILE_LABELS) if command == "report" else {*HOSTILE_LABELS, *HOSTILE_POOLS}
    _check_markdown(out, 3 if command == "report" else 6, names)  # a row per label, record
    assert main([*base_args]) == 0  # the terminal table
    assert not CONTROLS.search(capsys.readouterr().out.replace("\n", ""))


WRITERS = {"to_csv": "report.csv", "to_json": "report.json", "to_markdown": "report.md",
           "to_html": "report.html"}


def _write(rep: Report, method: str, path: Path) -> None:
    if method == "to_markdown":
        rep.to_markdown(path=path)
    elif method == "to_html":
        rep.to_html(path, figures=False)
    else:
        getattr(rep, method)(path)


@pytest.mark.parametrize("method", list(WRITERS))
def test_a_path_that_cannot_be_written_is_an_input_error(base, tmp_path, method):
    pytest.importorskip("jinja2")
    with pytest.raises(xa.InputError, match="it is a folder") as exc:
        _write(base, method, tmp_path)
    assert str(tmp_path / WRITERS[method]) in str(exc.value)
    assert isinstance(exc.value.__cause__, OSError)
    missing = tmp_path / "no" / "such" / "r.out"
    with pytest.raises(xa.InputError, match="does not exist") as exc:
        _write(base, method, missing)
    assert str(missing) in str(exc.value) and "create it first" in str(exc.value)
    assert isinstance(exc.value.__cause__, OSError) and not missing.parent.exists()
    _write(base, method, tmp_path / "ok")  # a good path is written
    assert (tmp_path / "ok").stat().st_size > 0


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0,
                    reason="a folder without write permission (root may write anywhere)")
@pytest.mark.parametrize("method", list(WRITERS))
def test_a_folder_without_permission(base, tmp_path, method):
    pytest.importorskip("jinja2")
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    try:
        with pytest.raises(xa.InputError, match="permission denied") as exc:
            _write(base, method, locked / "r.out")
        assert isinstance(exc.value.__cause__, PermissionError)
        assert not (locked / "r.out").exists()
    finally:
        locked.chmod(0o700)


@pytest.mark.parametrize("method", list(WRITERS))
def test_permission_and_a_full_disk_leave_no_file(base, tmp_path, method, monkeypatch):
    """Simulated (root may write anywhere): a refused open, then a write that fails
    half-way; neither leaves a file behind."""
    pytest.importorskip("jinja2")
    target = tmp_path / "r.out"
    real_csv, real_text = pd.DataFrame.to_csv, Path.write_text

    def refuse(*args, **kwargs):
        raise PermissionError(errno.EACCES, "Permission denied", str(target))

    monkeypatch.setattr(pd.DataFrame, "to_csv", lambda self, path=None, **kw: (
        real_csv(self, path, **kw) if path is None else refuse()))
    monkeypatch.setattr(Path, "write_text", lambda *a, **k: refuse())
    with pytest.raises(xa.InputError, match="permission denied") as exc:
        _write(base, method, target)
    assert str(target) in str(exc.value) and isinstance(exc.value.__cause__, PermissionError)

    def half(where, text_or_none=None, **kw):
        where = target if isinstance(where, pd.DataFrame) else where
        real_text(Path(where), "half a")
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(pd.DataFrame, "to_csv", lambda self, path=None, **kw: (
        real_csv(self, path, **kw) if path is None else half(path)))
    monkeypatch.setattr(Path, "write_text", lambda self, *a, **k: half(self))
    with pytest.raises(xa.InputError, match="No space left") as exc:
        _write(base, method, target)
    assert not target.exists()


def test_figures_draw_control_characters_as_escapes_without_a_glyph_warning():
    import matplotlib

    matplotlib.use("Agg")
    df = pd.DataFrame({"item": [1, 1, 2, 2, 3, 3] * 2, "rater": list("ababab") * 2,
                       "pool": ["x\r=cmd"] * 6 + ["y\x00z"] * 6,
                       "joy": [1, 1, 0, 0, 1, 0, 1, 1, 0, 1, 1, 0]})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        page = xa.report(df).to_html()
    glyphs = [str(w.message) for w in caught if "Glyph" in str(w.message)]
    assert not glyphs, glyphs
    assert "=cmd" in page
