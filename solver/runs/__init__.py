"""Run directories: solve into one (:mod:`spycfr.runs.solve`), load it back
(:mod:`spycfr.runs.store`)."""

from spycfr.runs.config import SolveConfig
from spycfr.runs.result import RunResult
from spycfr.runs.solve import solve_run
from spycfr.runs.store import Run, load_run, read_run, read_run_meta

__all__ = ["Run", "RunResult", "SolveConfig", "load_run", "read_run", "read_run_meta",
           "solve_run"]
