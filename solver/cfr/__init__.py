"""The CFR family (CFR, CFR+, linear, discounted, predictive CFR+) over flat trees."""

from solver.cfr.kernels import ALGORITHMS
from solver.cfr.solver import CFRSolver, SolveResult

__all__ = ["ALGORITHMS", "CFRSolver", "SolveResult"]
