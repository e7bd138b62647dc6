"""Measuring a re-solving agent exactly (ReBeL's ``recursive_eval``, DeepStack's continual
re-solving): re-solve at every public node where the agent moves, assemble the strategy it
plays everywhere, then take a full best response on the public tree.

The agent first solves the subgame at the game's root from the deal's prior (its plan). Then,
walking down the public tree, at each of its decisions (and wherever the walk leaves the last
subgame through a depth-limited leaf) it re-solves the subgame rooted there from its own range,
tracked from the strategy it played, with the gadget fed the opponent's best-response
counterfactual values against the last solve at that node; the re-solve's root strategy is
what it plays.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from spycfr.public.protocol import TERMINAL
from spycfr.search import passes
from spycfr.search.beliefs import step
from spycfr.search.resolve import Solution, best_response_value, solve
from spycfr.search.tree import LEAF, GameModel, Subtree, build, extract
from spycfr.search.values import ValueFunction


@dataclass
class Settings:
    """How the agent searches: CFR+ iterations per re-solve (and for the first plan), the
    subgame's depth in public edges (None: to the end of the game), the leaves' value
    function, and whether re-solving is safe (the gadget) or starts from the opponent's range
    as the last solve left it (unsafe)."""

    iterations: int = 500
    depth: int | None = None
    value_function: ValueFunction | None = None
    plan_iterations: int | None = None  # the first solve's (default: ``iterations``)
    gadget: bool = True


@dataclass
class Assembled:
    """The strategy a re-solving agent plays at every public node (rows of ``tree``, its own
    seat's decisions), with the cost of making it."""

    tree: Subtree
    seat: int
    strategy: np.ndarray
    resolves: int = 0
    seconds: float = 0.0
    subgame_nodes: list[int] = field(default_factory=list)


def assemble(full: Subtree, seat: int, settings: Settings) -> Assembled:
    """Re-solve at every public node of ``full`` (the whole game's tree) where ``seat`` moves."""
    game = full.game
    opp = 1 - seat
    strategy = np.zeros(full.row_kid.shape)
    passes.uniform(full.kind, full.row, full.row_count, strategy)
    out = Assembled(full, seat, strategy)
    t0 = time.perf_counter()
    vf = settings.value_function
    if vf is not None and hasattr(vf, "for_agent"):  # leaf values that depend on who the agent is
        vf = vf.for_agent(seat)

    def subgame(f: int) -> Subtree:
        sub = extract(full, f, settings.depth)
        out.subgame_nodes.append(sub.size)
        return sub

    plan = solve(subgame(0), game.weights, settings.plan_iterations or settings.iterations,
                 vf)
    uniform = strategy.copy()
    # the opponent's private states that it can hold (under some strategy) at each node
    stack: list[tuple[int, Solution, int, np.ndarray, np.ndarray, bool]] = [
        (0, plan, 0, game.weights[seat].copy(), game.weights[opp].copy(), True)]
    while stack:
        f, sol, s, mine, theirs, fresh = stack.pop()
        k = full.kind[f]
        if k == TERMINAL or not mine.any():
            continue  # the agent never gets here: its play below does not matter
        if not fresh and (k == seat or sol.tree.kind[s] == LEAF):
            # the opponent kept to its best values against the last plan (gadget) or not
            other = theirs if settings.gadget else sol.reach[opp][s]
            ranges = (mine, other) if seat == 0 else (other, mine)
            if settings.gadget:
                sol = solve(subgame(f), ranges, settings.iterations, vf,
                            opp_values=sol.best[opp][s], opponent=opp)
            else:
                sol = solve(subgame(f), ranges, settings.iterations, vf)
            out.resolves += 1
            s = 0
        rows = None
        if k == seat:
            rows = sol.strategy[sol.tree.row[s]]
            strategy[full.row[f]] = rows
        them = uniform[full.row[f]] if k == opp else None
        for c in range(full.count[f]):
            stack.append((full.first[f] + c, sol, sol.tree.first[s] + c,
                          step(full, f, seat, mine, rows, c),
                          step(full, f, opp, theirs, them, c), False))
    out.seconds = time.perf_counter() - t0
    return out


def exploitability(game: GameModel, settings: Settings, full: Subtree | None = None
                   ) -> tuple[float, list[Assembled]]:
    """The re-solving agent's exploitability (half the sum of both seats' best-response values
    against it, playing each seat) and the two assembled strategies."""
    full = build(game) if full is None else full
    agents = [assemble(full, s, settings) for s in (0, 1)]
    br = [best_response_value(full, agents[1 - s].strategy, s) for s in (0, 1)]
    return (br[0] + br[1]) / 2, agents


def profile_exploitability(full: Subtree, strategy: np.ndarray) -> float:
    """Half the sum of both best responses' values against one profile (rows for both seats)."""
    return (best_response_value(full, strategy, 0) + best_response_value(full, strategy, 1)) / 2
