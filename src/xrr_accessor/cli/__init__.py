"""The ``xrr`` command: a thin shell over :mod:`xrr_accessor.reporting.report` and :mod:`.api`.

``xrr demo`` prints the xRR table of the bundled (simulated) demo data;
``xrr report FILE [FILE2]`` the paper's Table 5 for your own annotations;
``xrr irr FILE`` and ``xrr cross-kappa A [B]`` one statistic. Files are CSV or
TSV (delimiter sniffed, or ``--sep``) or Parquet (the ``io`` extra). User
errors print one line, in terms of the command's flags, and exit with status 2.
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from collections.abc import Callable, Sequence
from importlib import metadata
from pathlib import Path
from typing import Any, NoReturn

import pandas as pd

from .. import api
from ..coefficients import REGISTRY
from ..datasets import load_demo
from ..errors import LevelError, XRRWarning
from ..reporting.report import STATISTICS, Report, report
from .files import has_replication, read_table, with_replication
from .output import FORMATS, as_flags, render, tidy

__all__ = ["main"]

ROLES = ("item", "rater", "replication", "label", "value")
LEVELS = ("nominal", "ordinal", "interval", "ratio")

TITLES = {
    "irr": "IRR of each replication ({irr}, {level})",
    "kappa_x": "kappa_x: agreement between replications (Eq 9-11)",
    "normalized": "normalized kappa_x: replication similarity ({how}; near 1 = replicates as "
                  "well as it agrees internally)",
}

EXAMPLES = """examples:
  xrr demo                                    the bundled simulated IRep-like data
  xrr report pools.csv --replication city     Table 5: IRR, kappa_x, normalized kappa_x
  xrr report crowd.csv expert.csv --reference crowd --format markdown
  xrr report a.tsv --labels joy,awe --ci 0.95 --format csv --output table.csv
  xrr report pools.parquet --ci 0.95 --format html --output report.html
  xrr report 'exports/*.csv' --file-column replication   one file per pool
  xrr irr ratings.csv --metric gwet --exclude comment
  xrr cross-kappa round1.parquet round2.parquet --level ordinal

Files: one row per item x rater (item, rater and optional replication columns,
found by name or given with --item/--rater/--replication) and one column per
label; or one label and one value column (--label, --value). Two files are two
replications, each named after its file name, items matched by id. FILE may be
a directory or a quoted glob of files with the same columns: they are stacked,
a directory's pool=X/ folders become a column, and --file-column adds one
holding each file's name."""


def _version() -> str:
    try:
        return metadata.version("xrr_accessor")
    except metadata.PackageNotFoundError:  # pragma: no cover - source checkout
        from .. import __version__
        return __version__


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text} is not >= 1")
    return value


def _names(values: list[str] | None) -> list[str]:
    """Repeated or comma-separated names, in order, once each."""
    out: list[str] = []
    for v in values or []:
        out += [s.strip() for s in v.split(",") if s.strip() and s.strip() not in out]
    return out


