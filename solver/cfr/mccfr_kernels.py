"""Numba kernels of Monte-Carlo CFR, generic over the game protocol (compiled per game).

An infoset is keyed by a 63-bit hash of the acting seat's observation sequence
(:mod:`spycfr.engine.rng`); by perfect recall this is exactly the enumerator's infoset,
up to hash collisions (about n**2 / 2**64 for n infosets).

Storage is a flat pool: an infoset gets a row of exactly its action count in the
``regret`` and ``ssum`` pools on first visit (offset ``inf_off``), so wide rows (720
placements) do not inflate the many small ones; a hash map (:mod:`spycfr.engine.hashmap`)
maps key -> infoset id.

Schemes (Lanctot et al. 2009; alternating updates: team 0's traversal then team 1's, one
iteration = both). Chance is sampled from its own distribution in both schemes (chance
sampling), so its probabilities cancel in the importance weights.

- ``external``: the traverser's actions are all explored, the opponent's and chance's
  sampled; sampled regrets v(I,a) - v(I) at the traverser's nodes; the opponent's current
  strategy is added to its strategy sum at every sampled opponent node ("simple"
  averaging).
- ``outcome``: one trajectory per traversal; the traverser samples from
  epsilon*uniform + (1-epsilon)*sigma, the opponent from sigma; importance-weighted
  regrets and stochastically weighted strategy sums, as OpenSpiel's
  ``OutcomeSamplingSolver`` (no baseline).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from spycfr.engine import protocol as P
from spycfr.engine.hashmap import (
    hm_get,
    hm_get_or_put,
    hm_get_or_put_in_room,
    hm_grow,
    hm_has_room,
    hm_new,
)
from spycfr.engine.rng import ADD, combine_key, fmix, root_key, sample, uniform
from spycfr.tree import CHANCE, TERMINAL

# counts[] slots kept by the kernels.
C_NINF = 0  # infosets stored
C_POOL = 1  # pool entries used (sum of the stored infosets' action counts)
C_NODES = 2  # decision nodes visited (all iterations)
C_MISMATCH = 3  # lookups whose key was stored with another action count or player
C_FROZEN = 4  # 1 once the table is full (memory limit, --when-full freeze): no new infosets
C_UNSTORED = 5  # decisions met at an infoset that was not stored (table full, or too deep)
N_COUNTS = 6
UNSTORED = -2  # _lookup's id of an infoset not stored (frozen table, or below the store depth)
FALLBACK_UNIFORM = 0  # an unstored infoset plays uniformly ...
FALLBACK_HEURISTIC = 1  # ... or as the game's heuristic player

# Kernel status codes.
OK = 0
MISMATCH = 1
NEED_ROOM = 2  # returned between iterations: the caller grows the pool, then calls again


# --- the pool ----------------------------------------------------------------------------
# The helpers called at every node that call no game function (_short_of_room, _lookup,
# _regret_matching) are compiled apart without reference counting (``_nrt=False``): inlined,
# or compiled with it, numba counts references to their arrays at every call (up to 1.16x
# slower iterations, benchmarks/README.md). They may neither allocate nor return an array. A
# helper that calls the game's functions stays inlined: a game function called from an
# ``_nrt=False`` helper would be compiled without reference counting too (and fail where it
# allocates).


@njit(cache=True)
def _grow_store(counts, max_act, table, tsize, inf_off, inf_nact, inf_player, inf_key, regret,
                ssum):
    """Room for one more infoset of up to ``max_act`` actions, in the hash map too (arrays
    reallocated where needed)."""
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
    if not hm_has_room(table, tsize, 1):
        table = hm_grow(table)
    return table, inf_off, inf_nact, inf_player, inf_key, regret, ssum


@njit(cache=True, _nrt=False)
def _short_of_room(counts, max_act, table, tsize, inf_off, regret):
    """Whether one more infoset of ``max_act`` actions would not fit (``_grow_store``)."""
    return counts[C_FROZEN] == 0 and (counts[C_NINF] + 1 > inf_off.shape[0]
                                      or counts[C_POOL] + max_act > regret.shape[0]
                                      or not hm_has_room(table, tsize, 1))


@njit(cache=True, _nrt=False)
def _lookup(table, tsize, key, k, player, counts, inf_off, inf_nact, inf_player, inf_key,
            storable):
    """The infoset id of ``key``, storing a zero row of ``k`` actions on first visit.

    The caller has made room (``_grow_store``). Returns -1 if ``key`` is stored with
    another action count or player (a hash collision), UNSTORED if the decision is not
    ``storable`` (deeper than the store depth), or if the table is frozen and ``key`` is not
    in it (the infoset then plays the fallback and learns nothing).
    """
    if not storable:
        counts[C_UNSTORED] += 1
        return UNSTORED
    if counts[C_FROZEN]:
        idx = hm_get(table, key, -1)
        if idx < 0:
            counts[C_UNSTORED] += 1
            return UNSTORED
    else:
        n_inf = counts[C_NINF]
        idx, inserted = hm_get_or_put_in_room(table, tsize, key, n_inf)
        if inserted:
            inf_off[n_inf] = counts[C_POOL]
            inf_nact[n_inf] = k
            inf_player[n_inf] = player
            inf_key[n_inf] = key
            counts[C_NINF] = n_inf + 1
            counts[C_POOL] += k
            return idx
    if inf_nact[idx] != k or inf_player[idx] != player:
        counts[C_MISMATCH] += 1
        return -1
    return idx


@njit(cache=True, _nrt=False)
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


@njit(cache=True, inline="always")
def _strategy(regret, off, k, out, fallback, state, params, acts):
    """Regret matching at a stored row (``off`` >= 0); at an unstored infoset the game's
    heuristic player with ``fallback`` == FALLBACK_HEURISTIC, else uniform."""
    if off >= 0:
        _regret_matching(regret, off, k, out)
    else:
        fallback_policy(fallback, state, params, acts, k, out)


@njit(cache=True, inline="always")
def fallback_policy(fallback, state, params, acts, k, out):
    """How an infoset that the table does not hold is played (see ``_strategy``)."""
    if fallback == FALLBACK_HEURISTIC:
        P.heuristic_policy(state, params, acts, k, out)
    else:
        for a in range(k):
            out[a] = 1.0 / k


@njit(cache=True, inline="always")
def advance_keys(params, cur, nxt, act, h):
    """cur <- the state after ``act``; every seat's key h[s] extended by its observation."""
    for s in range(h.shape[0]):
        h[s] = combine_key(h[s], P.observation(cur, params, act, s))
    P.apply_action(cur, params, act, nxt)
    cur[:] = nxt


