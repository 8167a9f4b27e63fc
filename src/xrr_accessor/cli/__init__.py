"""The ``xrr`` command: a thin shell over the public API.

``xrr demo`` prints the xRR table of the bundled (simulated) demo data;
``xrr report FILE [FILE2]`` the paper's Table 5 for your own annotations;
``xrr irr FILE`` and ``xrr cross-kappa A [B]`` one statistic; ``xrr agreement
FILE`` every coefficient side by side; ``xrr raters FILE`` and ``xrr items
FILE`` the rater and item diagnostics. Files are CSV or TSV (delimiter
sniffed, or ``--sep``), JSON, JSON Lines or Parquet (the ``io`` extra); ``-``
reads stdin. User errors print one line, in terms of the command's flags,
and exit with status 2; Ctrl-C exits with 130.
"""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path

from ..errors import InputError, LevelError, XRRWarning
from .commands import COMMANDS, Output
from .messages import as_flags
from .output import render
from .parser import parser

__all__ = ["main"]


def _emit(text: str, output: str | None) -> None:
    if output is None:
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    try:
        Path(output).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise InputError(f"--output {output}: {exc.strerror or exc}") from None


def _run(argv: Sequence[str] | None) -> int:
    args = parser().parse_args(argv)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", XRRWarning)
        result = COMMANDS[args.command](args)
    notes = list(dict.fromkeys(as_flags(str(w.message)) for w in caught
                               if issubclass(w.category, XRRWarning)))
    if isinstance(result, Output):
        text = render(result.frame, args.format, args.decimals, result.attrs, notes,
                      args.raw)
    else:
        text = result
    _emit(text, args.output)
    for note in notes:  # each once, in order
        print(f"note: {note}", file=sys.stderr)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``xrr`` command; returns the exit status.

    Parameters
    ----------
    argv : sequence of str, optional
        Arguments (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        0 on success, 2 on a user error (one line on stderr; argparse's usage
        errors, ``--help`` and ``--version`` exit through SystemExit as usual), 130 when
        interrupted (Ctrl-C), 141 when the reader of the output went away
        (``xrr demo | head``).

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
    try:
        return _run(argv)
    except KeyboardInterrupt:
        print("xrr: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # the reader stopped early: say nothing more, and keep Python's exit quiet too
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except MemoryError:
        print("xrr: error: out of memory; use fewer labels (--labels), a smaller "
              "--n-boot, or a machine with more memory", file=sys.stderr)
        return 2
    except (ValueError, LevelError, OSError, ImportError) as exc:
        print("xrr: error: " + as_flags(str(exc)), file=sys.stderr)  # one line
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
