"""Where numba caches the compiled kernels: its default, or a temporary directory.

Every kernel is compiled with ``cache=True``. numba stores the cache next to
the source (``kernels/__pycache__``), else in the user's cache directory
(``~/.cache/numba``); where neither is writable (a read-only install run by
a user with no writable home: a container, a system package), numba refuses
to compile a cached function and the package would fail at import. Then, and
only then, :func:`ensure_cache_dir` points numba's documented setting,
``NUMBA_CACHE_DIR``, at a fresh temporary directory before numba is
imported (and at ``numba.config.CACHE_DIR`` when the caller imported numba
already): the kernels compile once per process and nothing else changes. The
directory is private (``mkdtemp``: numba's cache holds pickles, which a
shared, predictable path would let another user plant) and removed at exit.
A ``NUMBA_CACHE_DIR`` the caller set and can write to is always kept.
"""

from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile

__all__ = ["ensure_cache_dir", "writable"]

#: The environment variable numba reads for a user-provided cache directory.
ENV = "NUMBA_CACHE_DIR"


def writable(path: str) -> bool:
    """Whether ``path`` can hold numba's cache (created if missing), as numba checks it.

    Examples
    --------
    >>> import tempfile
    >>> writable(tempfile.gettempdir()), writable(os.devnull + "/cache")
    (True, False)
    """
    try:
        os.makedirs(path, exist_ok=True)
        tempfile.TemporaryFile(dir=path).close()
    except OSError:
        return False
    return True


def _user_wide() -> str:
    try:
        from numba.misc.appdirs import AppDirs  # numba's own choice of the directory

        return str(AppDirs(appname="numba", appauthor=False).user_cache_dir)
    except ImportError:  # pragma: no cover - numba is a dependency
        return os.path.join(os.path.expanduser("~"), ".cache", "numba")


def ensure_cache_dir() -> str | None:
    """Point numba's cache at a temporary directory if its default cannot be written.

    Returns the temporary directory when one was set, else None (numba's
    default, or the caller's ``NUMBA_CACHE_DIR``, is used).

    Examples
    --------
    >>> ensure_cache_dir() is None  # a writable install: numba's default is kept
    True
    """
    given = os.environ.get(ENV)
    if given:
        if writable(given):
            return None
    elif writable(os.path.join(os.path.dirname(os.path.abspath(__file__)), "__pycache__")) \
            or writable(_user_wide()):
        return None
    try:
        path = tempfile.mkdtemp(prefix="xrr_accessor-numba-")
    except OSError:  # pragma: no cover - no writable temporary directory either
        return None
    atexit.register(shutil.rmtree, path, ignore_errors=True)  # private to this process
    os.environ[ENV] = path
    config = getattr(sys.modules.get("numba"), "config", None)
    if config is not None:  # numba imported already: it read the environment then
        config.CACHE_DIR = path
    return path
