"""Generic numba enumerator: any game of the protocol -> the flat-array :class:`Tree`.

Depth first with block allocation: expanding a node gives its k children k consecutive
fresh ids (children contiguous, parents before children); an explicit stack holds the
nodes waiting to be expanded. Chance nodes store their outcome probabilities in
``chance_prob`` (offset in ``node_infoset``). Infosets follow exactly from perfect recall:
every node carries, per seat, a node of that seat's observation tree (the sequence of
observation codes the seat has received), child obs node = map[(parent obs node, code)];
a decision node's infoset is its mover's obs node, numbered at first discovery.

Compiled once per game (the params type selects the game's rules, see
:mod:`spycfr.engine.protocol`) and cached on disk.
"""

from __future__ import annotations

import time

import numpy as np
from numba import njit

from spycfr.engine import protocol as P
from spycfr.engine.hashmap import EMPTY, hm_get_or_put_in_room, hm_grown, hm_has_room
from spycfr.engine.playout import estimate_nodes, game_bounds
from spycfr.errors import SpycfrError
from spycfr.memory import MemoryBudget
from spycfr.tree import CHANCE, TERMINAL, Tree

# A safety net for runaway variants; memory is what --memory-limit (MemoryBudget) guards.
DEFAULT_MAX_NODES = 2_000_000_000
ESTIMATE_MARGIN = 10  # refuse before enumerating when the estimate exceeds this x the limit

OBS_BITS = P.OBS_BITS

# Status codes of _run: OK, an error, or a buffer to enlarge before resuming.
OK = 0
TOO_MANY_NODES = 1
ACTION_COUNT_MISMATCH = 2
ACTION_LIST_MISMATCH = 3
BAD_OBSERVATION = 4
TOO_MANY_ACTIONS = 5
NO_ACTIONS = 6
PLAYER_MISMATCH = 7
BAD_PROBABILITY = 8
NEED_NODES = 10
NEED_INFOSETS = 11
NEED_OBS = 12
NEED_TABLE = 13
NEED_STACK = 14
NEED_CHANCE = 15

# Fields of the ctx array (the scalar state of a suspended enumeration).
CTX_SP = 0
CTX_NODES = 1
CTX_INFOSETS = 2
CTX_OBS = 3
CTX_INFO = 4
CTX_CHANCE = 5

_ERRORS = {
    ACTION_COUNT_MISMATCH: "an infoset whose nodes have different action counts",
    ACTION_LIST_MISMATCH: "an infoset whose nodes list different actions",
    BAD_OBSERVATION: f"an observation code outside [0, 2**{OBS_BITS})",
    TOO_MANY_ACTIONS: "a node with more than 32767 actions",
    NO_ACTIONS: "a non-terminal node without legal actions or chance outcomes",
    PLAYER_MISMATCH: "an infoset whose nodes have different players",
    BAD_PROBABILITY: "a chance node whose probabilities are not positive or do not sum to 1",
}


@njit(cache=True, _nrt=False)
def _obs_node(parent, code, table, tsize, obs_infoset, n_obs):
    """(the observation node reached from ``parent`` by ``code``, node count); code -1 means
    ``parent`` is already the node itself. A new node has no infoset yet. The table has room
    (checked before each expansion). Compiled apart without reference counting: inlined, numba
    would count references to its arrays at every call."""
    if code < 0:
        return parent, n_obs
    node, inserted = hm_get_or_put_in_room(table, tsize, (parent << OBS_BITS) | code, n_obs)
    if inserted:
        obs_infoset[n_obs] = -1
        n_obs += 1
    return node, n_obs


