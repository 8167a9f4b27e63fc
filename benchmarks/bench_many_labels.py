"""Many labels: ``agreement_table`` and ``report`` at 2,000 and 20,000 labels, before and
after issue 36 (part 5), in one run.

Conger's chance term summed every rater's totals over the whole (labels x ...) array
once per label: both calls grew with the square of the labels (the fuzz probe: 65 s and
115 s at 20,000 labels). The data: ``n`` labels, each on the same 3 items and 3 raters,
3 categories, 10% of the annotations missing, a long DataFrame with a ``label`` column
(the same data on both sides, made from one seed).

"Before" is this library at :data:`BEFORE` (a git worktree made for the run and removed
after it), "after" this checkout; each side runs in its own process, one warm-up call on
20 labels (numba's compilation) first, then one timing of each call; ``--runs`` such
processes per side, the two sides interleaved (one run of the "before" side above 5,000
labels, about three minutes at 20,000, unless ``--full-before``).
Both sides' agreement tables (of ``agreement_table`` and of the report) are compared to
the last bit. Output only: no wall-time assertion anywhere.

``python benchmarks/bench_many_labels.py [--labels 2000 20000] [--runs 3] [--write]``.
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
from sections import write_section  # noqa: E402

#: The commit before the fix (issue 36, part 5).
BEFORE = "9ab0132"

CALLS = ("agreement_table", "report")

#: Run in each side's process: argv = labels, runs, where to pickle the tables.
CHILD = '''
import json, pickle, sys, time, warnings
warnings.simplefilter("ignore")
import numpy as np, pandas as pd
import xrr_accessor as xa

def make(n_labels, seed=0):
    rng = np.random.default_rng(seed)
    per = 9  # 3 items x 3 raters
    lab = np.repeat(np.arange(n_labels), per)
    value = rng.integers(0, 3, n_labels * per).astype(float)
    value[rng.random(n_labels * per) < 0.1] = np.nan
    return pd.DataFrame({"item": np.tile(np.repeat(np.arange(3), 3), n_labels),
                         "rater": np.tile(np.arange(3), 3 * n_labels),
                         "label": [f"l{i}" for i in lab], "value": value})

n, runs, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
small = make(20)
xa.agreement_table(small), xa.report(small)  # warm-up: numba's compilation
df = make(n)
times = {"agreement_table": [], "report": []}
for _ in range(runs):
    t = time.perf_counter(); table = xa.agreement_table(df)
    times["agreement_table"].append(time.perf_counter() - t)
    t = time.perf_counter(); rep = xa.report(df)
    times["report"].append(time.perf_counter() - t)
with open(out, "wb") as fh:
    pickle.dump({"agreement_table": table, "report": rep.agreement}, fh)
print(json.dumps({"file": xa.__file__, "times": times}))
'''


def side(src: Path, n: int, runs: int, tmp: Path, tag: str) -> tuple[dict, dict]:
    """(times per call, the tables) of ``runs`` runs in a fresh process on ``src``."""
    out = tmp / f"{tag}-{n}.pkl"
    env = {"PYTHONPATH": str(src), "PATH": "/usr/bin:/bin", "HOME": tempfile.gettempdir(),
           "NUMBA_CACHE_DIR": str(tmp / f"numba-{tag}")}
    done = subprocess.run([sys.executable, "-c", CHILD, str(n), str(runs), str(out)],
                          capture_output=True, text=True, env=env, timeout=7200,
                          cwd=tempfile.gettempdir())
    if done.returncode:
        raise RuntimeError(f"{tag} at {n} labels failed:\n{done.stderr[-3000:]}")
    got = json.loads(done.stdout.strip().splitlines()[-1])
    assert Path(got["file"]).is_relative_to(src), (got["file"], src)  # the side asked for
    with open(out, "rb") as fh:
        return got["times"], pickle.load(fh)


def fmt(seconds: list[float]) -> str:
    """The median (and range) of the runs: ``"3.21 s (3.10-3.40)"``; one run alone.

    >>> fmt([3.0, 2.0, 4.0]), fmt([65.04])
    ('3.00 s (2.00-4.00)', '65.0 s (1 run)')
    """
    med = statistics.median(seconds)
    digits = 2 if med < 10 else 1
    if len(seconds) == 1:
        return f"{med:.{digits}f} s (1 run)"
    return f"{med:.{digits}f} s ({min(seconds):.{digits}f}-{max(seconds):.{digits}f})"


def main(argv: list[str] | None = None) -> str:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--labels", type=int, nargs="+", default=[2000, 20000])
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--full-before", action="store_true",
                   help="--runs runs of the before side at every size (else one above 5,000)")
    p.add_argument("--write", action="store_true", help="rewrite the BENCHMARKS.md section")
    args = p.parse_args(argv)
    lines = ["| call | labels | before (at " + BEFORE + "): median (range) | after: median "
             "(range) | speed-up (medians) | same tables |", "|---|---:|---:|---:|---:|---|"]
    load = [os.getloadavg()[0]]  # other jobs on the machine widen the ranges
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        tree = tmp / "before"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(tree),
                        BEFORE], check=True, capture_output=True)
        try:
            for n in args.labels:
                runs_before = args.runs if args.full_before or n <= 5000 else 1
                times: dict[str, dict[str, list[float]]] = {"before": {}, "after": {}}
                tables: dict[str, dict] = {}
                for r in range(args.runs):  # the two sides interleaved, a process a run
                    for tag, src in (("before", tree / "src"), ("after", ROOT / "src")):
                        if tag == "before" and r >= runs_before:
                            continue
                        got, tables[tag] = side(src, n, 1, tmp, tag)
                        load.append(os.getloadavg()[0])
                        for call in CALLS:
                            times[tag].setdefault(call, []).extend(got[call])
                before, after = times["before"], times["after"]
                for call in CALLS:
                    pd.testing.assert_frame_equal(tables["after"][call],
                                                  tables["before"][call], check_exact=True)
                    ratio = statistics.median(before[call]) / statistics.median(after[call])
                    lines.append(f"| {call} | {n:,} | {fmt(before[call])} | "
                                 f"{fmt(after[call])} | **{ratio:.1f}x** | yes |")
                    print(lines[-1], flush=True)
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force",
                            str(tree)], capture_output=True)
    load.append(os.getloadavg()[0])
    lines.append(f"\nThe machine's load (1-minute average) during the run: "
                 f"{min(load):.1f}-{max(load):.1f} on {os.cpu_count()} cores.")
    md = "\n".join(lines)
    if args.write:
        write_section("many-labels", INTRO + "\n\n" + md, "Many labels")
    return md


INTRO = f"""`bench_many_labels.py`. Issue 36: Conger's chance term summed every rater's
totals over the whole array once per label, so `agreement_table` and `report` grew with
the square of the labels; the totals are now summed once per call
(`coefficients/chance.py`, `RaterCounts`). The data: n labels on the same 3 items and 3
raters, 3 categories, 10% missing, a long DataFrame with a `label` column. Before: this
library at {BEFORE} (a git worktree); after: this checkout. Each run is a fresh process
(one warm-up call on 20 labels, then one timing of each call), the two sides
interleaved; the median and range of three runs, except the before side at 20,000
labels: one run (said in the cell). Both sides' tables are equal to the last bit. The
rater and item tables are built once over every label (not a DataFrame per label). The
rest of `report` at 20,000 labels is linear, about 0.7 ms a label: each of the report's
parts reads and encodes the data again, one label at a time (`schema/encode.py`
`label_categories`, about a third of it): reading once per report is the next step."""


if __name__ == "__main__":
    main()
