"""The ``xrr`` subcommands: each reads its input, calls the public API and returns
what to print (:class:`Output` records, or finished text for pages)."""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from .. import api
from ..coefficients import lookup
from ..datasets import load_demo
from ..diagnostics import item_disagreement, rater_agreement
from ..diagnostics.pairwise import pairwise
from ..engine.levels import SET_LEVELS
from ..errors import DroppedDataWarning, InputError, warn
from ..io.tables import same_id_kinds
from ..models import alt_test
from ..reporting.agreement import agreement_table
from ..reporting.rater_view import gold_sentences, ranked, unranked_sentence
from ..reporting.report import Report, report
from ..reporting.report_html import TOP_ROWS
from ..uncertainty.intervals import method_for
from .files import has_replication, read_table, set_cells_of, stem, with_replication
from .messages import as_flags
from .output import records, render, report_blocks, schema, write_table
from .parser import ROLES

__all__ = ["COMMANDS", "Output", "check_memory"]

#: Bytes per bootstrap replicate and cell (the replicate's value, and a sorted copy for the
#: interval), and per replicate (its seed).
_CELL_BYTES, _REPLICATE_BYTES = 16, 8


@dataclass
class Output:
    """Records to print in the chosen format, with the call's settings."""

    frame: pd.DataFrame
    attrs: dict[str, Any] = field(default_factory=dict)


def _names(values: list[str] | None) -> list[str]:
    """Repeated or comma-separated names, in order, once each."""
    out: list[str] = []
    for v in values or []:
        out += [s.strip() for s in v.split(",") if s.strip() and s.strip() not in out]
    return out


def _read(args: argparse.Namespace, merge: bool = True
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
                         categories=_names([args.categories]) if counts and getattr(
                             args, "categories", None) else None) for p in paths]
    if len(frames) > 1:  # ids text in one file (CSV) and numbers in the other (Parquet)
        frames = same_id_kinds(frames, {"item": args.item, "rater": args.rater,
                                        "replication": args.replication})
    leave_out = _names(args.exclude)
    for path, frame in zip(paths, frames, strict=True):
        missing = [c for c in leave_out if c not in frame.columns]
        if missing:
            raise InputError(f"--exclude {','.join(missing)}: no such column in {path}; it "
                             f"has {list(map(str, frame.columns))}")
    frames = [f.drop(columns=leave_out) for f in frames]
    roles: dict[str, Any] = {r: getattr(args, r) for r in ROLES if getattr(args, r)}
    if args.labels:
        roles["labels"] = _names(args.labels)
    if args.wide:
        roles["wide"] = True
    if args.duplicates != "error":
        roles["duplicates"] = args.duplicates
    if args.categories:
        roles["categories"] = _names([args.categories])
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


def _peek(level: Any) -> Any:
    """A counting read's level: the command's own call infers (and says) the level."""
    return "nominal" if level is None else level


def _one_pool(data: pd.DataFrame, roles: dict[str, Any], name: str,
              level: Any = None) -> tuple[pd.DataFrame, dict[str, Any], Any]:
    """Data with a replication column: a file without one is one replication, named
    after the file, so every record names its replication and counts."""
    ann, _ = api.annotations(data, level=_peek(level), **roles)
    if ann.has_replication:
        return data, roles, ann
    if roles.get("wide"):
        data = api.to_frame(data, **roles)
        roles = {k: v for k, v in roles.items() if k == "categories"}
    column = next(c for c in ("replication", "_replication", "__replication")
                  if c not in data.columns)
    roles = {**roles, "replication": column}
    data = data.assign(**{column: name})
    return data, roles, api.annotations(data, level=_peek(level), **roles)[0]


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


def _boot(args: argparse.Namespace, cells: int) -> dict[str, Any]:
    if args.ci is None:
        return {}
    check_memory(args.n_boot, cells)
    return {"ci": args.ci, "n_boot": args.n_boot, "seed": args.seed,
            "interval": args.interval, "progress": False}


