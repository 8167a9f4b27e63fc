"""Draw every figure of the library into ``gallery/`` and write ``gallery/index.md``.

Run by ``conf.py`` at each docs build, from the bundled data: the demo set (simulated,
IRep-shaped: three pools) and Snow et al.'s RTE crowd against an expert's gold
(``xrr_accessor.datasets``), and the ConvAbuse repeated annotations and LLMFAO's crowd
and two LLM judges in ``tests/data``.
Each entry is (file name, title, code shown). The code shown is the code run: ``build``
executes it, and each function sizes its own figure from what it draws (labels,
pools, raters); the PNGs are written at :data:`DPI` (print resolution), and
``python docs/gallery.py --format svg`` (or pdf) writes vector files instead.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")

ROOT = Path(__file__).resolve().parent.parent

SETUP = """\
import pandas as pd
import xrr_accessor as xa
from xrr_accessor.datasets import load_demo, load_snow2008
from xrr_accessor.diagnostics import plots

df = load_demo()
rep = df.xrr.report(ci=0.95, n_boot=200, seed=0, progress=False)
rte = load_snow2008("rte")
crowd = rte[rte["pool"] == "crowd"].drop(columns="pool")
gold = rte[rte["pool"] == "expert"].set_index("item_id")["response"]
repeats = pd.read_csv(ROOT / "tests" / "data" / "convabuse_repeats.csv")  # ROOT: the repository
llmfao = pd.read_csv(ROOT / "tests" / "data" / "llmfao.csv.gz")  # a crowd and two LLM judges
judges = llmfao.xrr(item="pair", rater="worker", replication="source").report(
    reference="crowd", epsilon=0.2)
"""

#: Print resolution of the PNGs (dots per inch).
DPI = 150

#: (file stem, title, one line of code returning the Axes it drew)
FIGURES: list[tuple[str, str, str]] = [
    ("irr_hist", "IRR across labels, per replication (the paper's Fig 2)",
     "rep.plot.irr_hist()"),
    ("label", "One label: IRR per replication, kappa_x per pair (Fig 3)",
     'rep.plot.label("sadness")'),
    ("irr_vs_kappa", "IRR of two replications beside their kappa_x (Figs 4-6)",
     'rep.plot.irr_vs_kappa(("Budapest", "Mexico City"))'),
    ("heatmap", "Normalized kappa_x, labels x pairs",
     "rep.plot.heatmap()"),
    ("rho_vs_normalized", "Spearman's rho_xy against normalized kappa_x (Fig 7)",
     "df.xrr.plot.rho_vs_normalized(n_splits=20)"),
    ("plan", "Half width of normalized kappa_x's interval against the number of items",
     'df.xrr(labels=["sadness"]).plot.plan(width=0.1, n_boot=200, seed=0, progress=False)'),
    ("items", "Diagnostics: the items of largest disagreement D_i",
     "plots.items(crowd.xrr.item_disagreement())"),
    ("raters", "Diagnostics: each rater against the others (leave one rater out)",
     "plots.raters(crowd.xrr.rater_agreement())"),
    ("aad", "Diagnostics: a rater's repeated sessions (AAD, ConvAbuse repeats)",
     'xa.intra(repeats, session="repeat").plot("intra")'),
    ("validity", "Diagnostics: the crowd against an expert's gold",
     "crowd.xrr.validity(gold=gold).plot()"),
    ("label_distribution", "Models as annotators: the labels each source gives (LLMFAO)",
     "judges.plot.label_distribution()"),
]


def build(out: Path, fmt: str = "png") -> list[Path]:
    """Draw every figure into ``out`` (``fmt``: png at :data:`DPI`, or svg or pdf) and
    write ``out/index.md``; the paths drawn."""
    import warnings

    import matplotlib.pyplot as plt

    out.mkdir(parents=True, exist_ok=True)
    env: dict[str, Any] = {"ROOT": ROOT}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the demo's undefined cells warn; not the point here
        exec(SETUP, env)
        paths = []
        for stem, _title, code in FIGURES:
            exec(f"ax = {code}", env)  # the function sizes its figure from what it draws
            path = out / f"{stem}.{fmt}"
            env["ax"].figure.savefig(path, dpi=DPI)
            plt.close("all")
            paths.append(path)
    lines = [
        "# Gallery",
        "",
        "Every figure the library draws, made at each build of these pages by",
        "`docs/gallery.py` from the bundled data (the simulated demo set; Snow et al.'s RTE",
        "crowd and expert; ConvAbuse's repeated annotations; LLMFAO's crowd and LLM judges).",
        "Figures need the `plot` extra",
        "(`pip install \"xrr_accessor[plot]\"`). Each is drawn by the code above it, after:",
        "",
        "```python",
        SETUP.rstrip(),
        "```",
        "",
    ]
    for stem, title, code in FIGURES:
        lines += [f"## {title}", "", "```python", code, "```", "",
                  f"![{title}]({stem}.{fmt})", ""]
    (out / "index.md").write_text("\n".join(lines), encoding="utf-8")
    return paths


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--format", default="png", choices=["png", "svg", "pdf"])
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "gallery")
    args = parser.parse_args()
    print("\n".join(map(str, build(args.out, args.format))))