class _Parser(argparse.ArgumentParser):
    """argparse, with its usage errors on one line like every other error."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"xrr: error: {message} (see: {self.prog} --help)\n")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="xrr", description="Inter-rater and cross-replication reliability (xRR).",
        epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"xrr {_version()}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND",
                                parser_class=_Parser)
    shown = _Parser(add_help=False)  # parents share the subparsers' class (typing)
    shown.add_argument("--format", choices=FORMATS, default="table",
                       help="output format (default table; html: a self-contained page "
                            "with figures, for report and demo)")
    shown.add_argument("--output", "-o", metavar="PATH", help="write to PATH, not stdout")
    shown.add_argument("--digits", type=int, default=3,
                       help="decimals shown in table and markdown (default 3; csv and json "
                            "keep full precision)")
    boot = _Parser(add_help=False)  # parents share the subparsers' class (typing)
    boot.add_argument("--ci", type=float, metavar="LEVEL",
                      help="interval level, e.g. 0.95 (item bootstrap)")
    boot.add_argument("--n-boot", type=_positive, default=1000,
                      help="bootstrap replicates (default 1000)")
    boot.add_argument("--seed", type=int, default=None, help="seed of the bootstrap")
    boot.add_argument("--interval", choices=["bca", "percentile"], default="bca")
    files = _Parser(add_help=False)  # parents share the subparsers' class (typing)
    for role in ROLES:
        files.add_argument(f"--{role}", metavar="COL", help=f"column holding the {role}")
    files.add_argument("--labels", action="append", metavar="A,B",
                       help="the label columns to use (others are left out)")
    files.add_argument("--exclude", action="append", metavar="COL",
                       help="columns to leave out (repeat or comma-separate)")
    files.add_argument("--wide", action="store_true",
                       help="rows are items, columns are raters")
    files.add_argument("--duplicates", choices=["error", "first", "last", "mean"],
                       default="error", help="repeated (item, rater) annotations")
    files.add_argument("--categories", metavar="A,B,C",
                       help="order of the categories, lowest first (ordinal text)")
    files.add_argument("--sep", help="delimiter of text files (default: sniffed)")
    files.add_argument("--file-column", metavar="COL",
                       help="with a directory or glob (quote it): add a column COL holding "
                            "each row's file name, e.g. --file-column replication for one "
                            "file per pool")
    level = _Parser(add_help=False)  # parents share the subparsers' class (typing)
    level.add_argument("--level", choices=LEVELS, default="nominal",
                       help="level of measurement (default nominal)")
    normalizers = [e.name for e in REGISTRY.values() if e.normalizes]

    demo = sub.add_parser("demo", parents=[shown, level],
                          help="xRR table of the bundled simulated IRep-like data")
    demo.add_argument("--irr", default="alpha", choices=normalizers,
                      help="IRR coefficient (default alpha; the paper's Table 5 uses cohen)")
    demo.add_argument("--labels", type=_positive, default=None, metavar="N",
                      help="show the first N labels")

    rep = sub.add_parser(
        "report", aliases=["summary"], parents=[files, level, boot, shown],
        help="Table 5 for your data: IRR, kappa_x, normalized kappa_x per label",
        description="IRR of each replication, kappa_x and normalized kappa_x of each pair, "
                    "per label, with counts and Landis-Koch bands.",
        epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    rep.add_argument("path", metavar="FILE")
    rep.add_argument("other", metavar="FILE2", nargs="?",
                     help="a second replication (items matched by id)")
    rep.add_argument("--irr", "--metric", dest="irr", choices=normalizers, default=None,
                     help="IRR (default: cohen where every pool has two raters, else alpha)")
    rep.add_argument("--reference", metavar="NAME",
                     help="normalize by this replication's IRR alone (e.g. an expert pool)")
    rep.add_argument("--sort-by", choices=list(STATISTICS), default=None,
                     help="order labels by this statistic, highest first")

    metrics = [e for e in REGISTRY.values() if e.kind == "irr"]
    one = sub.add_parser(
        "irr", parents=[files, level, boot, shown],
        help="IRR of each label and replication",
        epilog="metrics:\n" + "\n".join(f"  {e.name:8} {e.description}" for e in metrics),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    one.add_argument("path", metavar="FILE")
    one.add_argument("--metric", default="alpha", choices=[e.name for e in metrics],
                     help="coefficient (default alpha; see the list below)")
    one.add_argument("--weights", choices=["unweighted", "linear", "quadratic"],
                     help="agreement weights of the chance-corrected family (percent, "
                          "cohen, scott, fleiss, conger, bp, gwet, light): the weighted "
                          "kappas and AC2, instead of --level")

    cross = sub.add_parser("cross-kappa", parents=[files, level, boot, shown],
                           help="kappa_x between replications (two files, or a "
                                "replication column)")
    cross.add_argument("path", metavar="FILE")
    cross.add_argument("other", metavar="FILE2", nargs="?")
    return parser


def _read(args: argparse.Namespace) -> tuple[pd.DataFrame, pd.DataFrame | None, dict[str, Any]]:
    """The input frame(s) and roles of a file command."""
    paths = [args.path] + ([args.other] if getattr(args, "other", None) else [])
    frames = [read_table(p, args.sep, args.file_column, args.item) for p in paths]
    leave_out = _names(args.exclude)
    for path, frame in zip(paths, frames, strict=True):
        missing = [c for c in leave_out if c not in frame.columns]
        if missing:
            raise ValueError(f"--exclude {','.join(missing)}: no such column in {path}; it "
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
    other = frames[1] if len(frames) > 1 else None
    if other is not None:
        if Path(paths[0]).resolve() == Path(paths[1]).resolve():
            raise ValueError(f"FILE and FILE2 are the same file ({paths[0]}); a replication "
                             "is a second annotation of the items")
        with_rep = [has_replication(f, args.replication) for f in frames]
        if with_rep[0] != with_rep[1]:
            has, lacks = (paths[0], paths[1]) if with_rep[0] else (paths[1], paths[0])
            raise ValueError(f"{has} has a replication column and {lacks} has none; give "
                             "both files one (or neither: each file is then a replication)")
    if other is not None and not args.wide and not any(with_rep):
        # two replications: one frame with a replication column named after the files
        return with_replication(frames, paths), None, {**roles, "replication": "replication"}
    return frames[0], other, roles


def _boot(args: argparse.Namespace) -> dict[str, Any]:
    if args.ci is None:
        return {}
    return {"ci": args.ci, "n_boot": args.n_boot, "seed": args.seed,
            "interval": args.interval, "progress": False}


def _blocks(rep: Report, digits: int) -> str:
    """The report as three titled blocks: IRR, kappa_x, normalized kappa_x."""
    shown = rep._display(digits)
    ref = rep.attrs.get("reference")
    how = (f"Section 6: kappa_x / IRR of {ref}" if ref is not None
           else "Eq 13: kappa_x / sqrt(IRR_X IRR_Y)")
    out = []
    with pd.option_context("display.width", 250, "display.max_columns", 50,
                           "display.max_rows", 10_000):
        for stat in STATISTICS:
            block = shown[stat]
            block.columns.name = "replication" if stat == "irr" else "pair"
            out.append(TITLES[stat].format(irr=rep.attrs.get("irr"), level=rep.attrs.get(
                "level"), how=how))
            out.append(block.to_string() + "\n")
    counts = rep.frame[rep.frame["statistic"] == "kappa_x"]
    unpaired = counts.groupby(["replication", "replication_other"], sort=False)[
        "n_unpairable"].max()
    out.append("Items annotated by only one replication of a pair (left out of that pair): "
               + ", ".join(f"{a} x {b}: {n:,}" for (a, b), n in unpaired.items()) + "\n")
    if "ci" in rep.attrs:
        out.append(rep.caption() + "\n")
    return "\n".join(out)


def _report_text(rep: Report, args: argparse.Namespace, title: str) -> str:
    if args.format == "html":  # its notes in the command's words, as on stderr
        rep.attrs["notes"] = list(dict.fromkeys(as_flags(n) for n in rep.attrs["notes"]))
        return str(rep.to_html(title=title, digits=args.digits))
    if args.format == "table":
        return _blocks(rep, args.digits)
    if args.format == "markdown":
        return rep.to_markdown(args.digits)
    if args.format == "json":
        return str(rep.to_json()) + "\n"
    return str(rep.to_csv())


def _run_report(args: argparse.Namespace) -> str:
    data, other, roles = _read(args)
    rep = report(data, other, irr=args.irr, level=args.level, reference=args.reference,
                 sort_by=args.sort_by, **_boot(args), **roles)
    names = " and ".join(Path(p).name for p in (args.path, args.other) if p is not None)
    return _report_text(rep, args, f"xRR report: {names}")


def _run_demo(args: argparse.Namespace) -> str:
    df = load_demo()
    if args.labels is not None:
        df = df.iloc[:, : 3 + args.labels]
    head = (f"Demo (simulated, IRep-shaped): {df['item_id'].nunique():,} items, {len(df):,} "
            f"rows, {(df.shape[1] - 3) * len(df):,} binary annotations, pools "
            f"{', '.join(sorted(df['pool'].unique()))}.\n\n")
    rep = report(df, irr=args.irr, level=args.level)
    return (head if args.format == "table" else "") + _report_text(
        rep, args, "xRR report: demo data (simulated, IRep-shaped)")


def _run_one(args: argparse.Namespace) -> str:
    if args.format == "html":
        raise ValueError(f"--format html is a page for xrr report (IRR, kappa_x and "
                         f"normalized kappa_x with figures); xrr {args.command} prints "
                         "table, csv, json or markdown")
    data, other, roles = _read(args)
    if args.command == "irr":
        level = "interval" if args.metric == "icc" and args.level == "nominal" else args.level
        if args.weights is not None:
            level = "nominal"
        result = api.irr(data, metric=args.metric, level=level, weights=args.weights,
                         **_boot(args), **roles)
        attrs = {"metric": args.metric, "level": level, "weights": args.weights}
    else:
        result = api.cross_kappa(data, other, level=args.level, **_boot(args), **roles)
        attrs = {"statistic": "kappa_x", "level": args.level}
    if args.ci is not None:
        attrs.update(ci=args.ci, n_boot=args.n_boot, seed=args.seed, interval=args.interval)
    frame = tidy(result)
    if "label" not in frame.columns:  # one label: the API drops its name, the output keeps it
        frame.insert(0, "label", api.annotations(data, other, **roles)[0].labels[0])
    return render(frame, args.format, args.digits, attrs)


COMMANDS: dict[str, Callable[[argparse.Namespace], str]] = {
    "demo": _run_demo, "report": _run_report, "summary": _run_report, "irr": _run_one,
    "cross-kappa": _run_one,
}


def _emit(text: str, output: str | None) -> None:
    if output is None:
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    try:
        Path(output).write_text(text)
    except OSError as exc:
        raise ValueError(f"--output {output}: {exc.strerror or exc}") from None


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``xrr`` command; returns the exit status.

    Parameters
    ----------
    argv : sequence of str, optional
        Arguments (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        0 on success, 2 on a user error (one line on stderr), 141 when the
        reader of the output went away (``xrr demo | head``).

    Examples
    --------
    >>> main(["demo", "--labels", "1"])  # doctest: +ELLIPSIS
    Demo (simulated, IRep-shaped): 2,904 items, 12,270 rows, 12,270 binary annotations, ...
    IRR of each replication (alpha, nominal)
    replication Budapest Kuala Lumpur Mexico City
    label...
    amusement      0.169        0.213       0.288
    ...
    Items annotated by only one replication of a pair (left out of that pair): ...
    0
    """
    args = _parser().parse_args(argv)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", XRRWarning)
            text = COMMANDS[args.command](args)
        _emit(text, args.output)
        notes = dict.fromkeys(as_flags(str(w.message)) for w in caught
                              if issubclass(w.category, XRRWarning))
        for note in notes:  # each once, in order
            print(f"note: {note}", file=sys.stderr)
    except BrokenPipeError:
        # the reader stopped early: say nothing more, and keep Python's exit quiet too
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except (ValueError, LevelError, OSError, ImportError) as exc:
        print("xrr: error: " + as_flags(str(exc)), file=sys.stderr)  # one line
        return 2
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