@njit(cache=True, inline="always")
def _chance_step(params, rng, cur, nxt, acts, probs, h):
    """Sample a chance outcome at ``cur`` from its distribution and apply it."""
    k = P.chance_outcomes(cur, params, acts, probs)
    advance_keys(params, cur, nxt, acts[sample(probs, k, uniform(rng))], h)


@njit(cache=True, inline="always")
def infoset_key(cur, params, seat, h, abstract):
    """The table key of ``seat``'s infoset: its observation sequence's hash, or with
    ``abstract`` the game's information abstraction of the state."""
    if abstract:
        return P.abstraction_key(cur, params, seat)
    return h[seat]


@njit(cache=True, inline="always")
def _root_keys(h):
    for s in range(h.shape[0]):
        h[s] = root_key(s)


# --- external sampling ---------------------------------------------------------------------


@njit(cache=True)
def _es_traverse(
    p, params, abstract, fallback, store_depth, max_act, rng, counts, table, tsize, inf_off,
    inf_nact, inf_player, inf_key, regret, ssum, f_state, f_acts, f_sigma, f_vals, f_k, f_next,
    f_inf, f_h, f_dec, acts, sigma, probs, cur, nxt, h,
):
    """One external-sampling traversal for traverser ``p``; returns (status, value, arrays...).

    Explicit stack of the traverser's nodes (frames ``f_*``); the opponent's and chance's
    nodes are passed through by sampling, so they need no frame.
    """
    sign = 1.0 if p == 0 else -1.0
    cur[:] = P.initial_state(params)
    _root_keys(h)
    depth = 0
    dec = 0  # decisions above the node being walked (for store_depth)
    status = OK
    value = 0.0
    descend = True
    while True:
        if descend:
            # Walk down from cur until a terminal (value) or a traverser node (new frame).
            pushed = False
            while True:
                pl = P.current_player(cur, params)
                if pl == TERMINAL:
                    value = sign * P.returns_p1(cur, params)
                    break
                if pl == CHANCE:
                    _chance_step(params, rng, cur, nxt, acts, probs, h)
                    continue
                k = P.legal_actions(cur, params, acts)
                counts[C_NODES] += 1
                if _short_of_room(counts, max_act, table, tsize, inf_off, regret):
                    table, inf_off, inf_nact, inf_player, inf_key, regret, ssum = _grow_store(
                        counts, max_act, table, tsize, inf_off, inf_nact, inf_player, inf_key,
                        regret, ssum)
                key = infoset_key(cur, params, P.current_seat(cur, params), h, abstract)
                storable = store_depth < 0 or dec < store_depth
                idx = _lookup(table, tsize, key, k, pl, counts, inf_off, inf_nact, inf_player,
                              inf_key, storable)
                if idx == -1:
                    status = MISMATCH
                    break
                off = inf_off[idx] if idx >= 0 else -1
                # Below the store depth the traverser's move is sampled too (nothing there
                # learns), which keeps an iteration's size that of the stored part.
                if pl == p and storable:
                    _strategy(regret, off, k, f_sigma[depth], fallback, cur, params, acts)
                    f_state[depth] = cur
                    for a in range(k):
                        f_acts[depth, a] = acts[a]
                    f_k[depth] = k
                    f_next[depth] = 0
                    f_inf[depth] = idx
                    f_h[depth] = h
                    f_dec[depth] = dec
                    depth += 1
                    pushed = True
                    break
                _strategy(regret, off, k, sigma, fallback, cur, params, acts)
                if off >= 0:
                    for a in range(k):
                        ssum[off + a] += sigma[a]
                dec += 1
                advance_keys(params, cur, nxt, acts[sample(sigma, k, uniform(rng))], h)
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
            cur[:] = f_state[top]
            h[:] = f_h[top]
            dec = f_dec[top] + 1
            advance_keys(params, cur, nxt, f_acts[top, j], h)
            descend = True
            continue
        # All children done: sampled counterfactual regrets of this traverser node.
        k = f_k[top]
        v = 0.0
        for a in range(k):
            v += f_sigma[top, a] * f_vals[top, a]
        if f_inf[top] >= 0:
            off = inf_off[f_inf[top]]
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
    p, params, abstract, fallback, epsilon, store_depth, max_act, rng, counts, table, tsize,
    inf_off, inf_nact, inf_player, inf_key, regret, ssum, path_inf, path_k, path_i, path_pl,
    path_opp, path_samp,
    path_sprob, path_policy, acts, splice, probs, cur, nxt, h,
):
    """One outcome-sampling episode for traverser ``p``; returns (status, value, arrays...)."""
    sign = 1.0 if p == 0 else -1.0
    cur[:] = P.initial_state(params)
    _root_keys(h)
    opp = 1.0  # reach of the non-traverser
    samp = 1.0  # probability of the sampled trajectory so far (chance left out: it cancels)
    n = 0
    while True:
        pl = P.current_player(cur, params)
        if pl == TERMINAL:
            break
        if pl == CHANCE:
            _chance_step(params, rng, cur, nxt, acts, probs, h)
            continue
        k = P.legal_actions(cur, params, acts)
        counts[C_NODES] += 1
        # No room to make here: run_iterations leaves room (pool, infoset arrays, hash map)
        # for the at most 2 * max_depth infosets of a whole iteration.
        key = infoset_key(cur, params, P.current_seat(cur, params), h, abstract)
        idx = _lookup(table, tsize, key, k, pl, counts, inf_off, inf_nact, inf_player, inf_key,
                      store_depth < 0 or n < store_depth)
        if idx == -1:
            return MISMATCH, 0.0, table, inf_off, inf_nact, inf_player, inf_key, regret, ssum
        policy = path_policy[n]
        _strategy(regret, inf_off[idx] if idx >= 0 else -1, k, policy, fallback, cur, params,
                  acts)
        if pl == p:
            u = epsilon / k
            for a in range(k):
                splice[a] = u + (1.0 - epsilon) * policy[a]
        else:
            for a in range(k):
                splice[a] = policy[a]
        i = sample(splice, k, uniform(rng))
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
        advance_keys(params, cur, nxt, acts[i], h)
    v = sign * P.returns_p1(cur, params)
    for d in range(n - 1, -1, -1):
        k = path_k[d]
        i = path_i[d]
        policy = path_policy[d]
        cv = v / path_sprob[d]  # estimate of the sampled child's value, 0 for the others
        ve = policy[i] * cv
        w = path_opp[d] / path_samp[d]
        off = inf_off[path_inf[d]] if path_inf[d] >= 0 else -1
        if off < 0:
            pass  # not stored (frozen table, or too deep): plays the fallback, learns nothing
        elif path_pl[d] == p:
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
    scheme, params, abstract, fallback, epsilon, store_depth, n_iter, max_act, max_depth, rng,
    counts, table, tsize, inf_off, inf_nact, inf_player, inf_key, regret, ssum,
):
    """Run ``n_iter`` iterations (team 0's traversal then team 1's); returns
    (status, done, arrays...).

    Stops early with NEED_ROOM, between iterations, when the pool or the hash map has less
    room than one outcome-sampling iteration could need (2 * max_depth rows of max_act): the
    Python side grows them and checks its memory limit first (or freezes the table:
    counts[C_FROZEN], after which nothing is stored and nothing grows). An external-sampling
    traversal may still outgrow that room; it then grows the pool here (by copying).
    """
    root = P.initial_state(params)
    n_seats = P.num_seats(params)
    acts = np.empty(max_act, dtype=np.int32)
    scratch = np.empty(max_act)
    probs = np.empty(max_act)
    cur = np.empty_like(root)
    nxt = np.empty_like(root)
    h = np.empty(n_seats, dtype=np.int64)
    D = max_depth
    f_state = np.empty((D, root.shape[0]), dtype=root.dtype)
    f_acts = np.empty((D, max_act), dtype=np.int32)
    f_sigma = np.empty((D, max_act))
    f_vals = np.empty((D, max_act))
    f_k = np.empty(D, dtype=np.int64)
    f_next = np.empty(D, dtype=np.int64)
    f_inf = np.empty(D, dtype=np.int64)
    f_h = np.empty((D, n_seats), dtype=np.int64)
    f_dec = np.empty(D, dtype=np.int64)
    path_pl = np.empty(D, dtype=np.int64)
    path_opp = np.empty(D)
    path_samp = np.empty(D)
    path_sprob = np.empty(D)
    status = OK
    done = 0
    need_inf = 2 * D
    need_pool = 2 * D * max_act
    for _ in range(n_iter):
        if counts[C_FROZEN] == 0 and (counts[C_NINF] + need_inf > inf_off.shape[0] or (
            counts[C_POOL] + need_pool > regret.shape[0]
        ) or not hm_has_room(table, tsize, need_inf)):
            status = NEED_ROOM
            break
        for p in range(2):
            if scheme == 0:
                status, _v, table, inf_off, inf_nact, inf_player, inf_key, regret, ssum = (
                    _es_traverse(
                        p, params, abstract, fallback, store_depth, max_act, rng, counts, table,
                        tsize, inf_off, inf_nact, inf_player, inf_key, regret, ssum, f_state,
                        f_acts, f_sigma, f_vals, f_k, f_next, f_inf, f_h, f_dec, acts, scratch,
                        probs, cur, nxt, h,
                    )
                )
            else:
                status, _v, table, inf_off, inf_nact, inf_player, inf_key, regret, ssum = (
                    _os_traverse(
                        p, params, abstract, fallback, epsilon, store_depth, max_act, rng, counts,
                        table, tsize, inf_off, inf_nact, inf_player, inf_key, regret, ssum, f_inf,
                        f_k, f_next, path_pl, path_opp, path_samp, path_sprob, f_sigma, acts,
                        scratch, probs, cur, nxt, h,
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
def regret_sums(n_inf, inf_off, inf_nact, inf_player, regret):
    """Per team: sum over infosets of max_a max(R[I, a], 0)."""
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
def average_row(ssum, off, k, out):
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


@njit(cache=True)
def average_pool(n, inf_off, inf_nact, ssum):
    out = np.empty(ssum.shape[0])
    for j in range(n):
        average_row(ssum, inf_off[j], inf_nact[j], out[inf_off[j]:])
    return out


@njit(cache=True)
def rebuild_table(inf_key, n):
    table, size = hm_new(2 * n + 16)
    for j in range(n):
        _v, _ins, table = hm_get_or_put(table, size, inf_key[j], j)
    return table, size


@njit(cache=True)
def path_key(params, actions, seat, abstract):
    """The table key of ``seat``'s information state after the action path ``actions``."""
    cur = P.initial_state(params)
    nxt = np.empty_like(cur)
    h = np.empty(P.num_seats(params), dtype=np.int64)
    _root_keys(h)
    for i in range(actions.shape[0]):
        advance_keys(params, cur, nxt, actions[i], h)
    return infoset_key(cur, params, seat, h, abstract)


@njit(cache=True)
def state_fallback(state, params, fallback, max_act):
    """The fallback policy (``fallback_policy``) at the decision ``state``, over its legal
    actions in the rules' order (a Python entry point)."""
    acts = np.empty(max_act, dtype=np.int32)
    k = P.legal_actions(state, params, acts)
    out = np.empty(k)
    fallback_policy(fallback, state, params, acts, k, out)
    return out


@njit(cache=True)
def path_state(params, actions):
    """The state after the action path ``actions`` from the root."""
    cur = P.initial_state(params)
    nxt = np.empty_like(cur)
    for i in range(actions.shape[0]):
        P.apply_action(cur, params, actions[i], nxt)
        cur[:] = nxt
    return cur


@njit(cache=True)
def state_abstraction_key(state, params, seat):
    """The information abstraction's key of ``seat`` at ``state`` (a Python entry point)."""
    return P.abstraction_key(state, params, seat)


# Status codes of tree_keys and tree_strategy.
TREE_OK = 0
TREE_SPLIT = 1  # one tree infoset whose nodes have different observation keys
TREE_MERGED = 2  # two tree infosets with the same key
TREE_ACTIONS = 3  # a key stored by MCCFR with another action count


@njit(cache=True)
def tree_keys(first_child, num_children, node_player, node_infoset, node_action, infoset_seat,
              n_tree_inf, params, abstract):
    """(status, info, keys): the table key of every infoset of a tree of the game.

    Depth-first over the tree, replaying the rules alongside to compute each node's keys;
    checks that every node of an infoset has one key and, without ``abstract``, that no two
    infosets share one (an abstraction merges infosets: that is its purpose).
    """
    root = P.initial_state(params)
    n_seats = P.num_seats(params)
    keyof = np.full(n_tree_inf, -1, dtype=np.int64)
    back, bsize = hm_new(2 * n_tree_inf + 16)
    cap = 1024
    st_node = np.empty(cap, dtype=np.int64)
    st_state = np.empty((cap, root.shape[0]), dtype=root.dtype)
    st_h = np.empty((cap, n_seats), dtype=np.int64)
    st_node[0] = 0
    st_state[0] = root
    for s in range(n_seats):
        st_h[0, s] = root_key(s)
    sp = 1
    st = np.empty_like(root)
    child = np.empty_like(root)
    tmp = np.empty_like(root)
    h = np.empty(n_seats, dtype=np.int64)
    while sp > 0:
        sp -= 1
        node = st_node[sp]
        k = num_children[node]
        if k == 0:
            continue
        j = node_infoset[node]
        if node_player[node] != CHANCE:
            key = infoset_key(st_state[sp], params, infoset_seat[j], st_h[sp], abstract)
            if keyof[j] < 0:
                keyof[j] = key
                other, _ins, back = hm_get_or_put(back, bsize, key, j)
                if other != j and not abstract:
                    return TREE_MERGED, j, keyof
            elif keyof[j] != key:
                return TREE_SPLIT, j, keyof
        if sp + k > cap:
            while cap < sp + k:
                cap *= 2
            a1 = np.empty(cap, dtype=np.int64)
            a1[:sp] = st_node[:sp]
            st_node = a1
            a2 = np.empty((cap, root.shape[0]), dtype=root.dtype)
            a2[:sp] = st_state[:sp]
            st_state = a2
            a3 = np.empty((cap, n_seats), dtype=np.int64)
            a3[:sp] = st_h[:sp]
            st_h = a3
        st[:] = st_state[sp]
        hp = st_h[sp].copy()
        s0 = first_child[node]
        for c in range(k):
            child[:] = st
            h[:] = hp
            advance_keys(params, child, tmp, node_action[s0 + c], h)
            st_node[sp] = s0 + c
            st_state[sp] = child
            st_h[sp] = h
            sp += 1
    return TREE_OK, 0, keyof


@njit(cache=True)
def tree_strategy(keyof, infoset_num_actions, max_a, table, inf_off, inf_nact, pool, average):
    """(status, info, rows, found): an MCCFR pool mapped onto the infosets of a tree whose
    infoset keys are ``keyof`` (:func:`tree_keys`).

    ``average``: rows are normalised (the average strategy from ``pool`` = ssum, uniform
    where unseen), else copied raw (e.g. regrets, 0 where unseen); ``found`` counts the tree
    infosets MCCFR has stored.
    """
    n = keyof.shape[0]
    strat = np.zeros((n, max_a))
    found = 0
    for j in range(n):
        k = infoset_num_actions[j]
        idx = hm_get(table, keyof[j], -1)
        if idx >= 0:
            if inf_nact[idx] != k:
                return TREE_ACTIONS, j, strat, found
            if average:
                average_row(pool, inf_off[idx], k, strat[j])
            else:
                for a in range(k):
                    strat[j, a] = pool[inf_off[idx] + a]
            found += 1
        elif average:
            for a in range(k):
                strat[j, a] = 1.0 / k
    return TREE_OK, 0, strat, found


@njit(cache=True)
def knuth_es_nodes(params, max_act, probes, seed, store_depth):
    """Knuth's estimate of the decision nodes one ES iteration visits (both traversals).

    A probe walks one random path (uniform actions, i.e. the opponent's first-iteration
    strategy; chance by its probabilities, as ES samples it) and adds, per decision node,
    the product of the traverser's branching factors above it (those within the first
    ``store_depth`` decisions, if >= 0: ES samples the deeper ones): an unbiased estimate of
    the traversal size for that opponent.
    """
    rng = np.empty(1, dtype=np.uint64)
    rng[0] = fmix(np.uint64(seed) + ADD)
    acts = np.empty(max_act, dtype=np.int32)
    probs = np.empty(max_act)
    cur = P.initial_state(params)
    nxt = np.empty_like(cur)
    total = 0.0
    for _ in range(probes):
        for p in range(2):
            cur[:] = P.initial_state(params)
            weight = 1.0
            dec = 0
            while True:
                pl = P.current_player(cur, params)
                if pl == TERMINAL:
                    break
                if pl == CHANCE:
                    k = P.chance_outcomes(cur, params, acts, probs)
                    P.apply_action(cur, params, acts[sample(probs, k, uniform(rng))], nxt)
                    cur[:] = nxt
                    continue
                total += weight
                k = P.legal_actions(cur, params, acts)
                if pl == p and (store_depth < 0 or dec < store_depth):
                    weight *= k
                dec += 1
                i = min(int(uniform(rng) * k), k - 1)
                P.apply_action(cur, params, acts[i], nxt)
                cur[:] = nxt
    return total / probes
