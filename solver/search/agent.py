"""A search agent: plays a game too big to store a strategy for by continual re-solving
(DeepStack 2017): at each decision it re-solves the public subgame it is in, from both
seats' ranges, safely, and plays the re-solved strategy for its actual private state.

One game (:class:`AgentGame`) walks the public tree along the real game. The agent's own
range follows the strategy it played; for the opponent it keeps the private states it can
hold (the gadget's support) and a model range (through the re-solved strategies: what the
posterior over the opponent's private state is read from). At the game's root it solves the
first ``plan_depth`` decision levels (the placements in Agent Hunter) from the deal's prior;
then, whenever the game reaches its own decision or a decision that the last subgame cut
into a leaf, it re-solves the subgame from there to ``depth`` decision levels below with
DeepStack's gadget fed the opponent's best-response values of the last solve
(:mod:`spycfr.search.resolve`), leaves valued by the configured value function
(:mod:`spycfr.search.leafvalues`). It is :func:`spycfr.search.evaluate.assemble` done along
one game instead of everywhere. Deterministic: CFR+ has no randomness, and the caller
samples the moves from its own seeded stream.
"""

from __future__ import annotations

import contextlib
import copy
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from spycfr import memory
from spycfr.engine import protocol as P
from spycfr.errors import SpycfrError
from spycfr.games import get_plugin
from spycfr.memory import rss_bytes
from spycfr.public import protocol as pp
from spycfr.search.beliefs import step
from spycfr.search.continuation import solve_reading
from spycfr.search.folding import solve
from spycfr.search.leafvalues import VALUE_FUNCTIONS, value_function
from spycfr.search.resolve import Solution, fixed, values_from
from spycfr.search.subgame import subgame
from spycfr.search.tree import LEAF, GameModel, Subtree, TooBig, build, nodes_to_end
from spycfr.ticking import Ticker

ALGORITHM = "re-solving"
# the most public nodes of a subgame that reaches the end (Agent Hunter small: 2,308,847)
WHOLE_MAX_NODES = 4_000_000
# the endgame rule's default budgets in node-states (spycfr.search.tree.work; AgentConfig): a
# re-solve's (a few seconds of CFR+), and the first plan's (solved once per agent, saved with
# its run and shared by every game it plays: the whole game of Agent Avenue small, 338.6 M,
# and Agent Hunter small, 168.9 M: 9 and 7.5 minutes, peaks of 7.9 and 5.6 GiB);
# docs/search.md "Exact endgames" and "The first plan" measured them
ENDGAME = 4_000_000
PLAN_ENDGAME = 400_000_000
# what to do when the agent's work would pass the command's --memory-limit
PLAN_ADVICE = ("give a larger --memory-limit, or make the run with a smaller --plan-endgame "
               "(spycfr solve --algorithm re-solving; 0: the plan's first decision levels "
               "only)")
RESOLVE_ADVICE = ("give a larger --memory-limit, or make the run with a smaller --endgame or "
                  "--depth (spycfr solve --algorithm re-solving)")
# a solve taking longer than this says how far it is, then again every PROGRESS_AGAIN seconds
PROGRESS_AFTER = 5.0
PROGRESS_AGAIN = 10.0
# first plans kept where the game starts with public chance (one per outcome reached: Agent
# Avenue advanced's black market supplies, each a few tens of MB)
PLANS_KEPT = 4


@dataclass(frozen=True)
class AgentConfig:
    """How the agent searches: CFR+ iterations per re-solve (the effort knob), the subgame's
    depth in decision levels below the current one (1: the move and its signals, the next
    decision a leaf), the first plan's depth from the game's root, the leaf value function
    by name (and its weights file); the openings' table (:mod:`spycfr.search.openings`: the
    agent opens with its equilibrium mixture) and the opponent's range after its opening
    (``uniform``: any opening; ``mixture``: the table's, every opening kept possible).

    The endgame rule: a re-solve (the first plan) whose public subgame to the end of the game
    takes at most ``endgame`` (``plan_endgame``) node-states (:func:`spycfr.search.tree.work`:
    nodes, row entries and live terminal pairs, times private states) solves it to the end,
    exact terminal values and no leaves, whatever the depth; 0: off, as in run directories
    written before the rule (their run.json has no such key). ``plan_iterations``: the first
    plan's CFR+ iterations (solved once and saved with the run, so it can afford more than a
    re-solve); 0: ``iterations``, as in run directories written before it. The game's
    defaults, the rule on: :meth:`default`.

    The depth rule: a re-solve's subgame to ``depth`` decision levels of more than
    ``subgame_budget`` node-states (public nodes times a seat's most private states, the
    endgame rule's unit; counted while it is built, which stops there) is cut a decision
    level shallower, down to 1; 0: off (run directories written before it; the game's
    plug-in's ``agent_subgame_budget``: Agent Avenue advanced's subgames through the black
    market's resolutions, thousands of public nodes at depth 2)."""

    iterations: int = 100
    plan_iterations: int = 0
    depth: int = 1
    plan_depth: int = 2
    value_function: str = "scored-now"
    value_file: str | None = None
    opening_file: str | None = None
    opening_range: str = "uniform"
    endgame: int = 0
    plan_endgame: int = 0
    subgame_budget: int = 0

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def default(cls, game_name: str, **changes: Any) -> AgentConfig:
        """What ``spycfr solve --algorithm re-solving`` makes for ``game_name`` unless told
        otherwise: the game's leaf values and depth (its plug-in's ``agent_value_function``
        and ``agent_depth``, its first plan's ``agent_plan_iterations``) and the endgame
        rule's budgets, with ``changes``."""
        plugin = get_plugin(game_name)
        return cls(**{"value_function": plugin.agent_value_function,
                      "depth": plugin.agent_depth,
                      "plan_iterations": plugin.agent_plan_iterations, "endgame": ENDGAME,
                      "plan_endgame": PLAN_ENDGAME,
                      "subgame_budget": plugin.agent_subgame_budget, **changes})

    def check(self) -> None:
        """One-line errors for impossible settings."""
        if self.iterations < 1:
            raise SpycfrError(f"--iterations must be >= 1 per decision, got {self.iterations}")
        if self.plan_iterations < 0:
            raise SpycfrError(f"--plan-iterations must be >= 0 (0: --iterations), got "
                              f"{self.plan_iterations}")
        if self.depth < 1 or self.plan_depth < 1:
            raise SpycfrError(f"--depth must be >= 1 decision level, got {self.depth}")
        if self.endgame < 0 or self.plan_endgame < 0:
            raise SpycfrError(f"--endgame must be >= 0 node-states (0: off), got "
                              f"{min(self.endgame, self.plan_endgame)}")
        if self.subgame_budget < 0:
            raise SpycfrError(f"the subgame budget must be >= 0 node-states (0: off), got "
                              f"{self.subgame_budget}")
        if self.value_function not in VALUE_FUNCTIONS:
            raise SpycfrError(f"--value-function {self.value_function!r}: not one of "
                              f"{', '.join(VALUE_FUNCTIONS)}")
        if self.opening_range not in OPENING_RANGES:
            raise SpycfrError(f"opening range {self.opening_range!r}: not one of "
                              f"{', '.join(OPENING_RANGES)}")


