"""The ``xrr`` command's streams and paths: pipes spooled to a temporary file, stdin
refused when it is a terminal or a device, ``--output`` refused when it is an input.

Shared by :mod:`.files` (reading) and :func:`xrr_accessor.cli.main` (the output check
before anything runs).
"""

from __future__ import annotations

import glob
import os
import stat
import sys
import tempfile
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..io.tables import paths_of

__all__ = ["WORKS", "binary", "check_output", "is_stream", "sniff_format", "spool",
           "stdin_kind"]

#: What xrr reads, for messages.
WORKS = ("CSV or TSV text, JSON (an array of records: [{\"item\": ..., \"rater\": ..., "
         "\"joy\": ...}, ...], or one record per item holding a list of per-annotator "
         "records), JSON Lines (one record per line) or Parquet")
_SUFFIX = {"csv": ".csv", "tsv": ".tsv", "json": ".json", "jsonl": ".jsonl",
           "parquet": ".parquet"}
_MAGIC = {b"PK\x03\x04": "a ZIP archive (an Excel .xlsx file is one: save it as CSV)",
          b"%PDF": "a PDF document", b"\x89PNG": "a PNG image",
          b"\xd0\xcf\x11\xe0": "an old Excel/Office file (save it as CSV)",
          b"SQLite format 3": "an SQLite database (export a table as CSV)"}


def binary(head: bytes) -> str | None:
    """What a file's first bytes say it is, when it is not text we read.

    Examples
    --------
    >>> binary(b"%PDF-1.7"), binary(b"item,rater")
    ('a PDF document', None)
    """
    for magic, what in _MAGIC.items():
        if head.startswith(magic):
            return what
    if b"\x00" in head:
        return "a binary file"
    return None


def sniff_format(head: bytes) -> str:
    """The format of a stream from its first bytes.

    Examples
    --------
    >>> sniff_format(b'[{"item": 1}]'), sniff_format(b"item,rater\\n")
    ('json', 'csv')
    """
    if head.startswith(b"PAR1"):
        return "parquet"
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if text.startswith(b"["):
        return "json"
    if text.startswith(b"{"):
        return "jsonl" if b"\n{" in text or text.count(b"\n") <= 1 else "json"
    return "csv"


_CHUNK = 1 << 20


def spool(name: str, stream: Any, fmt: str | None) -> tuple[Path, str]:
    """A stream's bytes in a temporary file (the caller removes it), and its format
    (``fmt``, else :func:`sniff_format`); copied in chunks, so memory stays flat
    however long the pipe. Nothing is left behind when it fails or is interrupted.

    Examples
    --------
    >>> import io
    >>> tmp, fmt = spool("stdin (-)", io.BytesIO(b"item,rater,joy\\n1,a,1\\n"), None)
    >>> fmt, tmp.read_bytes()[:4]
    ('csv', b'item')
    >>> tmp.unlink()
    """
    head = stream.read(_CHUNK)
    while head and len(head) < 8192:  # a pipe may hand over a few bytes at a time
        more = stream.read(_CHUNK)
        if not more:
            break
        head += more
    if not head:
        raise InputError(f"{name}: empty input (nothing was read)")
    kind = binary(head[:8192])
    fmt = fmt or sniff_format(head[:8192])
    if kind is not None and fmt != "parquet":
        raise InputError(f"{name} is {kind}, not text; xrr reads {WORKS}")
    fd, tmp = tempfile.mkstemp(prefix="xrr-stdin-", suffix=_SUFFIX[fmt])
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(head)
            while chunk := stream.read(_CHUNK):
                fh.write(chunk)
    except BaseException:  # Ctrl-C or a full disk: leave nothing behind
        Path(tmp).unlink(missing_ok=True)
        raise
    return Path(tmp), fmt


def is_stream(path: str) -> bool:
    """Whether ``path`` is a pipe: a FIFO, or ``/dev/stdin``, ``/dev/fd/N`` of one.

    Examples
    --------
    >>> is_stream(__file__)
    False
    """
    try:
        return stat.S_ISFIFO(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def stdin_kind() -> str | None:
    """What stdin is when it is not a pipe or a file to read ("a terminal", "a
    device" such as /dev/zero, which never ends); None when it can be read.

    Examples
    --------
    >>> stdin_kind() in (None, "a terminal", "a device")
    True
    """
    try:
        mode = os.fstat(sys.stdin.fileno()).st_mode
    except (OSError, ValueError, AttributeError):
        return None
    if stat.S_ISCHR(mode) and sys.stdin.isatty():
        return "a terminal"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return None


def check_output(output: str | None, inputs: list[str]) -> None:
    """Refuse ``--output`` when it is one of the input files (the same file, by inode,
    or the same path once resolved): writing would destroy the data before anyone saw
    the result. A directory or glob input is checked file by file.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "a.csv"
    >>> _ = p.write_text("item,rater,joy\\n1,a,1\\n")
    >>> check_output(str(p.parent / "out.csv"), [str(p)])
    >>> check_output(str(p.parent / "." / "a.csv"), [str(p)])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    xrr_accessor.errors.InputError: --output .../a.csv is the input file ...
    """
    if output is None or output == "-":
        return
    target = Path(output)
    for given in inputs:
        if given == "-" or is_stream(given):
            continue
        try:
            files = paths_of(given) if Path(given).is_dir() or glob.has_magic(given) else [
                Path(given)]
        except InputError:
            files = []
        for f in files:
            if _same_file(target, f):
                shown = given if str(f) == given else f"{f}, in {given}"
                raise InputError(f"--output {output} is the input file {shown}: writing "
                                 "the result there would overwrite the data; give another "
                                 "path")


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except (OSError, ValueError):  # one is not there (yet): compare the paths
        try:
            return a.resolve() == b.resolve()
        except (OSError, RuntimeError):
            return False
