"""The ``xrr`` command's arguments: subcommands and flags (argparse)."""

from __future__ import annotations

import argparse
from importlib import metadata
from typing import Any, NoReturn

from ..coefficients import REGISTRY
from ..coefficients.icc import FORMS
from ..engine.levels import LEVELS
from ..errors import InputError
from ..io.delimited import check_sep
from ..reporting.report import STATISTICS
from .choices import coefficient
from .files import FORMATS_IN
from .output import FORMATS, SCREEN

__all__ = ["ROLES", "parser", "version"]

ROLES = ("item", "rater", "replication", "label", "value")

EXAMPLES = """examples:
  xrr demo                                    the bundled simulated IRep-like data
  xrr report pools.csv --replication city     Table 5: IRR, kappa_x, normalized kappa_x
  xrr report crowd.csv expert.csv --reference crowd --format markdown
  xrr report a.tsv --labels joy,awe --ci 0.95 --format csv --output table.csv
  xrr report pools.parquet --ci 0.95 --format html --output report.html
  xrr report 'exports/*.csv' --file-column replication   one file per pool
  xrr irr ratings.csv --metric gwet --exclude comment --ci 0.95 --decimals 2
  xrr irr scores.csv --metric icc --form 3,k
  xrr irr tags.json --level masi               label sets (a list per cell, or a row per label)
  xrr irr counts.csv --counts --metric fleiss  a count table: items x categories, no rater ids
  xrr agreement ratings.csv                   every coefficient side by side (pa, pe)
  xrr raters crowd.csv                        each rater against the rest (leave one out)
  xrr items ratings.csv --level nominal        items ranked by disagreement
  xrr alt-test humans.csv models.csv --epsilon 0.2   can a model replace the humans?
  xrr report all.csv --reference crowd --epsilon 0.2 --format html -o page.html
  xrr cross-kappa round1.parquet round2.parquet --level ordinal
  cat ratings.csv | xrr irr -                 read stdin (--format-in json, ...)

Files: one row per item x rater (item, rater and optional replication columns,
found by name or given with --item/--rater/--replication) and one column per
label; or one label and one value column (--label, --value). CSV/TSV, JSON (an
array of records, or records holding a list of per-annotator records), JSON
Lines or Parquet. Two files are two replications, each named after its file
name, items matched by id. FILE may be a directory or a quoted glob of files
with the same columns: they are stacked, a directory's pool=X/ folders become a
column, and --file-column adds one holding each file's name. FILE - reads stdin;
stdin, /dev/stdin and FIFOs are pipes, read to their end (Ctrl-C stops one that never
ends); devices (/dev/zero, a terminal) are refused. Ids stay text: 007 and 7 are two
items, as in read_annotations. --output is never one of the input files.

Output: one record per label x statistic x replication (or pair): label,
statistic, replication, replication_other, estimate, with --ci se, lower, upper,
p_value, method, then the counts (n_items, ...). Exit status: 0 done, 2 a user
error (one line on stderr), 130 interrupted (Ctrl-C), 141 output closed."""


def version() -> str:
    """The package's one version (installed metadata, else ``__version__``).

    Examples
    --------
    >>> import xrr_accessor
    >>> version() == xrr_accessor.__version__
    True
    """
    try:
        return metadata.version("xrr_accessor")
    except metadata.PackageNotFoundError:  # pragma: no cover - source checkout
        from .. import __version__
        return __version__


def _whole(text: str, least: int, what: str = "") -> int:
    """A whole number of at least ``least`` (``what`` says what the least value means)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < least:
        raise argparse.ArgumentTypeError(f"{text} is not >= {least}{what}")
    return value


def _positive(text: str) -> int:
    return _whole(text, 1)


def _decimals(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of decimals "
                                         "(e.g. --decimals 3)") from None
    if not 0 <= value <= 15:
        raise argparse.ArgumentTypeError(f"{text} decimals: give 0 to 15 (e.g. --decimals 3)")
    return value


def _sep(text: str) -> str:
    """``--sep``, checked before anything is read (a regular expression that does not
    compile is refused here, naming it and the fix)."""
    try:
        check_sep(text)
    except InputError as exc:
        raise argparse.ArgumentTypeError(str(exc).replace("sep=", "--sep ")) from None
    return text


class _Parser(argparse.ArgumentParser):
    """argparse, with its usage errors on one line like every other error, and no
    abbreviated flags (``--form`` is the ICC form, not a prefix of ``--format``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"xrr: error: {message} (see: {self.prog} --help)\n")


