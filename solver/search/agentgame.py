"""One game as a search agent sees it (:class:`AgentGame`): the walk along the public tree
of a real game, the agent's ranges kept as it goes, its re-solves where the game reaches its
own decision or a decision that the last subgame cut into a leaf, and each decision's moves
with their probabilities and values (:class:`MoveInfo`) for play, `spycfr query` and reviews.

The agent's own range follows the strategy it played; for the opponent it keeps the private
states it can hold (the gadget's support) and a model range (through the re-solved
strategies: what the posterior over the opponent's private state is read from). The agent
itself (:class:`spycfr.search.agent.SearchAgent`: its model, value function, first plan and
solves, shared by every game it plays) is what a walk is given; this module imports nothing
from it, not even its type (agent.py makes its walks, so that would be an import cycle).
"""

from __future__ import annotations

import contextlib
import functools
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from spycfr import memory
from spycfr.search.beliefs import step
from spycfr.search.folding import solve
from spycfr.search.resolve import values_from
from spycfr.search.tree import LEAF, Subtree

# what to do when the agent's work would pass the command's --memory-limit
PLAN_ADVICE = ("give a larger --memory-limit, or make the run with a smaller --plan-endgame "
               "(spycfr solve --algorithm re-solving; 0: the plan's first decision levels "
               "only)")
RESOLVE_ADVICE = ("give a larger --memory-limit, or make the run with a smaller --endgame or "
                  "--depth (spycfr solve --algorithm re-solving)")
# with opening range "mixture", this share of the opponent's range stays uniform over what it
# can hold: an opening outside the table's support (a heuristic's random placement) stays
# possible, so later signals never leave the agent with an empty range
OPENING_FLOOR = 1e-3


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
    # the probabilities are the first plan's own rows (the agent plays its plan here, nothing
    # re-solved: the game's first decisions, or AgentConfig.plan_play's)
    plan_row: bool = False
    # an opening the agent plays by its openings table: the values are the table's (each
    # opening against the other seat's table mixture, continuing best)
    from_table: bool = False
    # the moves this decision's re-solve cut from the mover's row (AgentConfig.needs_only:
    # moves its cards do not need, never made and never valued), True per action; None: none
    cut: np.ndarray | None = None


@dataclass
class NeededCut:
    """A re-solve at the agent's own decision under AgentConfig.needs_only, as a local best
    response needs it to model the agent holding other cards (spycfr.analysis.lbr_agent):
    the solution, the actual cards' private state ``row``, the entries its row at the
    subgame's root was cut to (``kept``; None: nothing cut) and the row before the cut
    (``whole``: :func:`cut_row`'s), and the solve's arguments (what, tree, ranges, the
    gadget's keywords) for :meth:`AgentGame.solve_again`."""

    sol: Any
    row: int
    kept: np.ndarray | None
    whole: tuple | None
    solve: tuple[str, Subtree, tuple[np.ndarray, np.ndarray], dict[str, Any]]


