"""Solving a public subgame from given ranges, safely: range-vector CFR+ on a
:class:`~spycfr.search.tree.Subtree`, leaves valued by a value function, and DeepStack's
re-solving gadget.

Without a gadget the subgame starts from both seats' ranges (the game's root, or unsafe
re-solving). With one (``opp_values``), the opponent chooses, for each of its private states
j, between leaving with its counterfactual value from the previous plan, ``opp_values[j]``,
and entering the subgame; its range in the subgame is the probability that it enters. The
opponent's best counterfactual values in the re-solved subgame are then at most its previous
ones (up to the solve's own error), so the re-solved strategy is no more exploitable than the
previous plan (Burch, Johanson and Bowling 2014; Moravcik et al. 2017).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from spycfr import memory
from spycfr.search import passes
from spycfr.search.tree import GameModel, Subtree, build, reachable
from spycfr.search.values import CommittedValues, ValueFunction
from spycfr.ticking import Ticker

#: The most public nodes of a whole game's tree that :func:`committed_blueprint` builds by
#: default (Agent Hunter ``small`` has 2,308,847, past :func:`~spycfr.search.tree.build`'s own
#: default of 2,000,000).
GAME_NODES = 10_000_000

# with a progress callback the numba loop runs in chunks of about this many seconds
CHUNK_SECONDS = 2.0
# a solve taking longer than this says how far it is, then again every PROGRESS_AGAIN seconds
# (solve_progress: the search agent's solves, the committed blueprint's)
PROGRESS_AFTER = 5.0
PROGRESS_AGAIN = 10.0
# with leaves, the Python loop's passes visit only each node's live private states (those
# some play leads to from the root's ranges: spycfr.search.passes' live passes); False:
# every state (the reference the tests and benchmarks/bench_advanced_resolve.py compare with)
LIVE_PASSES = True


@dataclass
class Solution:
    """A solved subgame: each seat's average strategy, reaches and counterfactual values at
    every node under it, and each seat's best-response counterfactual values against the
    other's average strategy (what the next re-solve's gadget must keep the opponent to);
    ``enter`` is the gadget's final entry probabilities (None without)."""

    tree: Subtree
    strategy: np.ndarray  # (R, nmax, PA) average strategy rows
    reach: tuple[np.ndarray, np.ndarray]  # per seat (N, n_s)
    values: tuple[np.ndarray, np.ndarray]  # per seat (N, n_s) counterfactual values
    best: tuple[np.ndarray, np.ndarray]  # per seat (N, n_s) best-response values
    enter: np.ndarray | None
    iterations: int

    def root_strategy(self) -> np.ndarray:
        """(n_mover, PA) the root's strategy rows (the root must be a decision)."""
        return self.strategy[self.tree.row[0]]



def solve_bytes(tree: Subtree, tables: int = 3, node_arrays: int = 4) -> int:
    """The bytes a solve of ``tree`` allocates beyond the tree: ``tables`` arrays the shape
    of its strategy rows (CFR+: its current, regret and average strategies; the solution's
    strategy comes when the regrets go) and ``node_arrays`` arrays of both seats' (nodes,
    private states) (a solve: the reaches and values, and its solution's values and
    best-response values copied; :func:`values_from`: 2), and the leaves' values."""
    n = tree.game.n[0] + tree.game.n[1]
    return int(8 * (tables * tree.row_kid.size + node_arrays * tree.size * n
                    + 2 * max(tree.leaves.size, 1) * n))


def _require(what: str, tree: Subtree, tables: int, node_arrays: int) -> None:
    """Refuse (the running command's --memory-limit) what :func:`solve_bytes` says."""
    memory.require(f"{what} on {tree.size:,} public nodes ({tree.row_kid.shape[0]:,} private "
                   f"rows {tree.row_kid.shape[2]} wide)",
                   solve_bytes(tree, tables, node_arrays))


