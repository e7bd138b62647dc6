"""Head-to-head matches: sampled results agree with exact values within their intervals,
are reproducible, and work with tree runs, MCCFR tables and heuristic players."""

from __future__ import annotations

import json

import numpy as np
import pytest

from cli_helpers import spycfr
from spycfr.analysis.agentplay import play_games
from spycfr.analysis.headtohead import (
    _play,
    head_to_head,
    heuristic_player,
    mccfr_player,
    player_args,
    player_probs,
    tree_player,
    uniform_player,
)
from spycfr.analysis.query import combine
from spycfr.cfr import CFRSolver
from spycfr.cfr.mccfr import MCCFRSolver, strategy_on_tree
from spycfr.engine.rng import game_stream
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


def test_payoffs_without_spread_get_a_sound_interval_not_a_point():
    """Every payoff the same: the normal interval has no width ([+1, +1] for 8 wins of 8, a
    certainty 8 games cannot give). 8 of 8 won: the exact binomial bound, the win rate at
    least 0.025 ** (1 / 8) = 0.631, the mean at least +0.26 (docs/search.md's figure); other
    values Hoeffding's; a sample with spread keeps its normal interval."""
    from spycfr.analysis.headtohead import mean_ci, seats_ci
    from spycfr.analysis.lbr import summary

    won = mean_ci(np.ones(8), 1.0)
    assert won["mean"] == 1.0 and won["ci95"] == [pytest.approx(2 * 0.025 ** (1 / 8) - 1), 1.0]
    assert 0.26 < won["ci95"][0] < 0.27
    assert mean_ci(-np.ones(8), 1.0)["ci95"] == [-1.0, pytest.approx(-won["ci95"][0])]
    assert mean_ci(np.full(8, 2.0), 2.0)["ci95"] == [pytest.approx(2 * won["ci95"][0]), 2.0]
    hoeffding = np.sqrt(2 * np.log(40) / 8)  # 8 draws: +- 0.960, whatever the payoffs' law
    assert mean_ci(np.zeros(8), 1.0)["ci95"] == [pytest.approx(-hoeffding),
                                                 pytest.approx(hoeffding)]
    assert mean_ci(np.ones(100), 1.0)["ci95"][0] > won["ci95"][0]  # more games, tighter
    # the seats' means averaged (LBR's): 4 and 4 wins bound as 8; unequal seats by the fewer
    assert seats_ci([np.ones(4), np.ones(4)], 1.0) == (1.0, won["ci95"])
    assert seats_ci([np.ones(4), np.ones(9)], 1.0) == (1.0, won["ci95"])
    apart = seats_ci([np.ones(4), -np.ones(4)], 1.0)  # each seat constant, the two apart
    assert apart[0] == 0.0 and apart[1] == [pytest.approx(-hoeffding), pytest.approx(hoeffding)]
    assert summary([np.ones(4), np.ones(4)], 1.0, 0, 1, "x", 0, 0, "x", "x")["ci95"] == \
        won["ci95"]
    rng = np.random.default_rng(3)  # an ordinary sample: mean +- 1.96 standard errors
    x = rng.choice([-1.0, 0.0, 1.0], 50)
    half = 1.96 * x.std(ddof=1) / np.sqrt(50)
    assert mean_ci(x, 1.0)["ci95"] == [pytest.approx(x.mean() - half),
                                       pytest.approx(x.mean() + half)]


def test_intervals_stay_within_the_payoff_range():
    """Few games near the edge: mean +- 1.96 standard errors would pass +1 (5 wins and a
    loss: 0.667 +- 0.653); the interval is clipped to the payoff range, LBR's too."""
    from spycfr.analysis.headtohead import mean_ci
    from spycfr.analysis.lbr import summary

    edge = np.array([1.0, 1, 1, 1, 1, -1])
    r = mean_ci(edge, 1.0)
    assert r["mean"] == pytest.approx(2 / 3) and r["games"] == 6
    assert r["ci95"] == [pytest.approx(2 / 3 - 0.65333333), 1.0]
    assert mean_ci(-edge, 1.0)["ci95"][0] == -1.0
    wide = mean_ci(edge, 2.0)  # Kuhn's range: the same interval, unclipped
    assert wide["ci95"][1] == pytest.approx(1.32)
    assert mean_ci(np.array([0.5]), 1.0)["ci95"] == [-1.0, 1.0]  # one game: the whole range
    lbr = summary([edge, edge[::-1].copy()], 1.0, 0, 1, "x", 0, 0, "x", "x")
    assert lbr["value"] == pytest.approx(2 / 3)
    lo, hi = lbr["ci95"]
    assert hi == 1.0 and lo == pytest.approx(2 / 3 - 1.96 * 0.5 * np.hypot(0.33333, 0.33333),
                                             rel=1e-4)


def _splitmix(seed: int, g: int) -> int:
    """The splitmix64 finaliser of seed * golden + g, in Python integers."""
    mask = (1 << 64) - 1
    z = (seed * 0x9E3779B97F4A7C15 + g) & mask
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
    return z ^ (z >> 31)