@dataclass
class AgentGame:
    """One game as seen by the agent playing ``seat``: call :meth:`observe` with the rules
    state after every step (or at any later state: the walk catches up), :meth:`policy` at
    the agent's decisions. With ``plan_only`` it reads the first plan without re-solving
    at its own decisions (the openings: one solve for every situation the plan reaches)."""

    agent: Any  # the SearchAgent playing (agent.py makes its walks: not imported here)
    seat: int
    solves: int = 0
    solve_seconds: list[float] = field(default_factory=list)
    plan_only: bool = False
    # whether the walk's current subgame is the cheap pass at an opposing decision (one
    # iteration: the opponent's rows and the values there are uniform play's, not a solve)
    cheap: bool = False
    # the last re-solve at our decision whose root row was cut to what our cards need
    # (AgentConfig.needs_only), as a local best response re-solves it (None: none yet)
    needed: NeededCut | None = None

    def __post_init__(self) -> None:
        a = self.agent
        w = a.model.weights
        detection = getattr(a, "detection", None)
        # the leaf values this game's solves use: the agent's, or with its detection option
        # (spycfr.search.styles) its own leaves until the opponent's moves say otherwise;
        # the game's, not the agent's, so that other games over the same agent keep theirs
        # (and LBR's model of this game reads them here)
        self.leaves: Any = a.values if detection is None else detection.own
        with self._solving():
            self.sol = a.start()
        # the first plan, once the walk is in it (the public chances above it first, where
        # the game starts with them: then the plan of the outcome dealt)
        self.plan = self.sol if a._chances_above() is None else None
        self.s = 0
        self.fresh = True
        self.mine = w[self.seat].copy()
        # what the agent's own seat can hold given the public moves (each private state
        # that can make a move kept, as the opponent's support is): the range a walk of a
        # real game takes where the moves left everything the agent's own play holds
        self.own_support = w[self.seat].copy()
        self.support = w[1 - self.seat].copy()
        self.model_range = w[1 - self.seat].copy()
        self.pub = a.model.root()
        self.own: int | None = None  # the agent's private state, once a real state is seen
        self.state: np.ndarray | None = None  # and the rules state last seen
        # the walk's node in the first plan's tree (-1: past its leaves, or before it)
        self.plan_node = 0 if self.plan is not None else -1
        # whether the opponent plays one of the styles the leaves guard against
        # (spycfr.search.styles: the agent's detection option; None: off)
        self.styles = None if detection is None else detection.belief(a, 1 - self.seat)

    @contextlib.contextmanager
    def _solving(self) -> Iterator[None]:
        """The agent's solves inside with this game's leaves (``agent.values``, which they
        read), the agent's values as they were after."""
        a = self.agent
        before, a.values = a.values, self.leaves
        try:
            yield
        finally:
            a.values = before

    # --- the walk ---------------------------------------------------------------------------

    def observe(self, state: np.ndarray) -> None:
        """Move the agent's view to the public state of ``state`` (a few public steps on:
        after each rules step, or each move of a record)."""
        target = self.agent.public(state)
        self.own = self.agent.private(state, self.seat)
        self.state = state  # the moves the agent's cards need (needs_only) read it
        if np.array_equal(self.pub, target):
            # our first move, at the game's root, once the deal is done: Agent Avenue's
            # initial state is the deal's chance node (private state -1), where a re-solve
            # would spend the leaves on the wrong cards (`spycfr query` walks from there);
            # and a game deals P2's hand a step after P1's, where a re-solve after ours
            # alone cut its row (AgentConfig.needs_only) at a chance node: nothing cut
            if self.fresh and self.s == 0 and self.own >= 0 and self._decision(state):
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

    def _decision(self, state: np.ndarray) -> bool:
        """Whether the rules state ``state`` is a player's decision (not chance)."""
        return int(self.agent._current(state, self.agent.params)) in (0, 1)

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
        uniform = _uniform(t.row_kid.shape[1:])
        if self.styles is not None:
            self.styles = self.styles.stepped(t, s, child)
        self.mine = step(t, s, self.seat, self.mine, rows if k == self.seat else None, child)
        if self.own is not None:  # a real game's walk (the exploitability walk sees no cards)
            own = step(t, s, self.seat, self.own_support, uniform if k == self.seat else None,
                       child)
            self.own_support = own / max(own.max(), 1e-300)
            if not self.mine.any():
                # a record's moves that the agent's own play never makes with any cards it
                # could hold (a query or a review of someone else's game): the agent takes
                # them as mistakes, its range now everything its seat can hold, so that the
                # walk goes on (the exploitability walk prunes the branch here instead)
                self.mine = self.own_support / max(self.own_support.sum(), 1e-300)
        if k == opp:
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
            with self._solving():
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
        if self._plan_plays():
            return  # the first plan's own row (AgentConfig.plan_play)
        if not (self.mine.any() and self.support.any()):
            return  # no real game gets here (the exploitability walk's dead branches)
        start = time.perf_counter()
        if first and not hasattr(self.leaves, "focus"):
            return
        with memory.doing("a re-solve", RESOLVE_ADVICE), self._solving():
            self._resolve(first, k, start)

    def _resolve(self, first: bool, k: int, start: float) -> None:
        """:meth:`_arrive`'s re-solve at the walk's node, a decision of seat ``k`` (``first``:
        our first move), begun at ``start`` (perf_counter)."""
        a, t, s, opp = self.agent, self.sol.tree, self.s, 1 - self.seat
        if self.styles is not None:
            # this re-solve's leaves, by what the opponent's moves say (the game's stay these
            # until its next re-solve: LBR's model of it reads them)
            self.leaves = a.values = a.detection.leaves(self.styles)
        vf = self.leaves
        ranges = (self.mine, self.support) if self.seat == 0 else (self.support, self.mine)
        tree = a.endgame(self.pub, a.config.depth, a.config.endgame, ranges)
        if first and tree is not None:
            return  # no leaf to spend on our cards: the plan's play stands
        if tree is None and not t.leaves.size:
            return  # the last solve reached the end: leaves now would replace exact values
        if tree is None:
            tree = a.depth_limited(self.pub, a.config.depth)
        # the moves our cards need (AgentConfig.needs_only): only with actual cards, which
        # the exploitability walk does not hold (agent_strategies refuses such an agent)
        cut = (k == self.seat and a.config.needs_only and self.state is not None
               and self.own is not None)
        kept, whole = self._needed_only(tree) if cut else (None, None)
        if hasattr(vf, "focus"):  # leaf values that spend their effort on our cards
            # (without actual cards, the exploitability walk's: no focus, or the public
            # rows of an opposing decision, with or without guesses:
            # spycfr.search.continuation)
            vf.focus(self.seat, self.own, tree, self.mine)
        one_sided = first or (hasattr(vf, "one_sided") and vf.one_sided(tree, ranges))
        # our actual cards keep their rows even where our own play would not hold them (a
        # record of someone else's play: `spycfr query`); in play they are always in range
        keep = None if self.own is None else (self.seat, self.own)
        if one_sided and k != self.seat:
            # the opponent's decision, our next one a leaf valued for our cards alone: our
            # play below starts from our own range and what the opponent can hold, so a
            # solve here would change nothing we do; one cheap iteration (scored as it
            # stands) keeps the walk going (the opponent's rows uniform: the model range
            # is then what it can hold)
            self.sol = solve(tree, ranges, 1, getattr(vf, "exact", vf))
        else:
            # one-sided (only our own cards valued by the leaves): the opponent's range is
            # what it can hold, without the gadget (spycfr.search.continuation); else the
            # gadget keeps the opponent's values of the last solve
            what = "the agent's first move" if first else "the subgame from here"
            gadget = {} if one_sided else {"opp_values": self.sol.best[opp][s],
                                           "opponent": opp}
            self.sol = a.solve(what, tree, ranges, keep=keep, **gadget)
            if cut and self.own is not None:
                self.needed = NeededCut(self.sol, self.own, kept, whole,
                                        (what, tree, ranges, gadget))
        self.cheap = one_sided and k != self.seat
        self.s = 0
        self.solves += 1
        self.solve_seconds.append(time.perf_counter() - start)

    def _needed_only(self, tree: Subtree) -> tuple[np.ndarray | None, tuple | None]:
        """Cut our cards' row at ``tree``'s root (our decision, at the walk's rules state)
        to the moves the game's ``needed_moves`` allows them (AgentConfig.needs_only): the
        entries kept and the row as it was (:func:`cut_row`), or None and None where it
        cuts nothing (every move allowed, or none the row has)."""
        assert self.state is not None
        i, actions, _, on = self._moves(self.state, self.seat, tree, 0)
        keep = needed_entries(self.agent, self.state, self.seat, actions, on)
        return (None, None) if keep is None else (keep, cut_row(tree, i, keep))

    def solve_again(self, keep: tuple[int, int] | None = None) -> Any:
        """The last re-solve at our decision under AgentConfig.needs_only (:attr:`needed`)
        once more, on its tree's rows as they now stand, with ``keep``: a local best
        response's model of the agent holding other cards cuts their rows instead of ours
        (spycfr.analysis.lbr_agent)."""
        assert self.needed is not None
        what, tree, ranges, gadget = self.needed.solve
        with self._solving():
            return self.agent.solve(what, tree, ranges, keep=keep, **gadget)

    def _plan_plays(self) -> bool:
        """Whether the walk is at a decision of the first plan that the agent plays from the
        plan (:class:`~spycfr.search.agent.AgentConfig` ``plan_play``): still in the plan's
        own solution (no re-solve yet), not at one of its leaves, and fewer than
        ``plan_play`` decision levels below the plan's root."""
        levels = self.agent.config.plan_play
        if not levels or self.plan is None or self.sol is not self.plan:
            return False
        t, s = self.sol.tree, self.s
        return t.kind[s] != LEAF and decision_level(t, s) < levels

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
        i, actions, nexts, where = self._moves(state, seat)
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
        if values and self._opening():
            # the openings the agent plays by its table (the plan's leaves valued otherwise,
            # by its value function, disagree with it: on results/standard P1's 0-1-2 read
            # +1.0 and P2's +0.82 so, the table's value -0.0161 for both)
            table = a.openings.private_values(seat, a.model.n[seat])
            out = np.array([table[j] for _, j in nexts])
            return MoveInfo(seat, actions, probs, out, _mean(probs, out), from_table=True)
        if values:
            if seat == self.seat:
                vt, vs, cfv, reach_opp = self.own_values()
            else:
                vt, vs, cfv, reach_opp = t, s, self.sol.values[seat], self.sol.reach[1 - seat]
            on = where if vt is t else _edges(vt, vs, i, nexts)
            out = self._valued(vt, vs, i, nexts, on, cfv, reach_opp, seat)
        return MoveInfo(seat, actions, probs, out, _mean(probs, out), to_end=not t.leaves.size,
                        from_plan=self.plan is not None and vt is self.plan.tree,
                        plan_row=self.sol is self.plan, cut=self._cut_here(state, seat, actions))

    def _cut_here(self, state: np.ndarray, seat: int, actions: np.ndarray) -> np.ndarray | None:
        """The actions the re-solve at this decision cut from ``seat``'s row (the moves the
        game's ``needed_moves`` refuses its cards: AgentConfig.needs_only), or None where
        the current subgame is no such re-solve at its root (nothing cut)."""
        cut = self.needed
        if (seat != self.seat or cut is None or cut.sol is not self.sol or cut.kept is None
                or self.s != 0):
            return None
        allowed = np.asarray(self.agent.plugin.needed_moves(self.agent.params, state, seat,
                                                            actions), bool)
        return ~allowed

    def solved_values(self, state: np.ndarray, seat: int) -> tuple[np.ndarray, float]:
        """Each legal action's value at ``state`` for ``seat``'s actual private state
        against the opponent's range as the current subgame was solved with it (its own
        reach: what the opponent can hold, or the gadget's), with the total variation
        distance between that range and the agent's model range here. The agent's
        probabilities come from that solve, its move values (:meth:`move_info`) against its
        model: a move it plays 99.7% can be the solve's best (+0.129 against +0.061) and
        0.19 below the best against the model (Agent Avenue standard, userfix6), which
        `spycfr query` says. NaN where an action leads nowhere the subgame values."""
        self.observe(state)
        t, s = self.sol.tree, self.s
        i, _, nexts, where = self._moves(state, seat)
        cfv, reach_opp = self.sol.values[seat], self.sol.reach[1 - seat]
        out = self._valued(t, s, i, nexts, where, cfv, reach_opp, seat)
        solved, model = reach_opp[s], self.model_range
        apart = (0.5 * float(np.abs(solved / solved.sum() - model / model.sum()).sum())
                 if solved.sum() > 0 and model.sum() > 0 else float("nan"))
        return out, apart

    def _moves(self, state: np.ndarray, seat: int, tree: Subtree | None = None,
               node: int = 0) -> tuple[int, np.ndarray, list[tuple[np.ndarray, int]], np.ndarray]:
        """``seat``'s private state at ``state``, its legal actions, the public and private
        state after each, and the entry of its row each takes (:func:`_edges`; -1: none) at
        the current subgame's node, or at ``node`` of ``tree`` where given."""
        a = self.agent
        i = a.private(state, seat)
        actions = a.legal(state)
        nexts = []
        for act in actions:
            nxt = a.after(state, int(act))
            nexts.append((a.public(nxt), a.private(nxt, seat)))
        t, s = (self.sol.tree, self.s) if tree is None else (tree, node)
        return i, actions, nexts, _edges(t, s, i, nexts)

    def _valued(self, vt: Subtree, vs: int, i: int, nexts: list[tuple[np.ndarray, int]],
                on: np.ndarray, cfv: np.ndarray, reach_opp: np.ndarray,
                seat: int) -> np.ndarray:
        """Each move's value for ``seat``'s private state ``i`` at node ``vs`` of ``vt``:
        the counterfactual value ``cfv`` of the child its entry ``on`` takes, over the
        opposing mass there (``reach_opp`` through the pairs' weights); NaN where it takes
        none or no mass is there (:meth:`move_info`, :meth:`solved_values`)."""
        out = np.full(len(nexts), np.nan)
        q = vt.row[vs]
        for x, e in enumerate(on):
            if e < 0:
                continue
            c = vt.first[vs] + vt.row_kid[q, i, e]
            j = nexts[x][1]
            mass = float(self._pairs(vt.pub[c], j, seat) @ reach_opp[c])
            if mass > 0:
                out[x] = cfv[c, j] * self.agent.model.z / mass
        return out

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
        opp = 1 - self.seat
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
        leaves = getattr(self.leaves, "exact", self.leaves) if self.cheap else self.leaves
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


