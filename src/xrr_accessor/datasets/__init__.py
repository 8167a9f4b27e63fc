"""Data sets: the bundled demo, IRep's CSV, simulations with known truth, textbook data.

Every data set comes in the library's canonical frame (one row per annotation:
``item_id``, ``pool`` (the replication), ``rater``, then one column per label,
or a ``value`` column), ready for ``xrr_accessor.irr(df)`` and friends.

- :func:`load_demo` returns the bundled demo set, and :func:`simulate` draws
  more of its kind (:mod:`.demo`), with IRep's :data:`EMOTIONS` and
  :data:`POOLS` (the same tuple as :data:`IREP_POOLS`).
- :func:`read_irep` reads the International Replication (IRep) data set of
  Wong, Paritosh & Aroyo (2021), or any CSV in its schema (:mod:`.irep`).
- :func:`simulate_replications` draws binary multi-label annotations by
  several rater pools from a model (:class:`LabelSpec`, :mod:`.spec`) whose
  population reliabilities are known in closed form (:func:`true_reliability`,
  :mod:`.truth`): the ground truth that estimates of alpha, kappa_x and
  normalized kappa_x can be checked against. Named presets (:data:`PRESETS`)
  reproduce the paper's qualitative cases; :func:`draw_propensities` gives the
  per-item propensities behind a simulation (:mod:`.simulation`).
- :func:`load_krippendorff2011` and :func:`load_fleiss1971` return two small
  published data sets with known coefficients, :func:`load_snow2008` real
  crowd annotations beside an expert's (:mod:`.published`).

Importing this package needs only numpy, pandas and the standard library.

Examples
--------
>>> import xrr_accessor
>>> df = xrr_accessor.datasets.load_demo()
>>> df.shape
(12270, 34)
"""

from __future__ import annotations

from .demo import DEMO_SEED, load_demo, simulate
from .irep import EMOTIONS, IREP_POOLS, IREP_ROLES, POOLS, read_irep
from .published import SNOW2008_TASKS, load_fleiss1971, load_krippendorff2011, load_snow2008
from .simulation import draw_propensities, simulate_replications
from .spec import ATTRS_KEY, PRESETS, LabelSpec
from .truth import Reliability, true_reliability

__all__ = [
    "ATTRS_KEY",
    "DEMO_SEED",
    "EMOTIONS",
    "IREP_POOLS",
    "IREP_ROLES",
    "POOLS",
    "PRESETS",
    "SNOW2008_TASKS",
    "LabelSpec",
    "Reliability",
    "draw_propensities",
    "load_demo",
    "load_fleiss1971",
    "load_krippendorff2011",
    "load_snow2008",
    "read_irep",
    "simulate",
    "simulate_replications",
    "true_reliability",
]
