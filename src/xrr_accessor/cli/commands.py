"""The ``xrr`` subcommands: each reads its input, calls the public API and returns
what to print (:class:`Output` records, or finished text for pages); the diagnostics
(raters, items, pairwise) are in :mod:`.listing`."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import pandas as pd

from .. import api
from ..coefficients import lookup
from ..datasets import load_demo
from ..errors import InputError, XRRWarning, warn
from ..models import alt_test
from ..reporting.agreement import agreement_table
from ..reporting.report import Report, report
from ..uncertainty.intervals import method_for
from .files import stem
from .inputs import Output, Page, bootstrap, check_memory, names, no_page, one_pool, peek, read
from .listing import run_items, run_pairwise, run_raters
from .messages import as_flags
from .output import records, render, schema
from .phrases import in_cli
from .report_text import json_sections, report_text, with_readings

__all__ = ["COMMANDS", "Output", "check_memory"]


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


def _run_report(args: argparse.Namespace) -> Page | Output:
    models = {"candidates": names(args.candidates) or None, "gold": args.gold,
              "epsilon": args.epsilon, "q": args.q, "min_items": args.min_items}
    if models["candidates"] is None and args.epsilon is None and args.gold is None:
        models = {}
    # the models page with two files: the humans, and their candidates (as alt-test)
    data, other, roles = read(args, merge=not models)
    reference = args.reference
    if models and other is not None and reference == stem(args.path):
        reference = None  # the first file's name: its humans
    if other is None:  # one file, no replication column: named after the file, as elsewhere
        data, roles, _ = one_pool(data, roles, stem(args.path), args.level)
    ann, _ = api.annotations(data, other, level=peek(args.level), **roles)
    reps = len(ann.replications) + (1 if other is not None else 0)
    cells = len(ann.labels) * (reps + reps * (reps - 1))
    rep = report(data, other, irr=args.irr, level=args.level,
                 reference=reference, sort_by=args.sort_by, items=args.items,
                 **bootstrap(args, cells), **{"min_items": args.min_items, **models}, **roles)
    given = " and ".join(Path(p).name for p in (args.path, args.other) if p is not None)
    if rep.models is not None:
        from ..reporting.models_html import TITLE

        return _printed(args, _report_output(rep, args, f"{TITLE} ({given})"))
    return _printed(args, _report_output(rep, args, f"{rep.title}: {given}"))


#: The report's diagnostics, by the function whose notes are about them, and the
#: formats that print them (the one-pool report's raters and items).
_SECTIONS = {"rater_agreement": ("html", "table", "markdown", "json"),
             "item_disagreement": ("html", "table", "markdown", "json")}


def _printed(args: argparse.Namespace, out: str | Output) -> Page | Output:
    """A report's output with the diagnostics its format does not print, whose notes are
    then left out (a note about items no one sees)."""
    unprinted = tuple(f for f, formats in _SECTIONS.items() if args.format not in formats)
    if isinstance(out, Output):
        out.unprinted = unprinted
        return out
    return Page(out, unprinted)


def _command(args: argparse.Namespace) -> str:
    """The command's name in its json: ``demo`` or ``report`` (also for its alias)."""
    return "demo" if args.command == "demo" else "report"


def _report_output(rep: Report, args: argparse.Namespace, title: str,
                   head: str = "") -> str | Output:
    """A report as the page or Table 5 blocks (html, table, markdown) or records."""
    if args.format == "html":  # its notes in the command's words, as on stderr
        rep.attrs["notes"] = list(dict.fromkeys(as_flags(n) for n in rep.attrs["notes"]))
        return str(rep.to_html(title=title, digits=args.decimals))
    if rep.models is not None:  # the models page: its table, one record per row
        settings = {"command": _command(args), **{k: v for k, v in rep.attrs["models"].items()
                                            if v is not None}}
        if "ci" in rep.attrs:
            settings.update(ci=rep.attrs["ci"], interval=rep.attrs.get("interval"),
                            n_boot=rep.attrs.get("n_boot"), seed=rep.attrs.get("seed"))
        if args.format in ("table", "markdown"):  # the table, then the answer in words
            words = "\n\n".join(in_cli(str(t))
                                  for t in rep.readings(min(args.decimals, 2))["text"])
            return (render(rep.models, args.format, args.decimals, settings, [])
                    + f"\n\n{title}\n\n{words}\n")
        return Output(rep.models, settings)
    given = getattr(args, "irr", None)
    if args.format in ("table", "markdown"):
        return report_text(rep, args.format, args.decimals, title, given, head)
    attrs = {**rep.attrs}
    attrs.pop("notes", None)
    method = _method(attrs) if "ci" in attrs else None
    settings = _settings({**attrs, "method": "bootstrap" if method else None}, _command(args))
    settings["replications"] = attrs.get("replications")
    # csv and json: each reading on the record it reads; json: every section besides
    frame = with_readings(schema(named(rep.frame, str(attrs["irr"])), method), rep,
                          args.decimals)
    if args.format == "csv":
        return Output(frame, settings)
    return Output(frame, settings, sections=json_sections(rep, args.decimals, given))


#: The coefficient each of the report's statistics is (``statistic``); the report's own
#: name for it (``irr``, ``kappa_x``, ``normalized``, as ``--sort-by`` takes) is its role.
_COEFFICIENTS = {"kappa_x": "kappa_x", "normalized": "normalized_kappa_x"}


