"""Generic numba walks over a game of the protocol without building its tree: its bounds,
Knuth's estimate of its size, and random playouts checked against the protocol's contract."""

from __future__ import annotations

import numpy as np
from numba import njit

from spycfr.engine import protocol as P
from spycfr.engine.hashmap import hm_get_or_put, hm_new
from spycfr.engine.rng import fmix
from spycfr.tree import CHANCE, TERMINAL


@njit(cache=True, inline="always")
def node_moves(state, params, acts, probs):
    """(the player to move, its number of moves): chance's outcomes written into ``acts``
    with their probabilities into ``probs``, a team's legal actions into ``acts``, or none
    (TERMINAL, 0) at the end of the game."""
    p = P.current_player(state, params)
    if p == TERMINAL:
        return p, 0
    if p == CHANCE:
        return p, P.chance_outcomes(state, params, acts, probs)
    return p, P.legal_actions(state, params, acts)


@njit(cache=True)
def _bounds(params):
    return (P.initial_state(params), np.int64(P.max_actions(params)),
            np.int64(P.max_depth(params)), np.int64(P.num_seats(params)))


def game_bounds(params) -> tuple[int, int, int, int, np.dtype]:
    """(state size, max actions, max depth (-1: unbounded), seats, state dtype)."""
    root, max_act, depth, seats = _bounds(params)
    return int(root.shape[0]), max(int(max_act), 1), int(depth), int(seats), root.dtype


@njit(cache=True)
def _estimate_nodes(params, max_act, samples, seed):
    """Knuth's unbiased estimate of the node count: the mean over random root-to-leaf paths
    (every branch, chance included, picked uniformly) of 1 + b1 + b1*b2 + ..."""
    np.random.seed(seed)
    acts = np.empty(max_act, dtype=np.int32)
    probs = np.empty(max_act)
    cur = P.initial_state(params)
    nxt = np.empty_like(cur)
    total = 0.0
    for _ in range(samples):
        cur[:] = P.initial_state(params)
        weight = 1.0
        count = 1.0
        while True:
            _, k = node_moves(cur, params, acts, probs)
            if k <= 0:  # the end of the game (or a state without moves)
                break
            weight *= k
            count += weight
            P.apply_action(cur, params, acts[np.random.randint(k)], nxt)
            cur[:] = nxt
        total += count
    return total / samples


def estimate_nodes(params, samples: int = 2000, seed: int = 0) -> float:
    """An estimate of the number of nodes of the game's tree (random paths; no enumeration);
    infinite for an unbounded game."""
    _, max_act, depth, _, _ = game_bounds(params)
    if depth < 0:
        return float("inf")
    return float(_estimate_nodes(params, np.int64(max_act), np.int64(samples), np.int64(seed)))


# Status codes of check_playouts.
PLAYOUT_OK = 0
PLAYOUT_NO_ACTIONS = 1
PLAYOUT_TOO_MANY_ACTIONS = 2
PLAYOUT_BAD_CHANCE = 3
PLAYOUT_BAD_OBSERVATION = 4
PLAYOUT_TOO_DEEP = 5
PLAYOUT_BAD_RETURN = 6
PLAYOUT_BAD_SEAT = 7
PLAYOUT_PROBLEMS = ("ok", "a non-terminal state without actions or outcomes",
                    "more actions than max_actions", "chance probabilities not positive or "
                    "not summing to 1", "an observation code out of range",
                    "a path longer than max_depth", "a non-finite or non-zero-sum return",
                    "a seat out of range")


