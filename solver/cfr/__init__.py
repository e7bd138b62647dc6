"""Solvers of the CFR family: full-tree kernels (CFR, CFR+, linear, discounted, predictive
CFR+), Monte-Carlo CFR on the game protocol, and the one solve loop they share."""

from solver.cfr.driver import SolveResult
from solver.cfr.kernels import ALGORITHMS
from solver.cfr.solver import CFRSolver

__all__ = ["ALGORITHMS", "CFRSolver", "SolveResult"]
