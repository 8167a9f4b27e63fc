"""Run every benchmark and rewrite BENCHMARKS.md (and benchmarks/scaling.png).

    python benchmarks/run_all.py            # everything, about half an hour here
    python benchmarks/run_all.py --skip-irrcac

Each script runs in its own process (its peak memory is its own) and rewrites
its own section. irrCAC pins old versions of pandas and scipy, so it cannot
share this environment: unless ``IRRCAC_PYTHON`` names an interpreter that has
it, a separate virtual environment is made once under
``benchmarks/.venv-irrcac`` (``pip install irrCAC``) and the classic-family
table times irrCAC through it, on the same data file, in the same run.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import venv
from pathlib import Path

HERE = Path(__file__).resolve().parent
SCRIPTS = ["bench_core.py", "bench_speed.py", "bench_bootstrap.py", "bench_scaling.py",
           "bench_diagnostics.py", "bench_polars.py", "bench_dask_split.py", "bench_models.py"]


def irrcac_python() -> str | None:
    """An interpreter with irrCAC: ``IRRCAC_PYTHON``, or one made under benchmarks/."""
    given = os.environ.get("IRRCAC_PYTHON")
    if given:
        return given
    env = HERE / ".venv-irrcac"
    python = env / "bin" / "python"
    if not python.exists():
        print("== making benchmarks/.venv-irrcac (pip install irrCAC)", flush=True)
        venv.create(env, with_pip=True)
    ok = subprocess.run([str(python), "-c", "import irrCAC"], capture_output=True)
    if ok.returncode:
        got = subprocess.run([str(python), "-m", "pip", "install", "-q", "irrCAC"])
        if got.returncode:
            print("   irrCAC could not be installed; its rows are left out", flush=True)
            return None
    return str(python)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--skip-irrcac", action="store_true")
    p.add_argument("--only", nargs="*", default=None, help="run only these scripts")
    args = p.parse_args()
    env = dict(os.environ)
    if not args.skip_irrcac:
        python = irrcac_python()
        if python:
            env["IRRCAC_PYTHON"] = python
    for script in args.only or SCRIPTS:
        if not (HERE / script).exists():
            print(f"== {script}: not found, skipped", flush=True)
            continue
        print(f"== {script} --write", flush=True)
        subprocess.run([sys.executable, str(HERE / script), "--write"], env=env, check=True)


if __name__ == "__main__":
    main()
