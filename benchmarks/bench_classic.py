"""The classic family against its fastest peer, at 1e5 and 1e6 annotations.

Same data for both sides, timings in one run (best of ``repeat`` after a
warm-up), and every row checks that both sides agree. Ours starts from a
raters x items DataArray (as the peers start from arrays). Peers: scikit-learn
(Cohen), statsmodels (Fleiss; Brennan-Prediger as 'randolph'), pingouin (ICC),
nltk (pi, Davies-Fleiss = Conger, mean pairwise Cohen = Light; pure Python, so
only at 1e5), and irrCAC (AC1, Conger, percent) when IRRCAC_PYTHON names an
interpreter that has it (it cannot share an environment with this package).
Cohen's kappa is also timed from a Dataset holding the same matrix as a
variable. Every value is also checked against the naive formula of its metric
(``tests/naive.py`` ``REFERENCES``), untimed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import xarray as xr
from bench_core import best

import xrr_accessor  # noqa: F401  (registers .xrr)

import naive


def matrix(n_annotations: int, n_raters: int, k: int, seed: int = 0) -> np.ndarray:
    """raters x items, complete, correlated ratings in 0..k-1."""
    rng = np.random.default_rng(seed)
    n = n_annotations // n_raters
    truth = rng.integers(0, k, n)
    noise = rng.integers(0, k, (n_raters, n))
    return np.where(rng.random((n_raters, n)) < 0.6, truth, noise)


def row(name: str, n_ann: int, ours: float, peer: str, theirs: float) -> dict:
    return {"benchmark": name, "annotations": n_ann, "xrr_accessor_s": ours, "peer": peer,
            "peer_s": theirs}


def _agree(a: float, b: float, what: str) -> None:
    assert abs(a - b) < 1e-9, (what, a, b)


def _naive(metric: str, ours: float, *args: object) -> None:
    """``ours`` equals the metric's naive reference (tests/naive.py REFERENCES) on ``args``."""
    _agree(ours, naive.REFERENCES[metric][0].fn(*args), f"{metric} vs naive")


def bench(sizes: list[int], repeat: int, nltk_max: int) -> list[dict]:
    rows = []
    for size in sizes:
        rows += _bench_size(size, repeat, nltk_max)
    return rows


