"""Shared machinery of the reader fuzz suites (tests/test_fuzz_readers.py, test_fuzz_files.py).

The invariant every fuzzed call is held to: it returns a result, or raises one of the
package's documented errors (InputError, LevelError, RoleError) with a message; it warns
only with the package's warnings; it never raises anything else. :func:`outcome` runs a
call under that rule and returns what happened, comparable across equivalent inputs
(the same export given as a list, text, bytes, a file, a compressed file).

Budget: ``examples(n)`` is ``n`` times ``XRR_FUZZ_SCALE`` (default 1, the CI budget of
about a minute for both files); ``XRR_FUZZ_SCALE=40`` runs for about ten minutes. With
``XRR_FUZZ_REPORT=path`` the counts of outcomes per test are written there as JSON at exit.
"""

from __future__ import annotations

import atexit
import bz2
import gzip
import io
import json
import lzma
import math
import os
import warnings
import zipfile
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pandas as pd
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from xrr_accessor.errors import InputError, LevelError, RoleError, XRRWarning

DOCUMENTED = (InputError, LevelError, RoleError)
SCALE = float(os.environ.get("XRR_FUZZ_SCALE", "1"))
COUNTS: Counter[str] = Counter()


def examples(n: int) -> Any:
    """Hypothesis settings for ``n`` examples times the scale, no deadline."""
    return settings(max_examples=max(1, int(n * SCALE)), deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.function_scoped_fixture])


def _write_counts() -> None:
    path = os.environ.get("XRR_FUZZ_REPORT")
    if path and COUNTS:
        with open(path, "w") as fh:
            json.dump(dict(sorted(COUNTS.items())), fh, indent=1)


atexit.register(_write_counts)


@dataclass(frozen=True)
class Outcome:
    """What a call gave: a frame (``value``), or a documented error (``error``)."""

    value: Any = None
    error: type[Exception] | None = None
    message: str = ""


