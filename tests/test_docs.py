"""The documentation: its examples run and print what the pages say, the API page lists
every public name, the gallery draws every figure, and the site builds with warnings as
errors (tests/test_docs_site.py opens the built site in a browser)."""

from __future__ import annotations

import doctest
import inspect
import re
import sys
import warnings
from pathlib import Path

import pytest

import xrr_accessor
from xrr_accessor.diagnostics import plots as diagnostic_plots
from xrr_accessor.errors import XRRWarning
from xrr_accessor.reporting.frame_plots import FramePlots
from xrr_accessor.reporting.plotting import ReportPlots

DOCS = Path(__file__).resolve().parent.parent / "docs"
sys.path.insert(0, str(DOCS))

import api_page  # noqa: E402  (docs/api_page.py)
import gallery  # noqa: E402  (docs/gallery.py)

GENERATED = {"_build", "notebooks", "gallery", "api", "jupyter_execute"}
PAGES = sorted(p for p in DOCS.rglob("*.md")
               if not GENERATED & set(p.relative_to(DOCS).parts))
FLAGS = doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS
FENCE = re.compile(r"^\s*```.*$", re.MULTILINE)


def examples(text: str, name: str) -> doctest.DocTest:
    """The ``>>>`` examples of a markdown page (code fences end an example's output)."""
    return doctest.DocTestParser().get_doctest(FENCE.sub("", text), {}, name, name, 0)


def test_the_pages_are_found():
    names = {p.relative_to(DOCS).as_posix() for p in PAGES}
    assert {"index.md", "getting_started.md", "definitions.md", "guides/replication.md",
            "guides/llm_annotators.md", "guides/cli.md"} <= names


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(DOCS).as_posix())
def test_page_examples_print_what_the_page_shows(page, monkeypatch):
    """Each ``>>>`` example of a page runs and prints exactly what the page shows; a
    package warning the page does not catch fails it (the suite's filter)."""
    monkeypatch.chdir(DOCS.parent)  # pages read data as from the repository's root
    test = examples(page.read_text(encoding="utf-8"), str(page))
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    with warnings.catch_warnings():
        warnings.simplefilter("error", XRRWarning)
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} example(s) of {page.name} failed (above)"


def test_a_wrong_number_on_a_page_fails(tmp_path):
    """The runner above is not vacuous: a page whose shown output is wrong fails."""
    page = "```pycon\n>>> round(0.5 + 0.25, 2)\n0.7\n```\n"
    test = examples(page, "bad.md")
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    runner.run(test, out=lambda _text: None)
    assert runner.summarize(verbose=False).failed == 1


def test_api_page_lists_every_public_name(tmp_path):
    text = api_page.write(tmp_path).read_text(encoding="utf-8")
    listed = {line.strip() for line in text.splitlines() if line.startswith("   ")
              and not line.strip().startswith(":")}
    public = {n for n in xrr_accessor.__all__
              if not inspect.ismodule(getattr(xrr_accessor, n))}
    assert public and listed == public
    assert "XRRAccessor" in listed and "irr" in listed and "UndefinedWarning" in listed


def _public_methods(cls: type) -> set[str]:
    return {n for n, _ in inspect.getmembers(cls, inspect.isfunction) if not n.startswith("_")}


def test_gallery_draws_every_figure():
    """Every public drawing method and function appears in the gallery's code."""
    code = "\n".join(c for _, _, c in gallery.FIGURES)
    wanted = {f".{n}(" for n in _public_methods(ReportPlots) | _public_methods(FramePlots)}
    wanted |= {f"plots.{n}(" for n in diagnostic_plots.__all__ if n not in {"aad", "validity"}}
    wanted |= {".intra(", ".validity(", ".plot("}  # Intra.plot (aad), Validity.plot
    missing = sorted(w for w in wanted if w not in code)
    assert not missing, f"figures not in docs/gallery.py: {missing}"
    assert len({stem for stem, _, _ in gallery.FIGURES}) == len(gallery.FIGURES)


def test_api_page_names_differ_beyond_case():
    """report()/Report and friends: no two pages collide on a case-insensitive disk."""
    renamed = api_page.filename_map()
    assert renamed["xrr_accessor.Report"] == "xrr_accessor.Report-class"
    pages = [renamed.get(f"xrr_accessor.{n}", f"xrr_accessor.{n}") for n in api_page.names()]
    assert len({p.casefold() for p in pages}) == len(pages)