class _Run:
    """The arrays of one solve and the two passes that every iteration repeats."""

    def __init__(self, tree: Subtree, value_function: ValueFunction | None):
        if tree.leaves.size and value_function is None:
            raise ValueError("a depth-limited subgame needs a value function for its leaves")
        self.t = tree
        self.vf = value_function
        n = tree.game.n
        self.reach = tuple(np.zeros((tree.size, n[s])) for s in (0, 1))
        self.values = tuple(np.zeros((tree.size, n[s])) for s in (0, 1))
        self.leaf_index = np.full(tree.size, -1, np.int64)
        self.leaf_index[tree.leaves] = np.arange(tree.leaves.size)
        self.leaf_values = tuple(np.zeros((max(tree.leaves.size, 1), n[s])) for s in (0, 1))
        # the leaves' public states and origins, gathered once (evaluate asks twice an
        # iteration; the value functions read them, none writes them)
        self.leaf_pub = tree.pub[tree.leaves]
        self.leaf_origin = None if tree.origin is None else tree.origin[tree.leaves]
        self.live: tuple | None = None

    def restrict(self, roots, keep: tuple[int, int] | None = None) -> None:
        """The passes from here on visit only the private states that some play leads to
        from the support of ``roots`` (each seat's root range; the gadget's ranges keep its
        support), and from ``keep`` (seat, private state at the root) if given: their
        reaches and values are the full passes', every other entry stays 0 (the full passes
        give values there, and CFR+ updates those rows, which no play reaches: their average
        strategy is then uniform, not the last regret matching)."""
        if not LIVE_PASSES:
            return
        starts = [np.asarray(roots[s]) > 0 for s in (0, 1)]
        if keep is not None:
            starts[keep[0]] = starts[keep[0]].copy()
            starts[keep[0]][keep[1]] = True
        self.live = tuple(passes.live_lists(reachable(self.t, s, starts[s])) for s in (0, 1))

    def reaches(self, sigma, roots, node: int = 0) -> None:
        """Both seats' reaches under ``sigma`` from ``roots`` at ``node`` (0: the root; else
        0 everywhere but below it)."""
        for s in (0, 1):
            if self.live is not None and node == 0:  # a solve's loop (restrict)
                passes.forward_live(s, *self.t.seat_arrays(s), sigma, roots[s], *self.live[s],
                                    self.reach[s])
            else:
                passes.forward_from(s, *self.t.seat_arrays(s), sigma, node, roots[s],
                                    self.reach[s])

    def evaluate(self, seat: int, sigma, best: bool = False) -> np.ndarray:
        t = self.t
        if t.leaves.size:
            assert self.vf is not None  # __init__ refuses leaves without a value function
            lv = self.vf.values(self.leaf_pub, self.reach[0][t.leaves], self.reach[1][t.leaves],
                                self.leaf_origin)
            self.leaf_values = lv
        if self.live is not None:
            passes.backward_live(seat, t.kind, t.first, t.count, t.prob, t.mask[seat], t.row,
                                 t.row_kid, t.row_next, t.row_prob, t.row_count, t.term,
                                 t.payoff, t.game.z, sigma, self.reach[1 - seat],
                                 self.leaf_index, self.leaf_values[seat], best,
                                 *self.live[seat], *self.live[1 - seat], self.values[seat])
            return self.values[seat]
        passes.backward(seat, t.kind, t.first, t.count, t.prob, t.mask[seat], t.row, t.row_kid,
                        t.row_next, t.row_prob, t.row_count, t.term, t.payoff, t.game.z, sigma,
                        self.reach[1 - seat], self.leaf_index, self.leaf_values[seat], best,
                        self.values[seat])
        return self.values[seat]


