"""BENCHMARKS.md sections: each script rewrites only the text between its markers."""

from __future__ import annotations

import re
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parents[1] / "BENCHMARKS.md"


def write_section(name: str, body: str, title: str, path: Path = BENCHMARKS) -> None:
    """Put ``body`` between ``<!-- name:start -->`` and ``<!-- name:end -->`` in ``path``
    (appending the section under ``title`` when the markers are missing)."""
    start, end = f"<!-- {name}:start -->", f"<!-- {name}:end -->"
    doc = path.read_text()
    block = f"{start}\n{body}\n{end}"
    if start in doc:
        doc = re.sub(re.escape(start) + ".*?" + re.escape(end), lambda _: block, doc,
                     flags=re.S)
    else:
        doc += f"\n## {title}\n\n{block}\n"
    path.write_text(doc)
