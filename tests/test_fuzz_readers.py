"""Fuzzing the platform readers with mutated exports, random frames and random bytes.

Every reader, fed a valid export mutated at random (see :mod:`fuzzing`), must return
a well-formed frame or raise a documented error, and must give the same outcome for the
same export as a Python list (the in-memory path), text, bytes, a file and a compressed
file (gzip, bz2, xz, zip, zstd); a truncated or corrupted compressed file gives an
InputError or the plain file's result. The same calls in 8 threads equal the serial ones.
Budget and counts: see :mod:`fuzzing` (``XRR_FUZZ_SCALE``, ``XRR_FUZZ_REPORT``).
"""

from __future__ import annotations

import copy
import csv
import io
import warnings
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pandas as pd
from fuzzing import (
    CHECKED,
    COMPRESS,
    DOCUMENTED,
    JSON,
    WORDS,
    Outcome,
    canonical_ok,
    dumps,
    examples,
    mutated,
    outcome,
    same,
)
from hypothesis import given
from hypothesis import strategies as st

from xrr_accessor.io import (
    read_argilla,
    read_doccano,
    read_label_studio,
    read_mturk,
    read_prodigy,
    read_toloka,
)

IDS = st.one_of(st.integers(0, 3), st.sampled_from(["t1", "t2", "007"]))
RATERS = st.one_of(st.integers(1, 3), st.sampled_from(["ann", "bob", "cy"]))
CHOICES = st.lists(st.sampled_from(["A", "B", "C"]), min_size=0, max_size=2, unique=True)


@st.composite
def label_studio(draw: Any) -> list[Any]:
    def result(kind: str) -> dict[str, Any]:
        value = {"choices": {"choices": draw(CHOICES)}, "rating": {"rating": draw(
            st.integers(1, 5))}, "textarea": {"text": [draw(st.sampled_from(WORDS[:6]))]},
            "labels": {"start": 0, "end": 1, "labels": ["X"]}}[kind]
        return {"from_name": draw(st.sampled_from(["q", "r"])), "to_name": "text",
                "type": kind, "value": value}
    return [{"id": draw(IDS), "data": {"text": "x"}, "annotations": [
        {"completed_by": draw(st.one_of(RATERS, RATERS.map(lambda r: {"id": r}))),
         "was_cancelled": draw(st.booleans()) and draw(st.booleans()),
         "result": [result(draw(st.sampled_from(["choices", "choices", "rating", "textarea",
                                                  "labels"]))) for _ in range(draw(
                                                      st.integers(0, 2)))]}
        for _ in range(draw(st.integers(0, 3)))]} for _ in range(draw(st.integers(1, 4)))]


@st.composite
def argilla(draw: Any) -> list[Any]:
    def value() -> Any:
        return draw(st.one_of(st.sampled_from(["pos", "neg"]), st.integers(1, 5), CHOICES))
    records = []
    for _ in range(draw(st.integers(1, 4))):
        if draw(st.booleans()):  # v2
            responses: Any = {q: [{"value": value(), "user_id": draw(RATERS),
                                   "status": draw(st.sampled_from(["submitted", "draft"]))}
                                  for _ in range(draw(st.integers(0, 3)))] for q in "qr"}
        else:  # v1
            responses = [{"user_id": draw(RATERS), "status": "submitted",
                          "values": {q: {"value": value()} for q in "qr"}}
                         for _ in range(draw(st.integers(0, 3)))]
        records.append({"id": draw(IDS), "fields": {"text": "x"}, "responses": responses})
    return records


@st.composite
def prodigy(draw: Any) -> list[Any]:
    lines = []
    for _ in range(draw(st.integers(1, 6))):
        task: dict[str, Any] = {"_input_hash": draw(IDS), "_annotator_id": draw(RATERS),
                                "answer": draw(st.sampled_from(["accept", "reject",
                                                                "ignore"]))}
        if draw(st.booleans()):
            task.update(options=[{"id": c} for c in "ABC"], accept=draw(CHOICES))
        else:
            task["label"] = draw(st.sampled_from(["SPORTS", "NEWS"]))
        lines.append(task)
    return lines


@st.composite
def doccano(draw: Any) -> list[Any]:
    return [{"id": draw(IDS), "text": "x", "username": draw(RATERS), "label": draw(CHOICES)}
            for _ in range(draw(st.integers(1, 6)))]


JSON_READERS = [(read_label_studio, label_studio(), "json"), (read_argilla, argilla(), "json"),
                (read_prodigy, prodigy(), "jsonl"), (read_doccano, doccano(), "jsonl")]


def _text(doc: Any, kind: str) -> str:
    if kind == "json" or not isinstance(doc, list):
        return dumps(doc)
    return "".join(dumps(line) + "\n" for line in doc)


