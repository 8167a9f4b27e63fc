"""The package as a user gets it: the wheel and the sdist built with ``python -m build``,
the wheel installed into a fresh virtual environment with its core dependencies only
(no extras), then the demo, the version, an HTML report from the installed templates, and
the documented errors of the missing extras, all run from outside the checkout.

Takes one to three minutes (a build and a venv with numpy, pandas, xarray, numba from
pip's cache or index): it runs where XRR_BUILD_TESTS=1 is set, as CI (.ci/run) does in a
step of its own after the test suite.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

import xrr_accessor

ROOT = Path(__file__).resolve().parent.parent
pytestmark = [
    pytest.mark.build,
    pytest.mark.skipif(not os.environ.get("XRR_BUILD_TESTS"), reason=(
        "a build test: .ci/run runs it after the suite, with XRR_BUILD_TESTS=1 "
        "python -m pytest tests/test_packaging.py")),
]
DATA = sorted(p.name for p in (ROOT / "src" / "xrr_accessor" / "data").glob("*.csv.gz"))
TEMPLATES = sorted(p.name for p in (ROOT / "src" / "xrr_accessor" / "templates").glob("*.j2"))


def run(*args: str | Path, cwd: Path, check: bool = True) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    env["MPLBACKEND"] = "Agg"
    return subprocess.run([str(a) for a in args], capture_output=True, text=True, cwd=cwd,
                          env=env, timeout=900, check=check)


@pytest.fixture(scope="module")
def dist(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    built = run(sys.executable, "-m", "build", "--outdir", out, ROOT, cwd=ROOT, check=False)
    assert built.returncode == 0, built.stdout[-2000:] + built.stderr[-2000:]
    return out


@pytest.fixture(scope="module")
def venv(dist, tmp_path_factory) -> Path:
    """A fresh venv with the wheel and its core dependencies, nothing else."""
    env_dir = tmp_path_factory.mktemp("venv") / "env"
    run(sys.executable, "-m", "venv", env_dir, cwd=env_dir.parent)
    wheel = next(dist.glob("*.whl"))
    run(env_dir / "bin" / "python", "-m", "pip", "install", "--quiet", wheel, cwd=dist)
    return env_dir


def test_wheel_carries_templates_data_types_and_license(dist):
    wheel = next(dist.glob("xrr_accessor-*.whl"))
    assert wheel.name.startswith(f"xrr_accessor-{xrr_accessor.__version__}-")
    names = zipfile.ZipFile(wheel).namelist()
    assert DATA and TEMPLATES
    for name in DATA:
        assert f"xrr_accessor/data/{name}" in names
    for name in TEMPLATES:
        assert f"xrr_accessor/templates/{name}" in names
    assert "xrr_accessor/py.typed" in names
    assert any(n.endswith(".dist-info/licenses/LICENSE") or n.endswith(".dist-info/LICENSE")
               for n in names), [n for n in names if "dist-info" in n]
    assert not any(n.startswith(("tests/", "docs/", "notebooks/")) for n in names)


def test_sdist_carries_the_sources(dist):
    sdist = next(dist.glob("xrr_accessor-*.tar.gz"))
    assert sdist.name == f"xrr_accessor-{xrr_accessor.__version__}.tar.gz"
    top = sdist.name.removesuffix(".tar.gz")
    names = tarfile.open(sdist).getnames()
    for path in ["LICENSE", "README.md", "pyproject.toml", "src/xrr_accessor/py.typed",
                 *(f"src/xrr_accessor/data/{n}" for n in DATA),
                 *(f"src/xrr_accessor/templates/{n}" for n in TEMPLATES)]:
        assert f"{top}/{path}" in names, path


def test_installed_wheel_imports_from_the_venv_with_one_version(venv, tmp_path):
    py = venv / "bin" / "python"
    shown = run(py, "-c", "import importlib.metadata as m, xrr_accessor as x; "
                "print(x.__file__); print(x.__version__, m.version('xrr_accessor'))",
                cwd=tmp_path).stdout.split("\n")
    assert shown[0].startswith(str(venv)), shown  # not the checkout's src/
    assert shown[1] == f"{xrr_accessor.__version__} {xrr_accessor.__version__}"
    assert run(venv / "bin" / "xrr", "--version", cwd=tmp_path).stdout.strip() == \
        f"xrr {xrr_accessor.__version__}"
    extras = run(py, "-m", "pip", "list", "--format=freeze", cwd=tmp_path).stdout.lower()
    for extra_only in ("matplotlib", "jinja2", "pyarrow", "duckdb", "dask", "pytest"):
        assert f"{extra_only}==" not in extras, extra_only


def test_demo_runs_from_the_installed_data(venv, tmp_path):
    demo = run(venv / "bin" / "python", "-m", "xrr_accessor", "demo", cwd=tmp_path)
    assert "Budapest" in demo.stdout and "Mexico City" in demo.stdout
    assert "normalized" in demo.stdout


def test_missing_extras_give_the_documented_errors_then_the_html_report(venv, tmp_path):
    py, xrr = venv / "bin" / "python", venv / "bin" / "xrr"
    no_io = run(xrr, "demo", "--format", "html", "--output", tmp_path / "r.html",
                cwd=tmp_path, check=False)
    assert no_io.returncode == 2
    assert "needs jinja2: pip install 'xrr_accessor[io]'" in no_io.stderr, no_io.stderr
    no_plot = run(py, "-c", "import xrr_accessor as x; from xrr_accessor.datasets import "
                  "load_demo; x.report(load_demo()).plot.irr_hist()", cwd=tmp_path,
                  check=False)
    assert no_plot.returncode == 1
    assert "plots need matplotlib: pip install 'xrr_accessor[plot]'" in no_plot.stderr
    run(py, "-m", "pip", "install", "--quiet", "jinja2>=3.1", cwd=tmp_path)
    page = tmp_path / "report.html"
    run(py, "-c", "import sys, xrr_accessor as x; from xrr_accessor.datasets import "
        "load_demo; x.report(load_demo(), irr='cohen').to_html(sys.argv[1], figures=False)",
        page, cwd=tmp_path)
    html = page.read_text(encoding="utf-8")
    assert "<table" in html and "Mexico City" in html and "sadness" in html
    assert "<script" not in html
