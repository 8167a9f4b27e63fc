"""Models as annotators: candidates (a model, a classifier, a cheaper pool) against a
human reference pool.

* :func:`alt_test`: the alternative annotator test (Calderon, Reichart & Dror, ACL
  2025): can the candidate replace the humans? Winning rate, advantage probability,
  per-human t-tests under Benjamini-Yekutieli, and with ``ci=`` intervals of the
  advantage probabilities and their paired differences.
* :func:`plan_alt_test`: how many items and humans the test needs (the authors'
  simulation).

Everything here runs on the engine's codes and keyed draws; the report reads it.
"""

from __future__ import annotations

from .alt_test import AltTest, alt_test
from .plan import plan_alt_test

__all__ = ["AltTest", "alt_test", "plan_alt_test"]