def _method(attrs: dict[str, Any]) -> str | None:
    how = attrs.get("method")
    if how is None and "ci" in attrs:
        how = "bootstrap"
    if how == "bootstrap":
        return f"bootstrap {attrs.get('interval', 'bca')}"
    return how


def _settings(result_attrs: dict[str, Any], command: str) -> dict[str, Any]:
    """The call's settings as the API reports them: only what was used."""
    keep = ("metric", "irr", "level", "weights", "form", "reference", "ci", "method",
            "interval", "n_boot", "seed", "citation")
    out = {"command": command}
    out.update({k: result_attrs[k] for k in keep if result_attrs.get(k) is not None})
    if out.get("method") != "bootstrap":
        for k in ("interval", "n_boot", "seed"):
            out.pop(k, None)
    return out


def _run_report(args: argparse.Namespace) -> str | Output:
    models = {"candidates": _names(args.candidates) or None, "gold": args.gold,
              "epsilon": args.epsilon, "q": args.q, "min_items": args.min_items}
    if models["candidates"] is None and args.epsilon is None and args.gold is None:
        models = {}
    # the models page with two files: the humans, and their candidates (as alt-test)
    data, other, roles = _read(args, merge=not models)
    reference = args.reference
    if models and other is not None and reference == stem(args.path):
        reference = None  # the first file's name: its humans
    if other is None:  # one file, no replication column: named after the file, as elsewhere
        data, roles, _ = _one_pool(data, roles, stem(args.path), args.level)
    ann, _ = api.annotations(data, other, level=_peek(args.level), **roles)
    reps = len(ann.replications) + (1 if other is not None else 0)
    cells = len(ann.labels) * (reps + reps * (reps - 1))
    rep = report(data, other, irr=args.irr, level=args.level,
                 reference=reference, sort_by=args.sort_by, items=args.items,
                 **_boot(args, cells), **{"min_items": args.min_items, **models}, **roles)
    names = " and ".join(Path(p).name for p in (args.path, args.other) if p is not None)
    if rep.models is not None:
        from ..reporting.models_html import TITLE

        return _report_output(rep, args, f"{TITLE} ({names})")
    return _report_output(rep, args, f"xRR report: {names}")


def _report_output(rep: Report, args: argparse.Namespace, title: str) -> str | Output:
    """A report as the page or Table 5 blocks (html, table, markdown) or records."""
    if args.format == "html":  # its notes in the command's words, as on stderr
        rep.attrs["notes"] = list(dict.fromkeys(as_flags(n) for n in rep.attrs["notes"]))
        return str(rep.to_html(title=title, digits=args.decimals))
    if rep.models is not None:  # the models page: its table, one record per row
        settings = {"command": "report", **{k: v for k, v in rep.attrs["models"].items()
                                            if v is not None}}
        if "ci" in rep.attrs:
            settings.update(ci=rep.attrs["ci"], interval=rep.attrs.get("interval"),
                            n_boot=rep.attrs.get("n_boot"), seed=rep.attrs.get("seed"))
        if args.format in ("table", "markdown"):  # the table, then the answer in words
            words = "\n\n".join(rep.readings(min(args.decimals, 2))["text"])
            return (render(rep.models, args.format, args.decimals, settings, [])
                    + f"\n\n{title}\n\n{words}\n")
        return Output(rep.models, settings)
    if args.format == "table":
        return report_blocks(rep, args.decimals) + _rater_block(rep, args.decimals)
    if args.format == "markdown":
        return rep.to_markdown(args.decimals)
    attrs = {**rep.attrs}
    attrs.pop("notes", None)
    method = _method(attrs) if "ci" in attrs else None
    settings = _settings({**attrs, "method": "bootstrap" if method else None}, "report")
    settings["replications"] = attrs.get("replications")
    return Output(schema(rep.frame, method), settings)


