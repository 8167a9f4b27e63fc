"""Roles: which column or dimension is the item, the rater, the replication, the labels."""

from __future__ import annotations

import difflib
import re
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import InputError, RoleError

if TYPE_CHECKING:
    from .tables import Ids

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

#: Names common in real exports, looked at when no column has a name of
#: :data:`ROLE_ALIASES` (so ``item`` beside ``question`` is still the item).
MORE_ALIASES: dict[str, tuple[str, ...]] = {
    "item": ("question", "questionid", "textid", "document", "documentid", "doc", "docid",
             "tweetid", "sentenceid", "hit", "hitid", "postid", "commentid", "imageid",
             "utteranceid", "segmentid", "pairid", "statementid", "claimid", "passageid"),
    "rater": ("annotatorname", "ratername", "workername", "username", "assessor",
              "assessorid", "evaluator", "evaluatorid", "reviewer", "reviewerid",
              "respondent", "respondentid", "turker", "turkerid", "contributor",
              "contributorid"),
}
#: Words that make a column's name a rater's id with an id word (``amt_worker_ids``).
RATER_WORDS = frozenset({"rater", "annotator", "worker", "coder", "judge", "labeler",
                         "labeller", "user", "participant", "assessor", "evaluator",
                         "reviewer", "respondent", "turker", "contributor"})
ID_WORDS = frozenset({"id", "ids"})
#: Words of ids that are not items' (an annotation's, a batch's, a model's id).
NOT_ITEM_WORDS = frozenset({
    "annotation", "assignment", "judgment", "judgement", "response", "submission", "answer",
    "label", "row", "record", "result", "run", "batch", "session", "project", "model", "pool",
    "replication", "group", "split", "explanation", "rating", "job", "team", "lang",
    "language", "gold", "golden", "truth", "expert"})

#: Gold (reference) columns: never analysed as a label when the labels are inferred.
GOLD_NAMES = frozenset({
    "gold", "goldlabel", "labelgold", "goldstandard", "truth", "groundtruth", "truelabel",
    "truevalue", "trueclass", "expert", "expertlabel", "labelexpert", "expertrating",
    "reference", "referencelabel", "correctlabel", "correctanswer"})
GOLD_WORDS = frozenset({"gold", "golden", "truth"})
#: The other words a gold column's name may hold besides one of :data:`GOLD_WORDS`
#: (``label_gold``, ``is_golden``, ``gold_reason``); a name with any other word
#: (``S100_truth_level``: a rating named after what it rates) is not gold.
GOLD_COMPANIONS = frozenset({"label", "labels", "standard", "answer", "answers", "value",
                             "class", "is", "ground", "true", "expert", "reason", "ref",
                             "reference", "std", "set"})
for _role, _names in MORE_ALIASES.items():
    ROLE_ALIASES[_role] = ROLE_ALIASES[_role] + _names


