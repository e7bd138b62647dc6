"""Run directories: solve into one (:mod:`spycfr.runs.solve`), load it back
(:mod:`spycfr.runs.store`)."""

from typing import TYPE_CHECKING, Any

from spycfr.runs.config import SolveConfig
from spycfr.runs.result import RunResult
from spycfr.runs.store import Run, load_run, read_run, read_run_meta

if TYPE_CHECKING:
    from spycfr.runs.solve import solve_run


def __getattr__(name: str) -> Any:
    """``solve_run`` imported when asked for: spycfr.runs.solve imports every solver (scipy's
    LP among them), which a command that only reads a run (query, play) does not need."""
    if name == "solve_run":
        from spycfr.runs.solve import solve_run

        return solve_run
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = ["Run", "RunResult", "SolveConfig", "load_run", "read_run", "read_run_meta",
           "solve_run"]
