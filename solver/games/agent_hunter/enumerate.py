"""Numba enumerator: an Agent Hunter variant -> the flat-array :class:`~solver.tree.Tree`.

Depth first with block allocation: expanding a node gives its k children k
consecutive fresh ids (children contiguous, parents before children); an
explicit stack holds the nodes waiting to be expanded. Infosets follow exactly
from perfect recall: every node carries, per player, a node of that player's
observation tree (the sequence of observation codes the player has received),
child obs node = map[(parent obs node, code)]; a decision node's infoset is its
mover's obs node, numbered at first discovery.
"""

from __future__ import annotations

import time

import numpy as np
from numba import njit

from solver.errors import SpycfrError
from solver.games.agent_hunter import rules as R
from solver.games.agent_hunter.variant import Variant
from solver.hashmap import EMPTY, hm_get_or_put, hm_grown, hm_has_room
from solver.tree import TERMINAL, Tree

DEFAULT_MAX_NODES = 300_000_000
ESTIMATE_MARGIN = 10  # refuse before enumerating when the estimate exceeds this x the limit

OBS_BITS = 24  # observation codes are in [0, 2**24)

# Status codes of _run: OK, an error, or a buffer to enlarge before resuming.
OK = 0
TOO_MANY_NODES = 1
ACTION_COUNT_MISMATCH = 2
ACTION_LIST_MISMATCH = 3
BAD_OBSERVATION = 4
TOO_MANY_ACTIONS = 5
NO_ACTIONS = 6
NEED_NODES = 10
NEED_INFOSETS = 11
NEED_OBS = 12
NEED_TABLE = 13
NEED_STACK = 14

# Fields of the ctx array (the scalar state of a suspended enumeration).
CTX_SP = 0
CTX_NODES = 1
CTX_INFOSETS = 2
CTX_OBS = 3
CTX_INFO = 4

_ERRORS = {
    ACTION_COUNT_MISMATCH: "an infoset whose nodes have different action counts",
    ACTION_LIST_MISMATCH: "an infoset whose nodes list different actions",
    BAD_OBSERVATION: "an observation code outside [0, 2**24)",
    TOO_MANY_ACTIONS: "a node with more than 32767 actions",
    NO_ACTIONS: "a non-terminal node without legal actions",
}


