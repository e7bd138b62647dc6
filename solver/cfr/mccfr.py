"""Monte-Carlo CFR (external and outcome sampling) straight on the Agent Hunter rules.

No tree is built: every iteration walks sampled trajectories of the numba rules
(:mod:`solver.games.agent_hunter.rules`), so variants far too large to enumerate can
be run. An infoset is keyed by a 63-bit hash of the acting player's observation
sequence (every ``observation(...)`` code that player received so far, folded with a
splitmix64-style mix from a per-player seed); by perfect recall this is exactly the
enumerator's infoset, up to hash collisions (about n**2 / 2**64 for n infosets).

Storage is a flat pool: an infoset gets a row of exactly its action count in the
``regret`` and ``ssum`` pools on first visit (offset ``inf_off``), so the 720-action
placement rows do not inflate the many small rows; a hash map (:mod:`solver.hashmap`)
maps key -> infoset id. The random generator is a splitmix64 stream whose state is
part of the checkpoint, so a resumed run is bit-identical to an uninterrupted one.

Schemes (Lanctot et al. 2009, alternating updates: P1's traversal then P2's, one
iteration = both):

- ``external``: the traverser's actions are all explored, the opponent's sampled from
  its current strategy (the game has no chance nodes); sampled regrets
  v(I,a) - v(I) at the traverser's nodes; the opponent's current strategy is added to
  its strategy sum at every sampled opponent node ("simple" averaging). One traversal
  visits about prod(traverser branching) nodes: fine for small and medium variants,
  astronomically many on ``standard`` (see :func:`estimate_es_nodes`).
- ``outcome``: one trajectory per traversal; the traverser samples from
  epsilon*uniform + (1-epsilon)*sigma, the opponent from sigma; importance-weighted
  regrets and stochastically weighted strategy sums, exactly as OpenSpiel's
  ``OutcomeSamplingSolver`` (no baseline).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from numba import njit

from solver.best_response import exploitability
from solver.errors import MemoryLimitReached, SpycfrError
from solver.games.agent_hunter import rules as R
from solver.games.agent_hunter.variant import Variant
from solver.hashmap import hm_get, hm_get_or_put, hm_new
from solver.tree import Tree

SCHEMES = ("external", "outcome")

# counts[] slots kept by the kernels.
C_NINF = 0  # infosets stored
C_POOL = 1  # pool entries used (sum of the stored infosets' action counts)
C_NODES = 2  # decision nodes visited (all iterations)
C_MISMATCH = 3  # lookups whose key was stored with another action count or player
N_COUNTS = 4

# Kernel status codes.
OK = 0
MISMATCH = 1
NEED_ROOM = 2  # returned between iterations: the caller grows the pool, then calls again

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_ADD = np.uint64(0x632BE59BD9B4E019)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S11 = np.uint64(11)
_S1 = np.uint64(1)
_TWO_M53 = 1.0 / 9007199254740992.0


# --- hashing and random numbers ------------------------------------------------------------


@njit(cache=True, inline="always")
def _fmix(z):
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@njit(cache=True)
def root_key(player):
    """Key of ``player``'s empty observation sequence (different for P1 and P2)."""
    return np.int64(_fmix(np.uint64(player + 1) * _GOLDEN + _ADD) >> _S1)


@njit(cache=True, inline="always")
def combine_key(h, code):
    """Key of an observation sequence extended by ``code`` (63 bits, never negative)."""
    z = np.uint64(h) * _GOLDEN + np.uint64(code) + _ADD
    return np.int64(_fmix(z) >> _S1)


@njit(cache=True, inline="always")
def _next_u64(rng):
    rng[0] += _GOLDEN
    return _fmix(rng[0])


@njit(cache=True, inline="always")
def _uniform(rng):
    """A double in [0, 1) from the splitmix64 stream ``rng`` (uint64[1], advanced)."""
    return np.float64(_next_u64(rng) >> _S11) * _TWO_M53


@njit(cache=True, inline="always")
def _sample(probs, k, u):
    """Index drawn from probs[:k] with the uniform ``u`` (rounding falls to the last k>0)."""
    acc = 0.0
    last = 0
    for a in range(k):
        p = probs[a]
        if p > 0.0:
            acc += p
            last = a
            if u < acc:
                return a
    return last


# --- the pool ----------------------------------------------------------------------------


@njit(cache=True)
def _grow_store(counts, max_act, inf_off, inf_nact, inf_player, inf_key, regret, ssum):
    """Room for one more infoset of up to ``max_act`` actions (arrays reallocated if needed)."""
    n_inf = counts[C_NINF]
    if n_inf + 1 > inf_off.shape[0]:
        cap = max(2 * inf_off.shape[0], 16)
        a = np.zeros(cap, dtype=np.int64)
        a[:n_inf] = inf_off[:n_inf]
        inf_off = a
        b = np.zeros(cap, dtype=np.int32)
        b[:n_inf] = inf_nact[:n_inf]
        inf_nact = b
        c = np.zeros(cap, dtype=np.int8)
        c[:n_inf] = inf_player[:n_inf]
        inf_player = c
        d = np.zeros(cap, dtype=np.int64)
        d[:n_inf] = inf_key[:n_inf]
        inf_key = d
    used = counts[C_POOL]
    if used + max_act > regret.shape[0]:
        cap = regret.shape[0]
        # Doubling while small, then 1.5x so that a large pool does not overshoot RAM.
        cap = 2 * cap if cap < (1 << 24) else cap + cap // 2
        cap = max(cap, used + max_act, 1024)
        r = np.zeros(cap)
        r[:used] = regret[:used]
        regret = r
        s = np.zeros(cap)
        s[:used] = ssum[:used]
        ssum = s
    return inf_off, inf_nact, inf_player, inf_key, regret, ssum