@njit(cache=True)
def _run(params, max_nodes, ctx, tsize, table,
         first_child, num_children, node_player, node_infoset, node_action, utility,
         chance_prob, infoset_player, infoset_seat, infoset_num_actions, infoset_node,
         infoset_hash, obs_infoset, st_state, st_node, st_obs, st_code, acts, probs):
    """Expand nodes until the stack is empty (OK), an error, or a full buffer (NEED_*).

    A node is popped only once every buffer has room for its expansion, so the caller can
    enlarge the named buffer and call again to resume. Stack entries hold, per seat, the
    parent's observation node and the code observed on the edge (code -1: the id is
    already the node's own); a seat's observation node is resolved only when needed (the
    mover's at once, the others' when some child is not terminal), which saves lookups
    just above the leaves.
    """
    n_seats = P.num_seats(params)  # a constant for most games: loops over seats unroll
    n_state = st_state.shape[1]
    cur = np.empty_like(st_state[0])
    child = np.empty_like(st_state[0])
    own = np.empty(n_seats, dtype=np.int64)
    sp = ctx[CTX_SP]
    n = ctx[CTX_NODES]
    n_inf = ctx[CTX_INFOSETS]
    n_obs = ctx[CTX_OBS]
    n_ch = ctx[CTX_CHANCE]
    status = OK
    info = 0
    while sp > 0:
        top = sp - 1
        for i in range(n_state):
            cur[i] = st_state[top, i]
        node = st_node[top]
        p = node_player[node]
        if p == CHANCE:
            k = P.chance_outcomes(cur, params, acts, probs)
        else:
            k = P.legal_actions(cur, params, acts)
        if k <= 0:
            status, info = NO_ACTIONS, node
            break
        if k > 32767:
            status, info = TOO_MANY_ACTIONS, node
            break
        if n + k > first_child.shape[0]:
            status = TOO_MANY_NODES if n + k > max_nodes else NEED_NODES
            info = n + k
            break
        if n_inf >= infoset_player.shape[0]:
            status, info = NEED_INFOSETS, n_inf + 1
            break
        if n_ch + k > chance_prob.shape[0]:
            status, info = NEED_CHANCE, n_ch + k
            break
        if n_obs + n_seats + 1 > obs_infoset.shape[0]:
            status, info = NEED_OBS, n_obs + n_seats + 1
            break
        if not hm_has_room(table, tsize, n_seats + 1):
            status, info = NEED_TABLE, 0
            break
        if top + k > st_node.shape[0]:
            status, info = NEED_STACK, top + k
            break
        sp = top
        for s in range(n_seats):
            own[s] = -1  # resolved on demand

        if p == CHANCE:
            total = 0.0
            for j in range(k):
                if not probs[j] > 0.0:
                    total = -1.0
                    break
                total += probs[j]
            if abs(total - 1.0) > 1e-9:
                status, info = BAD_PROBABILITY, node
                break
            node_infoset[node] = n_ch
            for j in range(k):
                chance_prob[n_ch + j] = probs[j]
            n_ch += k
        else:
            # The mover's observation node is its infoset.
            seat = P.current_seat(cur, params)
            own[seat], n_obs = _obs_node(st_obs[top, seat], st_code[top, seat], table, tsize,
                                         obs_infoset, n_obs)
            h = np.uint64(1469598103934665603)
            for j in range(k):
                h = (h ^ np.uint64(acts[j])) * np.uint64(1099511628211)
            inf = obs_infoset[own[seat]]
            if inf < 0:
                inf = n_inf
                n_inf += 1
                obs_infoset[own[seat]] = inf
                infoset_player[inf] = p
                infoset_seat[inf] = seat
                infoset_num_actions[inf] = k
                infoset_node[inf] = node
                infoset_hash[inf] = h
            elif infoset_player[inf] != p:
                status, info = PLAYER_MISMATCH, node
                break
            elif infoset_num_actions[inf] != k:
                status, info = ACTION_COUNT_MISMATCH, node
                break
            elif infoset_hash[inf] != h:
                status, info = ACTION_LIST_MISMATCH, node
                break
            node_infoset[node] = inf

        first = n
        n += k
        first_child[node] = first
        num_children[node] = k
        resolved = False
        # Push in reverse so that child 0 is expanded first.
        for j in range(k - 1, -1, -1):
            a = acts[j]
            c = first + j
            P.apply_action(cur, params, a, child)
            node_action[c] = a
            first_child[c] = 0
            num_children[c] = 0
            node_infoset[c] = -1
            q = P.current_player(child, params)
            if q == TERMINAL:
                node_player[c] = TERMINAL
                utility[c] = P.returns_p1(child, params)
                continue
            node_player[c] = q
            utility[c] = 0.0
            if not resolved:
                for s in range(n_seats):
                    if own[s] < 0:
                        own[s], n_obs = _obs_node(st_obs[top, s], st_code[top, s], table,
                                                  tsize, obs_infoset, n_obs)
                resolved = True
            for s in range(n_seats):
                code = P.observation(cur, params, a, s)
                if code < 0 or code >= (1 << OBS_BITS):
                    status, info = BAD_OBSERVATION, node
                    break
                st_obs[sp, s] = own[s]
                st_code[sp, s] = code
            if status != OK:
                break
            for i in range(n_state):
                st_state[sp, i] = child[i]
            st_node[sp] = c
            sp += 1
        if status != OK:
            break
    ctx[CTX_SP] = sp
    ctx[CTX_NODES] = n
    ctx[CTX_INFOSETS] = n_inf
    ctx[CTX_OBS] = n_obs
    ctx[CTX_CHANCE] = n_ch
    ctx[CTX_INFO] = info
    return status