OPENING_RANGES = ("uniform", "mixture")
# with opening range "mixture", this share of the opponent's range stays uniform over what it
# can hold: an opening outside the table's support (a heuristic's random placement) stays
# possible, so later signals never leave the agent with an empty range
OPENING_FLOOR = 1e-3


class SearchAgent:
    """The agent for one game variant: its model, value function and root plan (shared by
    every game it plays)."""

    def __init__(self, game_name: str, variant: dict, config: AgentConfig,
                 progress: Callable[[str], None] | None = None) -> None:
        config.check()
        self.plugin = get_plugin(game_name)
        self.variant = self.plugin.make_variant(None, variant)
        self.params = (self.plugin.search_params or self.plugin.numba_params)(self.variant)
        if not pp.has_public(self.params):
            raise SpycfrError(f"{game_name} has no public-state model: no search agent")
        self.config = config
        self.model = GameModel.of(self.params)
        self.values = value_function(config.value_function, self.model, self.plugin,
                                     config.value_file)
        impl = P._REGISTRY[type(self.params)]
        self._apply, self._legal = impl["apply_action"], impl["legal_actions"]
        self._current = impl["current_player"]
        self._pub_of = pp.python_impl(self.params, "public_of_history")
        self._priv_of = pp.python_impl(self.params, "private_of_history")
        self._pub_current = pp.python_impl(self.params, "current_player")
        self._max_depth = int(pp.python_impl(self.params, "max_depth")(self.params))
        self.progress = progress
        # the first plans by the public state they start at (one, the game's root, unless
        # public chance comes first: then one per outcome a game reaches, see start())
        self._plans: dict[bytes, Solution] = {}
        self._chances: Solution | None = None
        self._chances_made = False
        # the first plan read from a file instead of solved (spycfr.runs.agent_run sets it):
        # given the plan's root public state, the plan, or None to solve it
        self.saved_plan: Callable[[np.ndarray], Solution | None] | None = None
        self.openings = None
        if config.opening_file is not None:
            from spycfr.search.openings import OpeningTable

            self.openings = OpeningTable.load(config.opening_file)
            if self.openings.meta["variant"] != self.variant.as_dict():
                raise SpycfrError(f"the openings table {config.opening_file!r} is for another "
                                  "variant")

    def start(self) -> Solution:
        """Where every game's walk starts: the first plan, where the game's root is a
        decision; else the public chances above the first decisions (Agent Avenue advanced:
        the black market's 455 supplies, dealt after the hands), unsolved, and the plan is
        solved from the outcome a game reaches (:meth:`plan`): one plan over every outcome
        would be that many plans in one (over 14 GB there)."""
        chances = self._chances_above()
        return self.plan() if chances is None else chances

    def _chances_above(self) -> Solution | None:
        """The public chances from the root to the first decisions as a solution with no
        decision (each seat's reach its prior through the chances' masks); None where the
        root is a decision."""
        if self._chances_made:
            return self._chances
        self._chances_made = True
        tree = subgame(self.model, self.model.root(), 0)
        if tree.size > 1:  # else the root is a decision: a leaf at no decision level
            from spycfr.search import passes

            sigma = np.zeros(tree.row_kid.shape)
            n0, n1 = self.model.n
            reach = (np.zeros((tree.size, n0)), np.zeros((tree.size, n1)))
            for s in (0, 1):
                passes.forward(s, *tree.seat_arrays(s), sigma, self.model.weights[s],
                               reach[s])
            zero = (np.zeros((tree.size, n0)), np.zeros((tree.size, n1)))
            self._chances = Solution(tree, sigma, reach, zero, zero, None, 0)
        return self._chances

    def plan(self, pub: np.ndarray | None = None) -> Solution:
        """The solve of the first decision levels from the prior ranges, starting at public
        state ``pub`` (cached; read from ``saved_plan`` where it has one for ``pub``): the
        game's root, or where public chance comes first (:meth:`start`) one of its outcomes
        (the last PLANS_KEPT kept), by default the oldest kept (else the first outcome's).
        The ranges there are the deal's prior through the chances."""
        chances = self._chances_above()
        if pub is None:
            if chances is None:
                pub = self.model.root()
            elif self._plans:
                return next(iter(self._plans.values()))
            else:
                pub = chances.tree.pub[chances.tree.leaves[0]]
        key = pub.tobytes()
        hit = self._plans.get(key)
        with memory.doing("the agent's first plan", PLAN_ADVICE):
            if hit is None and self.saved_plan is not None:
                hit = self.saved_plan(pub)
            if hit is None:
                ranges = self.model.weights
                if chances is not None:
                    node = chances.tree.find(pub)
                    if node < 0 or chances.tree.kind[node] != LEAF:
                        raise ValueError("a plan starts at one of the game's first decisions")
                    ranges = (chances.reach[0][node], chances.reach[1][node])
                hit = self._solve_plan(pub, ranges)
        if key not in self._plans and len(self._plans) >= PLANS_KEPT:
            del self._plans[next(iter(self._plans))]
        self._plans[key] = hit
        return hit

    def plans(self) -> list[Solution]:
        """The first plans solved or read so far (the last PLANS_KEPT), oldest first."""
        return list(self._plans.values())

    def _solve_plan(self, pub: np.ndarray, ranges) -> Solution:
        """The first plan at ``pub`` from ``ranges``, solved (or the openings table's)."""
        budget = 0 if self.openings is not None else self.config.plan_endgame
        # with an openings table the plan is the openings' subgame, whatever the budget
        once = "once per agent" if self._chances is None else "once per outcome of the " \
            "game's first public chance"
        if self.openings is None:
            self._say(f"the first plan (solved {once}): building its public tree "
                      f"({self.config.plan_depth} decision levels"
                      + (f", or to the end of the game where that takes at most {budget:,} "
                         "node-states)" if budget else ")"))
        else:  # no budget to speak of: the openings' subgame, played by the table
            self._say(f"the first plan (the openings table's, built {once}): building its "
                      f"public tree ({self.config.plan_depth} decision levels)")
        with self.beating("the first plan: building its public tree"):
            tree = self.subgame(pub, self.config.plan_depth, budget)
        self._say(f"the first plan's tree: {tree.size:,} public nodes, "
                  + (f"{tree.leaves.size:,} lea{'f' if tree.leaves.size == 1 else 'ves'}"
                     if tree.leaves.size else
                     "to the end of the game") + f", RSS {_gb(rss_bytes())}")
        if self.openings is None:
            return self.solve("the opening subgame", tree, ranges,
                              self.config.plan_iterations or self.config.iterations)
        return fixed(tree, self._table_strategy(tree), ranges, self.values)

    @contextlib.contextmanager
    def beating(self, what: str) -> Iterator[None]:
        """Say ``what`` with the seconds spent and the RSS every PROGRESS_AGAIN seconds
        after PROGRESS_AFTER until the block ends (a :class:`~spycfr.ticking.Ticker`'s
        thread: the tree's numba builders release the GIL)."""
        if self.progress is None:
            yield
            return
        say = self.progress

        def beat(seconds: float) -> None:
            say(f"{what}: {seconds:.0f} s, RSS {_gb(rss_bytes())}")

        with Ticker(beat, max(PROGRESS_AGAIN, 0.1), first=PROGRESS_AFTER):
            yield

    def _table_strategy(self, t) -> np.ndarray:
        """The plan's decisions (the openings) by the table's mixtures: each action the
        probability of the private state it leads to (uniform where none is in the table)."""
        from spycfr.search import passes

        assert self.openings is not None
        strategy = np.zeros(t.row_kid.shape)
        passes.uniform(t.kind, t.row, t.row_count, strategy)
        for n in range(t.size):
            k = int(t.kind[n])
            if k not in (0, 1):
                continue
            mix, q = self.openings.private_mixture(k, self.model.n[k]), t.row[n]
            for i in range(self.model.n[k]):
                c = int(t.row_count[q, i])
                w = mix[t.row_next[q, i, :c]]
                if c and w.sum() > 0:
                    strategy[q, i] = 0.0
                    strategy[q, i, :c] = w / w.sum()
        return strategy

    def endgame(self, pub: np.ndarray, decisions: int, budget: int,
                ranges: tuple[np.ndarray, np.ndarray] | None = None) -> Subtree | None:
        """The whole public subtree below ``pub`` where the agent solves to the end of the
        game, else None: where no path has more than ``decisions`` edges left, or where it
        takes at most ``budget`` node-states (the endgame rule, :func:`spycfr.search.tree.work`:
        first a count of its public nodes that stops at budget / states, then the build,
        which stops as soon as its rows or its terminals' live pairs pass the budget). By the
        numba enumerator, terminals with their payoff matrices (the Python builder took over
        4 minutes for 200,000 nodes of Agent Hunter ``mini``), payoffs only for the pairs
        that play reaches from the private states ``ranges`` hold."""
        start = None if ranges is None else (ranges[0] > 0, ranges[1] > 0)
        if 0 <= self._max_depth <= decisions:
            return build(self.model, pub, max_nodes=WHOLE_MAX_NODES, live=True, start=start)
        most = min(budget // max(self.model.n), WHOLE_MAX_NODES)
        if most <= 0 or nodes_to_end(self.model, pub, most) is None:
            return None
        try:
            return build(self.model, pub, max_nodes=most, live=True, start=start,
                         max_work=budget)
        except TooBig:
            return None

    def subgame(self, pub: np.ndarray, decisions: int, budget: int = 0,
                ranges: tuple[np.ndarray, np.ndarray] | None = None,
                rule: bool = False) -> Subtree:
        """The subgame the agent solves at ``pub``: the rest of the game where
        :meth:`endgame` says so, else ``decisions`` decision levels deep
        (:func:`spycfr.search.subgame.subgame`; with ``rule``, a re-solve's, the depth
        rule's: :meth:`depth_limited`)."""
        whole = self.endgame(pub, decisions, budget, ranges)
        if whole is not None:
            return whole
        return self.depth_limited(pub, decisions) if rule else subgame(self.model, pub,
                                                                       decisions)

    def depth_limited(self, pub: np.ndarray, decisions: int) -> Subtree:
        """A re-solve's subgame at ``pub`` to ``decisions`` decision levels, by the depth
        rule (:class:`AgentConfig`): a level shallower while it passes the
        ``subgame_budget`` node-states, down to 1 decision level."""
        most = self.config.subgame_budget // max(self.model.n)
        while self.config.subgame_budget > 0 and decisions > 1:
            try:
                return subgame(self.model, pub, decisions, max_nodes=most)
            except TooBig:
                decisions -= 1
        return subgame(self.model, pub, decisions)

    def solve(self, what: str, tree, ranges, iterations: int = 0, **gadget) -> Solution:
        """:func:`~spycfr.search.resolve.solve` with the agent's iterations (a re-solve's
        unless given) and leaves, saying (when it takes more than PROGRESS_AFTER seconds) the
        iterations done, the time spent and an estimate of the time left."""
        total = iterations or self.config.iterations
        # no callback: progress None, which keeps a leafless solve's loop in one numba call
        tick = None if self.progress is None else self._ticker(what, tree, total)
        return solve_reading(self.values, tree, lambda: solve(tree, ranges, total, self.values,
                                                              progress=tick, **gadget))

    def _ticker(self, what: str, tree, total: int) -> Callable[[int, int], None]:
        """The progress callback of :meth:`solve`: every PROGRESS_AGAIN seconds after
        PROGRESS_AFTER, the iterations done, the seconds, the RSS and the time left."""
        assert self.progress is not None
        say, start = self.progress, time.perf_counter()
        due, first = [start + PROGRESS_AFTER], [0.0]

        def tick(done: int, _: int) -> None:
            now = time.perf_counter()
            if done == 1:  # the first iteration also computes leaf values that are cached
                first[0] = now - start
            if now < due[0] or done == total:
                return
            due[0] = now + PROGRESS_AGAIN
            spent = now - start
            if done > 1:
                left = f"about {(spent - first[0]) * (total - done) / (done - 1):.0f} s to go"
            elif tree.leaves.size:
                left = "the first iteration also values the leaves"
            else:
                left = "the time left follows from the next iterations"
            say(f"solving {what} ({tree.size:,} public nodes): {done}/{total} CFR+ "
                f"iterations, {spent:.0f} s, RSS {_gb(rss_bytes())}, {left}")

        return tick

    def game(self, seat: int) -> AgentGame:
        """A new game with the agent as ``seat``."""
        return AgentGame(self, seat)

    def initial(self) -> np.ndarray:
        """The rules' initial state (the engine protocol's array)."""
        return P._REGISTRY[type(self.params)]["initial_state"](self.params)

    def public(self, state: np.ndarray) -> np.ndarray:
        out = np.empty_like(self.model.root())
        self._pub_of(state, self.params, out)
        return out

    def private(self, state: np.ndarray, seat: int) -> int:
        return int(self._priv_of(state, self.params, seat))

    def legal(self, state: np.ndarray) -> np.ndarray:
        buf = np.empty(max(int(P._REGISTRY[type(self.params)]["max_actions"](self.params)), 2),
                       np.int32)
        return buf[:self._legal(state, self.params, buf)].copy()

    def public_path(self, start: np.ndarray, target: np.ndarray, depth: int = 6
                    ) -> list[np.ndarray]:
        """The public states from ``start`` (excluded) to ``target`` (included), found
        breadth first on the public protocol alone (labels and outcomes, no private rows)."""
        frontier: list[tuple[np.ndarray, list[np.ndarray]]] = [(start, [])]
        for _ in range(depth):
            grown = []
            for pub, path in frontier:
                for kid in self.public_children(pub):
                    if np.array_equal(kid, target):
                        return [*path, kid]
                    grown.append((kid, [*path, kid]))
            frontier = grown
        raise SpycfrError("the position is not reachable from the agent's last one in "
                          f"{depth} public steps")

    def public_children(self, pub: np.ndarray) -> list[np.ndarray]:
        params = self.params
        kind = int(self._pub_current(pub, params))
        if kind == pp.TERMINAL:
            return []
        codes = np.empty(self.model.max_actions, np.int32)
        if kind == pp.CHANCE:
            probs = np.empty(self.model.max_actions)
            k = pp.python_impl(params, "chance_outcomes")(pub, params, codes, probs)
        else:
            k = pp.python_impl(params, "legal_actions")(pub, params, codes)
        apply = pp.python_impl(params, "apply_action")
        out = []
        for o in range(k):
            kid = np.empty_like(pub)
            apply(pub, params, codes[o], kid)
            out.append(kid)
        return out

    def after(self, state: np.ndarray, action: int) -> np.ndarray:
        out = np.empty_like(state)
        self._apply(state, self.params, np.int32(action), out)
        return out

    def _say(self, text: str) -> None:
        if self.progress is not None:
            self.progress(text)


def _gb(n: int) -> str:
    return f"{n / 2 ** 30:.1f} GB"


@dataclass
class MoveInfo:
    """A decision as the agent sees it: each rules action's probability and value (expected
    payoff for the mover's actual private state against the opposing range: at the agent's
    own decisions its model of the opponent, at the opponent's the agent's range as its
    subgame's strategy has it; both seats then playing on by the subgame's strategies)."""

    seat: int
    actions: np.ndarray
    probs: np.ndarray
    values: np.ndarray  # nan where an action leads nowhere the subgame values
    value: float  # the position's value under the probabilities
    to_end: bool = False  # the subgame reached the end of the game: no leaf values
    # the values are the first plan's strategies' (a plan to the end of the game reaching
    # here: AgentGame.own_values), not the current subgame's
    from_plan: bool = False


@dataclass
class AgentGame:
    """One game as seen by the agent playing ``seat``: call :meth:`observe` with the rules
    state after every step (or at any later state: the walk catches up), :meth:`policy` at
    the agent's decisions. With ``plan_only`` it reads the first plan without re-solving
    at its own decisions (the openings: one solve for every situation the plan reaches)."""

    agent: SearchAgent
    seat: int
    solves: int = 0
    solve_seconds: list[float] = field(default_factory=list)
    plan_only: bool = False
    # whether the walk's current subgame is the cheap pass at an opposing decision (one
    # iteration: the opponent's rows and the values there are uniform play's, not a solve)
    cheap: bool = False

    def __post_init__(self) -> None:
        a = self.agent
        w = a.model.weights
        self.sol = a.start()
        # the first plan, once the walk is in it (the public chances above it first, where
        # the game starts with them: then the plan of the outcome dealt)
        self.plan = self.sol if a._chances_above() is None else None
        self.s = 0
        self.fresh = True
        self.mine = w[self.seat].copy()
        self.support = w[1 - self.seat].copy()
        self.model_range = w[1 - self.seat].copy()
        self.pub = a.model.root()
        self.own: int | None = None  # the agent's private state, once a real state is seen
        # the walk's node in the first plan's tree (-1: past its leaves, or before it)
        self.plan_node = 0 if self.plan is not None else -1

    # --- the walk ---------------------------------------------------------------------------

    def observe(self, state: np.ndarray) -> None:
        """Move the agent's view to the public state of ``state`` (a few public steps on:
        after each rules step, or each move of a record)."""
        target = self.agent.public(state)
        self.own = self.agent.private(state, self.seat)
        if np.array_equal(self.pub, target):
            if self.fresh and self.s == 0:  # our first move, at the game's root
                self._arrive(first=True)
            return
        path = self._path_to(target)
        if path is not None:
            for c in path:
                self._step(c)
            return
        for pub in self.agent.public_path(self.pub, target):
            t, s = self.sol.tree, self.s
            kids = range(t.first[s], t.first[s] + t.count[s])
            self._step(next(c for c in kids if np.array_equal(t.pub[c], pub)))

    def _path_to(self, target: np.ndarray) -> list[int] | None:
        """The nodes of the current subgame from here to ``target`` (two steps at most)."""
        t, s = self.sol.tree, self.s
        for c in range(t.first[s], t.first[s] + t.count[s]):
            if np.array_equal(t.pub[c], target):
                return [c]
        for c in range(t.first[s], t.first[s] + t.count[s]):
            for cc in range(t.first[c], t.first[c] + t.count[c]):
                if np.array_equal(t.pub[cc], target):
                    return [c, cc]
        return None

    def _step(self, c: int) -> None:
        t, s, opp = self.sol.tree, self.s, 1 - self.seat
        k = int(t.kind[s])
        child = c - int(t.first[s])
        rows = self.sol.strategy[t.row[s]] if k in (0, 1) else None
        self.mine = step(t, s, self.seat, self.mine, rows if k == self.seat else None, child)
        if k == opp:
            uniform = np.where(t.row_count[t.row[s]][:, None] > np.arange(t.row_kid.shape[2]),
                               1.0, 0.0)
            support = step(t, s, opp, self.support, uniform, child)
            self.support = support / max(support.max(), 1e-300)
            model = step(t, s, opp, self.model_range, rows, child)
            self.model_range = model if model.sum() > 0 else self.support.copy()
            if self._opening() and self.agent.config.opening_range == "mixture":
                mixed = self.model_range / max(self.model_range.max(), 1e-300)
                self.support = (1 - OPENING_FLOOR) * mixed + OPENING_FLOOR * self.support
        else:
            self.support = step(t, s, opp, self.support, None, child)
            self.model_range = step(t, s, opp, self.model_range, None, child)
        self.s, self.pub, self.fresh = c, t.pub[c].copy(), False
        self._plan_step()
        if self.plan is None and t.kind[c] == LEAF:
            # through the public chances at the game's start: the plan of what was dealt,
            # and its first decision as the game's root is (our first move, if ours)
            self.sol = self.plan = self.agent.plan(self.pub)
            self.s, self.fresh, self.plan_node = 0, True, 0
            self._arrive(first=True)
            return
        self._arrive()

    def _plan_step(self) -> None:
        """Follow the walk's public step (to ``self.pub``) in the first plan's tree: the
        child of the plan's node with that public state, or -1 where the plan ends (a leaf,
        a terminal) or the walk left it (both trees are the game's public tree, one public
        edge a step)."""
        if self.plan is None or self.plan_node < 0:
            return
        t, n = self.plan.tree, self.plan_node
        if self.sol is self.plan:
            self.plan_node = self.s
            return
        kids = range(int(t.first[n]), int(t.first[n] + t.count[n])) if t.kind[n] != LEAF \
            else range(0)
        self.plan_node = next((c for c in kids if np.array_equal(t.pub[c], self.pub)), -1)

    def _arrive(self, first: bool = False) -> None:
        """Re-solve here if this is the agent's decision or a decision the last subgame cut
        (``first``, our first move at the game's root: only for leaf values that look at our
        own cards, which the plan shared by every game cannot; without the gadget, as the
        plan's values are another function's)."""
        a, t, s = self.agent, self.sol.tree, self.s
        k = int(a._pub_current(self.pub, a.params))
        if k not in (0, 1) or not (k == self.seat or t.kind[s] == LEAF):
            return
        if first:  # once: head to head observes the first decision, then asks its policy
            self.fresh = False
        if self._opening() and t.kind[s] != LEAF:
            return  # the openings table's mixture (the plan plays it)
        if self.plan_only and t.kind[s] != LEAF:
            return
        if not (self.mine.any() and self.support.any()):
            return  # no real game gets here (the exploitability walk's dead branches)
        start = time.perf_counter()
        if first and not hasattr(a.values, "focus"):
            return
        with memory.doing("a re-solve", RESOLVE_ADVICE):
            self._resolve(first, k, start)

    def _resolve(self, first: bool, k: int, start: float) -> None:
        """:meth:`_arrive`'s re-solve at the walk's node, a decision of seat ``k`` (``first``:
        our first move), begun at ``start`` (perf_counter)."""
        a, t, s, opp = self.agent, self.sol.tree, self.s, 1 - self.seat
        ranges = (self.mine, self.support) if self.seat == 0 else (self.support, self.mine)
        tree = a.endgame(self.pub, a.config.depth, a.config.endgame, ranges)
        if first and tree is not None:
            return  # no leaf to spend on our cards: the plan's play stands
        if tree is None and not t.leaves.size:
            return  # the last solve reached the end: leaves now would replace exact values
        if tree is None:
            tree = a.depth_limited(self.pub, a.config.depth)
        if hasattr(a.values, "focus"):  # leaf values that spend their effort on our cards
            a.values.focus(None if self.own is None else self.seat, self.own, tree, self.mine)
        one_sided = first or (hasattr(a.values, "one_sided") and
                              a.values.one_sided(tree, ranges))
        # our actual cards keep their rows even where our own play would not hold them (a
        # record of someone else's play: `spycfr query`); in play they are always in range
        keep = None if self.own is None else (self.seat, self.own)
        if one_sided and k != self.seat:
            # the opponent's decision, our next one a leaf valued for our cards alone: our
            # play below starts from our own range and what the opponent can hold, so a
            # solve here would change nothing we do; one cheap iteration (scored as it
            # stands) keeps the walk going (the opponent's rows uniform: the model range
            # is then what it can hold)
            self.sol = solve(tree, ranges, 1, getattr(a.values, "exact", a.values))
        elif one_sided:
            # only our own cards valued by the leaves: the opponent's range is what it can
            # hold, without the gadget (spycfr.search.continuation)
            self.sol = a.solve("our first move" if first else "the subgame from here", tree,
                               ranges, keep=keep)
        else:
            self.sol = a.solve("the subgame from here", tree, ranges,
                               opp_values=self.sol.best[opp][s], opponent=opp, keep=keep)
        self.cheap = one_sided and k != self.seat
        self.s = 0
        self.solves += 1
        self.solve_seconds.append(time.perf_counter() - start)

    def review_info(self, state: np.ndarray, seat: int) -> MoveInfo:
        """:meth:`move_info` for the opponent ``seat`` for a review of its moves. Where the
        walk kept only the cheap pass there (one-sided leaves value the agent's own cards
        alone), the subgame is solved for this with the leaves spent on ``seat``'s actual
        cards; the walk, and so the agent's play, stays as it was (the rollouts of a row
        depend on the row, the leaf, the range and the seed only, never on the focus)."""
        a = self.agent
        if not self.cheap or seat == self.seat:
            return self.move_info(state, seat)
        if not hasattr(a.values, "focus"):  # a cheap pass is made for such leaves only
            return self.move_info(state, seat)
        ranges = (self.mine, self.support) if self.seat == 0 else (self.support, self.mine)
        with memory.doing("the review's re-solve", RESOLVE_ADVICE):
            tree = a.subgame(self.pub, a.config.depth, a.config.endgame, ranges, rule=True)
            a.values.focus(seat, a.private(state, seat), tree, ranges[seat])
            view = copy.copy(self)
            view.sol, view.s = a.solve("your move's values, for the review", tree, ranges,
                                       keep=(seat, a.private(state, seat))), 0
        return view.move_info(state, seat)

    def _opening(self) -> bool:
        """Whether the walk is in the plan's openings and the agent plays them by its table."""
        return self.agent.openings is not None and self.sol is self.plan

    # --- decisions -----------------------------------------------------------------------

    def policy(self, state: np.ndarray) -> np.ndarray:
        """The agent's move probabilities over the rules' legal actions at ``state``."""
        self.observe(state)
        info = self.move_info(state, self.seat, values=False)
        return info.probs

    def move_info(self, state: np.ndarray, seat: int, values: bool = True) -> MoveInfo:
        """Each legal action's probability and value at ``state`` for ``seat``'s actual
        private state there, from the agent's current subgame (``seat`` may be the
        opponent: its moves valued against the agent's strategy). The agent's own moves
        are valued by :meth:`own_values` (its first plan's where that reaches here, else
        the subgame's against its model of the opponent), the opponent's against the
        agent's range as the subgame's strategy has it. Without ``values`` (the agent's
        play: the probabilities alone) every value is nan."""
        self.observe(state)
        a, t, s = self.agent, self.sol.tree, self.s
        if t.kind[s] != seat:
            raise RuntimeError(f"not a decision of seat {seat} in the agent's subgame")
        i = a.private(state, seat)
        actions = a.legal(state)
        nexts = []
        for act in actions:
            nxt = a.after(state, int(act))
            nexts.append((a.public(nxt), a.private(nxt, seat)))
        where = _edges(t, s, i, nexts)
        rows = self.sol.strategy[t.row[s]]
        probs = np.zeros(len(actions))
        hits = np.bincount(where[where >= 0], minlength=int(t.row_count[t.row[s], i]))
        for x, e in enumerate(where):
            if e >= 0:
                probs[x] = rows[i, e] / hits[e]
        total = probs.sum()
        probs = probs / total if total > 0 else np.full(len(actions), 1.0 / len(actions))
        out = np.full(len(actions), np.nan)
        vt = t
        if values:
            if seat == self.seat:
                vt, vs, cfv, reach_opp = self.own_values()
            else:
                vt, vs, cfv, reach_opp = t, s, self.sol.values[seat], self.sol.reach[1 - seat]
            on = where if vt is t else _edges(vt, vs, i, nexts)
            q = vt.row[vs]
            for x, e in enumerate(on):
                if e < 0:
                    continue
                c = vt.first[vs] + vt.row_kid[q, i, e]
                j = nexts[x][1]
                mass = float(self._pairs(vt.pub[c], j, seat) @ reach_opp[c])
                if mass > 0:
                    out[x] = cfv[c, j] * a.model.z / mass
        ok = ~np.isnan(out)
        value = float(probs[ok] @ out[ok] / probs[ok].sum()) if probs[ok].sum() > 0 \
            else float("nan")
        return MoveInfo(seat, actions, probs, out, value, to_end=not t.leaves.size,
                        from_plan=self.plan is not None and vt is self.plan.tree)

    def own_values(self) -> tuple[Subtree, int, np.ndarray, np.ndarray]:
        """The agent's counterfactual values at the current public state and below, and its
        model of the opponent's reach there (what normalises them), with the tree and node
        they are indexed by.

        Where the first plan reaches here to the end of the game (no leaf: Agent Hunter
        ``tiny``, ``mini``, ``small``, Agent Avenue ``mini``; the plan is solved from the
        prior over the whole game) and the plan holds the agent's actual cards here: the
        plan's strategies, both seats', from here. A re-solve's are one of its subgame's
        equilibria, which may move the agent's own value between its private states (the
        gadget keeps the opponent's values, never the agent's): on ``tiny`` after
        ``place:1-2`` P1's switch read +0.43 so, 0.0000 by the plan and -0.0002 at the exact
        equilibrium (docs/search.md, "The agent's own move values").

        Elsewhere the subgame's strategies as solved, both seats' (no update), from the
        agent's own range and its model range (:func:`~spycfr.search.resolve.values_from`).
        Not the solve's own values: a re-solve plays against what the opponent can hold
        (the support, each state entering by DeepStack's gadget), which a value at the
        actual cards must not be read against (on ``tiny`` after ``place:0-1``, hand:2>1
        read +0.18 so, +0.0001 against the model, 0.0000 at the exact equilibrium)."""
        a, opp = self.agent, 1 - self.seat
        ranges = (self.mine, self.model_range) if self.seat == 0 else \
            (self.model_range, self.mine)
        plan, n = self.plan, self.plan_node
        if (plan is not None and n >= 0 and not plan.tree.leaves.size
                and plan.tree.kind[n] == self.seat
                and (self.own is None or plan.reach[self.seat][n, self.own] > 0)):
            if _same(plan.reach[self.seat][n], self.mine) and _same(plan.reach[opp][n],
                                                                    self.model_range):
                return plan.tree, n, plan.values[self.seat], plan.reach[opp]
            with memory.doing("the agent's move values from its first plan", PLAN_ADVICE):
                v, r = values_from(plan.tree, plan.strategy, n, ranges, self.seat)
            return plan.tree, n, v, r
        sol, s = self.sol, self.s
        if _same(sol.reach[self.seat][s], self.mine) and _same(sol.reach[opp][s],
                                                               self.model_range):
            # the solve's own ranges here (the first plan from the prior, a re-solve from the
            # model range): everything below follows from them, so its values are these
            return sol.tree, s, sol.values[self.seat], sol.reach[opp]
        # the cheap pass values its leaves as they stand (see _arrive)
        leaves = getattr(a.values, "exact", a.values) if self.cheap else a.values
        with memory.doing("the agent's move values", RESOLVE_ADVICE):
            v, r = values_from(sol.tree, sol.strategy, s, ranges, self.seat, leaves)
        return sol.tree, s, v, r

    def _pairs(self, pub: np.ndarray, i: int, seat: int) -> np.ndarray:
        """How much each of the other seat's private states weighs beside ``seat``'s state i
        at public state ``pub``: the compatibility, times the game's ``pair_weights`` there
        (Agent Avenue: card removal, which its model keeps in the payoffs)."""
        a = self.agent
        w = a.model.compat
        row = w[i] if seat == 0 else w[:, i]
        if a.plugin.pair_weights is None:
            return row
        return row * a.plugin.pair_weights(pub, a.params, seat, i, a.model.n[1 - seat])

    def posterior(self, state: np.ndarray) -> np.ndarray:
        """P(the opponent's private state | what the agent saw, its own private state),
        from the agent's model range."""
        self.observe(state)
        i = self.agent.private(state, self.seat)
        p = self.model_range * self._pairs(self.pub, i, self.seat)
        total = p.sum()
        return p / total if total > 0 else p


def _edges(t, s: int, i: int, nexts: list[tuple[np.ndarray, int]]) -> np.ndarray:
    """For each move of private state i at decision node ``s`` of tree ``t``, given as the
    public state and the mover's private state after it (the rules'), the entry of i's row
    it takes (-1: none the tree has)."""
    q = t.row[s]
    out = np.full(len(nexts), -1, np.int64)
    for x, (pub, j) in enumerate(nexts):
        for e in range(t.row_count[q, i]):
            if t.row_next[q, i, e] == j and _below(t, t.first[s] + t.row_kid[q, i, e], pub,
                                                   SIGNAL_STEPS):
                out[x] = e
                break
    return out


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two ranges are equal up to rounding (zeros exactly)."""
    return bool(np.allclose(a, b, rtol=1e-12, atol=0.0))


# Public steps from a move to the rules' state after it: the signals and draws that the
# public model puts after a move (Agent Avenue: the recruitment's revealed card, the mover's
# refill; Agent Hunter: the attack's result).
SIGNAL_STEPS = 3


def _below(t, c: int, pub: np.ndarray, steps: int) -> bool:
    """Whether ``pub`` is node ``c``'s public state or one at most ``steps`` below it."""
    frontier = [c]
    for _ in range(steps + 1):
        if any(np.array_equal(t.pub[x], pub) for x in frontier):
            return True
        frontier = [y for x in frontier for y in range(t.first[x], t.first[x] + t.count[x])]
    return False


def agent_exploitability(agent: SearchAgent, progress: Callable[[str], None] | None = None
                         ) -> tuple[float, tuple[float, float], int]:
    """The agent's exact exploitability on a game small enough to enumerate: its strategy at
    every public node (:func:`agent_strategies`), then a full best response against each seat.
    Returns (exploitability, (BR_P1, BR_P2), re-solves)."""
    from spycfr.search.resolve import best_response_value

    full, strategies, solves = agent_strategies(agent, progress)
    br = (best_response_value(full, strategies[1], 0), best_response_value(full, strategies[0], 1))
    return (br[0] + br[1]) / 2, br, solves


def agent_strategies(agent: SearchAgent, progress: Callable[[str], None] | None = None
                     ) -> tuple[Subtree, list[np.ndarray], int]:
    """The agent's strategy at every public node of the whole game, as each seat: one game
    walked over the whole public tree, copied at each branch, re-solving exactly where a real
    game would. Returns (the whole tree, the strategy rows with the agent as P1 and as P2,
    re-solves); ``progress`` is told every PROGRESS_AGAIN seconds the share of the public
    tree walked (a subtree the agent never reaches counts whole), the re-solves and an
    estimate of the time left."""
    from spycfr.search import passes

    plan = agent.start()  # before the clock of the estimate: the walk's pace extrapolates
    full = plan.tree  # a plan with no leaf is the whole game (Agent Avenue small's: 4 GB)
    if full.leaves.size:  # (the public chances above the plans have leaves: the plans)
        full = build(agent.model, max_nodes=WHOLE_MAX_NODES, live=True)
    size = np.ones(full.size, np.int64)  # nodes in each node's subtree (children follow parents)
    for n in range(full.size - 1, 0, -1):
        size[full.parent[n]] += size[n]
    strategies, solves = [], 0
    start = due = time.perf_counter()
    for seat in (0, 1):
        strategy = np.zeros(full.row_kid.shape)
        passes.uniform(full.kind, full.row, full.row_count, strategy)
        stack = [(0, agent.game(seat))]
        walked = 0
        while stack:
            f, g = stack.pop()
            if full.kind[f] == pp.TERMINAL or not (g.mine.any() and g.support.any()):
                walked += int(size[f])
                continue  # the agent or the opponent never gets here: no play below matters
            walked += 1
            if progress is not None and time.perf_counter() >= due:
                spent = time.perf_counter() - start
                share = (seat * full.size + walked) / (2 * full.size)
                left = (f"about {spent * (1 - share) / share:.0f} s to go" if share >= 0.01
                        else "the time left is estimated from 1% of the walk")
                progress(f"the agent as P{seat + 1}: {walked / full.size:.1%} of "
                         f"{full.size:,} public nodes walked, {solves:,} re-solves, {spent:.0f} "
                         f"s, {left}")
                due = time.perf_counter() + PROGRESS_AGAIN
            t, s = g.sol.tree, g.s
            if full.kind[f] == seat:
                rows = g.sol.strategy[t.row[s]]
                strategy[full.row[f]] = 0.0
                strategy[full.row[f], :, :rows.shape[1]] = rows
            for c in range(full.count[f]):
                kid = copy.copy(g)
                kid.solve_seconds = []
                kid._step(int(t.first[s]) + c)
                solves += kid.solves - g.solves
                stack.append((int(full.first[f]) + c, kid))
        strategies.append(strategy)
    return full, strategies, solves
