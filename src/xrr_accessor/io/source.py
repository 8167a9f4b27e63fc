"""Reading an input to bytes and text: paths or open files, compressed or not, and JSON.

Shared by the platform readers and :func:`~xrr_accessor.io.read_annotations`. A file is
decompressed when its name ends in a compression suffix (``.gz``, ``.bz2``, ``.xz``,
``.zip``, ``.zst``) or its first bytes are that format's signature; a truncated or
corrupt file, or a name that promises a compression the bytes do not have, raises
:class:`~xrr_accessor.errors.InputError` naming the file. zstd goes through pyarrow (the
``io`` extra). Every malformed JSON input (syntax, an integer over Python's 4,300-digit
limit, nesting too deep to parse) raises an InputError naming the file and the line.
"""

from __future__ import annotations

import bz2
import gzip
import io
import json
import lzma
import os
import re
import stat
import zipfile
import zlib
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path, PurePosixPath
from typing import IO, Any, cast

from .._optional import require
from ..errors import InputError
from ..schema.text import FILE_FIX, SURROGATE, text_error

__all__ = [
    "COMPRESSIONS", "PathOrBuffer", "check_json_text", "compression_of", "decode",
    "decompress", "first_repeat", "json_records", "kind_of", "not_a_file", "parse_json",
    "parse_jsonl", "printable", "read_bytes", "read_text", "source_name",
]

PathOrBuffer = str | os.PathLike[str] | IO[str] | IO[bytes]

#: Compression by file-name suffix.
COMPRESSIONS = {".gz": "gzip", ".bz2": "bz2", ".xz": "xz", ".zip": "zip", ".zst": "zstd"}
_MAGIC = (
    ("gzip", re.compile(rb"\x1f\x8b\x08")),
    ("bz2", re.compile(rb"BZh[1-9](1AY&SY|\x17rE8P\x90)")),
    ("xz", re.compile(rb"\xfd7zXZ\x00")),
    ("zstd", re.compile(rb"\x28\xb5\x2f\xfd")),
    ("zip", re.compile(rb"PK(\x03\x04|\x05\x06)")),
)
# zipfile raises NotImplementedError / RuntimeError for damaged flags (encryption, method)
_BROKEN = (OSError, EOFError, ValueError, RuntimeError, lzma.LZMAError, zipfile.BadZipFile,
           zlib.error)
_DEEP = 900  # JSON nesting beyond what the standard parser's recursion can take


