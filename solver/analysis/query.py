"""Best move from a position: a player's view of a game record (in the game's notation) ->
every legal move with its equilibrium probability and its value against the opponent."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from solver.errors import SpycfrError
from solver.exact.best_response import best_response_values, infoset_values
from solver.formats.strategy_table import read_table, strategy_from_table
from solver.games import feature, make_variant, tree_labels
from solver.runs.store import Run, load_run
from solver.tree import Tree

PLAYERS = {"P1": 0, "P2": 1}


def opponent_strategy(tree: Tree, source: str, run_fingerprint: dict | None = None) -> np.ndarray:
    """A profile from ``uniform``, a run directory or a strategy table file, on ``tree``."""
    if source == "uniform":
        return tree.uniform_strategy()
    path = Path(source)
    if path.is_dir():
        other = load_run(path)
        if other.tree.variant != tree.variant or other.tree.game != tree.game:
            raise SpycfrError(
                f"run {source!r} solves {other.tree.game} {other.tree.variant}, "
                f"not {tree.game} {tree.variant}"
            )
        return other.strategy
    if path.is_file():
        return strategy_from_table(tree, read_table(path))[0]
    raise SpycfrError(
        f"--against {source!r}: not 'uniform', a run directory or a strategy table file"
    )


def combine(own: np.ndarray, other: np.ndarray, tree: Tree, player: int) -> np.ndarray:
    """The profile where ``player`` plays ``own`` and the opponent plays ``other``."""
    profile = own.copy()
    rows = tree.infoset_player != player
    profile[rows] = other[rows]
    return profile


def infoset_index(tree: Tree) -> dict[tuple[int, str], int]:
    """(player, information-state key) -> infoset id."""
    keys, _ = tree_labels(tree)
    return {(int(p), k): i for i, (p, k) in enumerate(zip(tree.infoset_player, keys, strict=True))}


def query(run: Run, player: int, record: str, against: np.ndarray | None = None) -> dict:
    """Every legal move of ``player`` at the position its view ``record`` describes."""
    tree = run.tree
    records = feature(tree.game, "records", "record notation to name a position in")
    key, position = records.view_key(make_variant(tree.game, None, tree.variant), record, player)
    name = "P1" if player == 0 else "P2"
    if position["terminal"]:
        raise SpycfrError(f"the game is over after this record (payoff {position['payoff']})")
    if position["to_move"] != name:
        raise SpycfrError(f"it is {position['to_move']}'s move after this record, not {name}'s")
    infoset = infoset_index(tree).get((player, key))
    if infoset is None:
        raise SpycfrError(f"{name}'s position {key!r} is not in the solved tree of this variant")
    profile = run.strategy if against is None else combine(run.strategy, against, tree, player)
    cfv, reach, opp_reach = infoset_values(tree, profile)
    q, best, opp = best_response_values(tree, profile, player)
    k = int(tree.infoset_num_actions[infoset])
    _, labels = tree_labels(tree)
    probs = run.strategy[infoset, :k]
    reachable = opp_reach[infoset] > 0
    values = cfv[infoset, :k] / opp_reach[infoset] if reachable else np.full(k, np.nan)
    br_values = q[infoset, :k] / opp[infoset] if reachable else np.full(k, np.nan)
    moves = [
        {"move": labels[infoset][a], "probability": float(probs[a]),
         "value": _num(values[a]), "br_value": _num(br_values[a])}
        for a in range(k)
    ]
    best_move = int(np.nanargmax(values)) if reachable else int(np.argmax(probs))
    return {
        "player": name,
        "information_state": key,
        "infoset": infoset,
        "reach_probability": float(reach[infoset]),
        "opponent_reaches": bool(reachable),
        "position_value": _num(float(probs @ values)) if reachable else None,
        "best_move": labels[infoset][best_move],
        "best_response_move": labels[infoset][int(best[infoset])] if reachable else None,
        "moves": moves,
        "position": position,
    }


def _num(x: float) -> float | None:
    return None if not np.isfinite(x) else float(x)
