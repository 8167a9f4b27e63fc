"""Roles: which column or dimension is the item, the rater, the replication, the labels."""

from __future__ import annotations

import difflib
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import InputError, RoleError

#: What to do with repeated annotations of one (item, rater, replication[, label]).
DUPLICATES = ("error", "first", "last", "mean")

ROLES = ("item", "rater", "replication", "label", "value")

#: Column (or dimension) names recognised for each role, compared after
#: lower-casing and removing ``_``, ``-``, ``.`` and spaces.
ROLE_ALIASES: dict[str, tuple[str, ...]] = {
    "item": ("item", "itemid", "items", "unit", "unitid", "instance", "instanceid", "task",
             "taskid", "example", "exampleid", "sample", "sampleid"),
    "rater": (
        "rater", "raterid", "annotator", "annotatorid", "worker", "workerid", "coder",
        "coderid", "judge", "judgeid", "labeler", "labelerid", "labeller", "labellerid",
        "user", "userid", "participant", "participantid",
    ),
    "replication": (
        "replication", "replicationid", "pool", "annotatorpool", "raterpool", "workerpool",
    ),
    "label": ("label", "labelname"),
    "value": ("value", "rating", "annotation", "response"),
}


def norm(name: Hashable) -> str:
    out = str(name).lower()
    for ch in "_- .":
        out = out.replace(ch, "")
    return out


@dataclass(frozen=True)
class Roles:
    """How to read an input: which column or dimension plays which role.

    ``None`` means "find it by name" (see :data:`ROLE_ALIASES`). ``value`` may
    be a list of columns: several value columns are several labels;
    ``labels`` names the label columns of a frame with one column per label
    (the same as ``value=[...]``, and the documented way to leave other
    columns out). When neither is given, labels are inferred: every column
    that plays no role, except those that look like item or rater metadata
    (text constant within every item or every rater, free text), which are
    left out with a warning naming them.
    ``categories`` gives the order of categories (a list for every label, or a
    mapping label -> list); ``wide=True`` reads a DataFrame whose rows are
    items and whose columns are raters; ``duplicates`` says what to do with
    repeated annotations of one (item, rater, replication): ``"error"``
    (default), keep the ``"first"`` or ``"last"``, or ``"mean"`` of numbers.
    """

    item: Hashable | None = None
    rater: Hashable | None = None
    replication: Hashable | None = None
    label: Hashable | None = None
    value: Hashable | Sequence[Hashable] | None = None
    wide: bool = False
    categories: Sequence[Any] | Mapping[Hashable, Sequence[Any]] | None = None
    duplicates: str = "error"
    labels: Sequence[Hashable] | None = None

    def __post_init__(self) -> None:
        if self.duplicates not in DUPLICATES:
            raise InputError(
                f"duplicates={self.duplicates!r} is not a policy; use one of "
                f"{', '.join(map(repr, DUPLICATES))}."
            )

    @classmethod
    def from_kwargs(cls, kwargs: Mapping[str, Any]) -> Roles:
        """Build from keyword arguments, rejecting unknown names with a hint."""
        valid = (*ROLES, "labels", "wide", "categories", "duplicates")
        for key in kwargs:
            if key not in valid:
                hint = ""
                for role, aliases in ROLE_ALIASES.items():
                    if norm(key) in aliases:
                        hint = f" Did you mean {role}={kwargs[key]!r}?"
                if not hint:
                    close = difflib.get_close_matches(key, valid, n=1)
                    hint = f" Did you mean {close[0]}=?" if close else ""
                raise RoleError(
                    f"unknown role {key!r}; the roles are {', '.join(valid)}.{hint}"
                )
        return cls(**kwargs)


def find_role(columns: Sequence[Hashable], role: str) -> Hashable | None:
    hits = [c for c in columns if norm(c) in ROLE_ALIASES[role]]
    if len(hits) > 1:
        raise RoleError(
            f"several columns could be the {role}: {hits}. Say which with "
            f".xrr({role}={hits[0]!r})."
        )
    return hits[0] if hits else None


def check_given(columns: Sequence[Hashable], role: str, name: Hashable, what: str) -> None:
    if name not in columns:
        close = difflib.get_close_matches(str(name), [str(c) for c in columns], n=1)
        hint = f" Did you mean {close[0]!r}?" if close else ""
        raise RoleError(
            f"{what} {name!r} given as {role} is not in the data; it has "
            f"{list(columns)}.{hint}"
        )


def _missing_role(role: str, columns: Sequence[Hashable], what: str) -> RoleError:
    names = ", ".join(ROLE_ALIASES[role])
    extra = ""
    if what == "column" and role in ("item", "rater"):
        extra = (
            " If rows are items and columns are raters, read it as a wide table "
            "with .xrr(wide=True)."
        )
    return RoleError(
        f"no {what} for the {role} role: looked for {names} (case, '_' and spaces "
        f"ignored) among {list(columns)}. Name it with .xrr({role}='<{what}>').{extra}"
    )


def resolve_roles(
    names: Sequence[Hashable], roles: Roles, what: str
) -> dict[str, Hashable | None]:
    """Which column (or dimension) plays each role: given, or found by name.

    Item and rater are required; replication and label are optional.
    """
    found: dict[str, Hashable | None] = {}
    for role in ("item", "rater", "replication", "label"):
        given = getattr(roles, role)
        if given is not None:
            check_given(names, role, given, what)
            found[role] = given
        else:
            found[role] = find_role(names, role)
    for role in ("item", "rater"):
        if found[role] is None:
            raise _missing_role(role, names, what)
    return found
