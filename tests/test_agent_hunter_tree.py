"""The numba Agent Hunter enumerator: tree invariants, hand-counted trees, and agreement
with the reference builder (plain Python, spycfr.engine.reference) node by node."""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from spycfr.engine.hashmap import hm_get, hm_get_or_put, hm_grown, hm_new, hm_put
from spycfr.engine.playout import estimate_nodes
from spycfr.errors import SpycfrError
from spycfr.games import build_reference_tree as generic_build
from spycfr.games import build_tree as build_game_tree
from spycfr.games.agent_hunter import AgentHunterGame, make_game, make_variant
from spycfr.tree import TERMINAL
from tree_compare import assert_same_tree

CROSS_CHECK = [
    {"cards": 3, "houses": 1, "decoys": 1, "max_turns": 4},
    {"cards": 3, "houses": 2, "decoys": 1, "max_turns": 2, "decoy_rule": "switched",
     "payoff": "margin"},
    {"cards": 3, "houses": 2, "decoys": 1, "max_turns": 3, "payoff": "margin"},
    {"cards": 3, "houses": 2, "decoys": 2, "max_turns": 3, "decoy_rule": "switched"},
]


def build_tree(variant, **kwargs):
    return build_game_tree(AgentHunterGame(variant), **kwargs)


def check_invariants(tree) -> None:
    n = tree.num_nodes
    fc, nc = tree.first_child, tree.num_children.astype(np.int64)
    player = tree.node_player
    internal = nc > 0
    # Terminals exactly where there are no children; decisions only (no chance nodes).
    assert np.array_equal(internal, player != TERMINAL)
    assert set(np.unique(player)) <= {TERMINAL, 0, 1}
    assert tree.chance_prob.size == 0
    # Children: after their parent, contiguous, and every non-root node has one parent.
    assert np.all(fc[internal] > np.flatnonzero(internal))
    hits = np.zeros(n, dtype=np.int64)
    for v in np.flatnonzero(internal):
        hits[fc[v]:fc[v] + nc[v]] += 1
    assert hits[0] == 0 and np.all(hits[1:] == 1)
    # Blocks are allocated in expansion order, so they tile 1..n-1 exactly.
    order = np.argsort(fc[internal])
    starts, sizes = fc[internal][order], nc[internal][order]
    assert starts[0] == 1 and np.array_equal(starts[1:], (starts + sizes)[:-1])
    assert starts[-1] + sizes[-1] == n
    # Infosets: players and action counts agree with their nodes; terminals have none.
    inf = tree.node_infoset
    assert np.all(inf[~internal] == -1) and np.all(inf[internal] >= 0)
    assert np.array_equal(tree.infoset_player[inf[internal]], player[internal])
    assert np.array_equal(tree.infoset_num_actions[inf[internal]], nc[internal])
    assert np.array_equal(inf[tree.infoset_node], np.arange(tree.num_infosets))
    assert np.all(tree.utility[internal] == 0.0)
    assert tree.node_action[0] == -1 and np.all(tree.node_action[1:] >= 0)
    # Every node of an infoset lists the same actions in the same order.
    first_actions: dict[int, tuple] = {}
    for v in np.flatnonzero(internal):
        acts = tuple(tree.node_action[fc[v]:fc[v] + nc[v]])
        assert first_actions.setdefault(int(inf[v]), acts) == acts


def test_hashmap_matches_dict() -> None:
    @njit
    def insert_all(keys):
        table, size = hm_new(4)
        out = np.empty(keys.shape[0], dtype=np.int64)
        nxt = 0
        for j in range(keys.shape[0]):
            v, ins, table = hm_get_or_put(table, size, keys[j], nxt)
            nxt += ins
            out[j] = v
        table = hm_put(table, size, keys[0], -7)
        return out, table, size[0]

    rng = np.random.default_rng(1)
    # Structured keys (few high parts, many low parts) stress the windowed slots.
    keys = (rng.integers(0, 300, 20000) << 24) | rng.integers(0, 50, 20000)
    keys = np.concatenate([keys, rng.integers(0, 1 << 50, 20000)])
    out, table, size = insert_all(keys)
    ref: dict[int, int] = {}
    expected = [ref.setdefault(int(k), len(ref)) for k in keys]
    assert list(out) == expected and size == len(ref)
    bigger = hm_grown(table)
    for t in (table, bigger):
        assert hm_get(t, int(keys[0])) == -7
        for k in keys[1:2000]:
            assert hm_get(t, int(k)) == ref[int(k)] or k == keys[0]
        assert hm_get(t, (1 << 51) + 3) == -1