@njit(cache=True)
def _root(params, st_state, st_node, st_obs, st_code):
    """Put the root on the stack; returns (its player, its utility if terminal)."""
    root = P.initial_state(params)
    p = P.current_player(root, params)
    if p == TERMINAL:
        return p, P.returns_p1(root, params)
    st_state[0] = root
    st_node[0] = 0
    for s in range(st_obs.shape[1]):
        st_obs[0, s] = s  # the root observation node of seat s
        st_code[0, s] = -1
    return p, 0.0


def _enlarged(a: np.ndarray, size: int, fill=None) -> np.ndarray:
    """A numpy copy of ``a`` with ``size`` rows (large numpy arrays get huge pages)."""
    b = np.empty((size,) + a.shape[1:], dtype=a.dtype)
    b[: a.shape[0]] = a
    if fill is not None:
        b[a.shape[0]:] = fill
    return b


def _finished(a: np.ndarray, n: int) -> np.ndarray:
    """The first ``n`` entries: a compact copy when small; a view when large (the untouched
    tail of the buffer was never backed by memory, and copying would touch it all again)."""
    return a[:n].copy() if n < (1 << 22) else a[:n]


def enumerate_tree(params, game: str, variant: dict, describe: str,
                   max_nodes: int = DEFAULT_MAX_NODES, too_big_hint: str = "",
                   memory: MemoryBudget | None = None) -> Tree:
    """The flat tree of the game whose protocol ``params`` selects (at most ``max_nodes``).

    ``game``, ``variant`` and ``describe`` name it in the tree and in errors;
    ``too_big_hint`` says how to shrink it when it is too big. An unbounded game
    (``max_depth`` -1) is refused by the caller, which knows how to word it. ``memory``:
    every growth of the buffers is checked against it first (the old and the new copy
    side by side, the worst case).
    """
    state_size, max_act, depth, n_seats, state_dtype = game_bounds(params)
    if depth < 0:
        raise SpycfrError(f"{game} {describe} has an infinite game tree")
    # Refuse hopeless sizes at once rather than after building max_nodes nodes; the margin
    # keeps the noise of the estimate from refusing a tree that would fit.
    estimate = estimate_nodes(params)
    if estimate > ESTIMATE_MARGIN * max_nodes:
        raise SpycfrError(_too_big(game, describe, max_nodes, estimate, too_big_hint))

    cap = max(1, min(max_nodes, 1 << 16))
    nodes: list[np.ndarray] = [
        np.empty(cap, dtype=np.int64),  # first_child
        np.empty(cap, dtype=np.int16),  # num_children
        np.empty(cap, dtype=np.int8),  # node_player
        np.empty(cap, dtype=np.int32),  # node_infoset
        np.empty(cap, dtype=np.int32),  # node_action
        np.empty(cap, dtype=np.float64),  # utility
    ]
    chance_prob = np.empty(1 << 10, dtype=np.float64)
    infosets: list[np.ndarray] = [
        np.empty(1 << 12, dtype=np.int8),  # infoset_player
        np.empty(1 << 12, dtype=np.int8),  # infoset_seat
        np.empty(1 << 12, dtype=np.int16),  # infoset_num_actions
        np.empty(1 << 12, dtype=np.int64),  # infoset_node
        np.empty(1 << 12, dtype=np.uint64),  # hash of the action list
    ]
    obs_infoset = np.full(1 << 12, -1, dtype=np.int32)
    table = np.full(2 << 12, EMPTY, dtype=np.int64)
    tsize = np.zeros(1, dtype=np.int64)
    scap = (depth + 2) * max_act
    st_state = np.empty((scap, state_size), dtype=state_dtype)
    st_node = np.empty(scap, dtype=np.int64)
    st_obs = np.empty((scap, n_seats), dtype=np.int64)
    st_code = np.empty((scap, n_seats), dtype=np.int64)
    acts = np.empty(max_act, dtype=np.int32)
    probs = np.empty(max_act, dtype=np.float64)
    ctx = np.zeros(6, dtype=np.int64)

    def run() -> int:
        return _run(params, np.int64(max_nodes), ctx, tsize, table, *nodes, chance_prob,
                    *infosets, obs_infoset, st_state, st_node, st_obs, st_code, acts, probs)

    run()  # the stack is empty: compiles (or loads from the cache) outside the timed build
    start = time.perf_counter()
    root_player, root_utility = _root(params, st_state, st_node, st_obs, st_code)
    nodes[0][0], nodes[1][0], nodes[3][0], nodes[4][0], nodes[5][0] = 0, 0, -1, -1, 0.0
    nodes[2][0] = root_player
    # Observation nodes 0 .. n_seats-1 start each seat's observation tree.
    ctx[CTX_NODES], ctx[CTX_OBS] = 1, n_seats
    if root_player == TERMINAL:
        nodes[5][0] = root_utility
    else:
        ctx[CTX_SP] = 1

    def afford(arrays, size: int) -> None:
        if memory is not None:
            row = sum(a.nbytes // max(a.shape[0], 1) for a in arrays)
            memory.require(f"enumerating the {game} tree of {describe} (past "
                           f"{int(ctx[CTX_NODES]):,} nodes)", row * size,
                           too_big_hint or "choose a smaller variant")

    while True:
        status = run()
        need = int(ctx[CTX_INFO])
        if status == OK:
            break
        if status == NEED_NODES:
            size = nodes[0].shape[0]
            while size < need:
                size *= 4
            size = min(size, max_nodes)
            afford(nodes, size)
            nodes = [_enlarged(a, size) for a in nodes]
        elif status == NEED_INFOSETS:
            afford(infosets, 2 * infosets[0].shape[0])
            infosets = [_enlarged(a, 2 * a.shape[0]) for a in infosets]
        elif status == NEED_CHANCE:
            size = 2 * max(chance_prob.shape[0], need)
            afford([chance_prob], size)
            chance_prob = _enlarged(chance_prob, size)
        elif status == NEED_OBS:
            size = obs_infoset.shape[0]
            while size < need:
                size *= 2
            afford([obs_infoset], size)
            obs_infoset = _enlarged(obs_infoset, size, fill=-1)
        elif status == NEED_TABLE:
            afford([table], 2 * table.shape[0])
            table = hm_grown(table)
        elif status == NEED_STACK:
            size = 2 * max(st_node.shape[0], need)
            afford([st_state, st_node, st_obs, st_code], size)
            st_state, st_node, st_obs, st_code = (
                _enlarged(a, size) for a in (st_state, st_node, st_obs, st_code))
        elif status == TOO_MANY_NODES:
            raise SpycfrError(_too_big(game, describe, max_nodes, estimate, too_big_hint))
        else:
            what = _ERRORS.get(status, f"status {status}")
            raise RuntimeError(f"{game} enumeration found {what} at node {need}")

    n, n_inf = int(ctx[CTX_NODES]), int(ctx[CTX_INFOSETS])
    if n < (1 << 22):
        afford(nodes, n)  # _finished copies these
    first_child, num_children, node_player, node_infoset, node_action, utility = (
        _finished(a, n) for a in nodes)
    tree = Tree(
        game=game,
        variant=dict(variant),
        first_child=first_child,
        num_children=num_children,
        node_player=node_player,
        node_infoset=node_infoset,
        node_action=node_action,
        utility=utility,
        chance_prob=chance_prob[: int(ctx[CTX_CHANCE])].copy(),
        infoset_player=infosets[0][:n_inf].copy(),
        infoset_num_actions=infosets[2][:n_inf].copy(),
        infoset_node=infosets[3][:n_inf].copy(),
        infoset_seat=infosets[1][:n_inf].copy(),
        num_seats=n_seats,
    )
    tree.build_seconds = time.perf_counter() - start
    tree.extra["observation_nodes"] = int(ctx[CTX_OBS])
    return tree


def _too_big(game: str, describe: str, max_nodes: int, estimate: float, hint: str) -> str:
    shrink = f"{hint}, or " if hint else ""
    return (
        f"the {game} tree of {describe} has more than {max_nodes:,} nodes (the node limit; "
        f"about {estimate:.2g} estimated): {shrink}solve it without a tree (spycfr solve "
        "--algorithm es-mccfr or os-mccfr)"
    )