@njit(cache=True)
def check_playouts(params, n, seed):
    """Play ``n`` uniformly random games through the protocol, checking every step against
    its contract. Returns int64[5]: status (PLAYOUT_*), playouts done, deepest path, most
    actions seen, states visited."""
    np.random.seed(seed)
    max_act = P.max_actions(params)
    depth_bound = P.max_depth(params)
    seats = P.num_seats(params)
    acts = np.empty(max_act + 1, dtype=np.int32)
    probs = np.empty(max_act + 1)
    cur = P.initial_state(params)
    nxt = np.empty_like(cur)
    out = np.zeros(5, dtype=np.int64)
    for g in range(n):
        cur[:] = P.initial_state(params)
        depth = 0
        while True:
            p, k = node_moves(cur, params, acts, probs)
            out[4] += 1
            if p == TERMINAL:
                u = P.returns_p1(cur, params)
                if not np.isfinite(u):
                    out[0] = PLAYOUT_BAD_RETURN
                    return out
                break
            if p != CHANCE:
                seat = P.current_seat(cur, params)
                if seat < 0 or seat >= seats:
                    out[0] = PLAYOUT_BAD_SEAT
                    return out
            if k <= 0:
                out[0] = PLAYOUT_NO_ACTIONS
                return out
            if k > max_act:
                out[0] = PLAYOUT_TOO_MANY_ACTIONS
                return out
            out[3] = max(out[3], k)
            if p == CHANCE:
                total = 0.0
                for j in range(k):
                    if not probs[j] > 0.0:
                        out[0] = PLAYOUT_BAD_CHANCE
                        return out
                    total += probs[j]
                if abs(total - 1.0) > 1e-9:
                    out[0] = PLAYOUT_BAD_CHANCE
                    return out
            a = acts[np.random.randint(k)]
            for s in range(seats):
                code = P.observation(cur, params, a, s)
                if code < 0 or code >= (1 << P.OBS_BITS):
                    out[0] = PLAYOUT_BAD_OBSERVATION
                    return out
            P.apply_action(cur, params, a, nxt)
            cur[:] = nxt
            depth += 1
            if depth_bound >= 0 and depth > depth_bound:
                out[0] = PLAYOUT_TOO_DEEP
                return out
            out[2] = max(out[2], depth)
            if depth_bound < 0 and depth > 100_000:
                break  # an unbounded game: a long random game proves nothing more
        out[1] = g + 1
    return out


@njit(cache=True)
def _row_key(row):
    """A 63-bit hash of a state row (FNV-1a, then splitmix's finaliser)."""
    h = np.uint64(1469598103934665603)
    for x in row:
        h = (h ^ np.uint64(np.int64(x) & 0xFFFF)) * np.uint64(1099511628211)
    return np.int64(fmix(h) >> np.uint64(1))


@njit(cache=True)
def expand_consistent(params, states, seat, code, fixed=-1):
    """The distinct children of the rows of ``states`` whose observation for ``seat`` is
    ``code`` (every action or chance outcome tried, or only ``fixed`` when >= 0), with the
    action taken to each, in the order first found: how one seat's view of a game is
    followed over every hidden history consistent with it."""
    max_act = max(P.max_actions(params), 1)
    acts = np.empty(max_act, dtype=np.int32)
    probs = np.empty(max_act)
    n = states.shape[0]
    cap = max(n * 4, 16)
    out = np.empty((cap, states.shape[1]), dtype=states.dtype)
    taken = np.empty(cap, dtype=np.int64)
    child = np.empty_like(states[0])
    table, size = hm_new(2 * cap)
    m = 0
    for i in range(n):
        s = states[i]
        _, k = node_moves(s, params, acts, probs)  # none at the end of the game
        for j in range(k):
            if (fixed >= 0 and acts[j] != fixed) or \
                    P.observation(s, params, acts[j], seat) != code:
                continue
            P.apply_action(s, params, acts[j], child)
            at, inserted, table = hm_get_or_put(table, size, _row_key(child), m)
            if not inserted:
                same = True
                for q in range(child.shape[0]):
                    if out[at, q] != child[q]:
                        same = False
                        break
                if same:
                    continue  # a duplicate (a true hash collision just keeps both rows)
            if m == cap:
                cap *= 2
                bigger = np.empty((cap, states.shape[1]), dtype=states.dtype)
                bigger[:m] = out[:m]
                out = bigger
                more = np.empty(cap, dtype=np.int64)
                more[:m] = taken[:m]
                taken = more
            out[m] = child
            taken[m] = acts[j]
            m += 1
    return out[:m], taken[:m]
