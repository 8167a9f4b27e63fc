"""Choice collection in the platform readers: time for N distinct choices (issue 25).

Collecting choice answers was quadratic in the number of distinct choices (a list
searched per choice); it is linear now (an ordered dict). Run
``python benchmarks/bench_readers.py [--n 20000]``; prints one line per reader, the
best of three runs. Output only: no wall-time assertion anywhere.
"""

from __future__ import annotations

import argparse
import io
import json
import time
import warnings
from collections.abc import Callable

import pandas as pd

from xrr_accessor.io import read_doccano, read_label_studio, read_mturk, read_prodigy


def best(call: Callable[[], object], runs: int = 3) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return min(times)


def cases(n: int) -> dict[str, Callable[[], pd.DataFrame]]:
    """Each reader with ``n`` items, two raters, a distinct choice per item."""
    ls = [{"id": i, "annotations": [{"completed_by": r, "result": [
        {"from_name": "q", "type": "choices", "value": {"choices": [f"c{i}"]}}]}
        for r in (1, 2)]} for i in range(n)]
    prodigy = "".join(json.dumps({"_input_hash": i, "_annotator_id": r, "answer": "accept",
                                  "options": [{"id": f"c{i}"}], "accept": [f"c{i}"]}) + "\n"
                      for i in range(n) for r in "ab")
    doccano = "".join(json.dumps({"id": i, "username": r, "label": [f"c{i}"]}) + "\n"
                      for i in range(n) for r in "ab")
    mturk = pd.DataFrame({"HITId": [f"H{i}" for i in range(n) for _ in "ab"],
                          "WorkerId": ["a", "b"] * n,
                          "Answer.q": [f"c{i}" for i in range(n) for _ in "ab"]})
    return {"read_label_studio": lambda: read_label_studio(ls),
            "read_prodigy": lambda: read_prodigy(io.StringIO(prodigy)),
            "read_doccano": lambda: read_doccano(io.StringIO(doccano)),
            "read_mturk(multi_sep='|')": lambda: read_mturk(mturk, multi_sep="|")}


def main(argv: list[str] | None = None) -> list[str]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=20_000, help="distinct choices")
    n = parser.parse_args(argv).n
    lines = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, call in cases(n).items():
            lines.append(f"{name}: {best(call):.2f} s for {n:,} distinct choices")
            print(lines[-1])
    return lines


if __name__ == "__main__":
    main()
