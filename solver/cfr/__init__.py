"""Solvers of the CFR family: full-tree kernels (CFR, CFR+, linear, discounted, predictive
CFR+), Monte-Carlo CFR on the game protocol, and the one solve loop they share."""

from spycfr.cfr.driver import SolveResult
from spycfr.cfr.kernels import ALGORITHMS
from spycfr.cfr.solver import CFRSolver

__all__ = ["ALGORITHMS", "CFRSolver", "SolveResult"]