def test_hand_counted_tiny() -> None:
    # cards 2, houses 1, decoys 0, max_turns 1: P1 places x, P2 places v (2 x 2), P1 holds
    # c = 1-x and may hand-attack (c, 1) or house-attack (1, 1): 8 terminals, 1+2+4+8 nodes.
    # Hand attack: c = v wins (P2's only house falls, +1); otherwise T=1 ends the game at
    # 0-0 VP and the hand sums decide: (x,v)=(0,0): 1 vs 1 draw, (1,1): 0 vs 0 draw.
    # House attack: x = v wins (+1); a miss eliminates P1's only house (-1).
    # Utilities: four +1, two -1, two 0 (same for margin: the draws are 0-0 VP).
    for payoff in ("win", "margin"):
        tree = build_tree(make_variant(None, {"cards": 2, "houses": 1, "decoys": 0,
                                              "max_turns": 1, "payoff": payoff}))
        check_invariants(tree)
        assert tree.num_nodes == 15
        term = tree.node_player == TERMINAL
        assert sorted(tree.utility[term]) == [-1, -1, 0, 0, 1, 1, 1, 1]
        # P1: the root and one infoset per own placement; P2 cannot see P1's placement.
        assert len(tree.infosets_of(0)) == 3 and len(tree.infosets_of(1)) == 1


def test_hand_counted_tiny_with_a_decoy() -> None:
    # As above plus two switches of house 1 (keep x, or swap with c) that end turn 1:
    # VP 0-0, so hand sums decide under `win`: keep -> (1-x) vs (1-v), swap -> x vs (1-v):
    # (0,0): 0,-1; (0,1): +1,0; (1,0): -1,0; (1,1): 0,+1. Under `margin` they are all 0.
    base = [-1, -1, 0, 0, 1, 1, 1, 1]
    switches = {"win": [0, -1, 1, 0, -1, 0, 0, 1], "margin": [0] * 8}
    for payoff, extra in switches.items():
        tree = build_tree(make_variant(None, {"cards": 2, "houses": 1, "decoys": 1,
                                              "max_turns": 1, "payoff": payoff}))
        check_invariants(tree)
        assert tree.num_nodes == 1 + 2 + 4 + 16
        term = tree.node_player == TERMINAL
        assert sorted(tree.utility[term]) == sorted(base + extra)
        assert list(tree.infoset_num_actions[tree.infosets_of(0)]) == [2, 4, 4]


@pytest.mark.parametrize("params", CROSS_CHECK, ids=lambda p: "-".join(map(str, p.values())))
def test_matches_generic_builder(params: dict) -> None:
    ours = build_tree(make_variant(None, params))
    ref = generic_build(make_game(None, params))
    check_invariants(ours)
    assert_same_tree(ours, ref, make_game(None, params))


def test_presets_tiny_and_mini_are_well_formed() -> None:
    for preset in ("tiny", "mini"):
        tree = build_tree(make_variant(preset, {}))
        check_invariants(tree)
        assert tree.variant == make_variant(preset, {}).as_dict()
        assert tree.game == "agent-hunter"
        assert tree.nbytes / tree.num_nodes <= 40


def test_refusals() -> None:
    with pytest.raises(SpycfrError, match="max-turns"):
        build_tree(make_variant(None, {"cards": 3, "houses": 1, "max_turns": None}))
    with pytest.raises(SpycfrError, match="1,000"):
        build_tree(make_variant("mini", {}), max_nodes=1000)
    # A limit that is not hit changes nothing (buffers are capped at the limit).
    full = build_tree(make_variant("tiny", {}))
    capped = build_tree(make_variant("tiny", {}), max_nodes=full.num_nodes)
    assert np.array_equal(full.first_child, capped.first_child)


def test_size_estimate_and_early_refusal() -> None:
    mini = make_variant("mini", {})
    exact = build_tree(mini).num_nodes
    assert abs(estimate_nodes(mini.to_params()) / exact - 1) < 0.25
    # The rulesheet-sized game (10/3/5, 12 turns) is refused at once, not after 300M nodes.
    with pytest.raises(SpycfrError, match="node limit"):
        build_tree(make_variant("standard", {"max_turns": 12}))
