"""The disagreement diagnostics against straightforward pandas groupby code, in one run.

Data: ``n_annotations`` ratings on a 1-5 scale, five per item by raters drawn
from a pool of 100 (integer ids, one pool), ratings driven by the item's
truth, a few raters answering at random. Each row times ours (from the
DataFrame to the labeled table) and a pandas implementation of the same
numbers with groupby / transform / merge (the O(N) sums a pandas user would
write, no per-rater loop), checks that both give the same numbers, and
reports the best of ``repeat`` runs after a warm-up.

    python benchmarks/bench_diagnostics.py          # 1e6 annotations, Markdown table
    python benchmarks/bench_diagnostics.py --quick  # 2e4 (smoke test)
    python benchmarks/bench_diagnostics.py --write  # ... and rewrite its BENCHMARKS.md section
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

import xrr_accessor as xrr
from xrr_accessor.engine.pipeline import annotations

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))  # sections.py, also when run by runpy
from bench_core import best  # noqa: E402


def make_data(n_annotations: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    n_items, per, n_raters = n_annotations // 5, 5, 100
    raters = np.argsort(rng.random((n_items, n_raters)), axis=1)[:, :per].reshape(-1)
    item = np.repeat(np.arange(n_items), per)
    truth = rng.integers(1, 6, n_items)[item]
    noise = rng.integers(-1, 2, len(item)) * (rng.random(len(item)) < 0.4)
    score = np.clip(truth + noise, 1, 5)
    spam = raters < 5
    score[spam] = rng.integers(1, 6, int(spam.sum()))
    return pd.DataFrame({"item": item, "rater": raters, "score": score})


# ---- pandas peers ------------------------------------------------------------------------

def pandas_items_interval(df: pd.DataFrame) -> pd.Series:
    """D_i at the interval level: per item count, sum, sum of squares; ranked."""
    g = df.groupby("item")["score"]
    n, s1 = g.count(), g.sum()
    s2 = (df["score"] ** 2).groupby(df["item"]).sum()
    d = np.sqrt((n * s2 - s1**2) / (n * (n - 1) / 2)).where(n >= 2)
    return d.sort_values(ascending=False)


def pandas_items_table(df: pd.DataFrame) -> pd.DataFrame:
    """The whole table: D_i, n, mode (smallest on ties), its share, mean, spread, rank."""
    g = df.groupby("item")["score"]
    out = g.agg(["count", "sum", "mean", "min", "max"])
    s2 = (df["score"] ** 2).groupby(df["item"]).sum()
    n = out["count"]
    out["disagreement"] = np.sqrt((n * s2 - out["sum"] ** 2) / (n * (n - 1) / 2)).where(n >= 2)
    counts = df.groupby(["item", "score"]).size().rename("k").reset_index()
    counts = counts.sort_values(["item", "k", "score"], ascending=[True, False, True])
    top = counts.drop_duplicates("item").set_index("item")
    out["mode"], out["mode_share"] = top["score"], top["k"] / n
    out["spread"] = out["max"] - out["min"]
    out = out.sort_values("disagreement", ascending=False, kind="stable")  # ties: by item
    out["rank"] = np.arange(1, len(out) + 1)
    return out


def pandas_items_nominal(df: pd.DataFrame) -> pd.Series:
    """D_i at the nominal level: share of the item's pairs that differ, from counts."""
    n = df.groupby("item").size()
    sq = (df.groupby(["item", "score"]).size() ** 2).groupby(level="item").sum()
    return np.sqrt((n * n - sq) / 2 / (n * (n - 1) / 2)).where(n >= 2).sort_values(
        ascending=False)