@njit(cache=True, inline="always")
def _lookup(table, tsize, key, k, player, counts, inf_off, inf_nact, inf_player, inf_key):
    """(infoset id, table) of ``key``, storing a zero row of ``k`` actions on first visit.

    The caller has reserved room (``_grow_store``). Returns id -1 if ``key`` is stored
    with another action count or player (a hash collision).
    """
    n_inf = counts[C_NINF]
    idx, inserted, table = hm_get_or_put(table, tsize, key, n_inf)
    if inserted:
        inf_off[n_inf] = counts[C_POOL]
        inf_nact[n_inf] = k
        inf_player[n_inf] = player
        inf_key[n_inf] = key
        counts[C_NINF] = n_inf + 1
        counts[C_POOL] += k
        return idx, table
    if inf_nact[idx] != k or inf_player[idx] != player:
        counts[C_MISMATCH] += 1
        return -1, table
    return idx, table


@njit(cache=True, inline="always")
def _regret_matching(regret, off, k, out):
    """out[:k] = positive regrets normalised, uniform if none is positive."""
    total = 0.0
    for a in range(k):
        r = regret[off + a]
        if r > 0.0:
            total += r
    if total > 0.0:
        for a in range(k):
            r = regret[off + a]
            out[a] = r / total if r > 0.0 else 0.0
    else:
        u = 1.0 / k
        for a in range(k):
            out[a] = u


# --- external sampling ---------------------------------------------------------------------


@njit(cache=True)
def _es_traverse(
    p, params, max_act, rng, counts, table, tsize, inf_off, inf_nact, inf_player, inf_key,
    regret, ssum, f_state, f_acts, f_sigma, f_vals, f_k, f_next, f_inf, f_h, acts, sigma,
    cur, nxt,
):
    """One external-sampling traversal for traverser ``p``; returns (status, value, arrays...).

    Explicit stack of the traverser's nodes (frames ``f_*``); the opponent's nodes are
    passed through by sampling, so they need no frame.
    """
    sign = 1.0 if p == 0 else -1.0
    S = R.STATE_SIZE
    root = R.initial_state(params)
    for q in range(S):
        cur[q] = root[q]
    h0 = root_key(0)
    h1 = root_key(1)
    depth = 0
    status = OK
    value = 0.0
    descend = True
    while True:
        if descend:
            # Walk down from cur until a terminal (value) or a traverser node (new frame).
            pushed = False
            while True:
                if R.is_terminal(cur, params):
                    value = sign * R.returns_p1(cur, params)
                    break
                pl = R.current_player(cur)
                k = R.legal_actions(cur, params, acts)
                counts[C_NODES] += 1
                if counts[C_NINF] + 1 > inf_off.shape[0] or (
                    counts[C_POOL] + max_act > regret.shape[0]
                ):
                    inf_off, inf_nact, inf_player, inf_key, regret, ssum = _grow_store(
                        counts, max_act, inf_off, inf_nact, inf_player, inf_key, regret, ssum
                    )
                key = h0 if pl == 0 else h1
                idx, table = _lookup(
                    table, tsize, key, k, pl, counts, inf_off, inf_nact, inf_player, inf_key
                )
                if idx < 0:
                    status = MISMATCH
                    break
                off = inf_off[idx]
                if pl == p:
                    _regret_matching(regret, off, k, f_sigma[depth])
                    for q in range(S):
                        f_state[depth, q] = cur[q]
                    for a in range(k):
                        f_acts[depth, a] = acts[a]
                    f_k[depth] = k
                    f_next[depth] = 0
                    f_inf[depth] = idx
                    f_h[depth, 0] = h0
                    f_h[depth, 1] = h1
                    depth += 1
                    pushed = True
                    break
                _regret_matching(regret, off, k, sigma)
                for a in range(k):
                    ssum[off + a] += sigma[a]
                i = _sample(sigma, k, _uniform(rng))
                act = acts[i]
                h0 = combine_key(h0, R.observation(cur, params, act, 0))
                h1 = combine_key(h1, R.observation(cur, params, act, 1))
                R.apply_action(cur, params, act, nxt)
                for q in range(S):
                    cur[q] = nxt[q]
            if status != OK:
                break
            if not pushed:
                # A value came back: hand it to the frame on top.
                if depth == 0:
                    break
                top = depth - 1
                f_vals[top, f_next[top]] = value
                f_next[top] += 1
            descend = False
            continue
        top = depth - 1
        j = f_next[top]
        if j < f_k[top]:
            act = f_acts[top, j]
            st = f_state[top]
            h0 = combine_key(f_h[top, 0], R.observation(st, params, act, 0))
            h1 = combine_key(f_h[top, 1], R.observation(st, params, act, 1))
            R.apply_action(st, params, act, cur)
            descend = True
            continue
        # All children done: sampled counterfactual regrets of this traverser node.
        k = f_k[top]
        off = inf_off[f_inf[top]]
        v = 0.0
        for a in range(k):
            v += f_sigma[top, a] * f_vals[top, a]
        for a in range(k):
            regret[off + a] += f_vals[top, a] - v
        depth -= 1
        value = v
        if depth == 0:
            break
        top = depth - 1
        f_vals[top, f_next[top]] = value
        f_next[top] += 1
    return status, value, table, inf_off, inf_nact, inf_player, inf_key, regret, ssum


