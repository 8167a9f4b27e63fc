"""Small published data sets, in the library's canonical frame.

:func:`load_krippendorff2011` (Krippendorff's worked example, with missing
values and alphas at four levels) and :func:`load_fleiss1971` (Fleiss's
psychiatric diagnoses, Fleiss' kappa 0.430) have known coefficients;
:func:`load_snow2008` is real crowd data beside an expert's labels.
"""

from __future__ import annotations

import gzip
import io
from importlib import resources

import numpy as np
import pandas as pd

__all__ = ["SNOW2008_TASKS", "load_fleiss1971", "load_krippendorff2011", "load_snow2008"]


#: Krippendorff (2011), *Computing Krippendorff's Alpha-Reliability*, section C:
#: observers A-D (rows) x units 1-12 (columns); None = no value.
_KRIPPENDORFF_2011 = {
    "A": [1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
    "B": [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
    "C": [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
    "D": [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None],
}


def load_krippendorff2011() -> pd.DataFrame:
    """Krippendorff's (2011) worked example: 4 observers x 12 units, with missing values.

    From *Computing Krippendorff's Alpha-Reliability* (section C): values 1-5
    given by observers A, B, C, D to 12 units; a missing value is an absent
    row (41 values; unit 12 has one value, so it is unpairable). Published
    alphas: nominal 0.743, ordinal 0.815, interval 0.849, ratio 0.797.

    Returns
    -------
    DataFrame
        Columns ``item_id`` (1-12), ``rater`` (``"A"``-``"D"``) and ``value``
        (int64), sorted by unit then observer.

    Examples
    --------
    >>> import xrr_accessor
    >>> df = load_krippendorff2011()
    >>> df.shape
    (41, 3)
    >>> [round(xrr_accessor.irr(df, level=lv), 3)
    ...  for lv in ("nominal", "ordinal", "interval", "ratio")]
    [0.743, 0.815, 0.849, 0.797]
    """
    rows = [
        (unit + 1, observer, value)
        for unit in range(12)
        for observer, values in _KRIPPENDORFF_2011.items()
        if (value := values[unit]) is not None
    ]
    df = pd.DataFrame(rows, columns=["item_id", "rater", "value"])
    return df.astype({"item_id": np.int64, "rater": "str", "value": np.int64})


def load_fleiss1971() -> pd.DataFrame:
    """Fleiss's (1971) psychiatric diagnoses: 30 patients x 6 psychiatrists x 5 diagnoses.

    From Fleiss (1971), *Measuring nominal scale agreement among many raters*,
    Psychological Bulletin 76(5), as shipped in R's ``irr`` package
    (``diagnoses``): every patient diagnosed by six raters into one of
    ``1. Depression``, ``2. Personality Disorder``, ``3. Schizophrenia``,
    ``4. Neurosis``, ``5. Other``. Published Fleiss' kappa: 0.430. (The raters
    are the columns of R's table; in Fleiss's study, different psychiatrists
    saw different patients, which is what Fleiss' kappa assumes.)

    Returns
    -------
    DataFrame
        Columns ``item_id`` (patients 1-30), ``rater`` (``rater1``-``rater6``)
        and ``diagnosis`` (str); 180 rows.

    Examples
    --------
    >>> import xrr_accessor
    >>> df = load_fleiss1971()
    >>> df.shape, df["diagnosis"].nunique()
    ((180, 3), 5)
    >>> round(float(xrr_accessor.irr(df, metric="fleiss")["diagnosis"]), 3)
    0.43
    """
    path = resources.files("xrr_accessor") / "data" / "fleiss1971_diagnoses.csv.gz"
    raw = gzip.decompress(path.read_bytes()).decode("utf-8")
    df = pd.read_csv(io.StringIO(raw), dtype={"item": np.int64, "rater": "str",
                                              "value": "str"})
    return df.rename(columns={"item": "item_id", "value": "diagnosis"})


#: The tasks of Snow et al. (2008) bundled here, and their scales.
SNOW2008_TASKS = {
    "rte": "recognizing textual entailment, 800 sentence pairs, 0/1",
    "wsd": "word sense of 'president', 177 sentences, 3 senses (1-3)",
    "anger": "anger in 100 news headlines, 0-100",
}


def load_snow2008(task: str = "rte") -> pd.DataFrame:
    """Real crowd annotations beside an expert's: Snow et al. (2008), one task.

    From Snow, O'Connor, Jurafsky & Ng (2008), *Cheap and Fast - But is it
    Good? Evaluating Non-Expert Annotations for Natural Language Tasks*,
    EMNLP: ten Amazon Mechanical Turk workers per item, and the expert
    ("gold") label the task shipped with. As assembled in the GitHub
    repository ``edwinrobots/bayesian_combination_tutorial2`` (MIT; commit
    f98448e2e9a941463aa92f418eefd1f43bd5a637, ``*.standardized.tsv``).

    Parameters
    ----------
    task : {"rte", "wsd", "anger"}
        See :data:`SNOW2008_TASKS`: ``rte`` (0/1), ``wsd`` (3 senses, nominal),
        ``anger`` (0-100: use ``level="interval"``).

    Returns
    -------
    DataFrame
        Columns ``item_id``, ``pool`` (``"crowd"``, or ``"expert"`` for the
        gold label: one row per item, rater ``"expert"``), ``rater`` (the
        worker id) and ``response``.

    Examples
    --------
    >>> import xrr_accessor
    >>> df = load_snow2008("rte")
    >>> df.groupby("pool")["item_id"].agg(["size", "nunique"])
            size  nunique
    pool
    crowd   8000      800
    expert   800      800
    >>> round(float(df.xrr.cross_kappa().iloc[0]), 3)  # the crowd's agreement with the expert
    0.458
    """
    if task not in SNOW2008_TASKS:
        raise ValueError(f"task={task!r}; use one of {list(SNOW2008_TASKS)}.")
    path = resources.files("xrr_accessor") / "data" / f"snow2008_{task}.csv.gz"
    raw = gzip.decompress(path.read_bytes()).decode("utf-8")
    d = pd.read_csv(io.StringIO(raw), dtype={"item": "str", "worker": "str"})
    crowd = pd.DataFrame({"item_id": d["item"], "pool": "crowd", "rater": d["worker"],
                          "response": d["response"]})
    gold = d.drop_duplicates("item")
    expert = pd.DataFrame({"item_id": gold["item"], "pool": "expert", "rater": "expert",
                           "response": gold["gold"]})
    return pd.concat([crowd, expert], ignore_index=True)
