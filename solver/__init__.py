"""spycfr: equilibrium solver and strategy analyser for espionage card games."""

from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from spycfr._numba_cache import guard_cache

try:
    __version__ = version("spycfr")
except PackageNotFoundError:  # running from a source tree without installation
    __version__ = "0.1.0"

guard_cache(Path(__file__).parent)