def needed_entries(agent: Any, state: np.ndarray, seat: int, actions: np.ndarray,
                   on: np.ndarray) -> np.ndarray | None:
    """The entries of ``seat``'s row (``on``: the entry each legal action takes, -1 none)
    that the game's ``needed_moves`` hook allows its cards at rules state ``state``
    (AgentConfig.needs_only), or None where it cuts nothing: every move allowed, or none
    of the row's."""
    allowed = np.asarray(agent.plugin.needed_moves(agent.params, state, seat, actions), bool)
    keep = np.unique(on[allowed & (on >= 0)])
    return keep if not allowed.all() and keep.size else None


def cut_row(tree: Subtree, i: int, keep: np.ndarray) -> tuple:
    """Cut private state ``i``'s row at ``tree``'s root to its entries ``keep`` (in order:
    entry m of the cut row is entry keep[m] of the whole one); returns the row as it was,
    for :func:`restore_row`."""
    q = int(tree.row[0])
    tables = (tree.row_kid, tree.row_next, tree.row_prob)
    whole = (*(table[q, i].copy() for table in tables), int(tree.row_count[q, i]))
    for table in tables:
        table[q, i, :keep.size] = table[q, i, keep]
    tree.row_count[q, i] = keep.size
    return whole


def restore_row(tree: Subtree, i: int, whole: tuple) -> None:
    """Undo :func:`cut_row` (``whole``: what it returned)."""
    q = int(tree.row[0])
    for table, row in zip((tree.row_kid, tree.row_next, tree.row_prob), whole[:3],
                          strict=True):
        table[q, i] = row
    tree.row_count[q, i] = whole[3]


