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
from .datasets import load_demo
from .errors import LevelError, XRRWarning

__all__ = ["main"]


def _print_table(table: pd.DataFrame, digits: int) -> None:
    with pd.option_context("display.width", 250, "display.max_columns", 50,
                           "display.max_rows", 500):
        print(table.round(digits).to_string(na_rep="NaN"))


def _run_summary(df: pd.DataFrame, args: argparse.Namespace, roles: dict[str, str]) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", XRRWarning)
        table = api.summary(df, irr=args.irr, level=args.level, **roles)
    _print_table(table, args.digits)
    unpaired = pd.DataFrame(table.attrs["n_unpairable"])
    print(f"\nIRR = {args.irr} ({args.level}); kappa_x and normalized kappa_x "
          "(Wong, Paritosh & Aroyo 2021, Eq 9-11 and 13) per pool pair.")
    print("Items annotated by only one pool of a pair (left out of that pair): "
          + ", ".join(f"{c}: {int(unpaired[c].max())}" for c in unpaired.columns))
    for w in caught:
        if issubclass(w.category, XRRWarning):
            print(f"note: {w.message}", file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``xrr`` command."""
    parser = argparse.ArgumentParser(
        prog="xrr", description="Inter-rater and cross-replication reliability (xRR)."
    )
    sub = parser.add_subparsers(dest="command", required=True)
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--irr", default="alpha", choices=["alpha", "cohen", "iota"],
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
    args = parser.parse_args(argv)
    try:
        if args.command == "demo":
            df = load_demo()
            if args.labels is not None:
                df = df.iloc[:, : 3 + max(args.labels, 1)]
            print(f"Demo: {df['item_id'].nunique():,} items, {len(df):,} rows, "
                  f"{(df.shape[1] - 3) * len(df):,} binary annotations, pools "
                  f"{', '.join(sorted(df['pool'].unique()))}.\n")
            _run_summary(df, args, {})
        else:
            df = pd.read_csv(args.path)
            roles = {r: getattr(args, r) for r in ("item", "rater", "replication", "label",
                                                    "value") if getattr(args, r)}
            _run_summary(df, args, roles)
    except (ValueError, LevelError, OSError) as exc:
        print(f"xrr: error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