# --- outcome sampling ----------------------------------------------------------------------


@njit(cache=True)
def _os_traverse(
    p, params, epsilon, max_act, rng, counts, table, tsize, inf_off, inf_nact, inf_player,
    inf_key, regret, ssum, path_inf, path_k, path_i, path_pl, path_opp, path_samp, path_sprob,
    path_policy, acts, splice, cur, nxt,
):
    """One outcome-sampling episode for traverser ``p``; returns (status, value, arrays...)."""
    sign = 1.0 if p == 0 else -1.0
    S = R.STATE_SIZE
    root = R.initial_state(params)
    for q in range(S):
        cur[q] = root[q]
    h0 = root_key(0)
    h1 = root_key(1)
    opp = 1.0  # reach of the non-traverser
    samp = 1.0  # probability of the sampled trajectory so far
    n = 0
    while not R.is_terminal(cur, params):
        pl = R.current_player(cur)
        k = R.legal_actions(cur, params, acts)
        counts[C_NODES] += 1
        if counts[C_NINF] + 1 > inf_off.shape[0] or counts[C_POOL] + max_act > regret.shape[0]:
            inf_off, inf_nact, inf_player, inf_key, regret, ssum = _grow_store(
                counts, max_act, inf_off, inf_nact, inf_player, inf_key, regret, ssum
            )
        key = h0 if pl == 0 else h1
        idx, table = _lookup(
            table, tsize, key, k, pl, counts, inf_off, inf_nact, inf_player, inf_key
        )
        if idx < 0:
            return MISMATCH, 0.0, table, inf_off, inf_nact, inf_player, inf_key, regret, ssum
        policy = path_policy[n]
        _regret_matching(regret, inf_off[idx], k, policy)
        if pl == p:
            u = epsilon / k
            for a in range(k):
                splice[a] = u + (1.0 - epsilon) * policy[a]
        else:
            for a in range(k):
                splice[a] = policy[a]
        i = _sample(splice, k, _uniform(rng))
        path_inf[n] = idx
        path_k[n] = k
        path_i[n] = i
        path_pl[n] = pl
        path_opp[n] = opp
        path_samp[n] = samp
        path_sprob[n] = splice[i]
        if pl != p:
            opp *= policy[i]
        samp *= splice[i]
        n += 1
        act = acts[i]
        h0 = combine_key(h0, R.observation(cur, params, act, 0))
        h1 = combine_key(h1, R.observation(cur, params, act, 1))
        R.apply_action(cur, params, act, nxt)
        for q in range(S):
            cur[q] = nxt[q]
    v = sign * R.returns_p1(cur, params)
    for d in range(n - 1, -1, -1):
        k = path_k[d]
        i = path_i[d]
        off = inf_off[path_inf[d]]
        policy = path_policy[d]
        cv = v / path_sprob[d]  # estimate of the sampled child's value, 0 for the others
        ve = policy[i] * cv
        w = path_opp[d] / path_samp[d]
        if path_pl[d] == p:
            for a in range(k):
                regret[off + a] -= ve * w
            regret[off + i] += cv * w
        else:
            # Stochastically weighted average: this player's own reach over the sample reach.
            for a in range(k):
                ssum[off + a] += w * policy[a]
        v = ve
    return OK, v, table, inf_off, inf_nact, inf_player, inf_key, regret, ssum


# --- iterations ----------------------------------------------------------------------------


