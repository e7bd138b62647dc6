"""spycfr: equilibrium solver and strategy analyser for espionage card games."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("spycfr")
except PackageNotFoundError:  # running from a source tree without installation
    __version__ = "0.1.0"
