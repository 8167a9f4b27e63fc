"""The ``xrr`` command: a thin shell over the public API.

``xrr demo`` prints the xRR table of the bundled (simulated) demo data;
``xrr report FILE [FILE2]`` the paper's Table 5 for your own annotations;
``xrr irr FILE`` and ``xrr cross-kappa A [B]`` one statistic; ``xrr agreement
FILE`` every coefficient side by side; ``xrr raters FILE`` and ``xrr items
FILE`` the rater and item diagnostics. Files are CSV or TSV (delimiter
sniffed, or ``--sep``), JSON, JSON Lines or Parquet (the ``io`` extra); ``-``
reads stdin. User errors print one line, in terms of the command's flags,
and exit with status 2; Ctrl-C exits with 130 and one line, wherever it lands
(also inside a numba kernel or a thread, where it may come back wrapped in a
``SystemError``). The command's modules are imported inside :func:`main`, so that
an interrupt while they load is caught too.
"""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path

from ..errors import InputError, LevelError, XRRWarning
from .messages import as_flags, brief

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
    from .commands import COMMANDS
    from .inputs import Output, Page
    from .output import render
    from .parser import parser
    from .streams import check_output

    args = parser().parse_args(argv)
    check_output(args.output, [p for p in (getattr(args, "path", None),
                                           getattr(args, "other", None)) if p])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", XRRWarning)
        result = COMMANDS[args.command](args)
    notes = list(dict.fromkeys(as_flags(str(w.message)) for w in caught
                               if issubclass(w.category, XRRWarning)))
    if isinstance(result, Output | Page):  # notes only about what is printed
        notes = [n for n in notes if not n.startswith(result.unprinted or "\x00")]
    if isinstance(result, Output):
        notes += result.notes
        text = render(result.frame, args.format, args.decimals, result.attrs, notes,
                      args.raw, result.sections, result.right)
    else:
        text = result.text if isinstance(result, Page) else result
    _emit(text, args.output)
    for note in notes:  # each once, in order; long lists as a count (json has them all)
        print(f"note: {brief(note)}", file=sys.stderr)
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
    >>> main(["demo", "--n-labels", "1"])  # doctest: +ELLIPSIS
    xRR report: demo data (simulated, IRep-shaped)
    2,904 items, 12,270 rows, 12,270 binary annotations, pools Budapest, ...
    IRR: Cohen's kappa, the default where no pool has more than two raters ...
    IRR of each replication (cohen, nominal)
    IRR: cohen; level: nominal (inferred from the values); ...
    label / replication  Budapest  Kuala Lumpur  Mexico City
    amusement               0.169         0.212        0.288
    ...
    Items annotated by only one replication of a pair (left out of that pair): ...
    0
    """
    try:
        return _run(argv)
    except BaseException as exc:
        if _interrupted(exc):
            print("xrr: interrupted", file=sys.stderr)
            return 130
        return _failed(exc)


def _interrupted(exc: BaseException) -> bool:
    """Whether ``exc`` is Ctrl-C, or an error raised because of it: numba's dispatcher
    and C extensions wrap a KeyboardInterrupt that lands inside them in a SystemError
    ("returned a result with an exception set"), with the interrupt as its cause or
    context; a thread may hand it back in another error.

    Examples
    --------
    >>> try:
    ...     try:
    ...         raise KeyboardInterrupt
    ...     except KeyboardInterrupt as ki:
    ...         raise SystemError("returned a result with an exception set") from ki
    ... except SystemError as exc:
    ...     _interrupted(exc), _interrupted(ValueError("x"))
    (True, False)
    """
    seen: set[int] = set()
    todo: list[BaseException | None] = [exc]
    while todo:
        e = todo.pop()
        if e is None or id(e) in seen:
            continue
        if isinstance(e, KeyboardInterrupt):
            return True
        seen.add(id(e))
        todo += [e.__cause__, e.__context__]
        todo += [x for x in getattr(e, "exceptions", ()) if isinstance(x, BaseException)]
    return False


def _failed(exc: BaseException) -> int:
    """The exit status of an error that is not an interrupt (re-raised when it is a bug
    or ``SystemExit``)."""
    try:
        raise exc
    except BrokenPipeError:
        # the reader stopped early: say nothing more, and keep Python's exit quiet too
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except MemoryError:
        print("xrr: error: out of memory; use fewer labels (--labels A,B), a smaller "
              "--n-boot, or a machine with more memory", file=sys.stderr)
        return 2
    except (ValueError, LevelError, OSError, ImportError) as err:
        print("xrr: error: " + as_flags(str(err)), file=sys.stderr)  # one line
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