@njit(cache=True)
def run_iterations(
    scheme, params, epsilon, n_iter, max_act, max_depth, rng, counts, table, tsize, inf_off,
    inf_nact, inf_player, inf_key, regret, ssum,
):
    """Run ``n_iter`` iterations (P1's traversal then P2's); returns (status, done, arrays...).

    Stops early with NEED_ROOM, between iterations, when the pool has less room than one
    outcome-sampling iteration could need (2 * max_depth rows of max_act): the Python side
    grows it in place (realloc, no copy) and checks its memory limit. An external-sampling
    traversal may still outgrow that room; it then grows the pool here (by copying).
    """
    S = R.STATE_SIZE
    acts = np.empty(max_act, dtype=np.int32)
    scratch = np.empty(max_act)
    cur = np.empty(S, dtype=np.int16)
    nxt = np.empty(S, dtype=np.int16)
    D = max_depth
    f_state = np.empty((D, S), dtype=np.int16)
    f_acts = np.empty((D, max_act), dtype=np.int32)
    f_sigma = np.empty((D, max_act))
    f_vals = np.empty((D, max_act))
    f_k = np.empty(D, dtype=np.int64)
    f_next = np.empty(D, dtype=np.int64)
    f_inf = np.empty(D, dtype=np.int64)
    f_h = np.empty((D, 2), dtype=np.int64)
    path_pl = np.empty(D, dtype=np.int64)
    path_opp = np.empty(D)
    path_samp = np.empty(D)
    path_sprob = np.empty(D)
    status = OK
    done = 0
    need_inf = 2 * D
    need_pool = 2 * D * max_act
    for _ in range(n_iter):
        if counts[C_NINF] + need_inf > inf_off.shape[0] or (
            counts[C_POOL] + need_pool > regret.shape[0]
        ):
            status = NEED_ROOM
            break
        for p in range(2):
            if scheme == 0:
                status, _v, table, inf_off, inf_nact, inf_player, inf_key, regret, ssum = (
                    _es_traverse(
                        p, params, max_act, rng, counts, table, tsize, inf_off, inf_nact,
                        inf_player, inf_key, regret, ssum, f_state, f_acts, f_sigma, f_vals,
                        f_k, f_next, f_inf, f_h, acts, scratch, cur, nxt,
                    )
                )
            else:
                status, _v, table, inf_off, inf_nact, inf_player, inf_key, regret, ssum = (
                    _os_traverse(
                        p, params, epsilon, max_act, rng, counts, table, tsize, inf_off,
                        inf_nact, inf_player, inf_key, regret, ssum, f_inf, f_k, f_next,
                        path_pl, path_opp, path_samp, path_sprob, f_sigma, acts, scratch,
                        cur, nxt,
                    )
                )
            if status != OK:
                break
        if status != OK:
            break
        done += 1
    return status, done, table, inf_off, inf_nact, inf_player, inf_key, regret, ssum


# --- read-outs -----------------------------------------------------------------------------


@njit(cache=True)
def _regret_sums(n_inf, inf_off, inf_nact, inf_player, regret):
    """Per player: sum over infosets of max_a max(R[I, a], 0)."""
    out = np.zeros(2)
    for j in range(n_inf):
        off = inf_off[j]
        best = 0.0
        for a in range(inf_nact[j]):
            if regret[off + a] > best:
                best = regret[off + a]
        out[inf_player[j]] += best
    return out


@njit(cache=True)
def _average_row(ssum, off, k, out):
    """out[:k] = normalised strategy sums, uniform if they sum to 0."""
    total = 0.0
    for a in range(k):
        total += ssum[off + a]
    if total > 0.0:
        for a in range(k):
            out[a] = ssum[off + a] / total
    else:
        for a in range(k):
            out[a] = 1.0 / k


# Status codes of _tree_strategy.
TREE_OK = 0
TREE_SPLIT = 1  # one tree infoset whose nodes have different observation keys
TREE_MERGED = 2  # two tree infosets with the same key
TREE_ACTIONS = 3  # a key stored by MCCFR with another action count


@njit(cache=True)
def _tree_strategy(
    first_child, num_children, node_player, node_infoset, node_action, n_tree_inf, max_a,
    params, table, inf_off, inf_nact, pool, average,
):
    """(status, info, rows, found): an MCCFR pool mapped onto the tree's infosets.

    ``average``: rows are normalised (the average strategy from ``pool`` = ssum, uniform
    where unseen), else copied raw (e.g. regrets, 0 where unseen). Depth-first over the
    tree, replaying the rules alongside to compute each node's observation keys;
    ``found`` counts the tree infosets MCCFR has stored.
    """
    S = R.STATE_SIZE
    strat = np.zeros((n_tree_inf, max_a))
    keyof = np.full(n_tree_inf, -1, dtype=np.int64)
    back, bsize = hm_new(2 * n_tree_inf + 16)
    found = 0
    cap = 1024
    st_node = np.empty(cap, dtype=np.int64)
    st_state = np.empty((cap, S), dtype=np.int16)
    st_h = np.empty((cap, 2), dtype=np.int64)
    st_node[0] = 0
    root = R.initial_state(params)
    for q in range(S):
        st_state[0, q] = root[q]
    st_h[0, 0] = root_key(0)
    st_h[0, 1] = root_key(1)
    sp = 1
    child = np.empty(S, dtype=np.int16)
    while sp > 0:
        sp -= 1
        node = st_node[sp]
        k = num_children[node]
        if k == 0:
            continue
        pl = node_player[node]
        j = node_infoset[node]
        key = st_h[sp, pl]
        if keyof[j] < 0:
            keyof[j] = key
            other, _ins, back = hm_get_or_put(back, bsize, key, j)
            if other != j:
                return TREE_MERGED, j, strat, found
            idx = hm_get(table, key, -1)
            if idx >= 0:
                if inf_nact[idx] != k:
                    return TREE_ACTIONS, j, strat, found
                if average:
                    _average_row(pool, inf_off[idx], k, strat[j])
                else:
                    for a in range(k):
                        strat[j, a] = pool[inf_off[idx] + a]
                found += 1
            elif average:
                for a in range(k):
                    strat[j, a] = 1.0 / k
        elif keyof[j] != key:
            return TREE_SPLIT, j, strat, found
        if sp + k > cap:
            while cap < sp + k:
                cap *= 2
            a1 = np.empty(cap, dtype=np.int64)
            a1[:sp] = st_node[:sp]
            st_node = a1
            a2 = np.empty((cap, S), dtype=np.int16)
            a2[:sp] = st_state[:sp]
            st_state = a2
            a3 = np.empty((cap, 2), dtype=np.int64)
            a3[:sp] = st_h[:sp]
            st_h = a3
        st = st_state[sp].copy()
        h0 = st_h[sp, 0]
        h1 = st_h[sp, 1]
        s = first_child[node]
        for c in range(k):
            act = node_action[s + c]
            R.apply_action(st, params, act, child)
            st_node[sp] = s + c
            for q in range(S):
                st_state[sp, q] = child[q]
            st_h[sp, 0] = combine_key(h0, R.observation(st, params, act, 0))
            st_h[sp, 1] = combine_key(h1, R.observation(st, params, act, 1))
            sp += 1
    return TREE_OK, 0, strat, found