def _variants(reader: Any, doc: Any, text: str, tmp: Path, suffix: str) -> list[
        tuple[str, Any]]:
    """The same export given every way a reader takes it."""
    raw = text.encode("utf-8")
    path = tmp / f"export.{suffix}"
    path.write_bytes(raw)
    ways: list[tuple[str, Any]] = [("text", lambda: reader(io.StringIO(text))),
                                   ("bytes", lambda: reader(io.BytesIO(raw))),
                                   ("path", lambda: reader(path))]
    if reader in (read_label_studio, read_argilla) and isinstance(doc, list):
        ways.insert(0, ("list", lambda: reader(doc)))
    for ext, pack in COMPRESS.items():
        if reader is read_doccano and ext == ".zip":
            continue  # a doccano zip is its per-user layout, fuzzed in test_fuzz_files
        packed = tmp / f"export.{suffix}{ext}"
        packed.write_bytes(pack(raw))
        ways.append((ext, lambda p=packed: reader(p)))
    return ways


@examples(200)
@given(which=st.sampled_from(JSON_READERS), data=st.data())
def test_fuzz_json_exports_every_way_the_same(tmp_path_factory: Any, which: Any,
                                             data: Any) -> None:
    reader, base, kind = which
    mode = data.draw(st.sampled_from(["tree", "text", "both"]) if kind == "jsonl" else
                     st.just("tree"))
    doc = data.draw(base if mode == "text" else mutated(base))
    text = _text(doc, kind)
    if mode != "tree":  # text-level damage: one hostile line among valid ones
        lines = text.split("\n")
        at = data.draw(st.integers(0, len(lines)))
        lines.insert(at, data.draw(st.sampled_from([
            '{"id": ' + "9" * 5000 + "}", "[" * 5000, "", "  ", "{", "[]", "null",
            "\ufeff{}"])))
        text = data.draw(st.sampled_from(["\n", "\r\n"])).join(lines)
    before = copy.deepcopy(doc)
    tmp = tmp_path_factory.mktemp("json")
    name = reader.__name__
    results = [(way, outcome(call, name)) for way, call in _variants(reader, doc, text, tmp,
                                                                      kind)]
    assert dumps(doc) == dumps(before)  # the list given is not modified
    first = results[0][1]
    if first.error is None:
        canonical_ok(first.value)
    for way, got in results[1:]:
        same(first, got, f"{name}: {results[0][0]} vs {way}")


@st.composite
def table_text(draw: Any) -> tuple[Any, str]:
    reader = draw(st.sampled_from([read_mturk, read_toloka]))
    if reader is read_mturk:
        header = ["HITId", "WorkerId", "AssignmentStatus", "Input.text", "Answer.q",
                  "Answer.r"]
    else:
        header = draw(st.sampled_from([
            ["INPUT:text", "OUTPUT:q", "OUTPUT:r", "ASSIGNMENT:worker_id", "ASSIGNMENT:status"],
            ["task", "worker", "label"]]))
    cell = st.one_of(st.sampled_from(WORDS), st.sampled_from(["H1", "H2", "W1", "W2", "a",
                                                              "b", "3", "4.0", "Approved",
                                                              "Rejected", "REJECTED"]))
    rows = [[draw(cell) for _ in header] for _ in range(draw(st.integers(0, 6)))]
    for _ in range(draw(st.integers(0, 2))):  # damage the header
        at = draw(st.integers(0, len(header) - 1))
        header = list(header)
        header[at] = draw(st.sampled_from([*header, "", "Answer.q", "OUTPUT:q", "x"]))
    buf = io.StringIO()
    csv.writer(buf, delimiter="," if reader is read_mturk else "\t",
               lineterminator="\n").writerows([header, *rows])
    return reader, buf.getvalue()


@examples(100)
@given(case=table_text(), kw=st.sampled_from([{}, {"multi_sep": "|"}, {"answers": "q"},
                                              {"duplicates": "last"}]))
def test_fuzz_table_exports_every_way_the_same(tmp_path_factory: Any, case: Any,
                                              kw: dict[str, Any]) -> None:
    reader, text = case
    if reader is read_toloka:
        kw = {k: v for k, v in kw.items() if k == "duplicates"}
    tmp = tmp_path_factory.mktemp("table")
    name = reader.__name__
    calls = _variants(lambda src: reader(src, **kw), None, text, tmp, "csv")
    results = [(way, outcome(call, name)) for way, call in calls]
    first = results[0][1]
    if first.error is None:
        canonical_ok(first.value)
        sep = "," if reader is read_mturk else "\t"
        frame = pd.read_csv(io.StringIO(text), sep=sep, dtype=str, keep_default_na=False)
        before = frame.copy()
        same(first, outcome(lambda: reader(frame, **kw), name), f"{name}: text vs frame")
        pd.testing.assert_frame_equal(frame, before)  # the frame given is not modified
    for way, got in results[1:]:
        same(first, got, f"{name}: {results[0][0]} vs {way}")


