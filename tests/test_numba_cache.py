"""A read-only install with no writable home imports and computes (issue 25).

numba refuses to compile a ``cache=True`` kernel when neither the package's
``__pycache__`` nor the user's cache directory is writable; the package then
points ``NUMBA_CACHE_DIR`` at a private temporary directory
(:mod:`xrr_accessor.kernels.cachedir`). Checked in a fresh process on a copy
of the package in which nothing can be written: every ``__pycache__`` is a
plain file (unwritable even for root, who ignores chmod), the directories
are read-only, and HOME lies under a file.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

import xrr_accessor
from xrr_accessor.kernels.cachedir import ensure_cache_dir, writable

SCRIPT = """
import os, sys
import xrr_accessor as xa
from xrr_accessor.datasets import simulate
df = simulate(n_items=60, labels=["joy"], pools=["A"], seed=1)
value = float(xa.irr(df).iloc[0, 0])  # the first call imports numba and the kernels
print(os.environ.get("NUMBA_CACHE_DIR", ""))
print(repr(value))
"""


@pytest.fixture(scope="module")
def read_only_install(tmp_path_factory):
    root = tmp_path_factory.mktemp("ro")
    pkg = root / "xrr_accessor"
    shutil.copytree(Path(xrr_accessor.__file__).parent, pkg,
                    ignore=shutil.ignore_patterns("__pycache__", "*.nbi", "*.nbc"))
    dirs = [pkg, *(p for p in pkg.rglob("*") if p.is_dir())]
    for d in dirs:
        (d / "__pycache__").write_text("")  # a file: no cache directory can go here
    for d in dirs:
        d.chmod(stat.S_IRUSR | stat.S_IXUSR)
    yield root
    for d in dirs:
        d.chmod(stat.S_IRWXU)


def _run(root: Path, **env: str) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items()
            if k not in ("NUMBA_CACHE_DIR", "XDG_CACHE_HOME", "PYTHONPATH", "HOME")}
    base.update(PYTHONPATH=str(root), PYTHONDONTWRITEBYTECODE="1",
                HOME=os.devnull + "/home", **env)
    return subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                          env=base, cwd=str(root), timeout=600)


def test_read_only_install_without_a_writable_home_imports_and_computes(read_only_install):
    from xrr_accessor.datasets import simulate

    want = float(xrr_accessor.irr(simulate(n_items=60, labels=["joy"], pools=["A"],
                                           seed=1)).iloc[0, 0])
    out = _run(read_only_install)
    assert out.returncode == 0, out.stderr[-2000:]
    cache, value = out.stdout.split()
    assert Path(cache).name.startswith("xrr_accessor-numba-")
    assert float(value) == want
    assert not Path(cache).exists()  # removed at exit


def test_an_unwritable_numba_cache_dir_falls_back_too(monkeypatch):
    import numba

    monkeypatch.setenv("NUMBA_CACHE_DIR", os.devnull + "/numba")  # under a file
    monkeypatch.setattr(numba.config, "CACHE_DIR", numba.config.CACHE_DIR)  # restored after
    path = ensure_cache_dir()
    assert path is not None and Path(path).name.startswith("xrr_accessor-numba-")
    assert os.environ["NUMBA_CACHE_DIR"] == path == numba.config.CACHE_DIR
    assert writable(path)
    shutil.rmtree(path)


def test_a_writable_default_is_kept(monkeypatch, tmp_path):
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    assert ensure_cache_dir() is None  # this checkout's __pycache__ is writable
    assert "NUMBA_CACHE_DIR" not in os.environ
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    assert ensure_cache_dir() is None
    assert os.environ["NUMBA_CACHE_DIR"] == str(tmp_path)


def test_writable_checks_like_numba(tmp_path):
    assert writable(str(tmp_path / "new" / "dir"))
    (tmp_path / "file").write_text("")
    assert not writable(str(tmp_path / "file" / "below"))
