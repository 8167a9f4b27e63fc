"""What every ``xrr`` file command shares: the input frame(s) and roles read from the
flags, one pool named after its file, the bootstrap settings (checked against memory)
and the :class:`Output` a command returns."""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from .. import api
from ..engine.levels import SET_LEVELS
from ..errors import InputError
from ..io.tables import same_id_kinds
from .files import has_replication, read_table, set_cells_of, with_replication
from .parser import ROLES

__all__ = ["Output", "Page", "bootstrap", "check_memory", "names", "no_page", "one_pool",
           "peek", "read"]

#: Bytes per bootstrap replicate and cell (the replicate's value, and a sorted copy for the
#: interval), and per replicate (its seed).
_CELL_BYTES, _REPLICATE_BYTES = 16, 8


@dataclass
class Output:
    """Records to print in the chosen format, with the call's settings and the command's
    own notes (about what it printed: rows left out by ``--top``)."""

    frame: pd.DataFrame
    attrs: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    #: The functions whose notes are about a section not printed (notes start with the
    #: function's name: "item_disagreement is undefined ..."): left out.
    unprinted: tuple[str, ...] = ()
    #: json only: sections beside the records (a report's reading, raters, items).
    sections: dict[str, Any] | None = None
    #: Text columns holding numbers (blank in a tie's row): right-aligned in table and
    #: markdown.
    right: tuple[str, ...] = ()


@dataclass
class Page:
    """Finished text (a report's blocks, markdown or HTML page) and, as for
    :class:`Output`, the functions whose sections it does not print."""

    text: str
    unprinted: tuple[str, ...] = ()


def names(values: list[str] | None) -> list[str]:
    """Repeated or comma-separated names, in order, once each.

    Examples
    --------
    >>> names(["joy,awe", "joy", " fear "])
    ['joy', 'awe', 'fear']
    """
    out: list[str] = []
    for v in values or []:
        out += [s.strip() for s in v.split(",") if s.strip() and s.strip() not in out]
    return out


def read(args: argparse.Namespace, merge: bool = True
         ) -> tuple[pd.DataFrame, pd.DataFrame | None, dict[str, Any]]:
    """The input frame(s) and roles of a file command; two files without a replication
    column become one frame whose replications are named after the files (``merge``),
    or stay two frames (``merge=False``: the humans and their candidates)."""
    paths = [args.path] + ([args.other] if getattr(args, "other", None) else [])
    if paths.count("-") > 1:
        raise InputError("FILE and FILE2 are both - (stdin); stdin is read once")
    counts = getattr(args, "counts", False)
    frames = [read_table(p, args.sep, args.file_column, args.item, args.format_in,
                         rater=args.rater, replication=args.replication, counts=counts,
                         categories=names([args.categories]) if counts and getattr(
                             args, "categories", None) else None) for p in paths]
    if len(frames) > 1:  # ids text in one file (CSV) and numbers in the other (Parquet)
        frames = same_id_kinds(frames, {"item": args.item, "rater": args.rater,
                                        "replication": args.replication})
    leave_out = names(args.exclude)
    for path, frame in zip(paths, frames, strict=True):
        missing = [c for c in leave_out if c not in frame.columns]
        if missing:
            raise InputError(f"--exclude {','.join(missing)}: no such column in {path}; it "
                             f"has {list(map(str, frame.columns))}")
    frames = [f.drop(columns=leave_out) for f in frames]
    roles: dict[str, Any] = {r: getattr(args, r) for r in ROLES if getattr(args, r)}
    if args.labels:
        roles["labels"] = names(args.labels)
    if args.wide:
        roles["wide"] = True
    if args.duplicates != "error":
        roles["duplicates"] = args.duplicates
    if args.categories:
        roles["categories"] = names([args.categories])
    if getattr(args, "level", None) in SET_LEVELS and not args.wide:
        frames = [set_cells_of(f, roles) for f in frames]
    other = frames[1] if len(frames) > 1 else None
    if other is not None:
        if paths[0] != "-" and Path(paths[0]).resolve() == Path(paths[1]).resolve():
            raise InputError(f"FILE and FILE2 are the same file ({paths[0]}); a "
                             "replication is a second annotation of the items")
        with_rep = [has_replication(f, args.replication) for f in frames]
        if with_rep[0] != with_rep[1]:
            has, lacks = (paths[0], paths[1]) if with_rep[0] else (paths[1], paths[0])
            raise InputError(f"{has} has a replication column and {lacks} has none; give "
                             "both files one (or neither: each file is then a replication)")
        if merge and not args.wide and not any(with_rep):
            # two replications: one frame with a replication column named after the files
            return with_replication(frames, paths), None, {**roles,
                                                           "replication": "replication"}
    return frames[0], other, roles


def peek(level: Any) -> Any:
    """A counting read's level: the command's own call infers (and says) the level."""
    return "nominal" if level is None else level


def one_pool(data: pd.DataFrame, roles: dict[str, Any], name: str,
              level: Any = None) -> tuple[pd.DataFrame, dict[str, Any], Any]:
    """Data with a replication column: a file without one is one replication, named
    after the file, so every record names its replication and counts."""
    ann, _ = api.annotations(data, level=peek(level), **roles)
    if ann.has_replication:
        return data, roles, ann
    if roles.get("wide"):
        data = api.to_frame(data, **roles)
        roles = {k: v for k, v in roles.items() if k == "categories"}
    column = next(c for c in ("replication", "_replication", "__replication")
                  if c not in data.columns)
    roles = {**roles, "replication": column}
    data = data.assign(**{column: name})
    return data, roles, api.annotations(data, level=peek(level), **roles)[0]


def check_memory(n_boot: int, cells: int) -> None:
    """Refuse a bootstrap whose replicates would not fit in memory, before it starts.

    Examples
    --------
    >>> check_memory(1000, 30)
    >>> check_memory(10**12, 30)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    xrr_accessor.errors.InputError: --n-boot 1000000000000 would hold about ...
    """
    need = n_boot * (_CELL_BYTES * max(cells, 1) + _REPLICATE_BYTES)
    try:
        free = os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):  # pragma: no cover - not POSIX
        free = 4 * 2**30
    budget = free // 2
    if need <= budget:
        return
    most = max(budget // (_CELL_BYTES * max(cells, 1) + _REPLICATE_BYTES), 1)
    raise InputError(
        f"--n-boot {n_boot} would hold about {need / 2**30:,.1f} GiB of bootstrap "
        f"replicates ({n_boot:,} replicates x {cells:,} cell(s) x {_CELL_BYTES} bytes), "
        f"more than half the {free / 2**30:,.1f} GiB of memory available; use at most "
        f"--n-boot {most:,} (2,000 to 10,000 is plenty for a 95% interval)")


def bootstrap(args: argparse.Namespace, cells: int) -> dict[str, Any]:
    if args.ci is None:
        return {}
    check_memory(args.n_boot, cells)
    return {"ci": args.ci, "n_boot": args.n_boot, "seed": args.seed,
            "interval": args.interval, "progress": False}


def no_page(args: argparse.Namespace) -> None:
    if args.format == "html":
        raise InputError(f"--format html is a page for xrr report (IRR, kappa_x and "
                         f"normalized kappa_x with figures); xrr {args.command} prints "
                         "table, csv, json or markdown")
