"""The guides' own figures, drawn at each docs build into ``gallery/guides/``.

Run by ``conf.py`` after ``gallery.py``. Most guides show a figure of the gallery (drawn
there from the bundled data); the guides whose subject the gallery has no figure for get
one here, from the very data their examples use:

- ``kappa_paradox.png`` (classic.md): the page's two raters, each coefficient beside the
  chance agreement p_e it corrects for (``agreement_table``);
- ``augmented_sweep.png`` (multilabel.md): the page's primary / secondary labels,
  augmented kappa over the primary weight p (``augmented_sweep``);
- ``scaling.png`` (large_data.md): the measured time and memory of ``BENCHMARKS.md``,
  copied from ``benchmarks/scaling.png`` (written by ``benchmarks/bench_scaling.py``).
"""

from __future__ import annotations

import shutil
import warnings
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

ROOT = Path(__file__).resolve().parent.parent

#: the classic guide's two raters (docs/guides/classic.md, "The kappa paradox")
PARADOX_A = ["acc"] * 5 + ["rej"] * 30 + ["acc"] * 11 + ["rej"] * 4
PARADOX_B = ["acc"] * 5 + ["rej"] * 30 + ["rej"] * 11 + ["acc"] * 4
#: the multilabel guide's ranked labels (docs/guides/multilabel.md, augmented kappa)
RANKED_A = [["a", "b"], ["b", "a"], ["b"], ["c"], ["c", "b"]]
RANKED_B = [["a"], ["b", "c"], ["b"], ["c"], ["c", "a"]]
DPI = 100


def kappa_paradox(path: Path) -> None:
    """Bars of each coefficient's estimate, with its p_e and the shared p_a marked."""
    import matplotlib.pyplot as plt
    import pandas as pd

    import xrr_accessor as xa

    table = xa.agreement_table(pd.DataFrame({"A": PARADOX_A, "B": PARADOX_B}), wide=True)
    names = {"cohen": "Cohen's kappa", "scott": "Scott's pi",
             "bp": "Brennan-Prediger", "gwet": "Gwet's AC1"}
    rows = table.loc[list(names)]
    fig, ax = plt.subplots(figsize=(6.4, 3.4), layout="constrained")
    x = range(len(rows))
    ax.bar(x, rows["estimate"], color="#4c72b0", label="coefficient")
    ax.scatter(x, rows["pe"], marker="_", s=900, color="#dd8452", linewidths=3,
               label="chance agreement p_e", zorder=3)
    pa = float(rows["pa"].iloc[0])
    ax.axhline(pa, color="0.3", linestyle=":", label=f"observed agreement p_a = {pa:.2f}")
    for i, value in enumerate(rows["estimate"]):
        ax.annotate(f"{value:.2f}", (i, value), ha="center", va="bottom",
                    xytext=(0, 2), textcoords="offset points")
    ax.set_xticks(list(x), list(names.values()))
    ax.set_ylim(0, 1)
    ax.set_ylabel("value")
    ax.set_title("Same 70% agreement, four chance corrections")
    ax.legend(loc="upper left", fontsize="small", frameon=False)
    fig.savefig(path, dpi=DPI)
    plt.close(fig)


def augmented_sweep(path: Path) -> None:
    """Augmented kappa of the page's two annotators against the primary weight p."""
    import matplotlib.pyplot as plt
    import pandas as pd

    import xrr_accessor as xa

    pairs = pd.DataFrame({"item": list(range(5)) * 2, "rater": ["A"] * 5 + ["B"] * 5,
                          "labels": RANKED_A + RANKED_B})
    sweep = xa.augmented_sweep(pairs, ps=[0.5 + 0.05 * k for k in range(11)])
    fig, ax = plt.subplots(figsize=(6.4, 3.2), layout="constrained")
    ax.plot(sweep.index, sweep["kappa"], marker="o", color="#4c72b0")
    ax.set_xlabel("weight p of the primary label (1 - p on the secondary)")
    ax.set_ylabel("augmented kappa")
    ax.set_ylim(0, 1.05)
    ax.set_title("Primary labels only at p = 1; secondary ones count as p falls")
    ax.grid(alpha=0.3)
    fig.savefig(path, dpi=DPI)
    plt.close(fig)


def build(out: Path) -> list[Path]:
    """Draw (or copy) every guide figure into ``out``; the paths written."""
    out.mkdir(parents=True, exist_ok=True)
    paths = [out / "kappa_paradox.png", out / "augmented_sweep.png", out / "scaling.png"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # matplotlib's font cache notes; not the point here
        kappa_paradox(paths[0])
        augmented_sweep(paths[1])
    shutil.copyfile(ROOT / "benchmarks" / "scaling.png", paths[2])
    return paths


if __name__ == "__main__":
    print("\n".join(map(str, build(Path(__file__).resolve().parent / "gallery" / "guides"))))
