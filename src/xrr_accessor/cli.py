"""The ``xrr`` command: a thin shell over :mod:`xrr_accessor.api`.

``xrr demo`` prints the xRR table of the bundled demo data; ``xrr summary
FILE.csv`` prints it for your own long CSV. User errors print one line and
exit with status 2; input is only ever parsed as CSV.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Sequence

import pandas as pd

from . import api
from .coefficients import REGISTRY
from .datasets import load_demo
from .errors import LevelError, XRRWarning
from .summary import summary

__all__ = ["main"]


TITLES = {
    "irr": "IRR of each replication ({irr}, {level})",
    "kappa_x": "kappa_x: agreement between replications (Eq 9-11)",
    "normalized": "normalized kappa_x = kappa_x / sqrt(IRR_X IRR_Y): replication similarity "
                  "(Eq 13; near 1 = replicates as well as it agrees internally)",
}


def _print_table(table: pd.DataFrame, args: argparse.Namespace) -> None:
    with pd.option_context("display.width", 200, "display.max_columns", 50,
                           "display.max_rows", 500):
        for stat in table.columns.get_level_values(0).unique():
            print(TITLES[stat].format(irr=args.irr, level=args.level))
            block = table[stat].round(args.digits)
            if stat == "irr":
                block.columns = block.columns.get_level_values(0)
                block.columns.name = "replication"
            else:
                block.columns = pd.Index([f"{a} x {b}" for a, b in block.columns], name="pair")
            print(block.to_string(na_rep="NaN"))
            print()


def _run_summary(df: pd.DataFrame, args: argparse.Namespace, roles: dict[str, str]) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", XRRWarning)
        table = summary(df, irr=args.irr, level=args.level, **roles)
    _print_table(table, args)
    unpaired = pd.DataFrame(table.attrs["n_unpairable"])
    print("Items annotated by only one replication of a pair (left out of that pair): "
          + ", ".join(f"{c}: {int(unpaired[c].max())}" for c in unpaired.columns))
    for w in caught:
        if issubclass(w.category, XRRWarning):
            print(f"note: {w.message}", file=sys.stderr)


def _read_csv(path: str) -> pd.DataFrame:
    try:
        return pd.read_csv(path)
    except (ValueError, OSError, UnicodeError) as exc:
        raise ValueError(f"cannot read {path} as CSV: {exc}") from exc


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``xrr`` command; returns the exit status.

    Parameters
    ----------
    argv : sequence of str, optional
        Arguments (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        0 on success, 2 on a user error (one line on stderr).

    Examples
    --------
    >>> main(["demo", "--labels", "1"])  # doctest: +ELLIPSIS
    Demo: 2,904 items, 12,270 rows, 12,270 binary annotations, ...
    IRR of each replication (alpha, nominal)
    replication  Budapest  Kuala Lumpur  Mexico City
    label...
    amusement       0.169         0.213        0.288
    ...
    0
    """
    parser = argparse.ArgumentParser(
        prog="xrr", description="Inter-rater and cross-replication reliability (xRR)."
    )
    sub = parser.add_subparsers(dest="command", required=True)
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--irr", default="alpha",
                        choices=[e.name for e in REGISTRY.values() if e.normalizes],
                        help="IRR coefficient (default alpha; the paper's Table 5 uses cohen)")
    common.add_argument("--level", default="nominal",
                        choices=["nominal", "ordinal", "interval", "ratio"])
    common.add_argument("--digits", type=int, default=3, help="decimals shown (default 3)")
    demo = sub.add_parser("demo", parents=[common],
                          help="xRR table of the bundled IRep-shaped demo data")
    demo.add_argument("--labels", type=int, default=None, help="show the first N labels")
    summ = sub.add_parser("summary", parents=[common], help="xRR table of a long CSV file")
    summ.add_argument("path", help="CSV: one row per item x rater, one column per label")
    for role in ("item", "rater", "replication", "label", "value"):
        summ.add_argument(f"--{role}", default=None, help=f"column holding the {role}")
    metrics = [e for e in REGISTRY.values() if e.kind == "irr"]
    one = sub.add_parser(
        "irr", help="IRR of each label and replication of a long CSV file",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="metrics:\n" + "\n".join(f"  {e.name:8} {e.description}" for e in metrics))
    one.add_argument("path", help="CSV: one row per item x rater, one column per label")
    one.add_argument("--metric", default="alpha", choices=[e.name for e in metrics],
                     help="coefficient (default alpha; see the list below)")
    one.add_argument("--level", default="nominal",
                     choices=["nominal", "ordinal", "interval", "ratio"])
    one.add_argument("--digits", type=int, default=3, help="decimals shown (default 3)")
    for role in ("item", "rater", "replication", "label", "value"):
        one.add_argument(f"--{role}", default=None, help=f"column holding the {role}")
    args = parser.parse_args(argv)
    try:
        if args.command == "irr":
            df = _read_csv(args.path)
            roles = {r: getattr(args, r) for r in ("item", "rater", "replication", "label",
                                                    "value") if getattr(args, r)}
            level = "interval" if args.metric == "icc" else args.level
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", XRRWarning)
                out = api.irr(df, metric=args.metric, level=level, **roles)
            if isinstance(out, float):
                print(round(out, args.digits))
            else:
                print(out.round(args.digits).to_string(na_rep="NaN"))
            for w in caught:
                print(f"note: {w.message}", file=sys.stderr)
        elif args.command == "demo":
            df = load_demo()
            if args.labels is not None:
                df = df.iloc[:, : 3 + max(args.labels, 1)]
            print(f"Demo: {df['item_id'].nunique():,} items, {len(df):,} rows, "
                  f"{(df.shape[1] - 3) * len(df):,} binary annotations, pools "
                  f"{', '.join(sorted(df['pool'].unique()))}.\n")
            _run_summary(df, args, {})
        else:
            df = _read_csv(args.path)
            roles = {r: getattr(args, r) for r in ("item", "rater", "replication", "label",
                                                    "value") if getattr(args, r)}
            _run_summary(df, args, roles)
    except (ValueError, LevelError, OSError) as exc:
        print("xrr: error: " + " ".join(str(exc).split()), file=sys.stderr)  # one line
        return 2
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
