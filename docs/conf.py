"""Sphinx configuration: PyData theme, numpydoc, myst-nb (stored outputs), offline MathJax.

Build (warnings are errors): ``python -m sphinx -W -b html docs docs/_build/html``.
Before reading the sources, the build copies the notebooks from ``../notebooks`` (they run
in the test suite, not here), writes the API page from ``xrr_accessor.__all__``
(``api_page.py``), draws the gallery from the bundled data (``gallery.py``) and the guides'
own figures (``guide_figures.py``).
"""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT / "src"))

import api_page  # noqa: E402  (docs/api_page.py)
import gallery  # noqa: E402  (docs/gallery.py)
import guide_figures  # noqa: E402  (docs/guide_figures.py)

import xrr_accessor  # noqa: E402

project = "xrr_accessor"
author = "xrr_accessor developers"
copyright = "2026, xrr_accessor developers (MIT License)"
release = version = xrr_accessor.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "numpydoc",
    "myst_nb",
    "sphinx-mathjax-offline",  # MathJax served from the site itself: nothing fetched
]

# Notebooks: rendered with the outputs stored in them; the test suite runs them (nbmake).
nb_execution_mode = "off"
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence"]
myst_heading_anchors = 3

autosummary_generate = True
# report()/Report and the like: pages whose names differ only in case would overwrite
# each other on macOS and Windows file systems (api_page.filename_map renames the classes').
autosummary_filename_map = api_page.filename_map()
autodoc_typehints = "none"  # the signatures show them; numpydoc has the descriptions
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
templates_path = ["_templates"]

html_theme = "pydata_sphinx_theme"
html_title = f"xrr_accessor {release}"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version"],
}
# Every page gets section navigation: the theme's sidebar starts one level below the top
# toctree and is empty for the guides; ours lists the site and opens the page's headings.
html_sidebars = {"**": ["site-nav.html"]}
html_show_sourcelink = False
html_static_path = ["_static"]
html_css_files = ["xrr.css"]

exclude_patterns = ["_build", "Thumbs.db", ".DS_Store", "**.ipynb_checkpoints"]

BARS = re.compile(r"(?<![`\\|])\|([^|`\n]+?)\|(?![`|_])")


def copy_notebooks() -> None:
    """Copy ../notebooks/*.ipynb to notebooks/ (generated, ignored by git)."""
    target = HERE / "notebooks"
    target.mkdir(exist_ok=True)
    for nb in sorted((ROOT / "notebooks").glob("*.ipynb")):
        dest = target / nb.name
        if not dest.exists() or dest.read_bytes() != nb.read_bytes():
            shutil.copyfile(nb, dest)


def escape_bars(app: Any, what: str, name: str, obj: Any, options: Any,
                lines: list[str]) -> None:
    """``|x - y|`` in a docstring is an absolute value, not an RST substitution."""
    lines[:] = [BARS.sub(r"\\|\1\\|", line) for line in lines]


def setup(app: Any) -> None:
    app.connect("autodoc-process-docstring", escape_bars, priority=400)


copy_notebooks()
api_page.write(HERE / "api")
gallery.build(HERE / "gallery")
guide_figures.build(HERE / "gallery" / "guides")