@njit(cache=True)
def _run(params, max_nodes, ctx, tsize, table,
         first_child, num_children, node_player, node_infoset, node_action, utility,
         infoset_player, infoset_num_actions, infoset_node, infoset_hash, obs_infoset,
         st_state, st_node, st_obs, st_code, acts):
    """Expand nodes until the stack is empty (OK), an error, or a full buffer (NEED_*).

    A node is popped only once every buffer has room for its expansion, so the
    caller can enlarge the named buffer and call again to resume. Stack entries
    hold the parent's observation nodes and the codes observed on the edge
    (code -1: the id is already the node's own); the observation node of the
    player not to move is resolved only when some child is not terminal, which
    saves a lookup at most of the nodes just above the leaves.
    """
    S = R.STATE_SIZE
    cur = np.empty(S, dtype=np.int16)
    child = np.empty(S, dtype=np.int16)
    sp = ctx[CTX_SP]
    n = ctx[CTX_NODES]
    n_inf = ctx[CTX_INFOSETS]
    n_obs = ctx[CTX_OBS]
    status = OK
    info = 0
    while sp > 0:
        top = sp - 1
        for i in range(S):
            cur[i] = st_state[top, i]
        node = st_node[top]
        k = R.legal_actions(cur, params, acts)
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
        if n_obs + 2 * k + 2 > obs_infoset.shape[0]:
            status, info = NEED_OBS, n_obs + 2 * k + 2
            break
        if not hm_has_room(table, tsize, 2 * k + 2):
            status, info = NEED_TABLE, 0
            break
        if top + k > st_node.shape[0]:
            status, info = NEED_STACK, top + k
            break
        sp = top
        po0 = st_obs[top, 0]
        po1 = st_obs[top, 1]
        pc0 = st_code[top, 0]
        pc1 = st_code[top, 1]
        p = node_player[node]

        # The mover's observation node, which is its infoset.
        po, pc = (po0, pc0) if p == 0 else (po1, pc1)
        if pc < 0:
            o_me = po
        else:
            o_me, ins, table = hm_get_or_put(table, tsize, (po << OBS_BITS) | pc, n_obs)
            if ins:
                obs_infoset[n_obs] = -1
                n_obs += 1
        o_other = -1  # resolved on demand
        h = np.uint64(1469598103934665603)
        for j in range(k):
            h = (h ^ np.uint64(acts[j])) * np.uint64(1099511628211)
        inf = obs_infoset[o_me]
        if inf < 0:
            inf = n_inf
            n_inf += 1
            obs_infoset[o_me] = inf
            infoset_player[inf] = p
            infoset_num_actions[inf] = k
            infoset_node[inf] = node
            infoset_hash[inf] = h
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
        # Push in reverse so that child 0 is expanded first.
        for j in range(k - 1, -1, -1):
            a = acts[j]
            c = first + j
            R.apply_action(cur, params, a, child)
            node_action[c] = a
            first_child[c] = 0
            num_children[c] = 0
            node_infoset[c] = -1
            if R.is_terminal(child, params):
                node_player[c] = TERMINAL
                utility[c] = R.returns_p1(child, params)
                continue
            node_player[c] = R.current_player(child)
            utility[c] = 0.0
            code0 = R.observation(cur, params, a, 0)
            code1 = R.observation(cur, params, a, 1)
            if code0 < 0 or code0 >= (1 << OBS_BITS) or code1 < 0 or code1 >= (1 << OBS_BITS):
                status, info = BAD_OBSERVATION, node
                break
            if o_other < 0:
                qo, qc = (po1, pc1) if p == 0 else (po0, pc0)
                if qc < 0:
                    o_other = qo
                else:
                    o_other, ins, table = hm_get_or_put(
                        table, tsize, (qo << OBS_BITS) | qc, n_obs)
                    if ins:
                        obs_infoset[n_obs] = -1
                        n_obs += 1
            for i in range(S):
                st_state[sp, i] = child[i]
            st_node[sp] = c
            if p == 0:
                st_obs[sp, 0] = o_me
                st_obs[sp, 1] = o_other
            else:
                st_obs[sp, 0] = o_other
                st_obs[sp, 1] = o_me
            st_code[sp, 0] = code0
            st_code[sp, 1] = code1
            sp += 1
        if status != OK:
            break
    ctx[CTX_SP] = sp
    ctx[CTX_NODES] = n
    ctx[CTX_INFOSETS] = n_inf
    ctx[CTX_OBS] = n_obs
    ctx[CTX_INFO] = info
    return status


@njit(cache=True)
def _estimate_nodes(params, max_act, samples, seed):
    """Knuth's unbiased estimate of the node count: the mean over random root-to-leaf
    paths of 1 + b1 + b1*b2 + ... (b = branching factors along the path)."""
    np.random.seed(seed)
    acts = np.empty(max_act, dtype=np.int32)
    cur = np.empty(R.STATE_SIZE, dtype=np.int16)
    nxt = np.empty(R.STATE_SIZE, dtype=np.int16)
    total = 0.0
    for _ in range(samples):
        cur[:] = R.initial_state(params)
        weight = 1.0
        count = 1.0
        while not R.is_terminal(cur, params):
            k = R.legal_actions(cur, params, acts)
            if k <= 0:
                break
            weight *= k
            count += weight
            R.apply_action(cur, params, acts[np.random.randint(k)], nxt)
            cur[:] = nxt
        total += count
    return total / samples


