"""Conformance of every game with a public-state model (a game joins by registering one:
nothing here names a game), on every preset whose history tree is small enough: the public
tree is well formed, the history tree maps onto it consistently (every node of a history
infoset on one public row), and both trees give the same values, NashConv and
exploitability for the same profiles (uniform, and a few CFR+ iterations on the public tree
mapped onto the history tree); a game's reduced model (the plug-in's ``public_params``,
what the solver runs on) as well as its rules' model."""

from __future__ import annotations

import numpy as np
import pytest

from spycfr.engine.playout import estimate_nodes
from spycfr.exact.best_response import expected_value, exploitability
from spycfr.games import build_tree, game_names, get_plugin, make_game, make_variant
from spycfr.public import protocol
from spycfr.public.enumerate import build_public_tree, solver_params
from spycfr.public.mapping import HistoryMap
from spycfr.public.solver import (
    PublicCFRSolver,
    profile_values,
    public_exploitability,
    uniform_strategy,
)

HISTORY_NODES = 400_000  # (estimated) history trees checked against the public tree


def _cases() -> list:
    """Every preset of a game with a public model, by name: collecting them compiles nothing
    (a preset's size comes from the game's numba playouts; the test skips those too big)."""
    out = []
    for game in game_names():
        plugin = get_plugin(game)
        for preset in plugin.presets:
            variant = make_variant(game, preset)
            params = plugin.numba_params(variant)
            if protocol.has_public(params):
                out.append(pytest.param(game, preset, False, id=f"{game}-{preset}"))
                if plugin.public_params is not None:  # the solver's reduced model too
                    out.append(pytest.param(game, preset, True, id=f"{game}-{preset}-reduced"))
    return out


CASES = _cases()


def test_the_validation_games_have_public_models():
    games = {c.values[0] for c in CASES}
    assert {"kuhn", "leduc", "liars-dice"} <= games


@pytest.mark.slow
@pytest.mark.parametrize("game,preset,reduced", CASES)
def test_public_tree_agrees_with_the_history_tree(game, preset, reduced):
    params = get_plugin(game).numba_params(make_variant(game, preset))
    if estimate_nodes(params) > HISTORY_NODES:
        pytest.skip(f"history tree estimated over {HISTORY_NODES:,} nodes, too big to check")
    python_game = make_game(game, preset)
    public = build_public_tree(python_game,
                               params=solver_params(python_game) if reduced else None)
    history = build_tree(python_game)
    # Well formed: children after parents, each node the child of one node, rows complete.
    internal = public.num_children > 0
    assert np.all(public.first_child[internal] > np.flatnonzero(internal))
    hits = np.bincount(np.concatenate([np.arange(f, f + k) for f, k in zip(
        public.first_child[internal], public.num_children[internal], strict=True)]),
        minlength=public.num_nodes)
    assert hits[0] == 0 and np.all(hits[1:] == 1)
    assert np.all(public.row_num >= 1)
    mapping = HistoryMap(public, history)
    assert np.all(mapping.row >= 0)  # every history infoset has its row

    uniform = uniform_strategy(public)
    mapped = mapping.strategy(uniform)
    assert profile_values(public, uniform, False)[0] == pytest.approx(
        expected_value(history, mapped), abs=1e-9)
    assert public_exploitability(public, uniform) == pytest.approx(
        exploitability(history, mapped), abs=1e-9)

    solver = PublicCFRSolver(public, "cfr+")
    solver.iterate(20)
    avg = solver.average_strategy()
    assert public_exploitability(public, avg) == pytest.approx(
        exploitability(history, mapping.strategy(avg)), abs=1e-9)
    assert public_exploitability(public, avg) < public_exploitability(public, uniform)
