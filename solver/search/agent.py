"""A search agent: plays a game too big to store a strategy for by continual re-solving
(DeepStack 2017): at each decision it re-solves the public subgame it is in, from both
seats' ranges, safely, and plays the re-solved strategy for its actual private state.

One game (:class:`~spycfr.search.agentgame.AgentGame`, its own module) walks the public
tree along the real game, the agent's range and its model of the opponent's kept as it goes.
At the game's root the agent solves the first ``plan_depth`` decision levels (the placements
in Agent Hunter) from the deal's prior; then, whenever the game reaches its own decision or
a decision that the last subgame cut into a leaf, it re-solves the subgame from there to
``depth`` decision levels below with DeepStack's gadget fed the opponent's best-response
values of the last solve (:mod:`spycfr.search.resolve`), leaves valued by the configured
value function (:mod:`spycfr.search.leafvalues`). It is
:func:`spycfr.search.evaluate.assemble` done along one game instead of everywhere.
Deterministic: CFR+ has no randomness, and the caller samples the moves from its own seeded
stream.
"""

from __future__ import annotations

import contextlib
import copy
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from spycfr import memory
from spycfr.engine import protocol as P
from spycfr.errors import ParameterError, SpycfrError
from spycfr.games import games_with, get_plugin
from spycfr.memory import rss_bytes, size_text
from spycfr.public import protocol as pp
from spycfr.search import resolve
from spycfr.search.agentgame import PLAN_ADVICE, AgentGame
from spycfr.search.folding import solve
from spycfr.search.leafvalues import VALUE_FUNCTIONS, value_function
from spycfr.search.reading import solve_reading
from spycfr.search.resolve import Solution, beats, fixed, solve_progress
from spycfr.search.subgame import subgame
from spycfr.search.tree import (
    LEAF,
    GameModel,
    Subtree,
    TooBig,
    build,
    nodes_to_end,
    public_path_states,
)
from spycfr.ticking import Ticker