@njit(cache=True)
def _knuth_es_nodes(params, max_act, probes, seed):
    """Knuth's estimate of the decision nodes one ES iteration visits (both traversals).

    A probe walks one random path (uniform actions everywhere, i.e. the opponent's
    first-iteration strategy) and adds, per node, the product of the traverser's branching
    factors above it: an unbiased estimate of the traversal size for that opponent.
    """
    S = R.STATE_SIZE
    rng = np.empty(1, dtype=np.uint64)
    rng[0] = _fmix(np.uint64(seed) + _ADD)
    acts = np.empty(max_act, dtype=np.int32)
    cur = np.empty(S, dtype=np.int16)
    nxt = np.empty(S, dtype=np.int16)
    total = 0.0
    for _ in range(probes):
        for p in range(2):
            root = R.initial_state(params)
            for q in range(S):
                cur[q] = root[q]
            weight = 1.0
            while not R.is_terminal(cur, params):
                total += weight
                k = R.legal_actions(cur, params, acts)
                if R.current_player(cur) == p:
                    weight *= k
                i = min(int(_uniform(rng) * k), k - 1)
                R.apply_action(cur, params, acts[i], nxt)
                for q in range(S):
                    cur[q] = nxt[q]
    return total / probes


# --- Python API ----------------------------------------------------------------------------


def _check_variant(variant: Variant) -> None:
    if not isinstance(variant, Variant):
        raise SpycfrError(f"MCCFR needs an agent-hunter Variant, got {type(variant).__name__}")
    if variant.max_turns is None:
        raise SpycfrError(
            "agent-hunter with unbounded max_turns is an infinite game: give --max-turns"
        )


def max_depth(variant: Variant) -> int:
    """Bound on the decisions of one play: 2 placements + per turn a move and a refill."""
    return 2 + 2 * int(variant.max_turns) + 1


def estimate_es_nodes(variant: Variant, probes: int = 200, seed: int = 0) -> float:
    """Estimated decision nodes visited by ONE external-sampling iteration (an estimate)."""
    _check_variant(variant)
    return float(_knuth_es_nodes(variant.to_array(), np.int64(R.max_actions(variant)),
                                 np.int64(probes), np.int64(seed)))


REGRET_BOUND_KIND = "regret bound estimate from sampled regrets (not an exact best response)"


@dataclass
class MCCFRResult:
    """Outcome of :meth:`MCCFRSolver.solve`; ``log`` rows: (iteration, seconds, value).

    ``value`` is the exact exploitability when ``kind == "exact"``, otherwise the regret
    bound ESTIMATE (``kind`` spells that out).
    """

    iterations: int
    seconds: float
    value: float
    kind: str
    stopped_by: str
    log: list[tuple[int, float, float]] = field(default_factory=list)