def _common() -> dict[str, _Parser]:
    shown = _Parser(add_help=False)  # the subparsers' class, as parents must be
    shown.add_argument("--format", choices=FORMATS, default="table",
                       help="output format (default table; html: a self-contained page "
                            "with figures, for report and demo)")
    shown.add_argument("--output", "-o", metavar="PATH", help="write to PATH, not stdout")
    shown.add_argument("--raw", action="store_true",
                       help="csv: write names exactly as in the data (by default a name "
                            "starting with = + - @ gets a leading ' so that a spreadsheet "
                            "shows it as text, not a formula)")
    shown.add_argument("--decimals", "--decimal", "--digits", dest="decimals",
                       type=_decimals, default=3, metavar="N",
                       help="decimals shown in table and markdown (default 3; csv and json "
                            "keep full precision)")
    boot = _Parser(add_help=False)  # the subparsers' class, as parents must be
    boot.add_argument("--ci", type=float, metavar="LEVEL",
                      help="interval level, e.g. 0.95 (analytic where the coefficient has a "
                           "variance formula, else an item bootstrap)")
    boot.add_argument("--n-boot", type=_positive, default=1000,
                      help="bootstrap replicates (default 1000)")
    boot.add_argument("--seed", type=int, default=None, help="seed of the bootstrap")
    boot.add_argument("--interval", choices=["bca", "percentile"], default="bca",
                      help="bootstrap interval (default bca)")
    files = _Parser(add_help=False)  # the subparsers' class, as parents must be
    for role in ROLES:
        files.add_argument(f"--{role}", metavar="COL", help=f"column holding the {role}")
    files.add_argument("--labels", action="append", metavar="A,B",
                       help="the label columns to use (others are left out)")
    files.add_argument("--exclude", action="append", metavar="COL",
                       help="columns to leave out (repeat or comma-separate)")
    files.add_argument("--wide", action="store_true",
                       help="rows are items, columns are raters")
    files.add_argument("--counts", action="store_true",
                       help="FILE is a count table: one row per item, one column per "
                            "category holding how many raters chose it (no rater ids; "
                            "--categories names the count columns in order, default every "
                            "numeric column)")
    files.add_argument("--duplicates", choices=["error", "first", "last", "mean"],
                       default="error", help="repeated (item, rater) annotations")
    files.add_argument("--categories", metavar="A,B,C",
                       help="order of the categories, lowest first (ordinal text); with "
                            "--counts, the count columns")
    files.add_argument("--sep", type=_sep,
                       help="delimiter of text files (default: sniffed; longer than one "
                            "character: a regular expression, as in pandas)")
    files.add_argument("--format-in", choices=FORMATS_IN, default=None,
                       help="format of FILE when it is - (stdin) or a stream (default: "
                            "from its first bytes), or to override the extension")
    files.add_argument("--file-column", metavar="COL",
                       help="with a directory or glob (quote it): add a column COL holding "
                            "each row's file name, e.g. --file-column replication for one "
                            "file per pool")
    level = _Parser(add_help=False)  # the subparsers' class, as parents must be
    level.add_argument("--level", choices=LEVELS, default=None,
                       help="level of measurement (default: inferred from the values and "
                            "said in a note, the same rule in every command; interval for "
                            "icc); jaccard and masi compare label sets")
    return {"shown": shown, "boot": boot, "files": files, "level": level}


def _count(text: str) -> int:
    return _whole(text, 0, " (0: every row)")


def _top(command: Any, what: str) -> None:
    command.add_argument("--top", type=_count, default=None, metavar="N",
                         help=f"show the first N {what} of each label and replication, "
                              f"worst first (0: all; default: {SCREEN} on a terminal in table or "
                              "markdown format, all in csv, json or a file), and say how "
                              "many are left out")


