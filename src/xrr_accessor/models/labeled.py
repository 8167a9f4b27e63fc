"""The alternative annotator test's labeled result: its tables, and what it says about
the data it read (labels of many numbers scored as labels, ids that do not meet, humans
and items left out)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..diagnostics._common import Read, multi_index
from ..errors import DroppedDataWarning, InputError, UndefinedWarning, warn
from .alignment import Outcomes
from .cast import Cast
from .decide import Decision

__all__ = ["check_overlap", "humans_table", "summary_table", "warn_left_out"]


def _cells(c: Cast, n_labels: int) -> tuple[np.ndarray, np.ndarray]:
    """(label, candidate) codes of the summary's rows: label-major."""
    return (np.repeat(np.arange(n_labels), len(c.candidates)),
            np.tile(np.arange(len(c.candidates)), n_labels))


def _candidate_index(c: Cast, codes: np.ndarray) -> tuple[str, pd.Index, np.ndarray]:
    return "candidate", pd.Index(c.candidate_names, name="candidate"), codes


def summary_table(c: Cast, read_: Read, found: list[Outcomes],
             decisions: list[list[Decision]]) -> pd.DataFrame:
    ann = read_.ann
    lab, cand = _cells(c, len(ann.labels))
    labelled = np.stack([o.labelled for o in found]) if found else np.zeros((0, 0), bool)
    rows = [decisions[j][k] for j, k in zip(lab, cand, strict=True)]
    items = np.array([found[j].items[k] for j, k in zip(lab, cand, strict=True)],
                     dtype=np.int64).reshape(-1, 3)
    tested = np.array([int(d.tested.sum()) for d in rows], dtype=np.int64)
    frame = pd.DataFrame({
        "winning_rate": np.array([d.winning_rate for d in rows], dtype=float),
        "advantage_probability": np.array([d.advantage for d in rows], dtype=float),
        "passed": pd.array([d.passed for d in rows], dtype="boolean"),
        "n_humans": tested,
        "n_won": np.array([int(d.won.sum()) for d in rows], dtype=np.int64),
        "n_humans_skipped": labelled[lab].sum(axis=1) - tested,
        "n_items": items[:, 0], "n_items_few_humans": items[:, 1],
        "n_items_no_candidate": items[:, 2],
    }, index=multi_index([("label", ann.labels, lab), _candidate_index(c, cand)]))
    return frame


def humans_table(c: Cast, read_: Read, found: list[Outcomes], decisions: list[list[Decision]],
            alignment: str) -> pd.DataFrame:
    ann = read_.ann
    parts = []
    for j, o in enumerate(found):
        scores = o.alignment(alignment)
        for k, d in enumerate(decisions[j]):
            at = np.flatnonzero(d.n > 0)
            parts.append(pd.DataFrame({
                "n_items": d.n[at], "rho_candidate": d.rho_f[at], "rho_human": d.rho_h[at],
                "alignment_candidate": scores[k, at, 0],
                "alignment_human": scores[k, at, 1], "p_value": d.p_value[at],
                "won": d.won[at], "tested": d.tested[at],
            }, index=multi_index([
                ("label", ann.labels, np.full(len(at), j)),
                _candidate_index(c, np.full(len(at), k)),
                ("human", pd.Index(ann.raters, name="human"), at)])))
    return pd.concat(parts) if parts else pd.DataFrame()


def check_overlap(c: Cast) -> None:
    """Refuse humans and candidates with no item in common (ids that do not meet)."""
    ann = c.ann
    human = ann.replication == c.reference
    theirs = c.candidate_of()[ann.replication] >= 0
    seen = np.zeros(len(ann.items), dtype=bool)
    seen[ann.item[human]] = True
    if seen[ann.item[theirs]].any():
        return
    a = ann.items[ann.item[human][:1]].tolist()
    b = ann.items[ann.item[theirs][:1]].tolist()
    raise InputError(
        f"alt_test: no item has both a human ({c.reference_name!r}) and a candidate "
        f"annotation: the humans' item ids (e.g. {a}) and the candidates' (e.g. {b}) do "
        "not meet. Make the ids the same, and of the same type (e.g. both str: "
        "df[col].astype(str)).")



def warn_left_out(c: Cast, summary: pd.DataFrame, min_items: int, min_raters: int) -> None:
    ref = c.reference_name
    said = []
    skipped = summary["n_humans_skipped"].to_numpy()
    if skipped.any():
        top = int(skipped.max())
        said.append(f"up to {top} human(s) of {ref!r} per label and candidate have fewer "
                    f"than min_items={min_items} compared items and are not tested "
                    "(n_humans_skipped)")
    few = summary["n_items_few_humans"].to_numpy()
    if few.any():
        said.append(f"up to {int(few.max())} item(s) per label and candidate have a "
                    f"candidate label but fewer than {min_raters} annotations by {ref!r} "
                    "(n_items_few_humans)")
    missing = summary["n_items_no_candidate"].to_numpy()
    if missing.any():
        said.append(f"up to {int(missing.max())} item(s) per label and candidate have "
                    f"{ref!r} annotations but no candidate label (n_items_no_candidate)")
    if said:
        warn("alt_test left out: " + "; ".join(said) + ".", DroppedDataWarning)
    none = summary.index[summary["n_humans"].to_numpy() == 0]
    if len(none):
        shown = ", ".join(f"{lab!r} x {cand!r}" for lab, cand in list(none)[:4])
        warn(f"alt_test is undefined (NaN) for {len(none)} of {len(summary)} label x "
             f"candidate cell(s) ({shown}{', ...' if len(none) > 4 else ''}): no human of "
             f"{ref!r} has min_items={min_items} compared items there. Lower min_items "
             "(the t-test wants about 30) or label more items.", UndefinedWarning)
