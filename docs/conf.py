"""Sphinx configuration: PyData theme, numpydoc, myst-nb (stored outputs), offline MathJax.

Build (warnings are errors): ``python -m sphinx -W -b html docs docs/_build/html``.
Before reading the sources, the build copies the notebooks from ``../notebooks`` (they run
in the test suite, not here) and draws the gallery (``gallery.py``) from the bundled data.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT / "src"))

import gallery  # noqa: E402  (docs/gallery.py)

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
    "sphinx-mathjax-offline",
]

# Notebooks: rendered with the outputs stored in them; the test suite runs them (nbmake).
nb_execution_mode = "off"
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence"]
myst_heading_anchors = 3

autosummary_generate = True
autodoc_typehints = "none"  # the signatures show them; numpydoc has the descriptions
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False

html_theme = "pydata_sphinx_theme"
html_title = f"xrr_accessor {release}"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version"],
}
html_static_path: list[str] = []
html_show_sourcelink = False

exclude_patterns = ["_build", "Thumbs.db", ".DS_Store", "**.ipynb_checkpoints"]
suppress_warnings = ["mystnb.unknown_mime_type"]


def _copy_notebooks() -> None:
    """Copy ../notebooks/*.ipynb to notebooks/ (generated, ignored by git)."""
    target = HERE / "notebooks"
    target.mkdir(exist_ok=True)
    for nb in sorted((ROOT / "notebooks").glob("*.ipynb")):
        dest = target / nb.name
        if not dest.exists() or dest.read_bytes() != nb.read_bytes():
            shutil.copyfile(nb, dest)


_copy_notebooks()
gallery.build(HERE / "gallery")

import api_page  # noqa: E402  (docs/api_page.py)

api_page.write(HERE / "api")
templates_path = ["_templates"]


def _escape_bars(app, what, name, obj, options, lines):  # noqa: ANN001, ARG001
    """``|x - y|`` in a docstring is an absolute value, not an RST substitution."""
    import re

    bars = re.compile(r"(?<![`\\|])\|([^|`\n]+?)\|(?![`|_])")
    lines[:] = [bars.sub(r"\\|\1\\|", line) for line in lines]


def setup(app):  # noqa: ANN001, ANN201
    app.connect("autodoc-process-docstring", _escape_bars, priority=400)
