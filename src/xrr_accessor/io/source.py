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
import zipfile
import zlib
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path, PurePosixPath
from typing import IO, Any, cast

from .._optional import require
from ..errors import InputError

__all__ = [
    "COMPRESSIONS", "PathOrBuffer", "compression_of", "decode", "decompress", "first_repeat",
    "json_records",
    "parse_json", "parse_jsonl", "read_bytes", "read_text", "source_name",
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
        data = raw.encode("utf-8") if isinstance(raw, str) else bytes(raw)
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

