"""Which replications a call compares: the two inputs' sides, the reference, the
pair dimension kept in a result."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import InputError
from ..schema import Annotations

__all__ = ["default_pairs", "keep_pairs", "n_self", "reference_code"]


def n_self(ann: Annotations) -> int | None:
    """Replications of the first input when two inputs were compared, else None."""
    return ann.inputs[0][0] if len(ann.inputs) > 1 else None


def keep_pairs(ann: Annotations) -> bool:
    """Keep the pair dimension unless two inputs without replications were compared."""
    return len(ann.inputs) < 2 or any(had for _, had in ann.inputs)


def reference_code(ann: Annotations, reference: Any, first: int | None) -> int:
    """The replication code of ``reference`` (a name, or "self"/"other")."""
    reps = list(ann.replications)
    if first is not None and reference in ("self", "other"):
        if (reference == "self" and first != 1) or (
            reference == "other" and len(reps) - first != 1
        ):
            raise InputError(
                f"reference={reference!r} needs that input to hold one replication; "
                f"name the replication instead, one of {reps}."
            )
        return 0 if reference == "self" else first
    if reference not in reps:
        raise InputError(
            f"reference={reference!r} is not a replication; use one of {reps}." if len(reps)
            > 1 else f"reference={reference!r} is not a replication: the data hold one (no "
            "replication column was found); name the column with .xrr(replication="
            "'<column>'), or pass other= with reference='self' or 'other' to compare "
            "with a second frame.")
    return reps.index(reference)


def default_pairs(ann: Annotations, reference: Any = None) -> np.ndarray:
    """Every pair of replications (self x other for two inputs); with ``reference``,
    only the pairs that include it (same orientation as without)."""
    r = len(ann.replications)
    first = n_self(ann)
    if first is None:
        rows = [(a, b) for a in range(r) for b in range(a + 1, r)]
    else:
        rows = [(a, b) for a in range(first) for b in range(first, r)]
    if not rows:
        have = (f"{r} ({list(ann.replications)})" if ann.has_replication
                else "one (no replication column was found)")
        raise InputError(
            f"kappa_x compares two replications, but the data have {have}. Name a "
            "replication column (.xrr(replication='<column>')) or pass other=."
        )
    if reference is not None:  # the pairs with the reference, in their usual orientation
        ref = reference_code(ann, reference, first)
        rows = [(a, b) for a, b in rows if ref in (a, b)]
    return np.array(rows, dtype=np.int64).reshape(-1, 2)
