"""Local best response: its belief follows the strategy's probabilities (checked by hand),
its payoff never beats the exact best response and finds most of a weak strategy's
exploitability on enumerable games, and `spycfr measure --lbr-games` records it."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

from cli_helpers import spycfr
from spycfr.analysis.bound import lower_bound
from spycfr.analysis.headtohead import TABLE, Player, mccfr_player, tree_player, uniform_player
from spycfr.analysis.lbr import (
    SECOND_SEAT_SEED,
    belief_after,
    check_lbr_options,
    local_best_response,
    seat_seed,
)
from spycfr.cfr import CFRSolver
from spycfr.cfr.mccfr import MCCFRSolver, strategy_on_tree
from spycfr.cfr.mccfr_kernels import path_key, rebuild_table
from spycfr.errors import SpycfrError
from spycfr.exact.best_response import best_response
from spycfr.games import build_tree, get_plugin, make_game
from spycfr.games.agent_hunter import rules as R

BET = {0: 0.1, 1: 0.5, 2: 0.9}  # P1's probability of betting first in Kuhn, by card


def _kuhn_bettor(game) -> Player:
    """P1 bets first with BET[card] (a hand-made table; every other decision uniform)."""
    params = get_plugin("kuhn").numba_params(game.variant_obj)
    keys = np.array([path_key(params, np.array([c, (c + 1) % 3], dtype=np.int32), 0, False)
                     for c in BET], dtype=np.int64)
    table, _ = rebuild_table(keys, np.int64(len(keys)))
    rows = np.array([x for b in BET.values() for x in (1 - b, b)])
    return Player("bettor", TABLE, (table, np.arange(0, 6, 2, dtype=np.int64),
                                    np.full(3, 2, dtype=np.int32), rows))


@pytest.mark.parametrize("p1_moves, expected", [
    ([], {0: 0.5, 2: 0.5}),  # P2 holds the queen: the jack or the king, equally likely
    ([1], {0: 0.1, 2: 0.9}),  # a bet: 0.1 / (0.1 + 0.9) and 0.9 / (0.1 + 0.9)
    ([0], {0: 0.9, 2: 0.1}),  # a pass: 0.9 / (0.9 + 0.1) and 0.1 / (0.9 + 0.1)
])
def test_kuhn_belief_weights_histories_by_the_strategy(p1_moves, expected):
    game = make_game("kuhn")
    states, weights = belief_after(game, _kuhn_bettor(game), 1, [0, 1, *p1_moves])
    got = {int(s[0]): float(w) for s, w in zip(states, weights, strict=True)}  # CARD0
    assert got == pytest.approx(expected)


@pytest.mark.slow
def test_agent_hunter_belief_keeps_the_placements_the_attack_allows():
    """tiny (3 cards, 2 houses): P1 placed 0-1 and attacks P2's house 1 with card 2 from
    hand, so P2 knows P1's houses hold 0 and 1, in either order; the uniform player makes
    either equally likely."""
    game = make_game("agent-hunter", "tiny")
    path = [R.encode_place([0, 1], 3), R.encode_place([1, 2], 3), R.encode_hand(2, 0)]
    states, weights = belief_after(game, uniform_player(), 1, path[:1])
    assert len(states) == 6 and weights == pytest.approx(np.full(6, 1 / 6))
    states, weights = belief_after(game, uniform_player(), 1, path)
    houses = sorted((int(s[R.O_HOUSE]), int(s[R.O_HOUSE + 1])) for s in states)
    assert houses == [(0, 1), (1, 0)] and weights == pytest.approx([0.5, 0.5])
    assert all(s[R.PSTRIDE + R.O_HOUSE] == 1 and s[R.PSTRIDE + R.O_HOUSE + 1] == 2
               for s in states)  # P2's own houses as they are


def _check_against_exact(game, tree, strategy, player, games, rollouts):
    """LBR's payoff per seat is at most the exact best response (within its interval);
    returns (LBR's result, the exact exploitability)."""
    br1, br2 = best_response(tree, strategy, 0)[0], best_response(tree, strategy, 1)[0]
    out = local_best_response(game, player, games, seed=5, rollouts=rollouts)
    for seat, br in (("as_p1", br1), ("as_p2", br2)):
        r = out[seat]
        assert r["mean"] <= br + (r["ci95"][1] - r["mean"]), (seat, r, br)
    assert out["value"] <= (br1 + br2) / 2 + (out["ci95"][1] - out["value"])
    return out, (br1 + br2) / 2


@pytest.mark.slow
@pytest.mark.parametrize("name, preset", [("kuhn", None), ("agent-hunter", "tiny"),
                                          ("agent-hunter", "mini")])
def test_lbr_is_below_the_best_response_and_finds_most_of_uniform_play(name, preset):
    game = make_game(name, preset)
    tree = build_tree(game)
    params = get_plugin(name).numba_params(game.variant_obj)
    uniform = tree.uniform_strategy()
    out, expl = _check_against_exact(game, tree, uniform, tree_player(tree, uniform, params),
                                     2000, 8)
    assert out["value"] >= 0.6 * expl, (out["value"], expl)  # measured: 0.72 to 0.90
    solver = CFRSolver(tree, "cfr+")
    solver.iterate(50)
    strategy = solver.average_strategy()
    _check_against_exact(game, tree, strategy, tree_player(tree, strategy, params), 2000, 8)


def test_lbr_against_an_abstract_mccfr_table():
    """A table keyed by the information abstraction (what `standard` runs use), on mini
    where its exact best response is known."""
    game = make_game("agent-hunter", "mini")
    tree = build_tree(game)
    solver = MCCFRSolver(game, "outcome", seed=1, abstraction=True)
    solver.iterate(20_000)
    strategy = strategy_on_tree(solver, tree)
    out, expl = _check_against_exact(game, tree, strategy, mccfr_player(solver), 1000, 8)
    assert out["value"] > 0.0 and expl > 0.0


def test_lbr_is_reproducible_and_refuses_bad_input():
    game = make_game("agent-hunter", "tiny")
    a = local_best_response(game, uniform_player(), 60, seed=3, rollouts=2)
    assert a == local_best_response(game, uniform_player(), 60, seed=3, rollouts=2)
    assert a["as_p1"]["games"] == 30 and a["largest_belief"] == 6
    b = local_best_response(game, uniform_player(), 60, seed=4, rollouts=2)
    assert b["as_p1"]["mean"] != a["as_p1"]["mean"] or b["as_p2"]["mean"] != a["as_p2"]["mean"]
    with pytest.raises(SpycfrError, match="^rollouts must be >= 1, got 0$"):
        local_best_response(game, uniform_player(), 60, rollouts=0)


def test_the_second_seats_seed_stays_within_int64():
    """P2's games draw from seed + 2**40; a --seed near 2**63 wraps instead of overflowing
    (numpy warned and the kernels got a negative seed), and every other seed is unchanged."""
    top = 2**63 - 1
    assert seat_seed(5, 0) == 5 and seat_seed(5, 1) == 5 + SECOND_SEAT_SEED
    assert seat_seed(top, 0) == top and seat_seed(top, 1) == SECOND_SEAT_SEED - 1
    game = make_game("agent-hunter", "tiny")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an overflow warning fails the test
        out = local_best_response(game, uniform_player(), 4, seed=top, rollouts=1)
    assert out["as_p2"]["games"] == 2


def test_measure_records_lbr(tmp_path):
    run = tmp_path / "std"
    code, out, err = spycfr("solve", "agent-hunter", "--preset", "standard", "--algorithm",
                            "os-mccfr", "--abstraction", "--iterations", "2000", "-o", str(run),
                            "--json", "-q")
    assert code == 0, err
    code, out, err = spycfr("measure", str(run), "--games", "100", "--json")
    assert code == 0, err
    assert json.loads(out)["local_best_response"] is None
    code, out, err = spycfr("report", str(run), "-o", str(tmp_path / "r.md"))
    assert code == 0 and "**Local best response: unknown**" in (tmp_path / "r.md").read_text()
    code, out, err = spycfr("measure", str(run), "--games", "100", "--lbr-games", "20",
                            "--lbr-rollouts", "2", "--lbr-rollout", "heuristic:hunter",
                            "--json")
    assert code == 0, err
    measured = json.loads(out)
    lbr = measured["local_best_response"]
    assert lbr["games"] == 20 and lbr["rollouts"] == 2
    assert lbr["rollout_policy"] == "heuristic:hunter"
    assert lbr["ci95"][0] <= lbr["value"] <= lbr["ci95"][1]
    # the bound recorded is the words' (the highest 95% low end), its value that low end
    bound = measured["exploitability_lower_bound"]
    shown = lower_bound(measured)
    lows = [lbr["ci95"][0]] + [-m["payoff"]["ci95"][1] for m in measured["head_to_head"]]
    assert bound["value"] == pytest.approx(max(0.0, *lows)) == pytest.approx(shown.shown)
    assert (bound["opponent"], bound["mean"], bound["low95"], bound["games"]) == (
        shown.by, shown.mean, shown.low, shown.games)
    assert "--lbr-games 20" in measured["command"] and measured["lbr_games"] == 20
    assert json.loads((run / "run.json").read_text())["measured"] == measured
    code, out, err = spycfr("report", str(run), "-o", str(tmp_path / "r.md"))
    assert code == 0 and "**Local best response:" in (tmp_path / "r.md").read_text()
    code, out, err = spycfr("measure", str(run), "--games", "100", "--lbr-games", "20",
                            "--lbr-rollouts", "0")
    assert code == 2 and "error: --lbr-rollouts must be >= 1" in err
    code, out, err = spycfr("measure", str(run), "--lbr-games", "-1")
    assert code == 2 and "error: --lbr-games must be >= 4 (0: no local best response)" in err
    code, out, err = spycfr("measure", str(run), "--games", "0")
    assert code == 2 and err == ("error: nothing to measure: --games 0 and --lbr-games 0 (give "
                                 "--games N > 0 for head to head, --lbr-games N >= 4 for a "
                                 "local best response)\n")


def test_a_caller_says_its_callees_parameters_in_its_own_names():
    """measure passes its lbr_games and lbr_rollouts on as LBR's games and rollouts: its errors
    name its own parameters, and the CLI says them as its flags (test above)."""
    from spycfr.errors import ParameterError, parameters_named

    with pytest.raises(ParameterError) as caught, parameters_named(games="lbr_games"):
        check_lbr_options(2, 1)
    assert str(caught.value) == "lbr_games must be >= 4 (0: no local best response), got 2"
    assert caught.value.said({"lbr_games": "--lbr-games"}).startswith("--lbr-games must")
    assert caught.value.parameters == ("lbr_games",)
