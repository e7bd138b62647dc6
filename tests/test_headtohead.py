"""Head-to-head matches: sampled results agree with exact values within their intervals,
are reproducible, and work with tree runs, MCCFR tables and heuristic players."""

from __future__ import annotations

import json

import numpy as np
import pytest

from cli_helpers import spycfr
from spycfr.analysis.headtohead import (
    head_to_head,
    heuristic_player,
    mccfr_player,
    tree_player,
    uniform_player,
)
from spycfr.analysis.query import combine
from spycfr.cfr import CFRSolver
from spycfr.cfr.mccfr import MCCFRSolver, strategy_on_tree
from spycfr.errors import SpycfrError
from spycfr.exact.best_response import expected_value
from spycfr.games import build_tree, get_plugin, make_game


def _exact_vs_uniform(tree, strategy):
    """A's exact payoff against uniform, as P1 and as P2."""
    uniform = tree.uniform_strategy()
    as_p1 = expected_value(tree, combine(strategy, uniform, tree, 0))
    as_p2 = -expected_value(tree, combine(strategy, uniform, tree, 1))
    return as_p1, as_p2


def _within(result, exact):
    lo, hi = result["ci95"]
    half = (hi - lo) / 2
    assert abs(result["mean"] - exact) <= 2 * half  # ~4 standard errors


@pytest.mark.parametrize("name", ["kuhn", "leduc", "agent-avenue"])
def test_sampled_matches_exact(name):
    game = make_game(name, "tiny" if name == "agent-avenue" else None)
    tree = build_tree(game)
    solver = CFRSolver(tree, "cfr+")
    solver.iterate(300)
    strategy = solver.average_strategy()
    params = get_plugin(name).numba_params(game.variant_obj)
    res = head_to_head(game, tree_player(tree, strategy, params), uniform_player(), 20_000, 3)
    p1, p2 = _exact_vs_uniform(tree, strategy)
    _within(res["a_as_p1"], p1)
    _within(res["a_as_p2"], p2)
    assert res["table_misses"] == 0
    again = head_to_head(game, tree_player(tree, strategy, params), uniform_player(), 20_000, 3)
    assert again == res
    other = head_to_head(game, tree_player(tree, strategy, params), uniform_player(), 20_000, 4)
    assert other["a_payoff"]["mean"] != res["a_payoff"]["mean"]


def test_mccfr_player_plays_its_average_strategy():
    game = make_game("kuhn")
    tree = build_tree(game)
    solver = MCCFRSolver(game, "external", seed=2)
    solver.iterate(3000)
    res = head_to_head(game, mccfr_player(solver), uniform_player(), 20_000, 1)
    p1, p2 = _exact_vs_uniform(tree, strategy_on_tree(solver, tree))
    _within(res["a_as_p1"], p1)
    _within(res["a_as_p2"], p2)


def test_heuristic_players():
    game = make_game("agent-avenue", "standard")
    res = head_to_head(game, heuristic_player(game), uniform_player(), 4000, 0)
    assert res["a_payoff"]["ci95"][0] > 0.3  # the heuristic clearly beats random play
    with pytest.raises(SpycfrError, match="no heuristic"):
        heuristic_player(make_game("kuhn"))


def test_cli(tmp_path):
    run = tmp_path / "kuhn"
    code, _, err = spycfr("solve", "kuhn", "--iterations", "200", "-o", str(run), "-q")
    assert code == 0, err
    code, out, err = spycfr("head-to-head", str(run), "uniform", "--games", "2000", "--json")
    assert code == 0, err
    res = json.loads(out)
    assert res["a"] == str(run) and res["a_payoff"]["games"] == 2000
    assert np.isfinite(res["a_payoff"]["mean"])
    for args, needle in [
        (["nobody", "uniform", "--game", "kuhn"], "not 'uniform', 'heuristic'"),
        # A run directory that does not exist is named as such, not taken for a missing --game.
        ([str(tmp_path / "gone"), "uniform"], "or an existing run directory"),
        (["heuristic", "uniform", "--game", "kuhn"], "no heuristic"),
        (["uniform", "uniform"], "give --game"),
        ([str(run), "uniform", "--game", "kuhn"], "names its own game"),
        (["uniform", "uniform", "--game", "kuhn", "--games", "1"], "--games"),
    ]:
        code, out, err = spycfr("head-to-head", *args)
        assert code == 2 and needle in err and "Traceback" not in err, (args, err)
