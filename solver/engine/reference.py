"""The reference builder: a game's Python states (:mod:`spycfr.engine.states`) -> flat Tree.

Plain Python, breadth first (BFS keeps the children of a node contiguous), with infosets
keyed by the information-state strings. Slow, and independent of the numba protocol:
the conformance tests check that the numba enumerator builds the same tree.
"""

from __future__ import annotations

import time
from collections import deque

import numpy as np

from spycfr.engine.states import CHANCE_PLAYER, TERMINAL_PLAYER, State
from spycfr.errors import SpycfrError
from spycfr.tree import CHANCE, TERMINAL, Tree


def build_reference_tree(game) -> Tree:
    """BFS over the State protocol; checks the perfect-recall and action-order invariants."""
    start = time.perf_counter()
    tree = _build(game)
    tree.build_seconds = time.perf_counter() - start
    return tree


def _build(game) -> Tree:
    first_child: list[int] = []
    num_children: list[int] = []
    node_player: list[int] = []
    node_infoset: list[int] = []
    node_action: list[int] = [-1]
    utility: list[float] = []
    chance_prob: list[float] = []
    infoset_ids: dict[str, int] = {}
    infoset_player: list[int] = []
    infoset_actions: list[tuple[int, ...]] = []
    infoset_node: list[int] = []
    infoset_keys: list[str] = []
    action_labels: list[list[str]] = []
    # Perfect recall: every node of an infoset must share the acting player's
    # previous (infoset, action) pair; its own infoset then fixes the rest.
    infoset_prev: list[tuple[int, int] | None] = []

    # Queue entries: (state, last (infoset, action) of P1, same for P2).
    # (state, each player's last decision as (infoset, action) or None)
    queue: deque[tuple[State, tuple[int, int] | None, tuple[int, int] | None]] = deque(
        [(game.new_initial_state(), None, None)])
    n_nodes = 1
    n = 0
    while queue:
        state, prev0, prev1 = queue.popleft()
        player = state.current_player()
        if state.is_terminal() or player == TERMINAL_PLAYER:
            ret = state.returns()
            if abs(ret[0] + ret[1]) > 1e-9:
                raise SpycfrError(f"game {game.name!r} is not zero-sum at a terminal: {ret}")
            first_child.append(0)
            num_children.append(0)
            node_player.append(TERMINAL)
            node_infoset.append(-1)
            utility.append(float(ret[0]))
        elif player == CHANCE_PLAYER:
            outcomes = state.chance_outcomes()
            if not outcomes:
                raise SpycfrError(f"game {game.name!r}: chance node without outcomes")
            first_child.append(n_nodes)
            num_children.append(len(outcomes))
            node_player.append(CHANCE)
            node_infoset.append(len(chance_prob))
            utility.append(0.0)
            for code, prob in outcomes:
                chance_prob.append(float(prob))
                node_action.append(int(code))
                queue.append((state.child(code), prev0, prev1))
            n_nodes += len(outcomes)
        elif player in (0, 1):
            key = state.information_state(player)
            actions = tuple(int(a) for a in state.legal_actions())
            if not actions:
                raise SpycfrError(f"game {game.name!r}: decision node without legal actions")
            prev = prev0 if player == 0 else prev1
            iid = infoset_ids.get(key)
            if iid is None:
                iid = len(infoset_player)
                infoset_ids[key] = iid
                infoset_player.append(player)
                infoset_actions.append(actions)
                infoset_node.append(n)
                infoset_keys.append(key)
                action_labels.append([state.action_label(a) for a in actions])
                infoset_prev.append(prev)
            elif (
                infoset_player[iid] != player
                or infoset_actions[iid] != actions
                or infoset_prev[iid] != prev
            ):
                raise SpycfrError(
                    f"game {game.name!r}: infoset {key!r} mixes players, action lists "
                    "or histories of its player (no perfect recall)"
                )
            first_child.append(n_nodes)
            num_children.append(len(actions))
            node_player.append(player)
            node_infoset.append(iid)
            utility.append(0.0)
            for k, a in enumerate(actions):
                node_action.append(a)
                if player == 0:
                    queue.append((state.child(a), (iid, k), prev1))
                else:
                    queue.append((state.child(a), prev0, (iid, k)))
            n_nodes += len(actions)
        else:
            raise SpycfrError(f"game {game.name!r}: bad current player {player}")
        n += 1

    return Tree(
        game=game.name,
        variant=dict(game.variant),
        first_child=np.asarray(first_child, dtype=np.int64),
        num_children=np.asarray(num_children, dtype=np.int16),
        node_player=np.asarray(node_player, dtype=np.int8),
        node_infoset=np.asarray(node_infoset, dtype=np.int32),
        node_action=np.asarray(node_action, dtype=np.int32),
        utility=np.asarray(utility, dtype=np.float64),
        chance_prob=np.asarray(chance_prob, dtype=np.float64),
        infoset_player=np.asarray(infoset_player, dtype=np.int8),
        infoset_num_actions=np.asarray([len(a) for a in infoset_actions], dtype=np.int16),
        infoset_node=np.asarray(infoset_node, dtype=np.int64),
        infoset_keys=infoset_keys,
        action_labels=action_labels,
    )