def _rater_block(rep: Report, decimals: int) -> str:
    """The one-pool report's rater table as text: the ranked raters, worst first (up to
    ``TOP_ROWS`` per label), then the raters not ranked, counted, and with gold how far
    the two rankings agree."""
    raters = rep.raters
    if not isinstance(raters, pd.DataFrame):
        return ""
    keep = [c for c in ("kappa_x", "kappa_x_lower", "kappa_x_upper", "rank", "gold_kappa_x",
                        "gold_accuracy", "n_gold", "n_annotations") if c in raters.columns]
    words = [unranked_sentence(raters, "not listed; --min-items N changes the cut"),
             *gold_sentences(raters, min(decimals, 2))]
    return (f"\nRaters against the rest of the pool (kappa_x; ranked, worst first, up to "
            f"{TOP_ROWS} per label)\n"
            + write_table(ranked(raters, TOP_ROWS)[keep].reset_index(), decimals)
            + "".join(f"{w}\n" for w in words if w))


def _run_demo(args: argparse.Namespace) -> str | Output:
    df = load_demo()
    if args.labels is not None:
        df = df.iloc[:, : 3 + args.labels]
    head = (f"Demo (simulated, IRep-shaped): {df['item_id'].nunique():,} items, {len(df):,} "
            f"rows, {(df.shape[1] - 3) * len(df):,} binary annotations, pools "
            f"{', '.join(sorted(df['pool'].unique()))}.\n\n")
    rep = report(df, irr=args.irr, level=args.level, items=args.items)
    out = _report_output(rep, args, "xRR report: demo data (simulated, IRep-shaped)")
    return head + out if args.format == "table" and isinstance(out, str) else out


def _no_page(args: argparse.Namespace) -> None:
    if args.format == "html":
        raise InputError(f"--format html is a page for xrr report (IRR, kappa_x and "
                         f"normalized kappa_x with figures); xrr {args.command} prints "
                         "table, csv, json or markdown")


def _run_irr(args: argparse.Namespace) -> Output:
    _no_page(args)
    data, _, roles = _read(args)
    level = args.level  # None: inferred from the values (the ICC: interval)
    if args.weights is not None:
        level = "nominal"
    data, roles, ann = _one_pool(data, roles, stem(args.path), level)
    boot = {}
    if args.ci is not None:
        boot = {"ci": args.ci}
        if method_for(lookup(args.metric), None) == "bootstrap":
            boot = _boot(args, len(ann.labels) * len(ann.replications))
    result = api.irr(data, metric=args.metric, level=level, weights=args.weights,
                     form=args.form, **boot, **roles)
    method = _method(result.attrs) if args.ci is not None else None
    frame = records(result, args.metric, str(ann.labels[0]), "replication")
    return Output(schema(frame, method), _settings(result.attrs, "irr"))


