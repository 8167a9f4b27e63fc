"""Disagreement diagnostics (definitions: diagnostics; Du et al., *Beyond Kappa and Alpha*).

Which items, which raters, how consistent each rater is with itself, and how
close the annotations come to a reference:

* :func:`item_disagreement`: per-item disagreement D_i, items ranked;
* :func:`rater_agreement`: each rater against the rest of the pool (kappa_x)
  and the pool's alpha without them (leave one rater out), to find spammers;
* :func:`intra`: intra-rater kappa_x across repeated sessions and the
  absolute annotation difference (AAD) distributions, inter and intra;
* :func:`validity`: agreement with gold labels (kappa_x, accuracy,
  per-class recall and precision).

Each reads its input as :func:`~xrr_accessor.irr` does and returns labeled
tables; :mod:`.plots` draws them (the ``plot`` extra).
"""

from __future__ import annotations

from .intra import Intra, intra
from .items import item_disagreement
from .raters import rater_agreement
from .validity import Validity, validity

__all__ = ["Intra", "Validity", "intra", "item_disagreement", "rater_agreement", "validity"]
