"""The labeling-platform readers, one import away.

The readers are grouped by export kind: :mod:`.platforms_json` gathers the JSON readers,
one module per platform (:mod:`.label_studio`, :mod:`.prodigy`, :mod:`.argilla`,
:mod:`.doccano`), and :mod:`.platforms_table` holds the table readers (Amazon Mechanical
Turk, Toloka and crowd-kit tables); their shared machinery is in :mod:`._common`.
"""

from __future__ import annotations

from .platforms_json import read_argilla, read_doccano, read_label_studio, read_prodigy
from .platforms_table import read_mturk, read_toloka

__all__ = [
    "read_argilla",
    "read_doccano",
    "read_label_studio",
    "read_mturk",
    "read_prodigy",
    "read_toloka",
]