def _run_cross(args: argparse.Namespace) -> Output:
    _no_page(args)
    data, other, roles = _read(args)
    level = args.level
    ann, _ = api.annotations(data, other, level=_peek(level), **roles)
    reps = len(ann.replications) + (1 if other is not None else 0)
    result = api.cross_kappa(data, other, level=level,
                             **_boot(args, len(ann.labels) * reps * (reps - 1) // 2),
                             **roles)
    method = _method(result.attrs) if args.ci is not None else None
    frame = records(result, "kappa_x", str(ann.labels[0]), "pair")
    return Output(schema(frame, method), _settings(result.attrs, "cross-kappa"))


def _run_agreement(args: argparse.Namespace) -> Output:
    _no_page(args)
    data, _, roles = _read(args)
    data, roles, ann = _one_pool(data, roles, stem(args.path))
    table = agreement_table(data, weights=args.weights, ci=args.ci, **roles)
    frame = table.reset_index().rename(columns={"metric": "statistic"})
    if "label" not in frame.columns:
        frame.insert(0, "label", str(ann.labels[0]))
    settings = {"command": "agreement", "weights": table.attrs.get("weights", args.weights)}
    if args.ci is not None:
        settings.update(ci=args.ci, method="analytic")
    return Output(schema(frame, "analytic" if args.ci is not None else None), settings)


def _diagnostic(frame: pd.DataFrame, label: str, first: list[str]) -> pd.DataFrame:
    frame = frame.reset_index()
    if "label" not in frame.columns:
        frame.insert(0, "label", label)
    head = [c for c in first if c in frame.columns]
    return frame[head + [c for c in frame.columns if c not in head]]


def _run_raters(args: argparse.Namespace) -> Output:
    _no_page(args)
    data, _, roles = _read(args)
    level = args.level
    data, roles, ann = _one_pool(data, roles, stem(args.path), level)
    boot = _boot(args, len(ann.labels) * len(ann.replications) * len(ann.raters))
    boot.pop("progress", None)  # one pass per replicate: no bar
    result = rater_agreement(data, metric=args.metric, level=level,
                             min_items=args.min_items, **boot, **roles)
    if result.attrs.get("n_below_min_items"):  # counted, not ranked, not listed
        warn(unranked_sentence(result, "not listed; --min-items N changes the cut, "
                               "--min-items 1 ranks every rater"), DroppedDataWarning)
    frame = _diagnostic(ranked(result), str(ann.labels[0]), ["label", "replication"])
    settings = {"command": "raters", "metric": args.metric,
                "level": result.attrs.get("level", level),
                "min_items": result.attrs.get("min_items"),
                "n_below_min_items": result.attrs.get("n_below_min_items")}
    if args.ci is not None:
        settings.update({k: result.attrs[k] for k in ("ci", "method", "interval", "n_boot",
                                                      "seed")})
    return Output(frame, settings)


def _run_pairwise(args: argparse.Namespace) -> Output:
    _no_page(args)
    data, _, roles = _read(args)
    level = args.level
    data, roles, ann = _one_pool(data, roles, stem(args.path), level)
    result = pairwise(data, metric=args.metric, level=level, both_orders=not args.unordered,
                      **roles)
    frame = _diagnostic(result, str(ann.labels[0]), ["label", "replication"])
    frame.insert(frame.columns.get_loc("estimate"), "statistic", result.attrs["metric"])
    said = {k: result.attrs[k] for k in ("level", "weights") if k in result.attrs}
    return Output(frame, {"command": "pairwise", "metric": result.attrs["metric"], **said,
                          "pairs": "each once" if args.unordered else "both orders"})


def _run_items(args: argparse.Namespace) -> Output:
    _no_page(args)
    data, _, roles = _read(args)
    level = args.level
    data, roles, ann = _one_pool(data, roles, stem(args.path), level)
    result = item_disagreement(data, level=level, **roles)
    frame = _diagnostic(result, str(ann.labels[0]), ["label", "replication"])
    if "mode" in frame.columns:  # a label's mode may be a number or a set: text
        frame["mode"] = frame["mode"].map(lambda v: v if isinstance(v, int | float | str)
                                          or v is None else str(v))
    return Output(frame, {"command": "items", "level": result.attrs.get("level", level)})


def _run_alt_test(args: argparse.Namespace) -> Output:
    _no_page(args)
    data, other, roles = _read(args, merge=False)
    boot = _boot(args, 1)
    result = alt_test(data, other, epsilon=args.epsilon, reference=args.reference,
                      candidates=_names(args.candidates) or None, q=args.q,
                      min_raters=args.min_raters,
                      min_items=30 if args.min_items is None else args.min_items,
                      level=args.level, alignment=args.alignment, **boot, **roles)
    frame = (result.humans if args.humans else result.summary).reset_index()
    keep = ("epsilon", "q", "min_raters", "min_items", "alignment", "level", "reference",
            "ci", "interval", "n_boot", "seed")
    return Output(frame, {"command": "alt-test",
                          **{k: result.attrs[k] for k in keep if k in result.attrs}})


COMMANDS = {
    "demo": _run_demo, "report": _run_report, "summary": _run_report, "irr": _run_irr,
    "cross-kappa": _run_cross, "agreement": _run_agreement, "raters": _run_raters,
    "items": _run_items, "pairwise": _run_pairwise, "alt-test": _run_alt_test,
}
