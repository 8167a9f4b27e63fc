"""Test configuration: hypothesis profiles and the path to the naive reference."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from hypothesis import HealthCheck, settings

sys.path.insert(0, str(Path(__file__).parent))

# 45 examples a property by default (60 until the suite reached its 5 minutes on two
# shared cores); HYPOTHESIS_PROFILE=long draws 2,000
settings.register_profile(
    "default", max_examples=45, deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "long", max_examples=2000, deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

# run once in a throwaway environment with irrCAC (see its docstring), never collected
collect_ignore = ["fixtures/make_irrcac.py"]