def solve(tree: Subtree, ranges: tuple[np.ndarray, np.ndarray], iterations: int,
          value_function: ValueFunction | None = None, opp_values: np.ndarray | None = None,
          opponent: int | None = None, in_numba: bool = True,
          progress: Callable[[int, int], None] | None = None,
          keep: tuple[int, int] | None = None) -> Solution:
    """CFR+ (alternating, linear averaging) on ``tree`` from the root ``ranges``; with
    ``opp_values`` the re-solving gadget for ``opponent``: its range then says only which
    private states it can hold here (> 0; e.g. not the board card), each entering the
    subgame with the gadget's probability. Without leaves the loop runs in one numba call
    (``in_numba``); the Python loop around the passes is the same algorithm, kept for leaf
    value functions, which may be any Python callable. ``progress(done, iterations)`` is
    called after each iteration of the Python loop, and after each chunk of the numba one
    (chunks of about CHUNK_SECONDS; one call without ``progress``). ``keep`` (seat, private
    state at the root): a state whose strategy rows and values are wanted even where the
    seat's range gives it no weight (a player's actual cards that the agent's own play would
    not hold: `spycfr query`); without it the live passes leave such rows uniform."""
    t = tree
    _require("a CFR+ solve", t, 3, 4)
    run = _Run(t, value_function)
    if value_function is not None and hasattr(value_function, "reset"):
        value_function.reset()  # a value function that caches per solve
    shape = t.row_kid.shape
    sigma = np.zeros(shape)
    passes.uniform(t.kind, t.row, t.row_count, sigma)
    regret = np.zeros(shape)
    avg = np.zeros(shape)
    roots = [np.asarray(ranges[0], float).copy(), np.asarray(ranges[1], float).copy()]
    gadget = opp_values is not None
    opp = -1  # the gadget's opponent seat (-1: no gadget)
    if gadget:
        if opponent is None or opponent not in (0, 1):
            raise ValueError("the gadget needs the opponent's seat")
        opp = opponent
        alt = np.asarray(opp_values, float)
        support = (np.asarray(ranges[opp]) > 0).astype(float)
        g_regret = np.zeros((alt.shape[0], 2))  # actions: leave, enter
        enter = np.full(alt.shape[0], 0.5)
        enter_avg = np.zeros(alt.shape[0])
        roots[opp] = enter * support
    else:
        g_regret, enter_avg = np.zeros((1, 2)), np.zeros(1)
    if not t.leaves.size and in_numba:  # the loop in numba: one call, or chunks with progress
        alt_ = alt if gadget else np.zeros(1)
        sup = support if gadget else np.zeros(1)
        ent = enter if gadget else np.zeros(1)
        done, step = 0, 1
        while done < iterations:
            began = time.perf_counter()
            last = iterations if progress is None else min(iterations, done + step)
            passes.cfr_plus(t.kind, t.first, t.count, t.prob, t.mask[0], t.mask[1], t.row,
                            t.row_kid, t.row_next, t.row_prob, t.row_count, t.term, t.payoff,
                            t.game.z, done + 1, last, roots[0], roots[1], opp, alt_, sup, sigma,
                            regret, avg, run.reach[0], run.reach[1], run.values[0],
                            run.values[1], ent, g_regret, enter_avg)
            each = (time.perf_counter() - began) / (last - done)
            step = max(1, int(CHUNK_SECONDS / max(each, 1e-9)))
            done = last
            if progress is not None:
                progress(done, iterations)
    else:
        if t.leaves.size:  # leafless, the loop stays the numba loop's passes (tests compare)
            run.restrict(roots, keep)
        for it in range(1, iterations + 1):
            for seat in (0, 1):
                run.reaches(sigma, roots)
                v = run.evaluate(seat, sigma)
                if run.live is not None:
                    passes.regrets_live(seat, t.kind, t.first, t.row, t.row_kid, t.row_next,
                                        t.row_count, v, run.reach[seat], float(it), regret,
                                        sigma, avg, *run.live[seat])
                else:
                    passes.regrets(seat, t.kind, t.first, t.row, t.row_kid, t.row_next,
                                   t.row_count, v, run.reach[seat], float(it), regret, sigma,
                                   avg)
                if gadget and seat == opp:
                    passes.gadget_step(it, alt, v[0], enter, g_regret, enter_avg)
                    roots[opp] = enter * support
            if progress is not None:
                progress(it, iterations)
    del regret  # the loop's tables go before the solution's arrays come (a whole game's: GBs)
    strategy = np.zeros(shape)
    passes.normalise(t.kind, t.row, t.row_count, avg, sigma, strategy)
    del sigma, avg
    final_enter = None
    if gadget:
        final_enter = enter_avg / (iterations * (iterations + 1) / 2)
        roots[opp] = final_enter * support
    return _solution(run, strategy, roots, final_enter, iterations)


def _solution(run: _Run, strategy: np.ndarray, roots, enter: np.ndarray | None,
              iterations: int) -> Solution:
    """``strategy``'s reaches from ``roots``, both seats' values and best-response values."""
    run.reaches(strategy, roots)
    values = (run.evaluate(0, strategy).copy(), run.evaluate(1, strategy).copy())
    best = (run.evaluate(0, strategy, best=True).copy(),
            run.evaluate(1, strategy, best=True).copy())
    return Solution(run.t, strategy, (run.reach[0], run.reach[1]), values, best, enter, iterations)


def fixed(tree: Subtree, strategy: np.ndarray, ranges: tuple[np.ndarray, np.ndarray],
          value_function: ValueFunction | None = None) -> Solution:
    """A given ``strategy`` on ``tree`` as a solution (0 iterations): its reaches from the
    root ``ranges``, values and best-response values (what a later re-solve's gadget keeps)."""
    _require("a fixed strategy's values", tree, 0, 4)
    run = _Run(tree, value_function)
    if value_function is not None and hasattr(value_function, "reset"):
        value_function.reset()
    return _solution(run, strategy, [np.asarray(r, float) for r in ranges], None, 0)


