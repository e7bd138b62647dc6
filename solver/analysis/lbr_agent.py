"""Local best response against a search agent (:mod:`spycfr.search.agent`): the game loop,
its beliefs and the agent's re-solves at the particles.

The LBR of :mod:`spycfr.analysis.lbr` with another source of the opponent's strategy. The
agent has no table to read at every history: it re-solves in Python as the game goes. But
what LBR's belief needs is the agent's move probabilities at the histories LBR cannot tell
apart, and those all share the public state where the agent has just re-solved: its
re-solved strategy gives a row for every private state it may hold (the public belief that
the agent's own range tracking plays from). So the game loop runs here in Python, with the
same numba kernels and the same random streams as the table path: at an agent's decision
the agent re-solves and plays for its actual private state, and every particle of LBR's
belief is weighted by the re-solved strategy's probability of the move for the particle's
private state (:func:`_particle_edges`, the action-to-edge mapping of
``AgentGame.move_info``).
Nothing is read from the agent's true private state: where the agent's leaf values look at
its own cards (rollout leaves over their budget value only the actual cards' rows by games,
every other row as it stands), its re-solve's rows of other private states are not what
the agent holding those would play, and reading them would tell LBR the actual cards. So
there the subgame is re-solved for LBR from the private states its particles hold, each
state's rows valued by that state's own games (``Continuations.focus_each``: a row's games
depend on the row, the leaf, the opposing range and the seed only), which gives each state
the row the agent holding it computes (a test checks it, for two different actual hands).
Likewise for the moves an agent allows itself (``AgentConfig.needs_only``): it cuts its row
at its re-solve's root by its actual cards' needs, so LBR cuts each particle's row by that
particle's own (the game's ``needed_moves`` hook at the particle's rules state) and takes
the row from a re-solve as the agent holding those cards makes it, the actual cards' cut
undone meanwhile (:meth:`AgentOpponent.particle_rows`).

LBR's playouts after the action valued cannot re-solve (thousands per decision): the agent
is replaced there by a fixed player, the rollout policy (the game's heuristic by default).
The playouts only choose LBR's moves; its result is the real outcome of real games against
the agent, so it stays a lower bound on the agent's exploitability however the playouts
play. The same loop with a table player as the opponent replays the table path game for
game (a test checks it).

Long runs of many games (tasks, the file of finished games, Dask):
:mod:`spycfr.analysis.lbr_agent_dask`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np
from numba import njit

from spycfr.analysis.headtohead import (
    TABLE,
    Player,
    player_args,
    player_probs,
)
from spycfr.analysis.lbr import (
    BELIEF_CAP,
    COMPACTED,
    RESAMPLE_SALT,
    choose_action,
    compact_belief,
    play_lbr_games,
    two_player_params,
    update_belief,
)
from spycfr.cfr.mccfr_kernels import advance_keys
from spycfr.engine import protocol as P
from spycfr.engine.playout import node_moves
from spycfr.engine.rng import fmix, game_stream, next_u64, root_key, sample, uniform
from spycfr.public import protocol as pp
from spycfr.tree import CHANCE, TERMINAL
from spycfr.tree.kernels import same_values

CACHE_SIZE = 64  # particle re-solves kept per process (a few MB each on standard)


# --- the kernels the Python loop calls ------------------------------------------------------

@njit(cache=True)
def _setup(params):
    """The buffers of one game (as :func:`spycfr.analysis.lbr.play_lbr_games` makes them)."""
    max_act = max(P.max_actions(params), 2)
    cur = P.initial_state(params)
    seats = P.num_seats(params)
    cap = 64
    bs = np.empty((cap, cur.shape[0]), dtype=cur.dtype)
    bh = np.empty((cap, seats), dtype=np.int64)
    work = (np.empty_like(cur), np.empty_like(cur), np.empty(seats, dtype=np.int64),
            np.empty(max_act, dtype=np.int32), np.empty(max_act), np.empty(1, dtype=np.uint64))
    return cur, bs, bh, np.empty(cap), work


@njit(cache=True)
def _observation(params, state, action, seat):
    return P.observation(state, params, action, seat)


@njit(cache=True)
def _player_move(player, state, params, h, acts, k, probs):
    player_probs(player, state, params, P.current_seat(state, params), h, acts, k, probs)


@njit(cache=True)
def _below(pub, first, count, c, here, steps, stack, depth):
    """Whether ``here`` is node ``c``'s public state or one at most ``steps`` below it
    (``stack`` and ``depth``: scratch of the tree's size)."""
    top = 0
    stack[0], depth[0] = c, 0
    while top >= 0:
        x, d = stack[top], depth[top]
        top -= 1
        if same_values(pub[x], here):
            return True
        if d < steps:
            for y in range(first[x], first[x] + count[x]):
                top += 1
                stack[top], depth[top] = y, d + 1
    return False


@njit(cache=True)
def _particle_edges(params, seat, bs, n, s, pub, first, count, row_kid, row_next, row_count,
                    max_act, steps):
    """Each particle's legal actions and the edge of its private state's row each takes at
    node ``s`` of the agent's subgame (-1: none): an action's public successor and next
    private state name the edge (the successor is the edge's child or at most ``steps``
    public steps below it: the move's signals), as ``AgentGame.move_info`` reads them.
    Returns (actions, edges: both (n, max_act); the actions' counts; the private states)."""
    acts = np.zeros((n, max_act), dtype=np.int32)
    where = np.full((n, max_act), -1, dtype=np.int64)
    ks = np.empty(n, dtype=np.int64)
    privates = np.empty(n, dtype=np.int64)
    nxt = np.empty_like(bs[0])
    here = np.empty_like(pub[0])
    stack = np.empty(pub.shape[0] + 1, dtype=np.int64)
    depth = np.empty(pub.shape[0] + 1, dtype=np.int64)
    for x in range(n):
        i = pp.private_of_history(bs[x], params, seat)
        privates[x] = i
        k = P.legal_actions(bs[x], params, acts[x])
        ks[x] = k
        for a in range(k):
            P.apply_action(bs[x], params, acts[x, a], nxt)
            pp.public_of_history(nxt, params, here)
            j = pp.private_of_history(nxt, params, seat)
            for e in range(row_count[i]):
                if row_next[i, e] == j and _below(pub, first, count, first[s] + row_kid[i, e],
                                                  here, steps, stack, depth):
                    where[x, a] = e
                    break
    return acts, where, ks, privates


@njit(cache=True)
def _row_probs(where, ks, rows):
    """(n, max_act): each particle's probability of each legal action from its strategy row
    ``rows[x]`` (over the edges of :func:`_particle_edges`), actions of one edge sharing it;
    uniform where none takes an edge with probability (as ``AgentGame.move_info``, which
    the agent plays by)."""
    n, max_act = where.shape
    out = np.zeros((n, max_act))
    hits = np.zeros(rows.shape[1] + 1, dtype=np.int64)
    for x in range(n):
        k = ks[x]
        hits[:] = 0
        for a in range(k):
            if where[x, a] >= 0:
                hits[where[x, a]] += 1
        total = 0.0
        for a in range(k):
            if where[x, a] >= 0:
                out[x, a] = rows[x, where[x, a]] / hits[where[x, a]]
                total += out[x, a]
        for a in range(k):
            out[x, a] = out[x, a] / total if total > 0 else 1.0 / k
    return out


@njit(cache=True)
def _privates(params, seat, bs, n):
    """Each particle's private state of ``seat``."""
    out = np.empty(n, dtype=np.int64)
    for x in range(n):
        out[x] = pp.private_of_history(bs[x], params, seat)
    return out


def _focused(values):
    """The value function (or the one it wraps) that values chosen private states by their
    own games (``focus_each``), or None: then no row depends on the agent's actual cards."""
    inner = getattr(values, "inner", values)
    return inner if hasattr(inner, "focus_each") else None


# --- the opponent: a table player or a search agent -----------------------------------------

class TableOpponent:
    """A numba player (a table, a heuristic) as the opponent of the Python loop: its moves,
    its probabilities at the particles and its playouts are all the player itself."""

    def __init__(self, player: Player) -> None:
        self.args = player_args(player)
        self.rollout = self.args

    def game(self, seat: int) -> TableOpponent:
        return self

    def move(self, params, state, h, acts, k, probs) -> None:
        _player_move(self.args, state, params, h, acts, k, probs)

    def observe(self, state) -> None:
        pass

    def particle_rows(self, params, bs, bw, n, width) -> np.ndarray:
        return np.zeros((0, 0))  # none: update_belief asks the player at each particle


class AgentOpponent:
    """A search agent as the opponent: one :class:`~spycfr.search.agentgame.AgentGame` per game,
    the playouts played by ``rollout`` (a numba player)."""

    def __init__(self, agent, rollout: Player, max_states: int | None = None,
                 cache: dict | None = None) -> None:
        self.agent = agent
        self.rollout = player_args(rollout)
        self.args = self.rollout  # unused at the particles: particle_rows gives them
        self.max_states = max_states
        self.cache = {} if cache is None else cache
        self.view: Any = None
        # one game's decisions with the particles' rows re-solved, those read from the
        # cache, solves, decisions not exact, the largest belief mass left unvalued
        self.decisions = self.cached = self.solves = self.approximate = 0
        self.unvalued_mass = 0.0

    def game(self, seat: int) -> AgentOpponent:
        out = AgentOpponent.__new__(AgentOpponent)
        out.__dict__.update(self.__dict__)
        out.decisions = out.cached = out.solves = out.approximate = 0
        out.unvalued_mass = 0.0
        out.view = self.agent.game(seat)
        self.last = out  # the counters of the game played last
        return out

    def move(self, params, state, h, acts, k, probs) -> None:
        probs[:k] = self.view.policy(state)

    def observe(self, state) -> None:
        self.view.observe(state)

    def particle_rows(self, params, bs, bw, n, width) -> np.ndarray:
        # imported here, not at the top: a module importing numba makes every module it
        # imports at the top a kernel source (spycfr._numba_cache), and an edit of the
        # agent should not cost every user a recompile of all kernels
        from spycfr.search.agentgame import SIGNAL_STEPS, cut_row, restore_row

        v = self.view
        t, s = v.sol.tree, v.s
        if t.kind[s] != v.seat:
            raise RuntimeError("the agent's subgame is not at its decision")
        q = t.row[s]
        # the particles are states of the rules (``params``); their private states and moves
        # are read in the agent's own model, which may number them more coarsely (Agent
        # Avenue's full game forgets discards: 331 hands a seat, not 108,901)
        params = self.agent.model.params
        # a re-solve here with the agent's row cut to what its cards need (needs_only):
        # each particle's row is cut by its own cards instead, the actual cards' row whole
        # meanwhile (the agent's tree as it was after)
        needed = v.needed if v.needed is not None and v.needed.sol is v.sol and s == 0 \
            else None
        undo = None  # the actual cards' cut (row, its whole tables, the entries kept)
        if needed is not None and needed.whole is not None and needed.kept is not None:
            undo = (needed.row, needed.whole, needed.kept)
            restore_row(t, needed.row, needed.whole)
        try:
            acts, where, ks, privates = _particle_edges(
                params, np.int64(v.seat), bs, np.int64(n), np.int64(s), t.pub, t.first,
                t.count, t.row_kid[q], t.row_next[q], t.row_count[q], np.int64(width),
                np.int64(SIGNAL_STEPS))
            cuts = None if needed is None else self._needed_cuts(bs, n, acts, where, ks)
            if v.sol is not v.plan and _focused(v.leaves) is not None:
                rows = self._focused_rows(bw[:n], privates, cuts)
            elif cuts is None:
                rows = v.sol.strategy[q][privates]
            else:
                rows = self._needed_rows(privates, *cuts)
        finally:
            if undo is not None:
                cut_row(t, undo[0], undo[2])
        return _row_probs(where, ks, rows)

    def _needed_cuts(self, bs, n: int, acts: np.ndarray, where: np.ndarray, ks: np.ndarray
                     ) -> tuple[np.ndarray, list[np.ndarray]]:
        """Each particle's cut, as the agent holding its cards cuts its row
        (``AgentGame._needed_only``: the game's needed_moves hook at the particle's own
        rules state): an index into the list of cuts returned (each the entries a row
        keeps), -1 where its row stays whole."""
        from spycfr.search.agentgame import needed_entries

        seat = self.view.seat
        cuts: list[np.ndarray] = []
        index: dict[bytes, int] = {}
        seen: dict[bytes, int] = {}  # each rules state's cut (one hook call a state)
        out = np.empty(n, np.int64)
        for x in range(n):
            state = bs[x].tobytes()
            if state not in seen:
                keep = needed_entries(self.agent, bs[x], seat, acts[x, :ks[x]],
                                      where[x, :ks[x]])
                if keep is None:
                    seen[state] = -1
                else:
                    seen[state] = index.setdefault(keep.tobytes(), len(cuts))
                    if seen[state] == len(cuts):
                        cuts.append(keep)
            out[x] = seen[state]
        return out, cuts

    def _needed_rows(self, privates: np.ndarray, cut: np.ndarray, cuts: list[np.ndarray]
                     ) -> np.ndarray:
        """Each particle's strategy row (whole numbering) where the agent's leaves do not
        look at its cards and it cut its row to what they need: the agent's re-solve run
        again (``AgentGame.solve_again``: its tree, ranges and gadget) once per private
        state and cut (``cut``: :meth:`_needed_cuts`), with that row cut alone, as the
        agent holding those cards solves; the rows need no cut share one solve (the
        agent's own where its row was whole). The rows depend on each other through the
        opponent's play, so the cuts are not made together."""
        from spycfr.search.agentgame import cut_row, restore_row

        v = self.view
        needed, t = v.needed, v.sol.tree
        q = t.row[0]
        rows = np.zeros((privates.size, t.row_kid.shape[2]))
        uncut = v.sol if needed.kept is None else None
        for j, c in sorted(set(zip(privates.tolist(), cut.tolist(), strict=True))):
            if c < 0:
                if uncut is None:
                    uncut = v.solve_again()
                    self.solves += 1
                row = uncut.strategy[q][j]
            elif j == needed.row and needed.kept is not None \
                    and np.array_equal(cuts[c], needed.kept):
                row = _widened(v.sol.strategy[q][j], cuts[c])
            else:
                whole = cut_row(t, j, cuts[c])
                try:
                    sol = v.solve_again((v.seat, j))
                finally:
                    restore_row(t, j, whole)
                self.solves += 1
                row = _widened(sol.strategy[q][j], cuts[c])
            rows[(privates == j) & (cut == c)] = row
        return rows

    def _focused_rows(self, weights: np.ndarray, privates: np.ndarray,
                      cuts: tuple[np.ndarray, list[np.ndarray]] | None) -> np.ndarray:
        """Each particle's strategy row (whole numbering) where the agent's leaves value its
        own cards by their games (:meth:`_particles_rows`, from the particles' mass per
        private state, ``weights``). With cuts (:meth:`_needed_cuts`) a private state's
        rows are cut by its particles' needs: in rounds, each a re-solve with every
        state's next cut at once (each state's rows valued by its own games, as
        :meth:`_particles_solve` re-solves them together uncut), so a state whose particles
        need different cuts (the model's numbering forgets what decides it: Agent Avenue's
        discards) takes one round for each."""
        size = self.agent.model.n[self.view.seat]
        if cuts is None:
            return self._particles_rows(np.bincount(privates, weights=weights,
                                                    minlength=size))[privates]
        cut, kept = cuts
        each: dict[int, list[int]] = {}
        for j, c in sorted(set(zip(privates.tolist(), cut.tolist(), strict=True))):
            each.setdefault(j, []).append(c)
        turn = np.array([each[j].index(c)
                         for j, c in zip(privates.tolist(), cut.tolist(), strict=True)], np.int64)
        rows = np.zeros((privates.size, self.view.sol.tree.row_kid.shape[2]))
        for r in range(int(turn.max(initial=-1)) + 1):
            here = turn == r
            mass = np.bincount(privates[here], weights=weights[here], minlength=size)
            got = self._particles_rows(mass, {j: kept[cs[r]] for j, cs in each.items()
                                              if len(cs) > r and cs[r] >= 0})
            rows[here] = got[privates[here]]
        return rows

    def _particles_rows(self, mass: np.ndarray, cuts: dict[int, np.ndarray] | None = None
                        ) -> np.ndarray:
        """The strategy rows at the agent's re-solve, each private state that LBR's belief
        gives mass (``mass`` per state) as the agent holding it computes it (cached per
        process: the same public state, states and opposing range give the same rows; the
        agent's first move as P1 is the same situation in every game); with ``cuts``
        (state: the entries its row keeps) those rows cut so in the re-solve, each given
        in the whole row's numbering (a cut move's probability 0)."""
        cuts = cuts or {}
        v = self.view
        states = np.flatnonzero(mass > 0)
        if self.max_states is not None:  # the heaviest states only (ties by index)
            states = np.sort(states[np.argsort(-mass[states], kind="stable")[:self.max_states]])
            self.unvalued_mass = max(self.unvalued_mass,
                                     float(1.0 - mass[states].sum() / mass.sum()))
        inner = _focused(v.leaves)
        deciding = _decides_at_leaves(inner)
        # a range reader, or the opponent's decision at the leaves (both read the agent's range)
        reading = getattr(inner, "reads_range", False) or deciding
        public = reading and getattr(inner, "reader_range", "own") == "public"
        # a range reader reads the belief's weights too; the public reader, rows drawn from
        # the live rows of the agent's range (the same whatever its cards: continuation); the
        # decision, the range's weights themselves (it answers the whole range)
        # the game's leaves are part of it: with the agent's detection option
        # (spycfr.search.styles) the same public state may be re-solved with either of two;
        # the entry holds them, so that no other leaves take their id while it is kept
        key = (id(v.leaves), v.sol.tree.pub[0].tobytes(), states.tobytes(),
               v.support.tobytes(), v.seat,
               np.asarray(v.mine, float).tobytes() if public and deciding else
               (v.mine > 0).tobytes() if public else
               mass[states].tobytes() if reading else b"",
               b"".join(np.int64(j).tobytes() + cuts[j].tobytes() + b";"
                        for j in sorted(cuts)))
        self.decisions += 1
        if key not in self.cache:
            if len(self.cache) >= CACHE_SIZE:
                self.cache.pop(next(iter(self.cache)))
            self.cache[key] = (*self._particles_solve(
                states, np.asarray(v.mine, float) if public else
                np.where(np.isin(np.arange(mass.size), states), mass, 0.0)
                if reading else None, cuts), v.leaves)
        else:
            self.cached += 1
        rows, exact, _ = self.cache[key]
        self.approximate += not exact
        return rows

    def _particles_solve(self, states: np.ndarray, mass: np.ndarray | None = None,
                         cuts: dict[int, np.ndarray] | None = None
                         ) -> tuple[np.ndarray, bool]:
        """(the rows, whether exact): the agent's subgame re-solved from the private states
        ``states`` (a range that says nothing of its actual cards) and what LBR can hold,
        each state's leaf games its own (``Continuations.focus_each``), in as few solves
        as the states' numbers of draws allow. Other states take the rows of those solves
        (their leaves scored as the value function's fallback scores them). Not exact
        where a state's games alone fit the value function's budget: the agent holding it
        may then have played every pair, from a range of its own. A range reader among
        the agent's opposing continuations reads the states weighted by LBR's belief
        ``mass`` (the agent's range as LBR knows it; the agent itself reads its own range's
        balance rows: docs/search.md), in the agent's rounds; a public range reader
        (``reader_range`` "public") reads rows drawn from the live rows of the agent's range
        (``mass`` is then that range), as the agent holding any state does, so the rows are
        exact, reading and all. With the opponent's decision at the leaves (``choice``
        "leaf"), which answers the whole range, the subgame is re-solved from ``mass``
        itself (the agent's range where public, LBR's belief else), not from ``states``
        alike. ``cuts`` (state: the entries its row keeps): those rows cut so in every
        solve, as the agent holding those cards cuts its own (AgentConfig.needs_only), and
        given in the whole row's numbering."""
        # imported here, as SIGNAL_STEPS above: at the top it would make the re-solve a
        # kernel source (it compiles nothing itself)
        from spycfr.search.agentgame import cut_row, restore_row

        cuts = cuts or {}
        t = self.view.sol.tree
        wholes = {j: cut_row(t, j, keep) for j, keep in cuts.items()}
        try:
            out, exact = self._particles_solve_cut(states, mass)
        finally:
            for j, whole in wholes.items():
                restore_row(t, j, whole)
        for j, keep in cuts.items():
            out[j] = _widened(out[j], keep)
        return out, exact

    def _particles_solve_cut(self, states: np.ndarray, mass: np.ndarray | None
                             ) -> tuple[np.ndarray, bool]:
        """:meth:`_particles_solve` on the tree as it stands (its rows cut)."""
        from spycfr.search.reading import solve_reading
        from spycfr.search.resolve import solve

        v, vf = self.view, self.view.leaves
        inner = _focused(vf)
        t, seat = v.sol.tree, v.seat
        if v.s != 0:
            raise RuntimeError("the agent is at a decision it did not re-solve")
        own = np.zeros(self.agent.model.n[seat])
        own[states] = 1.0
        ranges = (own, v.support) if seat == 0 else (v.support, own)
        out = np.zeros(v.sol.strategy[t.row[0]].shape)
        todo, exact, first = list(states), True, True
        deciding = mass is not None and _decides_at_leaves(inner)
        while todo:
            inner.focus_each(seat, todo, t, mass)
            if deciding:
                # the opponent's decision at the leaves answers the agent's range: the range
                # it re-solves from (the public reader's: the agent's own, `mass`), so that
                # every row is the one the agent holding it computes
                own[:] = mass  # (ranges holds own)
            else:
                own[getattr(inner, "public_rows", np.zeros(0, np.int64))] = 1.0
            # a partial, not a lambda: a function holding a function is read as a kernel
            # factory by the numba cache's source rules, which would count these imports
            sol = solve_reading(vf, t, functools.partial(
                solve, t, ranges, self.agent.config.iterations, vf))
            done = np.setdiff1d(todo, inner.deferred).astype(np.int64)
            if first:  # every row, the states not valued too
                out[:] = sol.strategy[t.row[0]]
            out[done] = sol.strategy[t.row[0]][done]
            one = np.zeros_like(own)
            one[todo[0]] = 1.0
            exact = (exact and set(done) <= set(inner.alone_over_budget)
                     and inner.one_sided(t, (one, v.support) if seat == 0 else (v.support, one)))
            todo, first = list(inner.deferred), False
            self.solves += 1
        return out, exact


def _widened(row: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """A strategy row over a row cut to its entries ``keep`` (:func:`~spycfr.search.
    agentgame.cut_row`) in the whole row's numbering: the cut entries 0."""
    out = np.zeros_like(row)
    out[keep] = row[:keep.size]
    return out


def _decides_at_leaves(inner) -> bool:
    """Whether the agent's focused leaves (``inner``: :func:`_focused`) choose the opponent's
    continuation as a decision at each leaf (``Continuations.choice`` "leaf", or "state":
    one per leaf and opposing private state)."""
    return getattr(inner, "choice", "row") in ("leaf", "state")


def play_game(params, me: int, opponent, roll, rollouts: int, seed: int, g: int,
              watch: Callable | None = None, cap: int | None = BELIEF_CAP,
              counts: dict | None = None) -> tuple[float, int, int]:
    """Game ``g`` of LBR as seat ``me`` against ``opponent`` (a TableOpponent or an
    AgentOpponent), LBR's playouts as ``roll`` (player_args): LBR's payoff, the largest
    belief (before compaction) and LBR's decisions with a choice. The loop of
    ``play_lbr_games`` step for step, so a table opponent gives the table path's games while
    the belief stays within ``cap`` particles (None: no cap); past it the belief is
    compacted (:func:`compact`, its merges and resamplings added to ``counts``). Where the
    resampled belief holds no history consistent with what LBR then sees ("depleted" in
    ``counts``), LBR plays the rest of the game as ``roll`` (from its own observations,
    as any player of the protocol): still a strategy, so still a bound.
    ``watch(view, bs, bw, n, state)`` (for checks) sees the belief after each move."""
    cur, bs, bh, bw, work = _setup(params)
    ns, nh, nw = np.empty_like(bs), np.empty_like(bh), np.empty_like(bw)
    acts, probs, nxt = np.empty_like(work[3]), np.empty_like(work[4]), np.empty_like(cur)
    h = np.array([root_key(s) for s in range(bh.shape[1])], dtype=np.int64)
    rng = np.array([game_stream(np.int64(seed), np.int64(g))], dtype=np.uint64)
    view = opponent.game(1 - me)
    keys = any(args[0] == TABLE for args in (view.args, view.rollout, roll))
    crng = np.array([fmix(rng[0] ^ np.uint64(RESAMPLE_SALT))], dtype=np.uint64)
    counts = {} if counts is None else counts
    resampled = counts.get("resampled", 0)
    bs[0], bh[0], bw[0], n = cur, h, 1.0, 1
    largest = decisions = 0
    while True:
        p, k = node_moves(cur, params, acts, probs)
        if p == TERMINAL:
            v = float(P.implementations(params)["returns_p1"](cur, params))
            return (v if me == 0 else -v), largest, decisions
        pre = np.zeros((0, 0))
        if p == CHANCE:
            j = sample(probs, k, uniform(rng))
        elif p == me and n == 0:  # the belief lost every history: LBR plays ``roll``
            _player_move(roll, cur, params, h, acts, k, probs)
            j = sample(probs, k, uniform(rng))
        elif p == me:
            base = np.uint64(next_u64(rng))
            j = 0
            if k > 1:
                j = choose_action(params, np.int64(me), view.rollout, roll, np.int64(rollouts),
                                  base, bs, bh, bw, np.int64(n), acts, np.int64(k), work)
                decisions += 1
        else:
            view.move(params, cur, h, acts, k, probs)
            j = sample(probs, k, uniform(rng))
            if n > 0:
                pre = view.particle_rows(params, bs, bw, n, probs.shape[0])
        act = acts[j]
        obs = _observation(params, cur, act, np.int64(me))
        if n > 0:
            ns, nh, nw, n = update_belief(params, np.int64(me), view.args, pre, obs, bs, bh,
                                          bw, np.int64(n), ns, nh, nw, work[3], work[4], nxt)
            n = int(n)
            if n == 0:
                if counts.get("resampled", 0) == resampled:
                    # the exact belief cannot lose the true history: a bug
                    raise ValueError("LBR belief: no history is consistent with the "
                                     "observations")
                # the draws left out every history consistent with what LBR saw
                counts["depleted"] = counts.get("depleted", 0) + 1
        bs, ns = ns, bs
        bh, nh = nh, bh
        bw, nw = nw, bw
        if ns.shape[0] < bs.shape[0]:
            ns, nh, nw = np.empty_like(bs), np.empty_like(bh), np.empty_like(bw)
        largest = max(largest, int(n))
        if cap is not None and n > cap:
            bs, bh, bw, ns, nh, nw, n = compact(bs, bh, bw, n, ns, nh, nw, keys, cap, crng,
                                                counts)
        advance_keys(params, cur, nxt, act, h)
        view.observe(cur)
        if watch is not None:
            watch(view, bs, bw, n, cur)


def compact(bs, bh, bw, n: int, ns, nh, nw, keys: bool, cap: int, rng,
            counts: dict) -> tuple:
    """The table path's compaction (:func:`spycfr.analysis.lbr.compact_belief`: merged, exact; if
    still over ``cap``, ``cap`` systematic draws seeded by ``rng``, not exact). Returns the
    buffers, the current first, and the count; ``counts`` gains "merged" and "resampled"
    (times each was done)."""
    rng = np.zeros(1, dtype=np.uint64) if rng is None else rng  # unread within the cap
    bs, bh, bw, ns, nh, nw, n, drawn = compact_belief(bs, bh, bw, np.int64(n), ns, nh, nw, keys,
                                                      np.int64(cap), rng)
    counts["merged"] = counts.get("merged", 0) + 1
    if drawn:
        counts["resampled"] = counts.get("resampled", 0) + 1
    return bs, bh, bw, ns, nh, nw, int(n)


def table_games(game, strategy: Player, me: int, seed: int, first: int, count: int,
                rollouts: int, roll: Player | None = None, cap: int = BELIEF_CAP
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Games first..first+count-1 of LBR as ``me`` against a table player, by the table path
    (numba) and by this module's loop, the belief capped at ``cap`` particles in both: (the
    payoffs of each, then each game's merges, resamplings and depletions of each), for the
    test that they agree."""
    params = two_player_params(game)
    rp = player_args(roll or strategy)
    numba, _, _, compacted = play_lbr_games(params, np.int64(me), player_args(strategy), rp,
                                            np.int64(rollouts), np.int64(seed), np.int64(first),
                                            np.int64(count), np.int64(cap))
    mine, counted = [], []
    for g in range(count):
        counts: dict = {}
        mine.append(play_game(params, me, TableOpponent(strategy), rp, rollouts, seed,
                              first + g, cap=cap, counts=counts)[0])
        counted.append([counts.get(k, 0) for k in COMPACTED])
    return numba, np.array(mine), compacted, np.array(counted, dtype=np.int64)