class MCCFRSolver:
    """External- or outcome-sampling MCCFR on an Agent Hunter variant, no tree needed.

    ``epsilon`` is outcome sampling's exploration (ignored by external sampling).
    ``es_node_limit``: refuse external sampling when one iteration is estimated
    (:func:`estimate_es_nodes`) to visit more decision nodes than this (None: no check).
    ``memory_limit`` (bytes): :meth:`iterate` raises :class:`SpycfrError`, between two
    iterations (the state stays consistent), when the tables would grow beyond it.
    """

    def __init__(
        self,
        variant: Variant,
        scheme: str = "external",
        seed: int = 0,
        epsilon: float = 0.6,
        es_node_limit: float | None = 1e9,
        memory_limit: float | None = None,
    ) -> None:
        _check_variant(variant)
        if scheme not in SCHEMES:
            raise SpycfrError(f"unknown MCCFR scheme {scheme!r}; allowed: {', '.join(SCHEMES)}")
        if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or not (
            0 <= seed < 2**63
        ):
            raise SpycfrError(f"seed must be an integer 0..2**63-1, got {seed!r}")
        if not (isinstance(epsilon, int | float) and 0.0 < epsilon <= 1.0):
            raise SpycfrError(f"epsilon must be in (0, 1], got {epsilon!r}")
        self.variant = variant
        self.scheme = scheme
        self.seed = int(seed)
        self.epsilon = float(epsilon)
        self.memory_limit = memory_limit
        self._params = variant.to_array()
        self._max_act = int(R.max_actions(variant))
        self._max_depth = max_depth(variant)
        self.es_nodes_estimate: float | None = None
        if scheme == "external":
            self.es_nodes_estimate = estimate_es_nodes(variant)
            if es_node_limit is not None and self.es_nodes_estimate > es_node_limit:
                raise SpycfrError(
                    f"external sampling would visit about {self.es_nodes_estimate:.2g} nodes per "
                    f"iteration on {variant.describe()} (limit {es_node_limit:.2g}): use "
                    "outcome sampling or a smaller variant"
                )
        self._reset()
        self.seconds = 0.0
        self.log: list[tuple[int, float, float]] = []
        self.last_tree_coverage: float | None = None

    def _reset(self) -> None:
        self.iteration = 0
        self._rng = np.array([_fmix(np.uint64(self.seed) ^ _GOLDEN)], dtype=np.uint64)
        self._counts = np.zeros(N_COUNTS, dtype=np.int64)
        self._table, self._tsize = hm_new(1 << 10)
        self._inf_off = np.zeros(256, dtype=np.int64)
        self._inf_nact = np.zeros(256, dtype=np.int32)
        self._inf_player = np.zeros(256, dtype=np.int8)
        self._inf_key = np.zeros(256, dtype=np.int64)
        self._regret = np.zeros(max(4096, 2 * self._max_act))
        self._ssum = np.zeros_like(self._regret)

    # --- iterations -------------------------------------------------------------------
    def _run(self, n: int) -> None:
        left = n
        while True:
            (status, done, self._table, self._inf_off, self._inf_nact, self._inf_player,
             self._inf_key, self._regret, self._ssum) = run_iterations(
                0 if self.scheme == "external" else 1, self._params, self.epsilon,
                np.int64(left), np.int64(self._max_act), np.int64(self._max_depth), self._rng,
                self._counts, self._table, self._tsize, self._inf_off, self._inf_nact,
                self._inf_player, self._inf_key, self._regret, self._ssum,
            )
            self.iteration += int(done)
            left -= int(done)
            if status == MISMATCH:
                raise RuntimeError(
                    "MCCFR found two infosets with the same 63-bit observation hash "
                    "(a collision); rerun with another seed"
                )
            if status != NEED_ROOM:
                return
            self._grow()

    def _grow(self) -> None:
        """Room for at least one more iteration: grow the tables in place (realloc)."""
        d, ma = 2 * self._max_depth, self._max_act
        n, used = self.num_infosets, int(self._counts[C_POOL])
        cap = self._inf_off.shape[0]
        if n + d > cap:
            new = max(2 * cap, n + d)
            for name in ("_inf_off", "_inf_nact", "_inf_player", "_inf_key"):
                setattr(self, name, _resized(getattr(self, name), new))
        pcap = self._regret.shape[0]
        if used + d * ma > pcap:
            # Doubling while small, then +25% (the new part is zeroed, so committed to RAM).
            new = max(2 * pcap if pcap < (1 << 24) else pcap + pcap // 4, used + d * ma)
            if self.memory_limit is not None:
                extra = 16 * (new - pcap)
                if self.stats()["bytes_allocated"] + extra > self.memory_limit:
                    raise MemoryLimitReached(
                        f"MCCFR memory limit of {self.memory_limit / 2**30:.3g} GiB reached "
                        f"after {self.iteration} iterations ({n:,} infosets stored)"
                    )
            self._regret = _resized(self._regret, new)
            self._ssum = _resized(self._ssum, new)

    def warm_up(self) -> None:
        """Compile (or load from cache) the kernels without running an iteration."""
        self._run(0)

    def iterate(self, n: int = 1) -> None:
        """Run ``n`` more iterations (each = P1's traversal, then P2's)."""
        if n < 0:
            raise ValueError(f"iterations must be >= 0, got {n}")
        if n:
            t0 = time.perf_counter()
            self._run(int(n))
            self.seconds += time.perf_counter() - t0

    # --- read-outs --------------------------------------------------------------------
    @property
    def num_infosets(self) -> int:
        return int(self._counts[C_NINF])

    def stats(self) -> dict:
        """Sizes and counters: infosets stored, pool entries, decision nodes visited, bytes."""
        n, used = self.num_infosets, int(self._counts[C_POOL])
        players = self._inf_player[:n]
        arrays = (self._table, self._inf_off, self._inf_nact, self._inf_player, self._inf_key,
                  self._regret, self._ssum)
        return {
            "scheme": self.scheme,
            "iterations": self.iteration,
            "seconds": self.seconds,
            "infosets": n,
            "infosets_p1": int(np.count_nonzero(players == 0)),
            "infosets_p2": int(np.count_nonzero(players == 1)),
            "pool_entries": used,
            "nodes_visited": int(self._counts[C_NODES]),
            "bytes_allocated": int(sum(a.nbytes for a in arrays)),
            # Trimmed tables (what a checkpoint holds) plus the hash map.
            "bytes_used": int(21 * n + 16 * used + self._table.nbytes),
            "es_nodes_per_iteration_estimate": self.es_nodes_estimate,
        }

    def regret_bound(self) -> dict:
        """Average-regret bound from the SAMPLED regrets: an estimate, not an exact best response.

        CFR theory: NashConv(average) <= sum_p sum_I max_a R_T(I, a)^+ / T. Here R_T are
        the sampled regrets (unbiased per entry, noisy; infosets never sampled count 0),
        so the number is only an estimate of that bound.
        """
        t = max(self.iteration, 1)
        sums = _regret_sums(np.int64(self.num_infosets), self._inf_off, self._inf_nact,
                            self._inf_player, self._regret) / t
        nash_conv = float(sums[0] + sums[1])
        return {
            "kind": REGRET_BOUND_KIND,
            "regret_p1": float(sums[0]),
            "regret_p2": float(sums[1]),
            "nash_conv_bound_estimate": nash_conv,
            "exploitability_bound_estimate": nash_conv / 2.0,
        }

    def average_policy(self, key: int) -> np.ndarray | None:
        """Average strategy at the infoset with observation key ``key`` (None if never seen)."""
        idx = int(hm_get(self._table, np.int64(key), -1))
        if idx < 0:
            return None
        k = int(self._inf_nact[idx])
        out = np.empty(k)
        _average_row(self._ssum, self._inf_off[idx], k, out)
        return out

    def average_table(self) -> dict:
        """The whole average strategy, one row per stored infoset (for exports).

        ``key``/``player``/``num_actions``/``offset`` per infoset; ``policy`` is the flat
        pool of normalised rows (row j = policy[offset[j]:offset[j] + num_actions[j]],
        actions in ``rules.legal_actions`` order).
        """
        n, used = self.num_infosets, int(self._counts[C_POOL])
        off, nact = self._inf_off[:n].copy(), self._inf_nact[:n].copy()
        return {
            "key": self._inf_key[:n].copy(),
            "player": self._inf_player[:n].copy(),
            "num_actions": nact,
            "offset": off,
            "policy": _average_pool(np.int64(n), off, nact, self._ssum[:used]),
        }

    def strategy_on_tree(self, tree: Tree) -> np.ndarray:
        """See :func:`strategy_on_tree`."""
        return strategy_on_tree(self, tree)

    def solve(
        self,
        iterations: int | None = None,
        time_limit: float | None = None,
        check_every: int | None = None,
        tree: Tree | None = None,
        target_exploitability: float | None = None,
        progress: Callable[[int, float, float | None], None] | None = None,
    ) -> MCCFRResult:
        """Iterate until ``iterations`` more are done or ``time_limit`` seconds have passed.

        Every ``check_every`` iterations (and at the end) the log gets the EXACT
        exploitability if ``tree`` (the enumerated variant) is given, else the regret
        bound estimate (:meth:`regret_bound`); ``MCCFRResult.kind`` says which.
        ``target_exploitability`` needs ``tree`` (an estimate is no stopping proof).
        """
        if iterations is None and time_limit is None:
            iterations = 1000
        if iterations is not None and iterations < 1:
            raise SpycfrError(f"iterations must be >= 1, got {iterations}")
        if time_limit is not None and not time_limit > 0:
            raise SpycfrError(f"time limit must be > 0 seconds, got {time_limit}")
        if target_exploitability is not None and tree is None:
            raise SpycfrError(
                "a target exploitability needs an enumerable variant (exact best response); "
                "MCCFR on a variant that cannot be enumerated only has a regret bound estimate"
            )
        check_every = check_every or 1000
        if check_every < 1:
            raise SpycfrError(f"check-every must be >= 1, got {check_every}")
        kind = "exact" if tree is not None else REGRET_BOUND_KIND

        def measure() -> float:
            if tree is not None:
                return exploitability(tree, strategy_on_tree(self, tree))
            return self.regret_bound()["exploitability_bound_estimate"]

        self.warm_up()
        end = None if iterations is None else self.iteration + iterations
        seconds, since, batch, stopped, value = 0.0, 0, 1, "iterations", math.inf
        while True:
            step = check_every - since
            if end is not None:
                step = min(step, end - self.iteration)
            if time_limit is not None:
                step = min(step, batch)
            t0 = time.perf_counter()
            self.iterate(step)
            dt = time.perf_counter() - t0
            seconds += dt
            since += step
            if dt < 0.05:
                batch *= 2
            done = end is not None and self.iteration >= end
            out_of_time = time_limit is not None and seconds >= time_limit
            measured = None
            if since >= check_every or done or out_of_time:
                since = 0
                value = measured = measure()
                self.log.append((self.iteration, self.seconds, value))
            if progress is not None:
                progress(self.iteration, seconds, measured)
            if target_exploitability is not None and measured is not None and (
                value <= target_exploitability
            ):
                stopped = "target"
                break
            if done:
                break
            if out_of_time:
                stopped = "time"
                break
        return MCCFRResult(self.iteration, seconds, value, kind, stopped, list(self.log))

    # --- checkpoint -------------------------------------------------------------------
    def state_dict(self) -> dict:
        """Everything needed to resume bit-identically (arrays are trimmed copies)."""
        n, used = self.num_infosets, int(self._counts[C_POOL])
        return {
            "scheme": self.scheme,
            "seed": self.seed,
            "epsilon": self.epsilon,
            "iteration": self.iteration,
            "rng": self._rng.copy(),
            "counts": self._counts.copy(),
            "inf_off": self._inf_off[:n].copy(),
            "inf_nact": self._inf_nact[:n].copy(),
            "inf_player": self._inf_player[:n].copy(),
            "inf_key": self._inf_key[:n].copy(),
            "regret": self._regret[:used].copy(),
            "ssum": self._ssum[:used].copy(),
        }

    def load_state_dict(self, state: dict) -> None:
        """Restore a :meth:`state_dict` made by a solver with the same scheme, seed, epsilon."""
        for key in ("scheme", "seed", "epsilon"):
            value = state[key]
            value = value.item() if isinstance(value, np.ndarray) else value
            if value != getattr(self, key):
                raise SpycfrError(
                    f"checkpoint was made with {key}={value!r}, this solver has "
                    f"{getattr(self, key)!r}"
                )
        counts = np.asarray(state["counts"], dtype=np.int64).copy()
        n, used = int(counts[C_NINF]), int(counts[C_POOL])
        inf_off = np.asarray(state["inf_off"], dtype=np.int64)
        inf_nact = np.asarray(state["inf_nact"], dtype=np.int32)
        regret = np.asarray(state["regret"], dtype=np.float64)
        if inf_off.shape != (n,) or regret.shape != (used,) or (
            n and int(inf_off[-1]) + int(inf_nact[-1]) != used
        ):
            raise SpycfrError("checkpoint tables are inconsistent with their counters")
        self._reset()
        self.iteration = int(state["iteration"])
        self._rng[:] = np.asarray(state["rng"], dtype=np.uint64)
        self._counts[:] = counts
        cap = max(256, n)
        self._inf_off = np.zeros(cap, dtype=np.int64)
        self._inf_off[:n] = inf_off
        self._inf_nact = np.zeros(cap, dtype=np.int32)
        self._inf_nact[:n] = inf_nact
        self._inf_player = np.zeros(cap, dtype=np.int8)
        self._inf_player[:n] = np.asarray(state["inf_player"], dtype=np.int8)
        self._inf_key = np.zeros(cap, dtype=np.int64)
        self._inf_key[:n] = np.asarray(state["inf_key"], dtype=np.int64)
        pcap = max(used + self._max_act, 4096)
        self._regret = np.zeros(pcap)
        self._regret[:used] = regret
        self._ssum = np.zeros(pcap)
        self._ssum[:used] = np.asarray(state["ssum"], dtype=np.float64)
        self._table, self._tsize = _rebuild_table(self._inf_key, np.int64(n))


def _resized(a: np.ndarray, n: int) -> np.ndarray:
    """``a`` grown to ``n`` entries, the new ones zero: in place (realloc) when ``a`` owns
    its buffer, else copied (arrays allocated inside numba kernels)."""
    if a.flags.owndata and a.base is None:
        try:
            a.resize(n, refcheck=False)
            return a
        except (ValueError, SystemError):
            pass
    b = np.zeros(n, dtype=a.dtype)
    b[: a.shape[0]] = a
    return b


@njit(cache=True)
def _average_pool(n, inf_off, inf_nact, ssum):
    out = np.empty(ssum.shape[0])
    for j in range(n):
        _average_row(ssum, inf_off[j], inf_nact[j], out[inf_off[j]:])
    return out


@njit(cache=True)
def _rebuild_table(inf_key, n):
    table, size = hm_new(2 * n + 16)
    for j in range(n):
        _v, _ins, table = hm_get_or_put(table, size, inf_key[j], j)
    return table, size


def strategy_on_tree(solver: MCCFRSolver, tree: Tree) -> np.ndarray:
    """float64[n_infosets, max_actions]: ``solver``'s average strategy on an enumerated tree.

    ``tree`` must be the same variant (from ``enumerate.build_tree``); infosets MCCFR never
    visited get the uniform strategy. Lets the exact exploitability of an MCCFR run be
    measured with :func:`solver.best_response.exploitability` on small variants.
    """
    return _on_tree(solver, tree, solver._ssum, True)


def regrets_on_tree(solver: MCCFRSolver, tree: Tree) -> np.ndarray:
    """float64[n_infosets, max_actions]: ``solver``'s cumulative sampled regrets on the tree."""
    return _on_tree(solver, tree, solver._regret, False)


def _on_tree(solver: MCCFRSolver, tree: Tree, pool: np.ndarray, average: bool) -> np.ndarray:
    if tree.game != "agent-hunter" or tree.variant != solver.variant.as_dict():
        raise SpycfrError(
            f"tree of {tree.game} {tree.variant} does not match the solver's variant "
            f"{solver.variant.describe()}"
        )
    status, info, strat, found = _tree_strategy(
        tree.first_child, tree.num_children, tree.node_player, tree.node_infoset,
        tree.node_action, np.int64(tree.num_infosets), np.int64(max(tree.max_actions, 1)),
        solver._params, solver._table, solver._inf_off, solver._inf_nact, pool, average,
    )
    if status != TREE_OK:
        what = {
            TREE_SPLIT: "has nodes with different observation keys",
            TREE_MERGED: "shares its observation key with another infoset",
            TREE_ACTIONS: "has another action count than the MCCFR table",
        }[status]
        raise RuntimeError(f"tree infoset {info} {what}")
    solver.last_tree_coverage = int(found) / max(tree.num_infosets, 1)
    return strat


def time_run(solver: MCCFRSolver, seconds: float, batch: int = 1) -> dict:
    """Iterate for about ``seconds`` (batches grow to ~0.5 s); returns :meth:`stats`."""
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        t0 = time.perf_counter()
        solver.iterate(batch)
        if time.perf_counter() - t0 < 0.5:
            batch *= 2
    return solver.stats()


__all__ = [
    "SCHEMES", "MCCFRSolver", "MCCFRResult", "REGRET_BOUND_KIND", "strategy_on_tree",
    "regrets_on_tree", "estimate_es_nodes", "root_key", "combine_key", "max_depth", "time_run",
]