def kind_of(path: str | os.PathLike[str]) -> str | None:
    """What ``path`` is when it is not a regular file, in words; None for a file (a
    symbolic link is followed) and for nothing at all.

    Examples
    --------
    >>> import tempfile
    >>> kind_of(tempfile.gettempdir()), kind_of(__file__), kind_of("/no/such/file")
    ('a directory', None, None)
    """
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return None
    for test, what in ((stat.S_ISDIR, "a directory"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return what
    return None if stat.S_ISREG(mode) else "not a regular file"


def not_a_file(path: str | os.PathLike[str], who: str = "",
               buffers: bool = False) -> InputError | None:
    """The InputError for a path that is not a regular file (a directory, a device such
    as /dev/zero that never ends, a FIFO, a socket), naming it; None for a file or for
    nothing there (the caller says "no such file" its own way). ``buffers``: the
    caller also reads open file objects (the hint says so).

    Examples
    --------
    >>> print(not_a_file("/dev/null", "read_file"))
    read_file: /dev/null is a character device, not a file; pass the path of a file.
    """
    kind = kind_of(path)
    if kind is None:
        return None
    if kind == "a directory":
        hint = "pass one file, or read_annotations(path) for every table in a directory"
    elif buffers:
        hint = "pass the path of a file, or an open file object you read the stream with"
    else:
        hint = "pass the path of a file"
    return InputError(f"{who + ': ' if who else ''}{os.fspath(path)} is {kind}, not a file; "
                      f"{hint}.")


def printable(name: str) -> str:
    """A file or folder name as text any table can hold: bytes that are not UTF-8 (read
    by Python as lone surrogates) written as ``\\xff``; other names as they are.

    Examples
    --------
    >>> printable("crowd"), printable("caf\\udce9")
    ('crowd', 'caf\\\\xe9')
    """
    try:
        name.encode("utf-8")
        return name
    except UnicodeEncodeError:
        pass
    try:
        return os.fsencode(name).decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:
        return name.encode("utf-8", "backslashreplace").decode("utf-8")


def source_name(src: Any) -> str:
    """A short name for messages: the file name, or the kind of object given."""
    if isinstance(src, str | os.PathLike):
        return Path(src).name
    name = getattr(src, "name", None)
    return Path(name).name if isinstance(name, str) else f"<{type(src).__name__}>"


def compression_of(head: bytes, name: str) -> str | None:
    """The compression of a file from its name and first bytes (None: plain).

    Examples
    --------
    >>> import gzip
    >>> compression_of(gzip.compress(b"a,b"), "x.csv.gz"), compression_of(b"a,b", "x.csv")
    ('gzip', None)
    """
    magic = next((kind for kind, sig in _MAGIC if sig.match(head)), None)
    suffix = Path(name).suffix.lower()
    promised = COMPRESSIONS.get(suffix)
    if promised is not None and magic != promised:
        raise InputError(f"{name} ends in {suffix!r} but is not a {promised} file (its first "
                         "bytes are not that format's signature): it is corrupt, or renamed; "
                         "compress it again or give it its real extension.")
    return magic


def decompress(data: bytes, name: str, platform: str, *, unzip: bool = True) -> bytes:
    """``data`` decompressed when it is compressed (see :func:`compression_of`); a zip
    must hold exactly one file (``unzip=False`` leaves a zip as it is)."""
    kind = compression_of(data[:16], name)
    if kind is None or (kind == "zip" and not unzip):
        return data
    try:
        if kind == "gzip":
            return gzip.decompress(data)
        if kind == "bz2":
            return bz2.decompress(data)
        if kind == "xz":
            return lzma.decompress(data)
        if kind == "zstd":
            pa = require("pyarrow", f"{platform}: reading {name} (zstd)")
            return bytes(pa.CompressedInputStream(pa.BufferReader(data), "zstd").read())
        return _only_member(data, name, platform)
    except InputError:
        raise
    except _BROKEN as exc:
        raise InputError(f"{platform}: {name} is a {kind} file that cannot be decompressed "
                         f"(truncated or corrupt: {exc}); download or compress it again."
                         ) from exc


def _only_member(data: bytes, name: str, platform: str) -> bytes:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        members = [m for m in archive.namelist() if not m.endswith("/")
                   and not PurePosixPath(m).parts[0] == "__MACOSX"]
        if len(members) != 1:
            raise InputError(f"{platform}: {name} holds {len(members)} files "
                             f"({', '.join(members[:5]) or 'none'}); a zip is read when it "
                             "holds exactly one: unzip it and pass the file you mean.")
        return archive.read(members[0])


def read_bytes(src: PathOrBuffer, platform: str, *, unzip: bool = True) -> bytes:
    """The bytes of a path or an open file (text or binary), decompressed; the caller's
    buffer is not closed."""
    if isinstance(src, str | os.PathLike):
        path = Path(src)
        if not path.is_file():
            wrong = not_a_file(path, platform, buffers=True)
            if wrong is not None:
                raise wrong
            raise InputError(
                f"{platform}: no file at {str(path)!r}; pass the path of the exported file "
                "or an open file object."
            )
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise InputError(f"{platform}: cannot read {str(path)!r}: {exc}") from exc
    else:
        read = getattr(src, "read", None)
        if read is None:
            raise InputError(
                f"{platform}: cannot read an object of type {type(src).__name__}; pass a path "
                "(str or pathlib.Path) or an open file object."
            )
        raw = read()
        try:
            data = raw.encode("utf-8") if isinstance(raw, str) else bytes(raw)
        except UnicodeEncodeError as err:  # a lone surrogate in the caller's text
            start = max(0, err.start - 20)
            raise text_error(f"{platform}: the text read from {source_name(src)}", "",
                             raw[start:err.start + 20], "pass text without it, or open "
                             "the file in binary mode", offset=start) from None
    return decompress(data, source_name(src), platform, unzip=unzip)


def decode(data: bytes, name: str, platform: str) -> str:
    """UTF-8 text (a leading byte-order mark is dropped), or an InputError naming the file."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise InputError(
            f"{platform}: {name} is not UTF-8 text (byte {err.start}); export it again as "
            "UTF-8 or pass an open text file with the right encoding."
        ) from err


def read_text(src: PathOrBuffer, platform: str) -> str:
    """The whole input as text."""
    return decode(read_bytes(src, platform), source_name(src), platform)


def _unparsable(text: str, exc: Exception) -> tuple[int, str]:
    """(line, reason) of a JSON text the parser refused without a position."""
    if isinstance(exc, RecursionError):
        depth, quoted, escaped = 0, False, False
        for at, char in enumerate(text):  # only on this error path
            if quoted:
                if escaped:
                    escaped = False
                elif char == "\\":
                    escaped = True
                elif char == '"':
                    quoted = False
            elif char == '"':
                quoted = True
            elif char in "[{":
                depth += 1
                if depth > _DEEP:
                    return text.count("\n", 0, at) + 1, f"nested more than {_DEEP} deep"
            elif char in "]}":
                depth -= 1
        return 1, "nested too deep"
    long = re.search(r"\d{4301,}", text)
    line = text.count("\n", 0, long.start()) + 1 if long else 1
    return line, f"{exc}"


def parse_json(text: str, name: str, platform: str, fix: str) -> Any:
    """One JSON document; malformed JSON names the line and column."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise InputError(
            f"{platform}: malformed JSON in {name} on line {err.lineno}, column {err.colno}: "
            f"{err.msg}. {fix}"
        ) from err
    except (ValueError, RecursionError) as err:
        line, why = _unparsable(text, err)
        raise InputError(f"{platform}: cannot parse the JSON in {name} on line {line}: {why}. "
                         f"{fix}") from None


def json_records(src: PathOrBuffer | Sequence[Any], platform: str, fix: str) -> list[Any]:
    """The records of a JSON export: a list given as is, else the parsed document as a list."""
    if isinstance(src, list | tuple):
        return list(src)
    path = cast(PathOrBuffer, src)  # a list or tuple of records returned above
    data = parse_json(read_text(path, platform), source_name(path), platform, fix)
    return data if isinstance(data, list) else [data]


def parse_jsonl(text: str, name: str, platform: str) -> Iterator[tuple[int, Any]]:
    """(line number, object) for every non-blank line of a JSON Lines text."""
    # "\n" only: str.splitlines also cuts at U+2028 and others, legal inside JSON strings
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as err:
            raise InputError(
                f"{platform}: malformed JSON on line {number} of {name} (column {err.colno}): "
                f"{err.msg}. Each line of a JSONL export must be one JSON object; fix or "
                "remove that line."
            ) from err
        except (ValueError, RecursionError) as err:
            why = _unparsable(line, err)[1]
            raise InputError(f"{platform}: cannot parse line {number} of {name}: {why}. Fix "
                             "or remove that line.") from None
        yield number, record


_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def check_json_text(text: str, records: Iterable[tuple[str, Any]], name: str,
                    platform: str) -> None:
    """An InputError naming the record and field of the first string (a key or a value,
    nested ones included) that is not valid Unicode text: a lone surrogate, from an
    escape such as ``"\\ud800"`` (:mod:`..schema.text`). ``records``: (where, record)
    pairs, ``where`` as "line 3" or "record 3". Text without a surrogate escape (one
    search) is not walked.

    Examples
    --------
    >>> text = '{"item": "a\\\\ud800", "joy": 1}'
    >>> check_json_text(text, [("line 1", json.loads(text))], "a.jsonl", "read_annotations")
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    xrr_accessor.errors.InputError: read_annotations: a.jsonl holds a string that is not ...
    """
    if _ESCAPE.search(text) is None:
        return
    for where, record in records:
        found = _lone_surrogate(record, "")
        if found is not None:
            field, value = found
            raise text_error(f"{platform}: {name}" if platform else name,
                             f"{where}, {field}", value, FILE_FIX)


def _lone_surrogate(obj: Any, field: str) -> tuple[str, str] | None:
    """(field, string) of the first string in ``obj`` holding a lone surrogate."""
    if isinstance(obj, str):
        return (field or "a value", obj) if SURROGATE.search(obj) else None
    if isinstance(obj, dict):
        for key, value in obj.items():
            if isinstance(key, str) and SURROGATE.search(key):
                return f"the name of field {key!r}", key
            found = _lone_surrogate(value, field or f"field {key!r}")
            if found is not None:
                return found
    elif isinstance(obj, list):
        for value in obj:
            found = _lone_surrogate(value, field)
            if found is not None:
                return found
    return None


def first_repeat(names: Iterable[Any]) -> Any:
    """The first column name that appears a second time in ``names`` (None: none).

    Examples
    --------
    >>> first_repeat(["item", "rater", "joy", "rater"]), first_repeat(["a", "b"])
    ('rater', None)
    """
    seen: set[Any] = set()
    for name in names:
        if name in seen:
            return name
        seen.add(name)
    return None