def test_both_match_loops_play_game_g_from_its_own_stream():
    """Game g of a match seeded ``seed`` draws from splitmix64(seed * golden + g) (engine.rng's
    game_stream: a seeded match replays the games it always played), in the numba loop and
    in the search agent's Python loop alike: without an agent the two play the same games."""
    for seed, g in ((5, 3), (2**63 - 1, 7), (0, 1 << 40)):
        assert int(game_stream(np.int64(seed), np.int64(g))) == _splitmix(seed, g)
    tiny = make_game("agent-hunter", "tiny")
    params = get_plugin("agent-hunter").numba_params(tiny.variant_obj)
    a, b = heuristic_player(tiny), uniform_player()
    for a_first in (True, False):
        numba, misses = _play(params, np.int64(24), np.int64(2**62 + 5), a_first,
                              player_args(a), player_args(b))
        python, python_misses = play_games(params, 24, 2**62 + 5, a_first,
                                           (a, player_args(a)), (b, player_args(b)),
                                           player_probs)
        assert np.array_equal(numba, python) and misses == python_misses == 0
        assert len(set(numba.tolist())) > 1  # the games differ: a real comparison


def test_a_report_says_how_intervals_without_spread_are_bounded(tmp_path):
    """An agent report's head-to-head header says the no-spread bound only where a result
    won, lost or drew every game (the committed reports, none of which did, keep their
    words)."""
    import json

    from spycfr.analysis.headtohead import NO_SPREAD_WORDS, NORMAL_WORDS
    from spycfr.analysis.markdown import Doc
    from spycfr.analysis.sampled_report import _agent_matches

    def header(wins: float, draws: float) -> str:
        r = {"b": "heuristic", "a_payoff": {"mean": 1.0, "ci95": [0.26, 1.0], "games": 8},
             "a_as_p1": {"mean": 1.0}, "a_as_p2": {"mean": 1.0}, "a_wins": wins,
             "draws": draws, "seed": 0, "method": "m"}
        (tmp_path / "headtohead-heuristic.json").write_text(json.dumps(r))
        doc = Doc()
        assert _agent_matches(doc, tmp_path)
        return " ".join(doc.parts)

    for wins, draws in [(1.0, 0.0), (0.0, 0.0), (0.0, 1.0)]:  # all won, all lost, all drawn
        assert NO_SPREAD_WORDS in header(wins, draws)
    mixed = header(0.5, 0.25)
    assert NORMAL_WORDS + "):" in mixed and NO_SPREAD_WORDS not in mixed


def test_head_to_head_says_the_no_spread_bound_only_where_it_applied():
    """`spycfr head-to-head` said how an interval without spread is bounded on every result:
    only where one of its intervals had none now (Agent Hunter tiny, heuristic against
    uniform, one game a seat: seed 0 won both, the pooled result without spread; seed 2
    won one, drew one). The LBR summary's method likewise, by its seats."""
    from spycfr.analysis.headtohead import NO_SPREAD_WORDS, NORMAL_WORDS, interval_words
    from spycfr.analysis.lbr import summary

    said = {}
    for seed in (0, 2):
        code, out, err = spycfr("head-to-head", "heuristic", "uniform", "--game",
                                "agent-hunter", "--preset", "tiny", "--games", "2", "--seed",
                                str(seed))
        assert code == 0, err
        said[seed] = out
    assert "A's payoff per game  +1.0000" in said[0] and NO_SPREAD_WORDS in said[0]
    assert "A's payoff per game  +0.5000" in said[2] and NO_SPREAD_WORDS not in said[2]
    assert f"{NORMAL_WORDS}\n" in said[2]
    spread, flat = np.array([1.0, -1.0]), np.array([1.0, 1.0])
    assert interval_words(spread, spread) == NORMAL_WORDS
    assert NO_SPREAD_WORDS in interval_words(spread, flat)
    for seats, words in (([spread, spread], False), ([spread, flat], True)):
        method = summary(seats, 1.0, 0, 1, "x", 0, 0, "x", "x")["method"]
        assert (NO_SPREAD_WORDS in method) == words, method


def test_an_interval_of_no_games_is_said_not_divided_by_zero():
    """No games at all (every seat empty) is a clear error, where the seats' mean divided
    by zero."""
    from spycfr.analysis.headtohead import mean_ci, seats_ci

    with pytest.raises(SpycfrError, match="no games"):
        mean_ci(np.array([]), 1.0)
    with pytest.raises(SpycfrError, match="no games"):
        seats_ci([np.array([]), np.array([])], 1.0)


def test_a_wrong_count_of_games_is_said_as_the_parameter_and_as_the_flag():
    """The library names its parameter (``games``); the CLI, which knows its flags, says the
    one the user gave (``--games``), in one error line."""
    game = make_game("agent-hunter", "mini")
    with pytest.raises(SpycfrError, match=r"^games must be >= 2, got 1$"):
        head_to_head(game, uniform_player(), uniform_player(), games=1)
    code, out, err = spycfr("head-to-head", "uniform", "uniform", "--game", "agent-hunter",
                            "--preset", "mini", "--games", "1")
    assert code == 2 and out == "" and err == "error: --games must be >= 2, got 1\n"