def named(frame: pd.DataFrame, irr: str) -> pd.DataFrame:
    """The report's records in every command's vocabulary: ``statistic`` names the
    coefficient (the IRR's own name, as in ``xrr irr``; ``kappa_x``;
    ``normalized_kappa_x``) and ``role`` (in :func:`~.output.schema`, the first column
    after the counts) what it plays in the report (``irr``,
    ``kappa_x``, ``normalized``).

    Examples
    --------
    >>> f = pd.DataFrame({"label": ["joy"] * 3, "statistic": ["irr", "kappa_x", "normalized"],
    ...                   "estimate": [0.5, 0.4, 0.8]})
    >>> named(f, "alpha")[["statistic", "role"]].values.tolist()
    [['alpha', 'irr'], ['kappa_x', 'kappa_x'], ['normalized_kappa_x', 'normalized']]
    """
    role = frame["statistic"]
    out = frame.assign(statistic=role.map({"irr": irr, **_COEFFICIENTS}))
    out.insert(out.columns.get_loc("statistic") + 1, "role", role)  # schema: after counts
    return out


def _demo_labels(df: pd.DataFrame, args: argparse.Namespace) -> pd.DataFrame:
    """The demo with the labels ``--labels A,B`` names or the first ``--n-labels N``
    (``--labels N``, the old spelling, still counts, with a note)."""
    chosen, count = names(args.labels), args.n_labels
    if count is None and len(chosen) == 1 and chosen[0].lstrip("-").isdigit():
        count, chosen = int(chosen[0]), []
        warn(f"xrr demo --labels {count} is deprecated: use --n-labels {count} (--labels "
             "names the label columns, as in every other command)", XRRWarning)
        if count < 1:
            raise InputError(f"--n-labels {count}: give 1 or more labels")
    labels = list(df.columns[3:])
    unknown = [c for c in chosen if c not in labels]
    if unknown:
        raise InputError(f"--labels {','.join(unknown)}: the demo has no such label; its "
                         f"labels are {', '.join(labels)}")
    keep = chosen or labels[:count]
    return df[[*df.columns[:3], *keep]]


def _run_demo(args: argparse.Namespace) -> Page | Output:
    df = _demo_labels(load_demo(), args)
    head = (f"{df['item_id'].nunique():,} items, {len(df):,} rows, "
            f"{(df.shape[1] - 3) * len(df):,} binary annotations, pools "
            f"{', '.join(sorted(df['pool'].unique()))}.")
    cells = (df.shape[1] - 3) * 9  # labels x (3 IRRs + 3 pairs x 2)
    rep = report(df, irr=args.irr, level=args.level, items=args.items,  # as xrr report
                 **bootstrap(args, cells))
    return _printed(args, _report_output(
        rep, args, f"{rep.title}: demo data (simulated, IRep-shaped)", head))


def _run_irr(args: argparse.Namespace) -> Output:
    no_page(args)
    data, _, roles = read(args)
    level = args.level  # None: inferred from the values (the ICC: interval)
    if args.weights is not None:
        level = "nominal"
    data, roles, ann = one_pool(data, roles, stem(args.path), level)
    boot = {}
    if args.ci is not None:
        boot = {"ci": args.ci}
        if method_for(lookup(args.metric), None) == "bootstrap":
            boot = bootstrap(args, len(ann.labels) * len(ann.replications))
    result = api.irr(data, metric=args.metric, level=level, weights=args.weights,
                     form=args.form, **boot, **roles)
    method = _method(result.attrs) if args.ci is not None else None
    frame = records(result, args.metric, str(ann.labels[0]), "replication")
    return Output(schema(frame, method), _settings(result.attrs, "irr"))


def _run_cross(args: argparse.Namespace) -> Output:
    no_page(args)
    data, other, roles = read(args)
    level = args.level
    ann, _ = api.annotations(data, other, level=peek(level), **roles)
    reps = len(ann.replications) + (1 if other is not None else 0)
    result = api.cross_kappa(data, other, level=level,
                             **bootstrap(args, len(ann.labels) * reps * (reps - 1) // 2),
                             **roles)
    method = _method(result.attrs) if args.ci is not None else None
    frame = records(result, "kappa_x", str(ann.labels[0]), "pair")
    return Output(schema(frame, method), _settings(result.attrs, "cross-kappa"))


def _run_agreement(args: argparse.Namespace) -> Output:
    no_page(args)
    data, _, roles = read(args)
    data, roles, ann = one_pool(data, roles, stem(args.path))
    table = agreement_table(data, weights=args.weights, ci=args.ci, **roles)
    frame = table.reset_index().rename(columns={"metric": "statistic"})
    if "reason" in frame.columns:  # the reasons in the command's words
        frame["reason"] = frame["reason"].map(lambda r: in_cli(r) if isinstance(r, str) else r)
    if "label" not in frame.columns:
        frame.insert(0, "label", str(ann.labels[0]))
    settings = {"command": "agreement", "weights": table.attrs.get("weights", args.weights)}
    if args.ci is not None:
        settings.update(ci=args.ci, method="analytic")
    return Output(schema(frame, "analytic" if args.ci is not None else None), settings)


def _run_alt_test(args: argparse.Namespace) -> Output:
    no_page(args)
    data, other, roles = read(args, merge=False)
    boot = bootstrap(args, 1)
    result = alt_test(data, other, epsilon=args.epsilon, reference=args.reference,
                      candidates=names(args.candidates) or None, q=args.q,
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
    "cross-kappa": _run_cross, "agreement": _run_agreement, "raters": run_raters,
    "items": run_items, "pairwise": run_pairwise, "alt-test": _run_alt_test,
}