def _share(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0 <= value < 1:
        raise argparse.ArgumentTypeError(f"{text} is not in [0, 1)")
    return value


def _models_options(group: Any, required: bool = False) -> None:
    """The alternative annotator test's options (xrr alt-test, and xrr report's page)."""
    group.add_argument("--epsilon", type=_share, required=required, metavar="E",
                       help="the cost-benefit margin of the alternative annotator test, in "
                            "[0, 1) (0.1 to 0.2 in the paper; no default: your judgement)")
    group.add_argument("--q", type=_share, default=0.05, metavar="Q",
                       help="false discovery rate over the humans (default 0.05)")
    group.add_argument("--min-items", type=_positive, default=None, metavar="N",
                       help="the fewest items a rater needs: to be ranked in a one-pool "
                            "report's rater table (default 10; fewer: counted, not ranked) "
                            "or tested on the models page (default 30)")


def parser() -> argparse.ArgumentParser:
    """The ``xrr`` argument parser.

    Examples
    --------
    >>> args = parser().parse_args(["irr", "a.csv", "--decimal", "2", "--level", "masi"])
    >>> args.command, args.decimals, args.level
    ('irr', 2, 'masi')
    """
    top = _Parser(
        prog="xrr", description="Inter-rater and cross-replication reliability (xRR).",
        epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    top.add_argument("--version", action="version", version=f"xrr {version()}")
    sub = top.add_subparsers(dest="command", required=True, metavar="COMMAND",
                             parser_class=_Parser)
    p = _common()
    shown, boot, files, level = p["shown"], p["boot"], p["files"], p["level"]
    normalizers = [e.name for e in REGISTRY.values() if e.normalizes]
    raw = argparse.RawDescriptionHelpFormatter

    demo = sub.add_parser("demo", parents=[shown, level, boot],
                          help="xRR table of the bundled simulated IRep-like data")
    demo.add_argument("--irr", "--metric", dest="irr", default=None, choices=normalizers,
                      type=coefficient(normalizers),
                      help="IRR (default, as xrr report: cohen where every pool has two "
                           "raters, else alpha; the report's first lines say which)")
    demo.add_argument("--n-labels", type=_positive, default=None, metavar="N",
                      help="use the first N labels")
    demo.add_argument("--labels", action="append", metavar="A,B",
                      help="the labels to use, as in every command (a number here is the "
                           "old spelling of --n-labels: deprecated, said in a note)")
    demo.add_argument("--items", choices=["all", "common"], default="all",
                      help="as for xrr report: common puts the IRRs and kappa_x on the "
                           "items every pool rated at least twice")

    rep = sub.add_parser(
        "report", aliases=["summary"], parents=[files, level, boot, shown],
        help="Table 5 for your data: IRR, kappa_x, normalized kappa_x per label",
        description="IRR of each replication, kappa_x and normalized kappa_x of each pair, "
                    "per label, with counts and Landis-Koch bands (table and markdown: the "
                    "paper's layout; csv and json: one record per label x statistic x cell).",
        epilog=EXAMPLES, formatter_class=raw)
    rep.add_argument("path", metavar="FILE")
    rep.add_argument("other", metavar="FILE2", nargs="?",
                     help="a second replication (items matched by id)")
    rep.add_argument("--irr", "--metric", dest="irr", choices=normalizers, default=None,
                     type=coefficient(normalizers),
                     help="IRR (default: cohen where every pool has two raters, else alpha)")
    rep.add_argument("--reference", metavar="NAME",
                     help="normalize by this replication's IRR alone (e.g. an expert pool)")
    rep.add_argument("--sort-by", choices=list(STATISTICS), default=None,
                     help="order labels by this statistic, highest first")
    rep.add_argument("--items", choices=["all", "common"], default="all",
                     help="all: each statistic on the items it can use (default); common: "
                          "IRRs and kappa_x on the items every replication rated at least "
                          "twice, so normalized kappa_x compares like with like")
    models = rep.add_argument_group(
        "models page", "with --reference naming the humans, any of these makes the report "
                       "answer 'Can these models replace the annotators?'")
    models.add_argument("--candidates", action="append", metavar="A,B",
                        help="the replications tested against the humans (default: every "
                             "other one but --gold)")
    _models_options(models)
    models.add_argument("--gold", metavar="NAME",
                        help="a replication of gold labels: kappa_x of the humans and of "
                             "each candidate against it, and their difference; on one pool, "
                             "a column of gold labels: each rater's agreement with it beside "
                             "the rater table, and how far the two rankings agree")

    metrics = [e for e in REGISTRY.values() if e.kind == "irr"]
    one = sub.add_parser(
        "irr", parents=[files, level, boot, shown], help="IRR of each label and replication",
        epilog="metrics:\n" + "\n".join(f"  {e.name:8} {e.description}" for e in metrics),
        formatter_class=raw)
    one.add_argument("path", metavar="FILE")
    one.add_argument("--metric", default="alpha", choices=[e.name for e in metrics],
                     type=coefficient([e.name for e in metrics]),
                     help="coefficient (default alpha; see the list below)")
    one.add_argument("--weights", choices=["unweighted", "linear", "quadratic"],
                     help="agreement weights of the chance-corrected family (percent, "
                          "cohen, scott, fleiss, conger, bp, gwet, light): the weighted "
                          "kappas and AC2, instead of --level")
    one.add_argument("--form", metavar="FORM",
                     help=f"ICC form with --metric icc: {', '.join(FORMS)} (default: 1,1 "
                          "where raters do not cross items, as in a crowd, else 2,1; also "
                          "ICC(2,1), ICC2k), or 'all' for the six")

    cross = sub.add_parser("cross-kappa", parents=[files, level, boot, shown],
                           help="kappa_x between replications (two files, or a "
                                "replication column)")
    cross.add_argument("path", metavar="FILE")
    cross.add_argument("other", metavar="FILE2", nargs="?")

    table = sub.add_parser(
        "agreement", parents=[files, shown],
        help="every coefficient side by side, with observed (pa) and chance (pe) agreement",
        description="The agreement table: percent, cohen, scott, fleiss, conger, light, bp, "
                    "gwet and alpha per label and replication, with pa and pe (the kappa "
                    "paradox in view) and, with --ci, analytic intervals.")
    table.add_argument("path", metavar="FILE")
    table.add_argument("--weights", choices=["unweighted", "linear", "quadratic"],
                       help="agreement weights (default: those of the level inferred from "
                            "the values, as every command: unweighted for labels, linear "
                            "for ordinal ratings, quadratic for interval numbers)")
    table.add_argument("--ci", type=float, metavar="LEVEL",
                       help="interval level, e.g. 0.95 (analytic; none for scott, light)")

    raters = sub.add_parser(
        "raters", parents=[files, level, boot, shown],
        help="each rater against the rest of the pool (leave one rater out)",
        description="Per rater: kappa_x against the other raters, alpha without the rater "
                    "and delta_alpha; worst first within each label and replication.")
    raters.add_argument("path", metavar="FILE")
    raters.add_argument("--metric", choices=["kappa_x", "alpha"], default="kappa_x",
                        type=coefficient(["kappa_x", "alpha"]),
                        help="rank raters by kappa_x (lowest first) or delta_alpha")
    _top(raters, "raters")
    raters.add_argument("--min-items", type=_positive, default=None, metavar="N",
                        help="the fewest items a rater needs to be ranked (default 10; "
                             "fewer: counted in a note, not ranked; a rater with 5 items "
                             "tops a ranking by chance)")

    pairs = sub.add_parser(
        "pairwise", parents=[files, level, shown],
        help="agreement of every pair of raters, with the items they share",
        description="Per label, replication and ordered pair of raters: Cohen's kappa on "
                    "the items both rated (the same number as kappa_x of the two raters) "
                    "and n_items; both orders are listed (--unordered: each pair once), "
                    "the diagonal is left out.")
    pairs.add_argument("path", metavar="FILE")
    pairs.add_argument("--metric", choices=["cohen", "kappa_x"], default="cohen",
                       type=coefficient(["cohen", "kappa_x"]),
                       help="the pair's coefficient, under the name you look for (default "
                            "cohen)")
    pairs.add_argument("--unordered", action="store_true",
                       help="list each pair of raters once, the rater met first in the data "
                            "first (default: both orders, one row per rater and partner)")

    alt = sub.add_parser(
        "alt-test", parents=[files, level, boot, shown],
        help="the alternative annotator test: can a model replace the human annotators?",
        description="Calderon, Reichart and Dror (ACL 2025): leave one human out; the "
                    "candidate and the left-out human each scored against the remaining "
                    "humans; a one-sided t-test per human against --epsilon, "
                    "Benjamini-Yekutieli at --q; the candidate passes when it wins for at "
                    "least half of the humans. FILE holds the humans (and, with a "
                    "replication column, the candidates: --reference names the humans); "
                    "FILE2, if given, the candidates (a replication column: one candidate "
                    "each; none: each rater, e.g. the model's name, is one). --ci adds "
                    "intervals of the advantage probability.", formatter_class=raw)
    alt.add_argument("path", metavar="FILE")
    alt.add_argument("other", metavar="FILE2", nargs="?", help="the candidates' annotations")
    alt.add_argument("--reference", metavar="NAME", help="the humans' replication")
    alt.add_argument("--candidates", action="append", metavar="A,B",
                     help="the replications to test (default: every other one)")
    _models_options(alt, required=True)
    alt.add_argument("--min-raters", type=_positive, default=2, metavar="N",
                     help="items need at least N human annotations (default 2)")
    alt.add_argument("--alignment", choices=["accuracy", "rmse", "distance"], default=None,
                     help="alignment score (default: accuracy for nominal, rmse for "
                          "interval, distance otherwise)")
    alt.add_argument("--humans", action="store_true",
                     help="print the per-human table (items, both rates, p-value, won) "
                          "instead of one row per label and candidate")

    items = sub.add_parser(
        "items", parents=[files, level, shown],
        help="items ranked by disagreement (D_i, most disagreed first)",
        description="Per item: its disagreement D_i (root mean disagreement of its "
                    "annotator pairs), mode and mode share; the level inferred as in "
                    "every command.")
    items.add_argument("path", metavar="FILE")
    _top(items, "items")
    return top