def pandas_raters(df: pd.DataFrame) -> pd.DataFrame:
    """Leave-one-rater-out kappa_x and alpha (nominal) with groupby sums: each rater's
    part of the pool's sums, as the kernel accumulates them."""
    m = df.groupby("item")["score"].transform("size")
    nc = df.groupby(["item", "score"])["score"].transform("size")
    p = df[m >= 2].assign(m=m, nc=nc)
    by = p["rater"]
    shared = by.value_counts().sort_index()
    other = (p["m"] - 1).groupby(by).sum()
    obs = (p["m"] / (p["m"] - 1) * (p["m"] - p["nc"])).groupby(by).sum()
    x = p.groupby(["rater", "score"]).size().unstack(fill_value=0)
    counts = p.groupby(["item", "score"]).size().unstack(fill_value=0)
    itemsum = pd.DataFrame(counts.loc[p["item"]].to_numpy(), columns=counts.columns).groupby(
        by.to_numpy()).sum()
    y = itemsum - x
    kappa = 1 - obs * shared * other / ((shared + other) * (shared * other - (x * y).sum(1)))
    q = (p["nc"] - 1).groupby(p["item"]).sum()  # n_c annotations of n_c - 1: sum n_c (n_c - 1)
    qi = q.loc[p["item"]].to_numpy()
    mi = p["m"].to_numpy()
    n_tot = float(counts.to_numpy().sum())
    t = counts.sum()
    diag = float((q / (counts.sum(1) - 1)).sum())
    two = mi == 2
    dn = pd.Series(np.where(two, 2, 1), index=p.index).groupby(by).sum()
    ddiag = pd.Series(np.where(two, qi, qi / (mi - 1) - (qi - 2 * (p["nc"] - 1))
                               / np.where(two, 1, mi - 2)), index=p.index).groupby(by).sum()
    partner = p["score"].groupby(p["item"]).transform("sum") - p["score"]
    removed = pd.concat([p[["rater", "score"]], pd.DataFrame(
        {"rater": by[two], "score": partner[two]})])
    dt = removed.groupby(["rater", "score"]).size().unstack(fill_value=0)
    n2 = n_tot - dn
    t2 = t - dt.reindex(columns=t.index, fill_value=0)
    alpha_wo = 1 - (n2 - 1) * (n2 - (diag - ddiag)) / (n2**2 - (t2**2).sum(1))
    alpha = 1 - (n_tot - 1) * (n_tot - diag) / (n_tot**2 - (t**2).sum())
    return pd.DataFrame({"kappa_x": kappa, "alpha_without": alpha_wo, "alpha": alpha})


# ---- the run -----------------------------------------------------------------------------

def _row(name: str, n: int, ours: float, peer: str, theirs: float, equal: bool) -> dict:
    return {"benchmark": name, "annotations": n, "ours_s": ours, "peer": peer,
            "peer_s": theirs, "equal": bool(equal)}


def _same(a: pd.Series, b: pd.Series) -> bool:
    a, b = a.sort_index(), b.reindex(a.sort_index().index)
    return bool(np.allclose(a.to_numpy(float), b.to_numpy(float), rtol=1e-9, atol=1e-12,
                            equal_nan=True))