def words(name: Hashable) -> list[str]:
    """A column's name as lower-case words (``!amt_worker_ids`` -> amt, worker, ids;
    ``HITId`` -> hit, id).

    Examples
    --------
    >>> words("!amt_worker_ids"), words("HITId"), words("id_tweets")
    (['amt', 'worker', 'ids'], ['hit', 'id'], ['id', 'tweets'])
    """
    return [w.lower() for w in re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+", str(name))]


def looks_gold(name: Hashable) -> bool:
    """Whether a column's name says it holds gold (reference) labels: one of
    :data:`GOLD_NAMES` (case, ``_`` and spaces ignored) or a name with a word of
    :data:`GOLD_WORDS` and otherwise only words of :data:`GOLD_COMPANIONS`
    (``label_gold``, ``gold_reason``, ``is_golden``), or ending in one
    (``sentiment_gold``), or starting with gold (``gold_sentiment``); not
    ``S100_truth_level``, a rating named after what it rates.

    Examples
    --------
    >>> looks_gold("Gold Label"), looks_gold("true_label"), looks_gold("golden")
    (True, True, True)
    >>> looks_gold("goldfish"), looks_gold("target"), looks_gold("S100_truth_level")
    (False, False, False)
    """
    seq = words(name)
    ws = set(seq)
    if norm(name) in GOLD_NAMES or not seq or not GOLD_WORDS & ws:
        return norm(name) in GOLD_NAMES
    return (ws <= GOLD_WORDS | GOLD_COMPANIONS or seq[-1] in GOLD_WORDS  # sentiment_gold
            or seq[0] in ("gold", "golden"))  # gold_sentiment


def _by_pattern(name: Hashable, role: str) -> bool:
    """A name made of words: a rater word and an id word (``amt_worker_ids``) for the
    rater; an id word and none of a rater, another record or gold for the item
    (``orig_id``, ``id_tweets``, ``Input.id``)."""
    ws = set(words(name))
    if role == "rater":
        return bool(ws & RATER_WORDS) and bool(ws & (ID_WORDS | {"name"}))
    return role == "item" and bool(ws & ID_WORDS) and not ws & (RATER_WORDS | NOT_ITEM_WORDS)


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


#: Column (or dimension) names read as anonymous raters: the ratings of an item
#: numbered 1, 2, ... (:func:`xrr_accessor.from_counts`), one rater per (item, slot),
#: never the same rater across items. Used when no column is named like a rater.
SLOT_NAMES = ("slot", "ratingslot")


def is_slot(name: Hashable | None) -> bool:
    """Whether a rater column (or dimension) numbers ratings within items (anonymous).

    Examples
    --------
    >>> is_slot("slot"), is_slot("rater")
    (True, False)
    """
    return name is not None and norm(name) in SLOT_NAMES


def need_rater_ids(rater: Hashable | None, what: str) -> None:
    """Refuse ``what`` (a statistic that follows raters across items: Cohen, Conger,
    Light, pairwise, a rater's agreement, the two-way ICC) when the rater column numbers
    the ratings within each item (:func:`is_slot`: a count table has no rater ids).

    Examples
    --------
    >>> need_rater_ids("annotator", "Cohen's kappa") is None
    True
    >>> need_rater_ids("slot", "Cohen's kappa")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    xrr_accessor.errors.InputError: Cohen's kappa follows raters across items, ...
    """
    if is_slot(rater):
        raise InputError(
            f"{what} follows raters across items, and column {rater!r} numbers the ratings "
            "within each item (a count table: no rater ids, each rating its own rater). "
            "Use a coefficient of the table: metric='fleiss', 'alpha', 'gwet', 'bp' or "
            "'percent' (or the one-way ICC, metric='icc' with form='1,1').")


def anonymous_raters(item: Ids, slot: Ids) -> Ids:
    """One rater per (item, slot): slot 1 of item A and of item B are two raters,
    named ``"A#1"``, ``"B#1"`` (a repeated (item, slot) is still a duplicate)."""
    import numpy as np
    import pandas as pd

    from .tables import Ids

    n_slots = max(len(slot.uniques), 1)
    codes, first = pd.factorize(item.codes * n_slots + slot.codes)
    left, right = item.uniques[first // n_slots], slot.uniques[first % n_slots]
    try:  # joined by arrow where it is installed: a fifth of the time on a million
        import pyarrow as pa
        import pyarrow.compute as pc

        joined = pc.binary_join_element_wise(
            *(pa.array(np.asarray(ix)).cast(pa.string()) for ix in (left, right)), "#")
        names = pd.Index(joined.to_numpy(zero_copy_only=False), dtype=object)
    except (ImportError, ValueError, TypeError, NotImplementedError):  # arrow errors too
        names = pd.Index(left.astype(str) + "#" + right.astype(str), dtype=object)
    return Ids(np.asarray(codes, dtype=np.int64), names, slot.column)


def named_like(name: Hashable, role: str) -> bool:
    """Whether a column's name could be found as ``role`` by :func:`find_role` (for
    readers that keep id columns as text).

    Examples
    --------
    >>> named_like("orig_id", "item"), named_like("WorkerId", "rater"), named_like("joy", "item")
    (True, True, False)
    """
    return norm(name) in ROLE_ALIASES[role] or (role in ("item", "rater")
                                                 and _by_pattern(name, role))


def find_role(columns: Sequence[Hashable], role: str) -> Hashable | None:
    """The column named like ``role``: a name of :data:`ROLE_ALIASES` as before, else
    one of :data:`MORE_ALIASES`, else (item and rater) a name made of an id word and
    the role's words (``orig_id``, ``amt_worker_ids``); within the first of these
    that names any column, two columns are refused, naming both.

    Found once per set of names (their types in the key: ``1`` and ``True`` are equal
    keys), so a frame read again does not match its names again.

    Examples
    --------
    >>> find_role(["id", "annotator_id", "joy"], "rater")
    'annotator_id'
    """
    try:
        key = (tuple(columns), tuple(map(type, columns)), role)
        hash(key)
    except TypeError:  # an unhashable name: searched each time (it fails further on)
        return _find_role(columns, role)
    found = _FOUND.get(key, _FOUND)
    if found is _FOUND:
        found = _find_role(columns, role)  # an error is raised each time, not kept
        if len(_FOUND) >= _FOUND_MAX:
            _FOUND.clear()
        _FOUND[key] = found
    return found


#: find_role's answers by (names, their types, role); cleared when it holds this many.
_FOUND_MAX = 256
_FOUND: dict[tuple[Any, ...], Any] = {}


def _find_role(columns: Sequence[Hashable], role: str) -> Hashable | None:
    first = [n for n in ROLE_ALIASES[role] if n not in MORE_ALIASES.get(role, ())]
    for hits in ([c for c in columns if norm(c) in first],
                 [c for c in columns if norm(c) in MORE_ALIASES.get(role, ())],
                 [c for c in columns if role in ("item", "rater") and _by_pattern(c, role)]):
        if len(hits) > 1:
            raise RoleError(
                f"several columns could be the {role}: {hits}. Say which with "
                f".xrr({role}={hits[0]!r})."
            )
        if hits:
            return hits[0]
    return None


def check_given(columns: Sequence[Hashable], role: str, name: Hashable, what: str) -> None:
    if name not in columns:
        close = difflib.get_close_matches(str(name), [str(c) for c in columns], n=1)
        hint = f" Did you mean {close[0]!r}?" if close else ""
        raise RoleError(
            f"{what} {name!r} given as {role} is not in the data; it has "
            f"{list(columns)}.{hint}"
        )


def _missing_role(role: str, columns: Sequence[Hashable], what: str) -> RoleError:
    names = ", ".join(ROLE_ALIASES[role]) + (
        f", or a name with an id word ({'*_id, id_*' if role == 'item' else 'worker_ids'})"
        if role in ("item", "rater") else "")
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


def _hashable(value: Any) -> bool:
    """Whether ``value`` can name a column (None and unhashable values cannot)."""
    try:
        hash(value)
    except TypeError:
        return False
    return value is not None


def resolve_roles(
    names: Sequence[Hashable], roles: Roles, what: str
) -> dict[str, Hashable | None]:
    """Which column (or dimension) plays each role: given, or found by name.

    Item and rater are required; replication and label are optional. Answered once
    per set of names and roles given (as :func:`find_role`); an error each time.

    Examples
    --------
    >>> resolve_roles(["item", "coder", "joy"], Roles(), "column")["rater"]
    'coder'
    """
    given = tuple(getattr(roles, r) for r in ("item", "rater", "replication", "label"))
    try:
        key = (tuple(names), tuple(map(type, names)), given, tuple(map(type, given)), what)
        hash(key)
    except TypeError:  # an unhashable name or role: resolved each time
        return _resolve_roles(names, roles, what)
    found = _RESOLVED.get(key)
    if found is None:
        found = _resolve_roles(names, roles, what)
        if len(_RESOLVED) >= _FOUND_MAX:
            _RESOLVED.clear()
        _RESOLVED[key] = found
    return dict(found)  # the caller's own copy


#: resolve_roles' answers by (names, their types, roles given, their types, what).
_RESOLVED: dict[tuple[Any, ...], dict[str, Hashable | None]] = {}


def _resolve_roles(
    names: Sequence[Hashable], roles: Roles, what: str
) -> dict[str, Hashable | None]:
    found: dict[str, Hashable | None] = {}
    taken = [getattr(roles, r) for r in ("item", "rater", "replication", "label")
             if _hashable(getattr(roles, r))]
    for role in ("item", "rater", "replication", "label"):
        given = getattr(roles, role)
        if given is not None:
            check_given(names, role, given, what)
            found[role] = given
        else:  # a column the caller gave another role is not searched again
            found[role] = find_role([c for c in names if c not in taken], role)
    if found["rater"] is None:  # ratings numbered within items: anonymous raters
        slots = [c for c in names if is_slot(c)]
        found["rater"] = slots[0] if len(slots) == 1 else None
    for role in ("item", "rater"):
        if found[role] is None:
            raise _missing_role(role, names, what)
    return found
