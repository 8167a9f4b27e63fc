"""Which replications a call compares: the two inputs' sides, the reference, the
pair dimension kept in a result."""

from __future__ import annotations

from typing import Any

from ..errors import InputError
from ..schema import Annotations

__all__ = ["keep_pairs", "n_self", "reference_code"]


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
