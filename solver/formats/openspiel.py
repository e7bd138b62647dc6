"""Trees of OpenSpiel games: any two-player zero-sum game of ``pyspiel`` (the optional
``bench`` extra), enumerated through its Python API into the flat tree.

Simultaneous-move games are made turn-based first (OpenSpiel's own conversion). Infosets
are keyed by OpenSpiel's information-state strings, actions labelled by its
``action_to_string``; the walk is in Python (about 10^5 nodes a second), so it is for
games of up to a few million nodes.
"""

from __future__ import annotations

import contextlib
import os
import sys
from typing import Any

import numpy as np

from spycfr.errors import SpycfrError
from spycfr.memory import MemoryBudget
from spycfr.tree import CHANCE, TERMINAL, Tree

DEFAULT_MAX_NODES = 5_000_000


@contextlib.contextmanager
def _quiet_stderr():
    """Send file descriptor 2 (C++'s stderr) to /dev/null for a while."""
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 2)
            yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def load_pyspiel():
    """The pyspiel module, or a one-line error saying how to install it."""
    try:
        import pyspiel
    except ImportError:
        raise SpycfrError("openspiel:GAME needs OpenSpiel: pip install -e '.[bench]' (the "
                          "open_spiel package)") from None
    return pyspiel


def tree_from_openspiel(game_string: str, max_nodes: int = DEFAULT_MAX_NODES,
                        memory: MemoryBudget | None = None) -> Tree:
    """The flat tree of OpenSpiel's ``game_string`` (e.g. ``leduc_poker`` or
    ``goofspiel(num_cards=3,imp_info=True)``); SpycfrError if it is not a two-player
    zero-sum game with explicit chance, or has more than ``max_nodes`` nodes."""
    pyspiel = load_pyspiel()
    name = f"openspiel:{game_string}"
    short = game_string.split("(", 1)[0]
    if short not in pyspiel.registered_names():
        raise SpycfrError(f"OpenSpiel has no game {short!r}; two-player zero-sum ones include "
                          "kuhn_poker, leduc_poker, liars_dice, goofspiel, matrix_rps, "
                          "tic_tac_toe... (pyspiel.registered_names() lists all)")
    try:
        with _quiet_stderr():  # OpenSpiel prints its errors to stderr before raising them
            game = pyspiel.load_game(game_string)
    except pyspiel.SpielError as exc:
        lines = str(exc).strip().splitlines() or ["(no message)"]
        raise SpycfrError(f"OpenSpiel cannot load {game_string!r}: {lines[0][:300]}") from None
    info = game.get_type()
    if game.num_players() != 2:
        raise SpycfrError(f"{name} has {game.num_players()} players; spycfr solves two-player "
                          "zero-sum games (try the game's players=2 parameter)")
    if info.utility != pyspiel.GameType.Utility.ZERO_SUM:
        raise SpycfrError(f"{name} is not zero-sum ({info.utility.name}); spycfr solves "
                          "two-player zero-sum games")
    if info.chance_mode == pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC:
        raise SpycfrError(f"{name} samples its chance events (no outcome list): it cannot be "
                          "enumerated")
    variant: dict[str, Any] = {"game_string": game_string}
    if info.dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS:
        game = pyspiel.convert_to_turn_based(game)
        variant["turn_based"] = True

    # Ids are given to a node's children when it is expanded (so they are contiguous and
    # above the parent); expanding depth-first keeps only a path's siblings alive.
    first_child, num_children, node_player, node_infoset = [0], [0], [TERMINAL], [-1]
    node_action, utility = [-1], [0.0]
    probs: list[float] = []
    infoset_of: dict[str, int] = {}
    info_player: list[int] = []
    info_actions: list[int] = []
    info_node: list[int] = []
    labels: list[list[str]] = []
    stack = [(0, game.new_initial_state())]
    # The walk's memory per node depends on the game (a chess state is far bigger than a
    # poker one): measured as it grows, checked every 1,024 nodes expanded.
    growth = memory.tracker(f"enumerating {name}", "choose a smaller game or give a larger "
                            "--memory-limit", every=1024) if memory is not None else None
    expanded = 0
    while stack:
        n, state = stack.pop()
        expanded += 1
        if growth is not None:
            growth.tick(expanded)
        if state.is_terminal():
            utility[n] = float(state.returns()[0])
            continue
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            actions = [a for a, _ in outcomes]
            node_player[n], node_infoset[n] = CHANCE, len(probs)
            probs.extend(float(q) for _, q in outcomes)
        else:
            player = state.current_player()
            actions = list(state.legal_actions())
            key = state.information_state_string(player)
            j = infoset_of.get(key)
            if j is None:
                j = infoset_of[key] = len(info_player)
                info_player.append(player)
                info_actions.append(len(actions))
                info_node.append(n)
                labels.append([state.action_to_string(player, a) for a in actions])
            elif info_actions[j] != len(actions):
                raise SpycfrError(f"{name}: information state {key[:80]!r} has different "
                                  "legal actions at different nodes")
            node_player[n], node_infoset[n] = player, j
        first = len(node_player)
        first_child[n], num_children[n] = first, len(actions)
        for k, a in enumerate(actions):
            first_child.append(0)
            num_children.append(0)
            node_player.append(TERMINAL)
            node_infoset.append(-1)
            node_action.append(int(a))
            utility.append(0.0)
            stack.append((first + k, state.child(a)))
        if len(node_player) > max_nodes:
            raise SpycfrError(f"{name} has more than {max_nodes:,} nodes: too big to enumerate "
                              "through OpenSpiel's Python API")
    if memory is not None:  # the flat arrays are built while the walk's lists still exist
        memory.require(f"the tree of {name} ({len(node_player):,} nodes)",
                       len(node_player) * 40, "choose a smaller game")
    return Tree(
        game=name, variant=variant,
        first_child=np.asarray(first_child, np.int64),
        num_children=np.asarray(num_children, np.int16),
        node_player=np.asarray(node_player, np.int8),
        node_infoset=np.asarray(node_infoset, np.int32),
        node_action=np.asarray(node_action, np.int32),
        utility=np.asarray(utility, np.float64),
        chance_prob=np.asarray(probs, np.float64),
        infoset_player=np.asarray(info_player, np.int8),
        infoset_num_actions=np.asarray(info_actions, np.int16),
        infoset_node=np.asarray(info_node, np.int64),
        infoset_keys=list(infoset_of), action_labels=labels,
    )
