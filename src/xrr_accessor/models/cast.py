"""Who is who when models are annotators: the human reference and the candidates.

A model is one more replication and the human pool the reference (docs/definitions.md,
"Models as annotators"). The data come as one frame with a replication column (the
humans, each model, perhaps a gold pool: ``reference=`` names the humans, every other
replication is a candidate unless ``candidates=`` picks some), or as two frames: the
humans, and the models (``other``). A models frame with a replication column gives
one candidate per replication, its raters (prompts, runs, seeds) pooled; without one,
each of its raters is a candidate (a long frame item, model, value; or a table with a
column per model, ``models.xrr(wide=True)``); a list of column names of the humans' frame
gives one candidate per column (:mod:`.shapes`).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from ..diagnostics._common import unbind
from ..engine.levels import Level
from ..engine.pipeline import annotations as canonical
from ..errors import InputError
from ..schema import Annotations
from .shapes import beside, is_column_list

__all__ = ["Cast", "cast"]

#: The humans' name when the humans' frame has no replication column.
HUMANS = "humans"


@dataclass(frozen=True)
class Cast:
    """Annotations with a reference replication and candidate replications.

    ``candidates`` are replication codes in the order results list them;
    ``reference`` the humans' code.
    """

    ann: Annotations
    level: Level
    reference: int
    candidates: tuple[int, ...]

    @property
    def reference_name(self) -> Hashable:
        return self.ann.replications[self.reference]

    @property
    def candidate_names(self) -> list[Hashable]:
        return [self.ann.replications[c] for c in self.candidates]

    def candidate_of(self) -> np.ndarray:
        """Per replication code, its candidate index or -1."""
        out = np.full(len(self.ann.replications), -1, dtype=np.int64)
        out[list(self.candidates)] = np.arange(len(self.candidates))
        return out


def _each_rater_a_replication(ann: Annotations, first: int) -> Annotations:
    """The second input's raters as replications of their own (a models frame with no
    replication column: one candidate per model)."""
    theirs = ann.replication >= first
    try:  # sorted, as a replication column's names are
        codes, names = pd.factorize(ann.raters[ann.rater[theirs]], sort=True)
    except TypeError:  # names that do not sort (mixed types): in order of appearance
        codes, names = pd.factorize(ann.raters[ann.rater[theirs]])
    mine = list(ann.replications[:first])
    if mine == ["self"]:
        mine = [HUMANS]
    clash = [n for n in names if n in mine]
    if clash:
        raise InputError(
            f"the models frame names a model {clash[0]!r}, which is also a replication of "
            "the humans' frame; rename one of them.")
    rep = ann.replication.copy()
    rep[theirs] = first + np.asarray(codes, dtype=np.int64)
    return replace(ann, replication=rep,
                   replications=pd.Index([*mine, *names], name="replication"),
                   inputs=((first, ann.inputs[0][1]), (len(names), True)))


def _names(value: Any) -> list[Any]:
    if value is None:
        return []
    if isinstance(value, str) or not isinstance(value, Sequence | pd.Index | np.ndarray):
        return [value]
    return list(value)


def cast(data: Any, other: Any, reference: Any, candidates: Any, level: Level | None,
         roles: dict[str, Any], what: str) -> Cast:
    """Read ``data`` (and ``other``) and name the reference and the candidates.

    ``what`` names the calling function in messages. ``other`` may also name columns of
    ``data`` that hold each item's label by a model (:func:`.shapes.beside`).
    """
    data, roles = unbind(data, roles)
    if is_column_list(data, other):
        data, other = beside(data, other, roles)
    ann, lvl = canonical(data, other, level=level, one_label=True, **roles)
    if len(ann.item) == 0 and ann.tally is None:  # (a dask skeleton holds no rows)
        raise InputError(f"{what}: the data hold no annotations.")
    reps = list(ann.replications)
    if other is not None:
        first = ann.inputs[0][0]
        if not ann.inputs[1][1]:
            ann = _each_rater_a_replication(ann, first)
        elif reps[:first] == ["self"]:
            ann = replace(ann, replications=pd.Index([HUMANS, *reps[1:]],
                                                     name="replication"))
        reps = list(ann.replications)
        if reference is None:
            if first != 1:
                raise InputError(
                    f"{what}: the humans' frame holds {first} replications "
                    f"({reps[:first]}); name the human pool with reference=.")
            reference = reps[0]
        elif reference in ("self", "other"):
            reference = reps[0] if reference == "self" else reference
        pool = list(range(first, len(reps)))
    else:
        if not ann.has_replication or len(reps) < 2:
            raise InputError(
                f"{what} compares candidates (models) with a human reference, but the data "
                "hold one pool. Pass the models as a second frame "
                "(humans.xrr.alt_test(models, ...)), or name a replication column that "
                "holds the humans and each model (.xrr(replication='source')).")
        if reference is None:
            raise InputError(f"{what}: name the human pool with reference=, one of {reps}.")
        pool = list(range(len(reps)))
    if reference not in reps:
        raise InputError(f"reference={reference!r} is not a replication; use one of {reps}.")
    ref = reps.index(reference)
    pool = [r for r in pool if r != ref]
    wanted = _names(candidates)
    if wanted:
        unknown = [c for c in wanted if c not in reps]
        if unknown:
            raise InputError(f"candidates={wanted!r}: {unknown[0]!r} is not a replication; "
                             f"use some of {[reps[r] for r in pool]}.")
        if reference in wanted:
            raise InputError(f"candidates={wanted!r} includes the reference {reference!r}; "
                             "a pool is not tested against itself.")
        pool = [reps.index(c) for c in dict.fromkeys(wanted)]
    if not pool:
        raise InputError(f"{what}: no candidate besides the reference {reference!r}; "
                         "the data need another replication (a model) to test.")
    return Cast(ann, lvl, ref, tuple(pool))
