"""Uncertainty on the engine's statistics: the item bootstrap as weights, analytic and
bootstrap intervals, paired comparisons (compare) and sample-size planning (plan)."""
