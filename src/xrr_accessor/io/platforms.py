"""The labeling-platform readers, one import away.

The JSON readers live one module per platform (:mod:`.label_studio`, :mod:`.prodigy`,
:mod:`.argilla`, :mod:`.doccano`), the table readers (Amazon Mechanical Turk, Toloka and
crowd-kit tables) in :mod:`.platforms_table`; their shared machinery is in :mod:`._common`.

Each reader returns the canonical long frame: columns ``item``, ``rater``, ``label``
(the question), ``value`` (the answer) and, when ``replication=`` is given, a constant
``replication`` column, one row per (item, rater, label). Platform ids are kept as
strings. Records that carry no usable answer (cancelled, rejected, ignored, discarded,
draft, empty) are counted in ``df.attrs["dropped"]`` and reported in one
:class:`~xrr_accessor.errors.DroppedDataWarning`. Bad input raises
:class:`~xrr_accessor.errors.InputError` naming the field, the line or record, and the fix.

Every reader taking a file reads it compressed too (gzip, bz2, xz, a zip of one file,
zstd through pyarrow: see :mod:`.source`); ids must be non-empty scalars (a null, NaN,
list or object id is an InputError naming the field and the record); a string where a
list of choices belongs is one choice; one string given to ``questions=``, ``answers=``,
``outputs=`` or ``multiple=`` is one name.

Multi-choice questions (several choices in one answer) become one binary label per
choice, ``f"{question}={choice}"``, valued 1 when chosen and 0 otherwise, for every choice
the question offers in the file (Prodigy, doccano, Argilla, MTurk); a rater who answered
the question thus has no missing choice. :func:`read_label_studio` gives one row per
answer instead, its value the frozenset of the choices (a label-set cell: agreement on
the set itself with ``level="masi"`` or ``"jaccard"``; one row per answer keeps a large
multi-choice export small).
"""

from __future__ import annotations

from .argilla import read_argilla
from .doccano import read_doccano
from .label_studio import read_label_studio
from .platforms_table import read_mturk, read_toloka
from .prodigy import read_prodigy

__all__ = [
    "read_argilla",
    "read_doccano",
    "read_label_studio",
    "read_mturk",
    "read_prodigy",
    "read_toloka",
]
