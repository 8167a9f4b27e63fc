"""Write ``api/index.rst``: an autosummary of every name in ``xrr_accessor.__all__``.

Names are documented under their top-level public names (``xrr_accessor.irr``), so
moving a module inside the package does not change a page. Run by ``conf.py``.
"""

from __future__ import annotations

import inspect
from pathlib import Path

import xrr_accessor

GROUPS = [
    ("Functions", "Every computation, on a DataFrame, Dataset or DataArray.",
     lambda obj: inspect.isfunction(obj)),
    ("The accessor", "``df.xrr`` / ``ds.xrr``: each method calls the function of the "
     "same name with the data and the bound roles.",
     lambda obj: obj is xrr_accessor.XRRAccessor),
    ("Result types", "What the functions return besides labeled pandas/xarray objects.",
     lambda obj: inspect.isclass(obj) and not issubclass(obj, (Exception, Warning))
     and obj is not xrr_accessor.XRRAccessor),
    ("Errors and warnings", "Bad input raises one of the errors, naming the column and "
     "the fix; degenerate but legal data gives NaN with one of the warnings.",
     lambda obj: inspect.isclass(obj) and issubclass(obj, (Exception, Warning))),
]


def names() -> list[str]:
    """The documented names: ``__all__`` without the submodules."""
    return [n for n in xrr_accessor.__all__
            if not inspect.ismodule(getattr(xrr_accessor, n))]


def filename_map() -> dict[str, str]:
    """Page names for classes whose name differs from another name only in case
    (``Report`` and ``report``): ``xrr_accessor.Report-class``."""
    folded: dict[str, list[str]] = {}
    for n in names():
        folded.setdefault(n.casefold(), []).append(n)
    return {f"xrr_accessor.{n}": f"xrr_accessor.{n}-class"
            for group in folded.values() if len(group) > 1
            for n in group if inspect.isclass(getattr(xrr_accessor, n))}


def write(out: Path) -> Path:
    """Write the page into ``out`` (a directory); its path."""
    out.mkdir(parents=True, exist_ok=True)
    lines = ["API reference", "=============", "",
             "Every public name, as ``import xrr_accessor as xa; xa.<name>``. Generated from",
             "the docstrings; each example in them runs in the test suite.", "",
             ".. currentmodule:: xrr_accessor", ""]
    placed: set[str] = set()
    for title, blurb, test in GROUPS:
        group = [n for n in names() if n not in placed and test(getattr(xrr_accessor, n))]
        if not group:
            continue
        placed.update(group)
        lines += [title, "-" * len(title), "", blurb, "",
                  ".. autosummary::", "   :toctree: generated", "",
                  *(f"   {n}" for n in sorted(group, key=str.casefold)), ""]
    missing = sorted(set(names()) - placed)
    if missing:
        raise RuntimeError(f"api_page: names in no group: {missing}")
    path = out / "index.rst"
    text = "\n".join(lines)
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")
    return path
