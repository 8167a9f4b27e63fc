"""Running the ``xrr`` command in-process from tests: its CSV output, its exit status,
its one-line errors."""

from __future__ import annotations

import io

import pandas as pd

from xrr_accessor.cli import main


def cli_csv(capsys, *args: str) -> pd.DataFrame:
    """The command's ``--format csv`` output, read back (the command must succeed)."""
    assert main([*args, "--format", "csv"]) == 0, capsys.readouterr().err
    return pd.read_csv(io.StringIO(capsys.readouterr().out))


def cli_status(args: list[str]) -> int:
    """main's exit status, argparse's usage errors (SystemExit) included."""
    try:
        return main(args)
    except SystemExit as exc:
        return int(exc.code)


def cli_error(capsys, *args: str) -> str:
    """The one-line ``xrr: error:`` message of a command that must fail with status 2."""
    assert cli_status(list(args)) == 2
    err = capsys.readouterr().err
    assert err.startswith("xrr: error:") and err.count("\n") == 1, err
    assert "Traceback" not in err
    return err