def _bench_size(size: int, repeat: int, nltk_max: int) -> list[dict]:
    import pingouin as pg
    from nltk.metrics.agreement import AnnotationTask
    from sklearn.metrics import cohen_kappa_score
    from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

    rows = []
    two = matrix(size, 2, 4)
    da2 = xr.DataArray(two, dims=("rater", "item"))
    ours = best(lambda: da2.xrr.irr(metric="cohen"), repeat)
    theirs = best(lambda: cohen_kappa_score(two[0], two[1]), repeat)
    _agree(float(da2.xrr.irr(metric="cohen")), cohen_kappa_score(two[0], two[1]), "cohen")
    _naive("cohen", float(da2.xrr.irr(metric="cohen")), two[0].tolist(), two[1].tolist())
    rows.append(row("Cohen's kappa, 2 raters", size, ours, "scikit-learn", theirs))
    ds2 = da2.to_dataset(name="joy")
    ours = best(lambda: ds2.xrr.irr(metric="cohen"), repeat)
    _agree(ds2.xrr.irr(metric="cohen").item(), cohen_kappa_score(two[0], two[1]), "cohen")
    rows.append(row("Cohen's kappa, 2 raters (Dataset variable)", size, ours, "scikit-learn",
                    theirs))

    five = matrix(size, 5, 4)
    da5 = xr.DataArray(five, dims=("rater", "item"))
    rows5 = five.T.tolist()
    for metric in ("fleiss", "bp", "conger", "light", "gwet", "percent", "scott"):
        _naive(metric, float(da5.xrr.irr(metric=metric)), rows5)
    for metric, method, label in [("fleiss", "fleiss", "Fleiss' kappa"),
                                  ("bp", "randolph", "Brennan-Prediger")]:
        def peer(method: str = method) -> float:
            return fleiss_kappa(aggregate_raters(five.T)[0], method=method)
        ours = best(lambda metric=metric: da5.xrr.irr(metric=metric), repeat)
        theirs = best(peer, repeat)
        _agree(float(da5.xrr.irr(metric=metric)), peer(), metric)
        rows.append(row(f"{label}, 5 raters", size, ours, "statsmodels", theirs))

    cont = five.astype(float) + np.random.default_rng(1).normal(0, 0.5, five.shape)
    long = pd.DataFrame({"item": np.tile(np.arange(cont.shape[1]), 5),
                         "rater": np.repeat(np.arange(5), cont.shape[1]),
                         "value": cont.reshape(-1)})
    dac = xr.DataArray(cont, dims=("rater", "item"))

    def icc_peer() -> pd.DataFrame:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return pg.intraclass_corr(long, targets="item", raters="rater", ratings="value")
    ours = best(lambda: dac.xrr.irr(metric="icc", form="2,1"), repeat)
    theirs = best(icc_peer, repeat)
    _agree(float(dac.xrr.irr(metric="icc", form="2,1")), icc_peer()["ICC"].iloc[1], "icc")
    _naive("icc", float(dac.xrr.irr(metric="icc", form="2,1")), cont.T, "2,1")
    rows.append(row("ICC(2,1), 5 raters, continuous", size, ours, "pingouin", theirs))

    if size <= nltk_max:
        task = AnnotationTask([(str(g), str(i), int(five[g, i]))
                               for g in range(5) for i in range(five.shape[1])])
        for metric, fn, label in [("fleiss", task.pi, "Scott/Fleiss pi"),
                                  ("conger", task.multi_kappa, "Conger (Davies-Fleiss)"),
                                  ("light", task.kappa, "Light's kappa")]:
            t = time.perf_counter()
            want = fn()
            theirs = time.perf_counter() - t
            ours = best(lambda metric=metric: da5.xrr.irr(metric=metric), repeat)
            _agree(float(da5.xrr.irr(metric=metric)), want, metric)
            rows.append(row(f"{label}, 5 raters", size, ours, "nltk", theirs))

    return rows + _irrcac(five, da5, size, repeat)


def _irrcac(five: np.ndarray, da5: xr.DataArray, size: int, repeat: int) -> list[dict]:
    python = os.environ.get("IRRCAC_PYTHON")
    if not python:
        return []
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "ratings.npy"
        np.save(path, five.T)
        code = (
            "import json, sys, time, numpy as np, pandas as pd\n"
            "from irrCAC.raw import CAC\n"
            "df = pd.DataFrame(np.load(sys.argv[1]))\n"
            "out = {}\n"
            "for m in ['gwet', 'conger', 'fleiss']:\n"
            "    cac = CAC(df, digits=15)\n"
            "    t = time.perf_counter(); est = getattr(cac, m)()['est']\n"
            "    out[m] = [time.perf_counter() - t, est['coefficient_value']]\n"
            "print(json.dumps(out))\n"
        )
        res = subprocess.run([python, "-c", code, str(path)], capture_output=True, text=True,
                             check=True, timeout=3000)
        timings = json.loads(res.stdout.strip().splitlines()[-1])
    rows = []
    for metric, label in [("gwet", "Gwet's AC1"), ("conger", "Conger's kappa"),
                          ("fleiss", "Fleiss' kappa (Gwet's form)")]:
        theirs, value = timings[metric]
        ours = best(lambda metric=metric: da5.xrr.irr(metric=metric), repeat)
        _agree(float(da5.xrr.irr(metric=metric)), value, metric)
        rows.append(row(f"{label}, 5 raters", size, ours, "irrCAC 0.4.4", theirs))
    return rows


def main(argv: list[str] | None = None) -> list[dict]:
    quick = "--quick" in (argv if argv is not None else sys.argv[1:])
    if quick:
        return bench([2_000], 1, nltk_max=2_000)
    return bench([100_000, 1_000_000], 5, nltk_max=100_000)


if __name__ == "__main__":
    from bench_core import table

    print(table(main()))