def outcome(call: Callable[[], Any], where: str) -> Outcome:
    """Run ``call`` under the invariant; count the outcome under ``where``."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            value = call()
        except DOCUMENTED as exc:
            assert str(exc).strip(), f"{type(exc).__name__} without a message"
            assert "Traceback" not in str(exc)
            COUNTS[f"{where}: clear error"] += 1
            result = Outcome(error=type(exc), message=str(exc))
        else:
            COUNTS[f"{where}: result"] += 1
            result = Outcome(value=value)
    foreign = [f"{w.category.__name__}: {w.message}" for w in caught
               if not issubclass(w.category, XRRWarning)]
    assert not foreign, foreign
    return result


def same(a: Outcome, b: Outcome, what: str, loose: bool = False) -> None:
    """Both gave equal frames or series (and the same counts of what was left out), or
    both the same documented error type. ``loose``: the string dtypes of values and
    indexes may differ (dask reads text as pyarrow strings)."""
    assert (a.error is None) == (b.error is None), (what, a.error, a.message, b.error,
                                                    b.message)
    if a.error is not None:
        assert a.error is b.error, (what, a.message, b.message)
        return
    if isinstance(a.value, pd.Series):
        pd.testing.assert_series_equal(a.value, b.value, obj=what, check_dtype=not loose,
                                       check_index_type=not loose)
    elif isinstance(a.value, pd.DataFrame):
        pd.testing.assert_frame_equal(a.value, b.value, obj=what, check_dtype=not loose,
                                      check_index_type=not loose,
                                      check_column_type=not loose)
    else:  # a coefficient
        assert type(a.value) is type(b.value), what
        assert a.value == b.value or (a.value != a.value and b.value != b.value), what
    assert getattr(a.value, "attrs", {}).get("dropped") == getattr(
        b.value, "attrs", {}).get("dropped"), what


def canonical_ok(df: pd.DataFrame) -> None:
    """A platform reader's frame: ids are non-empty strings, values scalars or label
    sets (a non-empty frozenset of non-empty strings: a multi-choice answer of
    read_label_studio), no null id turned into the text "None"/"nan" by the reader itself."""
    assert list(df.columns)[:4] == ["item", "rater", "label", "value"], list(df.columns)
    assert len(df) > 0
    for column in ("item", "rater", "label"):
        assert all(isinstance(v, str) and v.strip() for v in df[column]), column
    for v in df["value"]:
        if isinstance(v, frozenset):
            assert v and all(isinstance(c, str) and c for c in v), v
            continue
        assert isinstance(v, str | int | float) and not (isinstance(v, float)
                                                         and math.isnan(v)), v
    assert not df.duplicated(["item", "rater", "label"]).any()


def _zip(data: bytes, member: str = "inner") -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(member, data)
    return buf.getvalue()


def _zstd(data: bytes) -> bytes:
    import pyarrow as pa

    out = pa.BufferOutputStream()
    with pa.CompressedOutputStream(out, "zstd") as stream:
        stream.write(data)
    return bytes(out.getvalue().to_pybytes())


COMPRESS: dict[str, Callable[[bytes], bytes]] = {
    ".gz": gzip.compress, ".bz2": bz2.compress, ".xz": lzma.compress, ".zip": _zip,
    ".zst": _zstd,
}
#: zstd frames as pyarrow writes them carry no checksum: a flipped byte can decompress
#: to other bytes, so byte flips are fuzzed on the formats that check their data.
CHECKED = (".gz", ".bz2", ".xz", ".zip")

KEYS = ["id", "annotations", "completed_by", "result", "from_name", "type", "value",
        "choices", "rating", "number", "text", "was_cancelled", "responses", "user_id",
        "status", "values", "external_id", "_server_id", "_input_hash", "_annotator_id",
        "_session_id", "answer", "accept", "options", "label", "username", "user", "doc_id",
        "email"]
WORDS = ["", " ", "A", "B", "Pos", "None", "nan", "NaN", "1", "1_0", "10", "0x1", "1e400",
         "12345678901234567891", "12345678901234567892", "=1+1", "a,b", 'q"', "a\nb",
         "\u2028", "choices", "textarea", "rating", "accept", "reject", "ignore", "submitted",
         "discarded", "\ufeff"]
LEAVES = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 3), st.integers(),
    st.floats(allow_nan=True, allow_infinity=True), st.sampled_from(WORDS),
    st.text(max_size=4), st.just(10**30), st.sampled_from(KEYS),
)
JSON = st.recursive(LEAVES, lambda kids: st.one_of(
    st.lists(kids, max_size=3),
    st.dictionaries(st.one_of(st.sampled_from(KEYS), st.text(max_size=3)), kids, max_size=3)),
    max_leaves=8)


def _places(doc: Any, out: list[tuple[Any, Any]]) -> list[tuple[Any, Any]]:
    """Every (container, key or index) in a JSON tree."""
    if isinstance(doc, dict):
        for k, v in doc.items():
            out.append((doc, k))
            _places(v, out)
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            out.append((doc, i))
            _places(v, out)
    return out


@st.composite
def mutated(draw: Any, base: Any) -> Any:
    """A JSON tree with 0-4 random mutations: a node replaced, removed, duplicated,
    wrapped in a list, or turned into its text."""
    doc = json.loads(json.dumps(draw(base)))
    for _ in range(draw(st.integers(0, 4))):
        places = _places(doc, [])
        if not places:
            break
        parent, key = places[draw(st.integers(0, len(places) - 1))]
        op = draw(st.sampled_from(["replace", "replace", "delete", "dup", "wrap", "text"]))
        if op == "replace":
            parent[key] = draw(JSON)
        elif op == "delete":
            del parent[key]
        elif op == "dup" and isinstance(parent, list):
            parent.insert(key, json.loads(json.dumps(parent[key])))
        elif op == "wrap":
            parent[key] = [parent[key]]
        elif op == "text":
            parent[key] = json.dumps(parent[key])
    return doc


def dumps(doc: Any) -> str:
    return json.dumps(doc, allow_nan=True, ensure_ascii=False)