def values_from(tree: Subtree, strategy: np.ndarray, node: int,
                ranges: tuple[np.ndarray, np.ndarray], seat: int,
                value_function: ValueFunction | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``seat``'s counterfactual values at ``node`` and below when both seats play the fixed
    ``strategy`` (no CFR update) from the ranges ``ranges`` (seat order) at ``node``, and
    the other seat's reach there (what normalises them): one forward pass a seat, one
    backward pass, exact at terminals, the leaves valued by ``value_function`` at the new
    leaf ranges (not reset: a function that keeps the games of its last solve of ``tree``
    values them at these ranges). Where a solve's ranges are not the ones a value is wanted
    against (a search agent's re-solve: what the opponent can hold, through the gadget; its
    values wanted against its model of the opponent). Both arrays (nodes, n): 0 at the nodes
    not below ``node``."""
    _require("the values of a fixed strategy", tree, 0, 2)
    run = _Run(tree, value_function)
    run.reaches(strategy, [np.asarray(r, float) for r in ranges], node)
    return run.evaluate(seat, strategy), run.reach[1 - seat]


def best_response_value(tree: Subtree, strategy: np.ndarray, seat: int) -> float:
    """The value to ``seat`` of a best response to the other seat's rows of ``strategy`` on
    ``tree`` (a tree to the end of the game, from the game's prior ranges at its root)."""
    run = _Run(tree, None)
    w = tree.game.weights
    run.reaches(strategy, w)
    v = run.evaluate(seat, strategy, best=True)
    return float(w[seat] @ v[0])


def profile_value(tree: Subtree, strategy: np.ndarray) -> float:
    """Seat 0's expected payoff when both seats play ``strategy`` from the prior ranges."""
    run = _Run(tree, None)
    w = tree.game.weights
    run.reaches(strategy, w)
    return float(w[0] @ run.evaluate(0, strategy)[0])


def committed_blueprint(game: GameModel, iterations: int, full: Subtree | None = None,
                        max_nodes: int = GAME_NODES,
                        say: Callable[[str], None] | None = None) -> CommittedValues:
    """The committed blueprint's leaf values: :class:`CommittedValues` of ``iterations`` CFR+
    iterations (:func:`solve`) on the whole game's tree ``full``
    (built here, up to ``max_nodes`` public nodes, where not given). One recipe for every
    benchmark that measures against these leaves (``train_values_rounds.py``'s round 0's), so
    that they all mean the same values. ``say``: where the solve tells how far it is
    (:func:`solve_progress`; minutes on Agent Hunter ``small``)."""
    if full is None:
        full = build(game, max_nodes=max_nodes)
    progress = None if say is None else solve_progress(
        say, "the committed blueprint (the whole game)", full, iterations)
    return CommittedValues(full, solve(full, game.weights, iterations,
                                       progress=progress).strategy)


def beats(say: Callable[[str], None], head: str) -> Ticker:
    """A :class:`~spycfr.ticking.Ticker` (not started) that says ``head``, the seconds spent
    and the RSS every PROGRESS_AGAIN seconds after PROGRESS_AFTER (read when it is made):
    the search agent's slow steps (``SearchAgent.beating``, a solve's first iteration valuing
    its leaves) and benchmarks/train_values_rounds.py's whole-game tree, alike."""

    def beat(seconds: float) -> None:
        say(f"{head} {seconds:.0f} s, RSS {memory.size_text(memory.rss_bytes())}")

    return Ticker(beat, max(PROGRESS_AGAIN, 0.1), first=PROGRESS_AFTER)


def solve_progress(say: Callable[[str], None], what: str, tree: Subtree, total: int,
                   valuing: Ticker | None = None) -> Callable[[int, int], None]:
    """A :func:`solve`'s ``progress`` callback that says, PROGRESS_AFTER seconds into the
    solve and then every PROGRESS_AGAIN seconds (both read when it is made), the CFR+
    iterations done of ``total``, the seconds spent, the RSS and the time left (from the
    iterations after the first, which may value leaves that later ones read from a
    cache); it stops ``valuing`` (a ticker that says the first iteration values the leaves)
    at its first call. The search agent's solves and the committed blueprint's say their
    progress with it."""
    again = PROGRESS_AGAIN  # read once, when the callback is made
    start = time.perf_counter()
    due, first = [start + PROGRESS_AFTER], [0.0]

    def tick(done: int, _: int) -> None:
        now = time.perf_counter()
        if valuing is not None:  # the first iteration is over (stop: at once after it)
            valuing.stop()
        if done == 1:  # the first iteration also computes leaf values that are cached
            first[0] = now - start
        if now < due[0] or done == total:
            return
        due[0] = now + again
        spent = now - start
        if done > 1:
            left = f"about {(spent - first[0]) * (total - done) / (done - 1):.0f} s to go"
        elif tree.leaves.size:
            left = "the first iteration also values the leaves"
        else:
            left = "the time left follows from the next iterations"
        say(f"solving {what} ({tree.size:,} public nodes): {done}/{total} CFR+ "
            f"iterations, {spent:.0f} s, RSS {memory.size_text(memory.rss_bytes())}, {left}")

    return tick
