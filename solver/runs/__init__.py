"""Run directories: solve into one (:mod:`solver.runs.solve`), load it back
(:mod:`solver.runs.store`)."""

from solver.runs.solve import SolveConfig, solve_run
from solver.runs.store import Run, load_run, read_run_meta

__all__ = ["Run", "SolveConfig", "load_run", "read_run_meta", "solve_run"]