@examples(80)
@given(reader=st.sampled_from([read_mturk, read_toloka]), data=st.data())
def test_fuzz_random_frames(reader: Any, data: Any) -> None:
    names = ["HITId", "WorkerId", "AssignmentStatus", "Answer.q", "Answer.r", "OUTPUT:q",
             "INPUT:x", "ASSIGNMENT:worker_id", "ASSIGNMENT:task_id", "task", "worker",
             "label", 0, ""]
    columns = data.draw(st.lists(st.sampled_from(names), min_size=0, max_size=6))
    n = data.draw(st.integers(0, 5))
    cells = st.one_of(st.sampled_from(WORDS), st.none(), st.floats(), st.integers(),
                      st.just(pd.NA), st.just(pd.Timestamp("2020-01-01")), JSON)
    frame = pd.DataFrame({i: pd.Series([data.draw(cells) for _ in range(n)], dtype=object)
                          for i in range(len(columns))}, index=range(n))
    frame.columns = columns if columns else frame.columns
    before = frame.copy(deep=True)
    got = outcome(lambda: reader(frame), reader.__name__ + " frame")
    if got.error is None:
        canonical_ok(got.value)
    pd.testing.assert_frame_equal(frame, before)


READERS = [read_label_studio, read_argilla, read_prodigy, read_doccano, read_mturk,
           read_toloka]
MAGIC = [b"", b"\x1f\x8b\x08", b"BZh91AY&SY", b"\xfd7zXZ\x00", b"\x28\xb5\x2f\xfd",
         b"PK\x03\x04", b"PK\x05\x06", b"\xef\xbb\xbf", b"[", b"{"]


@examples(150)
@given(reader=st.sampled_from(READERS), head=st.sampled_from(MAGIC), body=st.binary(
    max_size=200), suffix=st.sampled_from(["json", "jsonl", "csv", "tsv", "csv.gz", "zip",
                                           "json.bz2", "jsonl.xz", "zst"]))
def test_fuzz_random_bytes(tmp_path_factory: Any, reader: Any, head: bytes, body: bytes,
                           suffix: str) -> None:
    path = tmp_path_factory.mktemp("bytes") / f"in.{suffix}"
    path.write_bytes(head + body)
    outcome(lambda: reader(path), reader.__name__ + " bytes")


@examples(120)
@given(which=st.sampled_from(JSON_READERS), ext=st.sampled_from(list(COMPRESS)),
       data=st.data())
def test_fuzz_damaged_compressed_files(tmp_path_factory: Any, which: Any, ext: str,
                                      data: Any) -> None:
    reader, base, kind = which
    raw = _text(data.draw(base), kind).encode()
    packed = COMPRESS[ext](raw)
    if ext in CHECKED and data.draw(st.booleans()):
        at = data.draw(st.integers(0, len(packed) - 1))
        damaged = packed[:at] + bytes([packed[at] ^ data.draw(st.integers(1, 255))]) + \
            packed[at + 1:]
    else:
        damaged = packed[:data.draw(st.integers(0, len(packed) - 1))]
    tmp = tmp_path_factory.mktemp("damaged")
    (tmp / f"a.{kind}").write_bytes(raw)
    (tmp / f"b.{kind}{ext}").write_bytes(damaged)
    got = outcome(lambda: reader(tmp / f"b.{kind}{ext}"), reader.__name__ + " damaged")
    if got.error is None:  # damage the format does not see (a header byte): same result
        same(outcome(lambda: reader(tmp / f"a.{kind}"), reader.__name__), got, "damaged")


@examples(15)
@given(which=st.sampled_from(JSON_READERS), data=st.data())
def test_fuzz_threads_equal_serial(which: Any, data: Any) -> None:
    reader, base, kind = which
    texts = [_text(data.draw(mutated(base)), kind) for _ in range(8)]

    def run(text: str) -> Outcome:
        try:
            return Outcome(value=reader(io.StringIO(text)))
        except DOCUMENTED as exc:  # anything else fails the test
            return Outcome(error=type(exc), message=str(exc))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # set once, before the threads start
        serial = [run(t) for t in texts]
        with ThreadPoolExecutor(8) as pool:
            threaded = list(pool.map(run, texts * 2))
    for k, got in enumerate(threaded):
        same(serial[k % 8], got, f"thread {k}")
        assert got.message == serial[k % 8].message

