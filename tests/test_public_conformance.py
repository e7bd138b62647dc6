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



# public nodes checked for the private transitions' indices on each preset: the first ones
# breadth first, then the nodes along seeded random paths to the end of the game
FIRST_NODES = 2_000
PATHS = 20


def _search_params(game: str, preset: str):
    """The params a search on the preset's public model runs on: the plug-in's
    search_params, else the rules'."""
    plugin = get_plugin(game)
    return (plugin.search_params or plugin.numba_params)(make_variant(game, preset))


def _search_cases() -> list:
    """Every preset of a game with a public model that a search runs on."""
    out = []
    for game in game_names():
        for preset in get_plugin(game).presets:
            if protocol.has_public(_search_params(game, preset)):
                out.append(pytest.param(game, preset, id=f"{game}-{preset}"))
    return out


@pytest.mark.parametrize("game,preset", _search_cases())
def test_every_private_transition_is_in_range(game, preset):
    """The search's passes (spycfr.search.passes) read each row's child and next private
    state unchecked, for every private state (the private chance pass and the values pass
    take no reach test): each must index the node's children and the seat's private
    states. The enumerator checks live states only; Agent Hunter's model gave rows past the
    range to states its public state rules out (fixed in 19f1003). Each node's rows as the
    search tree's builder makes them (its ``_expand``), on the first FIRST_NODES nodes and
    along PATHS random paths."""
    from collections import deque

    from spycfr.search.tree import GameModel, _expand

    model = GameModel.of(_search_params(game, preset))
    params, n = model.params, model.n
    nmax, amax, pamax = max(n), model.max_actions, model.max_private_actions
    root = model.root()
    kids = np.zeros((amax, root.shape[0]), root.dtype)
    probs, masks = np.zeros(amax), np.ones((amax, 2, nmax))
    kid, nxt = np.zeros((nmax, pamax), np.int64), np.zeros((nmax, pamax), np.int64)
    prob, count = np.zeros((nmax, pamax)), np.zeros(nmax, np.int64)
    rows = 0

    def check(pub: np.ndarray) -> np.ndarray:
        """The node's children's public states, its rows checked."""
        nonlocal rows
        kid[:], nxt[:], count[:] = 0, 0, 0
        kind, k = _expand(pub, params, nmax, kids, probs, masks, kid, nxt, prob, count)
        if kind in (0, 1) or kind >= protocol.PRIVATE_CHANCE:
            seat = kind if kind in (0, 1) else kind - protocol.PRIVATE_CHANCE
            used = np.arange(pamax) < count[:n[seat], None]
            assert np.all(count[:n[seat]] <= pamax), (pub.tolist(), kind)
            assert np.all((nxt[:n[seat]][used] >= 0) & (nxt[:n[seat]][used] < n[seat])), (
                pub.tolist(), kind)
            if kind in (0, 1):
                assert np.all((kid[:n[seat]][used] >= 0) & (kid[:n[seat]][used] < k)), (
                    pub.tolist(), kind)
            rows += 1
        return kids[:k].copy()

    frontier, seen = deque([root]), 0
    while frontier and seen < FIRST_NODES:
        frontier.extend(check(frontier.popleft()))
        seen += 1
    rng = np.random.default_rng(7)
    for _ in range(PATHS):
        pub = root
        while len(below := check(pub)):
            pub = below[rng.integers(len(below))]
    assert rows > 0