@functools.lru_cache(maxsize=8)
def _uniform(shape: tuple[int, ...]) -> np.ndarray:
    """Every action's weight 1, as rows (n, PA) of a tree whose row tables are ``shape``: what
    :func:`~spycfr.search.beliefs.step` is given to keep every private state that can make
    the move (it reads a row's first ``row_count`` entries only). Built once a shape, not at
    every step (5.1 against 0.3 us a step on Agent Hunter mini), so read-only: shared."""
    out = np.ones(shape)
    out.setflags(write=False)
    return out


def _mean(probs: np.ndarray, out: np.ndarray) -> float:
    """The decision's value (MoveInfo's): the actions' values ``out`` averaged by ``probs``
    over those with a value (not nan); nan where those have no probability."""
    ok = ~np.isnan(out)
    return float(probs[ok] @ out[ok] / probs[ok].sum()) if probs[ok].sum() > 0 \
        else float("nan")


def decision_level(t: Subtree, n: int) -> int:
    """Node ``n``'s decision level in tree ``t``: the decisions (either seat's) above it, from
    the tree's root (the root's level 0; chance and signal nodes count none)."""
    level, a = 0, int(t.parent[n])
    while a >= 0:
        level += int(t.kind[a]) in (0, 1)
        a = int(t.parent[a])
    return level


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