def estimate_nodes(variant: Variant, samples: int = 2000, seed: int = 0) -> float:
    """An estimate of the number of nodes of ``variant``'s tree (random paths; no enumeration)."""
    if variant.max_turns is None:
        return float("inf")
    return float(_estimate_nodes(variant.to_array(), np.int64(R.max_actions(variant)),
                                 np.int64(samples), np.int64(seed)))


def _too_big(variant: Variant, max_nodes: int, estimate: float) -> str:
    return (
        f"the agent-hunter tree of {variant.describe()} has more than {max_nodes:,} nodes "
        f"(the node limit; about {estimate:.2g} estimated): choose fewer cards, houses, "
        "decoys or max_turns, or solve it without a tree (spycfr solve --algorithm es-mccfr "
        "or os-mccfr)"
    )


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


# The smallest variant: building it once compiles the kernels before a timed build.
WARM_UP = Variant(cards=2, houses=1, decoys=0, max_turns=1)


def build_tree(variant: Variant, max_nodes: int = DEFAULT_MAX_NODES) -> Tree:
    """The flat tree of ``variant``: ``max_turns`` must be bounded; at most ``max_nodes`` nodes."""
    if variant.max_turns is None:
        raise SpycfrError(
            "agent-hunter with unbounded max_turns has an infinite game tree: give --max-turns "
            "or a preset (--preset tiny, mini, small or standard)"
        )
    if not _run.signatures and variant != WARM_UP:
        build_tree(WARM_UP)  # compile (or load from the cache) outside the timed build
    start = time.perf_counter()
    # Refuse hopeless sizes at once rather than after building max_nodes nodes; the
    # margin keeps the noise of the estimate from refusing a tree that would fit.
    estimate = estimate_nodes(variant)
    if estimate > ESTIMATE_MARGIN * max_nodes:
        raise SpycfrError(_too_big(variant, max_nodes, estimate))
    params = variant.to_array()
    max_act = R.max_actions(variant)
    S = R.STATE_SIZE

    cap = max(1, min(max_nodes, 1 << 16))
    nodes = [
        np.empty(cap, dtype=np.int64),  # first_child
        np.empty(cap, dtype=np.int16),  # num_children
        np.empty(cap, dtype=np.int8),  # node_player
        np.empty(cap, dtype=np.int32),  # node_infoset
        np.empty(cap, dtype=np.int32),  # node_action
        np.empty(cap, dtype=np.float64),  # utility
    ]
    infosets = [
        np.empty(1 << 12, dtype=np.int8),  # infoset_player
        np.empty(1 << 12, dtype=np.int16),  # infoset_num_actions
        np.empty(1 << 12, dtype=np.int64),  # infoset_node
        np.empty(1 << 12, dtype=np.uint64),  # hash of the action list
    ]
    obs_infoset = np.full(1 << 12, -1, dtype=np.int32)
    table = np.full(2 << 12, EMPTY, dtype=np.int64)
    tsize = np.zeros(1, dtype=np.int64)
    # Depth <= 2 placements + 2 decisions per turn (a move and a refill).
    scap = (2 * variant.max_turns + 4) * max_act
    st_state = np.empty((scap, S), dtype=np.int16)
    st_node = np.empty(scap, dtype=np.int64)
    st_obs = np.empty((scap, 2), dtype=np.int64)
    st_code = np.empty((scap, 2), dtype=np.int64)
    acts = np.empty(max_act, dtype=np.int32)

    # The root: observation nodes 0 (P1) and 1 (P2) start each player's observation tree.
    root = R.initial_state(params)
    nodes[0][0], nodes[1][0], nodes[3][0], nodes[4][0], nodes[5][0] = 0, 0, -1, -1, 0.0
    ctx = np.zeros(5, dtype=np.int64)
    ctx[CTX_NODES], ctx[CTX_OBS] = 1, 2
    if R.is_terminal(root, params):
        nodes[2][0] = TERMINAL
        nodes[5][0] = R.returns_p1(root, params)
    else:
        nodes[2][0] = R.current_player(root)
        st_state[0], st_node[0], st_obs[0], st_code[0] = root, 0, (0, 1), (-1, -1)
        ctx[CTX_SP] = 1

    while True:
        status = _run(params, np.int64(max_nodes), ctx, tsize, table, *nodes, *infosets,
                      obs_infoset, st_state, st_node, st_obs, st_code, acts)
        need = int(ctx[CTX_INFO])
        if status == OK:
            break
        if status == NEED_NODES:
            size = nodes[0].shape[0]
            while size < need:
                size *= 4
            size = min(size, max_nodes)
            nodes = [_enlarged(a, size) for a in nodes]
        elif status == NEED_INFOSETS:
            infosets = [_enlarged(a, 2 * a.shape[0]) for a in infosets]
        elif status == NEED_OBS:
            size = obs_infoset.shape[0]
            while size < need:
                size *= 2
            obs_infoset = _enlarged(obs_infoset, size, fill=-1)
        elif status == NEED_TABLE:
            table = hm_grown(table)
        elif status == NEED_STACK:
            size = 2 * max(st_node.shape[0], need)
            st_state, st_node, st_obs, st_code = (
                _enlarged(a, size) for a in (st_state, st_node, st_obs, st_code))
        elif status == TOO_MANY_NODES:
            raise SpycfrError(_too_big(variant, max_nodes, estimate))
        else:
            what = _ERRORS.get(status, f"status {status}")
            raise RuntimeError(f"agent-hunter enumeration found {what} at node {need}")

    n, n_inf = int(ctx[CTX_NODES]), int(ctx[CTX_INFOSETS])
    first_child, num_children, node_player, node_infoset, node_action, utility = (
        _finished(a, n) for a in nodes)
    tree = Tree(
        game="agent-hunter",
        variant=variant.as_dict(),
        first_child=first_child,
        num_children=num_children,
        node_player=node_player,
        node_infoset=node_infoset,
        node_action=node_action,
        utility=utility,
        chance_prob=np.zeros(0, dtype=np.float64),
        infoset_player=infosets[0][:n_inf].copy(),
        infoset_num_actions=infosets[1][:n_inf].copy(),
        infoset_node=infosets[2][:n_inf].copy(),
    )
    tree.build_seconds = time.perf_counter() - start
    tree.extra["observation_nodes"] = int(ctx[CTX_OBS])
    return tree