if TYPE_CHECKING:
    from spycfr.search.openings import OpeningTable

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
# the most node-states of a re-solve's subgame a level a turn (AgentConfig.turn_budget):
# Agent Avenue standard's, 961 states a seat, take 1,349 public nodes at a first swap, over
# 20,000 at a recruitment before four swaps (its rows' tables alone about 7 GB), where a
# process was killed at 13.7 GB; docs/search.md "A level a turn within a budget"
TURN_BUDGET = 2_000_000
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
    market's resolutions, thousands of public nodes at depth 2).

    ``plan_play``: at the first plan's decisions in its first ``plan_play`` decision levels
    (the plan's root at level 0; a node's level is the number of decisions above it in the
    plan's tree) the agent plays the plan's strategy instead of re-solving, as DeepStack and
    ReBeL play their blueprint where they have it; below, the re-solves start from the plan
    as before (the gadget fed the plan's best-response values at the node they start at, so
    the plan's safety carries over). Decisions the plan does not cover (its leaves, and
    everything below a re-solve) are re-solved whatever ``plan_play``; 0: off, every own
    decision in the plan re-solved (run directories written before it).

    ``turn_levels``: a re-solve's depth counts a seat's run of consecutive decisions as one
    level (:func:`spycfr.search.subgame.subgame`'s ``turn_levels``; Agent Avenue: a
    re-solve at a discard-and-draw reaches past the opponent's recruitment, as one at a play
    does); the first plan's depth unchanged. False: each decision a level (run directories
    written before it). Such a subgame of more than ``turn_budget`` node-states (counted
    as it is built, which stops there) gives way to the one each decision a level, under
    the depth rule as without ``turn_levels``.

    ``needs_only``: at its own decisions in play the agent may make only the moves its
    game's ``needed_moves`` hook allows for its cards (Agent Avenue: a discard only where
    the swapper's rule finds one the hand needs), its row at the re-solve's root cut to
    them before the solve; False: every legal move (run directories written before it). The
    exact exploitability walk, which holds no cards, refuses such an agent
    (:data:`NEEDS_ONLY_WALK`)."""

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
    plan_play: int = 0
    turn_levels: bool = False
    turn_budget: int = TURN_BUDGET
    needs_only: bool = False

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
            raise ParameterError(f"{{iterations}} must be >= 1 per decision, got "
                                 f"{self.iterations}", "iterations")
        if self.plan_iterations < 0:
            raise ParameterError(f"{{plan_iterations}} must be >= 0 (0: {{iterations}}), got "
                                 f"{self.plan_iterations}", "plan_iterations", "iterations")
        if self.depth < 1:
            raise ParameterError(f"{{depth}} must be >= 1 decision level, got {self.depth}",
                                 "depth")
        if self.plan_depth < 1:
            raise ParameterError(f"{{plan_depth}} must be >= 1 decision level, got "
                                 f"{self.plan_depth}", "plan_depth")
        for name in ("endgame", "plan_endgame"):
            if getattr(self, name) < 0:
                raise ParameterError(f"{{{name}}} must be >= 0 node-states (0: off), got "
                                     f"{getattr(self, name)}", name)
        if self.subgame_budget < 0:
            raise ParameterError(f"{{subgame_budget}} must be >= 0 node-states (0: off), got "
                                 f"{self.subgame_budget}", "subgame_budget")
        if self.turn_budget < 1:
            raise ParameterError(f"{{turn_budget}} (the turn levels' budget) must be >= 1 "
                                 f"node-state, got {self.turn_budget}", "turn_budget")
        if self.plan_play < 0:
            raise ParameterError(f"{{plan_play}} must be >= 0 decision levels (0: off), got "
                                 f"{self.plan_play}", "plan_play")
        if self.value_function not in VALUE_FUNCTIONS:
            raise ParameterError(f"{{value_function}} {self.value_function!r}: not one of "
                                 f"{', '.join(VALUE_FUNCTIONS)}", "value_function")
        if self.opening_range not in OPENING_RANGES:
            raise ParameterError(f"{{opening_range}} {self.opening_range!r}: not one of "
                                 f"{', '.join(OPENING_RANGES)}", "opening_range")


OPENING_RANGES = ("uniform", "mixture")


def no_needed_moves(game_name: str) -> str:
    """Why AgentConfig.needs_only is refused for ``game_name``: no needed_moves hook in its
    plug-in, and the games that have one (in the library's words: a command that offers it
    as an option names its option before them)."""
    return (f"{game_name} has no needed_moves hook (the moves a hand needs, the only ones "
            f"an agent with needs_only plays); games with one: "
            f"{', '.join(games_with('needed_moves')) or 'none'}")


class SearchAgent:
    """The agent for one game variant: its model, value function and root plan (shared by
    every game it plays)."""

    def __init__(self, game_name: str, variant: dict, config: AgentConfig,
                 progress: Callable[[str], None] | None = None,
                 openings: OpeningTable | None = None) -> None:
        """``openings``: the table of ``config.opening_file`` already loaded and checked
        (spycfr.runs.agent_run.opening_table, which checks it against run.json too); None:
        loaded here and checked for the variant (:meth:`OpeningTable.check_for`)."""
        config.check()
        self.plugin = get_plugin(game_name)
        self.variant = self.plugin.make_variant(None, variant)
        self.params = (self.plugin.search_params or self.plugin.numba_params)(self.variant)
        if not pp.has_public(self.params):
            raise SpycfrError(f"{game_name} has no public-state model: no search agent")
        if config.needs_only and self.plugin.needed_moves is None:
            raise SpycfrError(f"no agent restricted to the moves a hand needs: "
                              f"{no_needed_moves(game_name)}")
        self.config = config
        self.model = GameModel.of(self.params)
        self.values = value_function(config.value_function, self.model, self.plugin,
                                     config.value_file)
        impl = P.implementations(self.params)
        self._apply, self._legal = impl["apply_action"], impl["legal_actions"]
        self._current = impl["current_player"]
        self._pub_of = pp.python_impl(self.params, "public_of_history")
        self._priv_of = pp.python_impl(self.params, "private_of_history")
        self._pub_current = pp.python_impl(self.params, "current_player")
        self._max_depth = int(pp.python_impl(self.params, "max_depth")(self.params))
        self.progress = progress
        # re-solves a level a turn (turn_levels): [within turn_budget, past it and so each
        # decision a level]; shared by for_seat's copies
        self.turn_subgames = [0, 0]
        # the first plans by the public state they start at (one, the game's root, unless
        # public chance comes first: then one per outcome a game reaches, see start())
        self._plans: dict[bytes, Solution] = {}
        self._chances: Solution | None = None
        self._chances_made = False
        # for_seat's copies by seat, each with the values it was made from
        self._seats: dict[int, tuple[Any, SearchAgent]] = {}
        # the first plan read from a file instead of solved (spycfr.runs.agent_run sets it):
        # given the plan's root public state and the agent asking, the plan, or None to
        # solve it (the agent is passed, not captured: a hook holding its agent would make a
        # reference cycle, and the agent's plans, gigabytes, would wait for the cyclic GC)
        self.saved_plan: Callable[[np.ndarray, SearchAgent], Solution | None] | None = None
        self.openings = openings
        # spycfr.search.styles.configure_detection: the leaves chosen at each re-solve by
        # whether the opponent plays one of the styles they guard against; None: off
        self.detection: Any = None
        if openings is None and config.opening_file is not None:
            from spycfr.search.openings import OpeningTable

            self.openings = OpeningTable.load(config.opening_file)
            self.openings.check_for(game_name, self.variant.as_dict(), config.opening_file)

    def for_seat(self, seat: int) -> SearchAgent:
        """The agent as it plays ``seat``: itself, unless its leaf values depend on whose
        agent they are (``for_agent``: the committed blueprint's values, where the agent's
        seat plays the blueprint on below a leaf and the opponent best-responds), then a copy
        with that seat's values and first plans of its own: a plan solved with one seat's
        values is no plan for the other (Agent Hunter ``mini``, plan depth 4, ``plan_play``
        2: 0.503 exploitable with P1's plan shared, 0.0074 with each seat's own;
        docs/search.md). Value functions by name (:mod:`spycfr.search.leafvalues`) have no
        seat: the agent itself, one plan for both. A seat's copy is made once and kept while
        the agent's values are the same object (its plans are solved once per seat, as the
        agent's own are once), told what the agent's ``progress`` is now."""
        # copies made from other values go (their plans, and those values: a committed
        # blueprint holds the whole game's tree) rather than wait for their seat to ask
        self._seats = {s: k for s, k in self._seats.items() if k[0] is self.values}
        if not hasattr(self.values, "for_agent"):
            return self
        kept = self._seats.get(seat)
        if kept is not None:
            kept[1].progress = self.progress
            return kept[1]
        out = copy.copy(self)
        out.values = self.values.for_agent(seat)
        out._plans, out._seats = {}, {}
        out.saved_plan = None  # a saved plan was solved with one seat's values
        self._seats[seat] = (self.values, out)
        return out

    def forget(self) -> None:
        """Back to a loaded agent's leaves: what earlier games left in its leaf values, its
        detection's robust ones and its seats' copies' (``forget``, where they keep any) is
        gone, so that a game that starts now plays as a freshly loaded agent's would (its
        plans, solved once, and its counters are kept)."""
        kept = [self.values, *(k[1].values for k in self._seats.values())]
        if self.detection is not None:
            kept.append(self.detection.robust)
        for values in kept:
            forget = getattr(values, "forget", None)
            if forget is not None:
                forget()

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
        with memory.doing("the agent's start"):
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
                hit = self.saved_plan(pub, self)
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
                     "to the end of the game") + f", RSS {size_text(rss_bytes())}")
        if self.openings is None:
            return self.solve("the opening subgame", tree, ranges,
                              self.config.plan_iterations or self.config.iterations)
        return fixed(tree, self._table_strategy(tree), ranges, self.values)

    @contextlib.contextmanager
    def beating(self, what: str) -> Iterator[None]:
        """Say ``what`` with the seconds spent and the RSS every PROGRESS_AGAIN seconds
        after PROGRESS_AFTER until the block ends (:func:`~spycfr.search.resolve.beats`'
        thread: the tree's numba builders release the GIL)."""
        if self.progress is None:
            yield
            return
        with beats(self.progress, f"{what}:"):
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
        """A re-solve's subgame at ``pub`` to ``decisions`` decision levels: with
        ``turn_levels`` a level a turn where that takes at most ``turn_budget`` node-states,
        else each decision a level by the depth rule (:class:`AgentConfig`): a level
        shallower while it passes the ``subgame_budget`` node-states, down to 1 decision
        level."""
        states = max(self.model.n)
        if self.config.turn_levels:
            try:
                tree = subgame(self.model, pub, decisions,
                               max_nodes=self.config.turn_budget // states, turn_levels=True)
                self.turn_subgames[0] += 1
                return tree
            except TooBig:
                self.turn_subgames[1] += 1
        most = self.config.subgame_budget // states
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
        valuing = (self._valuing(what, tree) if self.progress is not None
                   and tree.leaves.size else None)
        tick = None if self.progress is None else self._ticker(what, tree, total, valuing)

        def run() -> Solution:
            return solve(tree, ranges, total, self.values, progress=tick, **gadget)

        with valuing or contextlib.nullcontext():
            return solve_reading(self.values, tree, run)

    def _valuing(self, what: str, tree) -> Ticker:
        """A ticker (not started) that says every PROGRESS_AGAIN seconds after
        PROGRESS_AFTER that the first CFR+ iteration is valuing the leaves, until the solve's
        callback stops it (:meth:`_ticker`): the callback is first called after that
        iteration, and leaf values by rollouts took minutes there (Agent Avenue standard's
        first plan: 125 s without a line under load)."""
        assert self.progress is not None
        return beats(self.progress, f"solving {what} ({tree.size:,} public nodes): valuing its "
                     f"{tree.leaves.size:,} leaves (its first iteration),")

    def _ticker(self, what: str, tree, total: int, valuing: Ticker | None
                ) -> Callable[[int, int], None]:
        """The progress callback of :meth:`solve` (:func:`~spycfr.search.resolve.
        solve_progress`): every PROGRESS_AGAIN seconds after PROGRESS_AFTER, the iterations
        done, the seconds, the RSS and the time left; it stops ``valuing`` first."""
        assert self.progress is not None
        return solve_progress(self.progress, what, tree, total, valuing=valuing)

    def game(self, seat: int) -> AgentGame:
        """A new game with the agent as ``seat``."""
        return AgentGame(self, seat)

    def initial(self) -> np.ndarray:
        """The rules' initial state (the engine protocol's array)."""
        return P.implementations(self.params)["initial_state"](self.params)

    def public(self, state: np.ndarray) -> np.ndarray:
        out = np.empty_like(self.model.root())
        self._pub_of(state, self.params, out)
        return out

    def private(self, state: np.ndarray, seat: int) -> int:
        return int(self._priv_of(state, self.params, seat))

    def legal(self, state: np.ndarray) -> np.ndarray:
        buf = np.empty(max(int(P.implementations(self.params)["max_actions"](self.params)), 2),
                       np.int32)
        return buf[:self._legal(state, self.params, buf)].copy()

    def public_path(self, start: np.ndarray, target: np.ndarray, depth: int = 6
                    ) -> list[np.ndarray]:
        """The public states from ``start`` (excluded) to ``target`` (included), found
        breadth first on the public protocol alone (labels and outcomes, no private rows):
        :func:`~spycfr.search.tree.public_path_states`, one numba call, the path that the
        search by value over each node's children finds (a child equal to ``target``), on
        the millions of children a review of an Agent Hunter game compares (a token with a
        refill is three public steps, one more than the walk's path in its subgame looks
        through); measured in docs/search.md ("A review's move values are query's", "The
        search in one numba call")."""
        target = np.asarray(target)
        found = (public_path_states(start, target, self.params, depth, self.model.max_actions)
                 if target.ndim == 1 else np.empty((0, start.shape[0]), start.dtype))
        if not found.shape[0]:
            raise SpycfrError("the position is not reachable from the agent's last one in "
                              f"{depth} public steps")
        return list(found)

    def after(self, state: np.ndarray, action: int) -> np.ndarray:
        out = np.empty_like(state)
        self._apply(state, self.params, np.int32(action), out)
        return out

    def _say(self, text: str) -> None:
        if self.progress is not None:
            self.progress(text)


# why the exact walk refuses an agent that cuts its moves to what its cards need: its cut
# is of one row, its actual cards', by a hook that reads a rules state, and the walk holds
# neither (docs/search.md, "Discards only where the hand needs one")
NEEDS_ONLY_WALK = (
    "the exact exploitability walk cannot measure an agent with needs_only: "
    "the agent cuts its own cards' row by the moves they need, one solve per hand, and the "
    "walk re-solves each public node once for the whole range, with no cards and no rules "
    "state; it would measure the agent that keeps every move")


def whole_tree(model, max_nodes: int = WHOLE_MAX_NODES) -> Subtree:
    """The whole game's public tree as the exact walk reads it (payoffs only of the pairs
    some play reaches)."""
    return build(model, max_nodes=max_nodes, live=True)


def agent_exploitability(agent: SearchAgent | tuple[SearchAgent, SearchAgent],
                         progress: Callable[[str], None] | None = None,
                         full: Subtree | None = None
                         ) -> tuple[float, tuple[float, float], int]:
    """The agent's exact exploitability on a game small enough to enumerate: its strategy at
    every public node (:func:`agent_strategies`; ``agent`` one agent, or the agents as P1 and
    as P2; ``full`` its whole tree where the caller holds it), then a full best response
    against each seat. Returns (exploitability, (BR_P1, BR_P2), re-solves)."""
    from spycfr.search.resolve import best_response_value

    full, strategies, solves = agent_strategies(agent, progress, full)
    br = (best_response_value(full, strategies[1], 0), best_response_value(full, strategies[0], 1))
    return (br[0] + br[1]) / 2, br, solves


def agent_strategies(agent: SearchAgent | tuple[SearchAgent, SearchAgent],
                     progress: Callable[[str], None] | None = None,
                     full: Subtree | None = None
                     ) -> tuple[Subtree, list[np.ndarray], int]:
    """The agent's strategy at every public node of the whole game, as each seat: one game
    walked over the whole public tree, copied at each branch, re-solving exactly where a real
    game would, the seat's walk by its own agent (``agent.for_seat``: itself unless its leaf
    values depend on the seat; or ``agent`` is the pair, as P1 and as P2). Returns (the whole
    tree, the strategy rows with the agent as P1 and as P2, re-solves); ``progress`` is told
    every PROGRESS_AGAIN seconds the share of the public tree walked (a subtree the agent
    never reaches counts whole), the re-solves and an estimate of the time left. ``full``:
    the whole game's tree as :func:`whole_tree` builds it, where the caller holds one already
    (Agent Hunter small's is 2.3 M public nodes, GBs: built once, not twice)."""
    from spycfr.search import passes

    agents = agent if isinstance(agent, tuple) else (agent.for_seat(0), agent.for_seat(1))
    if any(a.config.needs_only for a in agents):
        raise SpycfrError(NEEDS_ONLY_WALK)
    # the plans before the clock of the estimate: the walk's pace extrapolates
    plan = agents[0].start()
    if agents[1] is not agents[0]:
        agents[1].start()
    if full is None:
        full = plan.tree  # a plan with no leaf is the whole game (Agent Avenue small's: 4 GB)
    if full.leaves.size:  # (the public chances above the plans have leaves: the plans)
        full = whole_tree(agents[0].model)
    size = np.ones(full.size, np.int64)  # nodes in each node's subtree (children follow parents)
    for n in range(full.size - 1, 0, -1):
        size[full.parent[n]] += size[n]
    strategies, solves = [], 0
    start = due = time.perf_counter()
    for seat in (0, 1):
        strategy = np.zeros(full.row_kid.shape)
        passes.uniform(full.kind, full.row, full.row_count, strategy)
        stack = [(0, agents[seat].game(seat))]
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
                due = time.perf_counter() + resolve.PROGRESS_AGAIN
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