def run(n_annotations: int = 1_000_000, repeat: int = 3) -> list[dict]:
    """Rows (benchmark, annotations, ours_s, peer, peer_s, equal), measured in one run."""
    df = make_data(n_annotations)
    n = len(df)
    rows = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = xrr.item_disagreement(df, level="interval", labels=["score"]).xs(
            "score", level="label")
        peer = pandas_items_table(df)
        equal = _same(ours["disagreement"], peer["disagreement"]) and _same(
            ours["mode"], peer["mode"]) and _same(ours["spread"], peer["spread"]) and (
            ours.index.equals(peer.index.rename("item")))
        t_ours = best(lambda: xrr.item_disagreement(df, level="interval", labels=["score"]),
                      repeat)
        rows.append(_row("item_disagreement, interval (the whole table)", n, t_ours,
                         "pandas groupby: the same table", best(
                             lambda: pandas_items_table(df), repeat), equal))
        rows.append(_row("item_disagreement, interval (D_i ranked)", n, t_ours,
                         "pandas groupby: D_i only", best(
                             lambda: pandas_items_interval(df), repeat),
                         _same(ours["disagreement"], pandas_items_interval(df))))
        nominal = xrr.item_disagreement(df, level="nominal", labels=["score"])
        rows.append(_row("item_disagreement, nominal", n, best(
            lambda: xrr.item_disagreement(df, level="nominal", labels=["score"]), repeat),
            "pandas groupby: D_i only", best(lambda: pandas_items_nominal(df), repeat),
            _same(nominal.xs("score", level="label")["disagreement"],
                  pandas_items_nominal(df))))
        ann, _ = annotations(df, labels=["score"])  # the floor under every diagnostic
        read_back = ann.categories[0][ann.codes[0]].to_numpy() == df["score"].to_numpy()
        rows.append(_row("reading and encoding alone (pipeline.annotations: roles, ids, "
                         "duplicate check, codes)", n, best(
                             lambda: annotations(df, labels=["score"]), repeat),
                         "pandas groupby: D_i only", rows[1]["peer_s"], read_back.all()))
        ours_r = xrr.rater_agreement(df, level="nominal", labels=["score"]).xs(
            "score", level="label")
        peer_r = pandas_raters(df)
        equal = all(_same(ours_r[c], peer_r[c]) for c in peer_r.columns)
        rows.append(_row("rater_agreement, nominal (kappa_x and alpha without each of 100 "
                         "raters)", n, best(lambda: xrr.rater_agreement(
                             df, level="nominal", labels=["score"]), repeat),
                         "pandas groupby: the same sums", best(lambda: pandas_raters(df),
                                                               repeat), equal))
    return rows


#: Issue 22's goals for this section: (row prefix, what, goal as text, met?).
TARGETS = (
    ("item_disagreement, interval (the whole table)",
     "item_disagreement vs its pandas groupby equivalent (the whole table)", ">= 10x",
     lambda r: r["peer_s"] / r["ours_s"] >= 10),
    ("rater_agreement", "rater_agreement vs its pandas groupby equivalent", ">= 10x",
     lambda r: r["peer_s"] / r["ours_s"] >= 10),
    ("reading and encoding alone", "reading + encoding (roles, ids, duplicate check, codes)",
     "<= 15 ms", lambda r: r["ours_s"] <= 0.015),
)


def markdown(rows: list[dict]) -> str:
    lines = ["| benchmark | annotations | ours (s) | peer | peer (s) | ratio | equal |",
             "|---|---:|---:|---|---:|---:|---|"]
    for r in rows:
        lines.append(f"| {r['benchmark']} | {r['annotations']:,} | {r['ours_s']:.4f} | "
                     f"{r['peer']} | {r['peer_s']:.4f} | {r['peer_s'] / r['ours_s']:.1f}x | "
                     f"{'yes' if r['equal'] else 'NO'} |")
    lines += ["", "| target (issue 22) | goal | measured | met |",
              "|---|---|---|---|"]
    for prefix, what, goal, met in TARGETS:
        r = next(r for r in rows if r["benchmark"].startswith(prefix))
        measured = (f"{r['ours_s'] * 1e3:.1f} ms" if goal.endswith("ms")
                    else f"{r['peer_s'] / r['ours_s']:.1f}x")
        lines.append(f"| {what} | {goal} | {measured} | "
                     f"{'**met**' if met(r) else '**not met**'} |")
    return "\n".join(lines)


def write(text: str, path: Path = ROOT / "BENCHMARKS.md") -> None:
    """Put ``text`` between this script's markers in BENCHMARKS.md (its own section only)."""
    from sections import write_section

    write_section("diagnostics", text, "Diagnostics against pandas", path)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="2e4 annotations, one run")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--write", action="store_true", help="rewrite the diagnostics "
                        "section of BENCHMARKS.md")
    args = parser.parse_args()
    size, repeat = (20_000, 1) if args.quick else (1_000_000, args.repeat)
    table = markdown(run(size, repeat))
    print(table)
    if args.write:
        write(table)