def infoset_labels(tree: Tree, variant: Variant) -> tuple[list[str], list[list[str]]]:
    """(view-record key of the acting player, action labels) for every infoset of ``tree``.

    Replays the path to each ``infoset_node`` through the Python game (one state per
    ancestor of an infoset node, visited in index order): meant for exports of small trees.
    """
    from solver.games.agent_hunter.game import AgentHunterGame

    game = AgentHunterGame(variant)
    parents = tree.parents()
    needed = np.zeros(tree.num_nodes, dtype=bool)
    for v in tree.infoset_node:
        v = int(v)
        while v >= 0 and not needed[v]:
            needed[v] = True
            v = int(parents[v])
    states = {0: game.new_initial_state()}
    for v in np.flatnonzero(needed)[1:]:
        states[int(v)] = states[int(parents[v])].child(int(tree.node_action[v]))
    keys: list[str] = []
    labels: list[list[str]] = []
    for i, v in enumerate(tree.infoset_node):
        v = int(v)
        state = states[v]
        player = int(tree.infoset_player[i])
        s, k = int(tree.first_child[v]), int(tree.num_children[v])
        actions = [int(a) for a in tree.node_action[s:s + k]]
        if state.legal_actions() != actions:
            raise RuntimeError(f"infoset {i}: the Python game disagrees on the actions at node {v}")
        keys.append(state.information_state(player))
        labels.append([state.action_label(a) for a in actions])
    return keys, labels
