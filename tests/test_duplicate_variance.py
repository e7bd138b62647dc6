"""benchmarks/duplicate_variance.py, the measurement of duplicate matches (issues 22 and 23;
docs/search.md, "Duplicate matches"): its duplicate pairs are dealt alike, its formats'
means agree with an exact value, and its variance ratio sees the deal's luck cancel."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

from cli_helpers import bench_script
from spycfr.analysis.headtohead import player_args, uniform_player
from spycfr.games import get_plugin, make_game

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def bench():
    return bench_script("duplicate_variance")


def test_duplicate_pairs_are_dealt_alike_and_unbiased(bench):
    """Kuhn with one pure strategy in both seats (each game a function of its deal): in a
    duplicate pair the two games are dealt alike, so A's payoff as P2 is minus its payoff
    as P1 in every pair (the seats swapped on one deal); plain and shared pairs are dealt
    apart (the shared stream's first draw is the deal too, so it also cancels). Uniform
    against uniform (exact value 0): every format's mean within ~4 SE of 0, and the
    duplicate pair-mean variance well under the plain one's (the deal cancels: ~0.52)."""
    from spycfr.analysis.headtohead import tree_player
    from spycfr.games import build_tree

    game = make_game("kuhn")
    tree = build_tree(game)
    params = get_plugin("kuhn").numba_params(game.variant_obj)
    strategy = np.zeros((tree.num_infosets, int(tree.infoset_num_actions.max())))
    strategy[:, 0] = 1.0  # check or call: a pure strategy
    pure = player_args(tree_player(tree, strategy, params))
    p1, p2 = bench.format_pairs(params, pure, pure, 500, 11, "duplicate")
    assert np.array_equal(p1, -p2) and len(set(p1.tolist())) > 1
    p1, p2 = bench.format_pairs(params, pure, pure, 500, 11, "plain")
    assert not np.array_equal(p1, -p2)
    u = player_args(uniform_player())
    p1, p2 = bench.format_pairs(params, u, u, 500, 11, "duplicate")
    assert not np.array_equal(p1, -p2)  # the players' draws are each game's own
    r = bench.formats("uniform", "uniform", "kuhn", None, 20_000, 7)
    for name, f in r["formats"].items():
        lo, hi = f["pair_mean"]["ci95"]
        assert abs(f["pair_mean"]["mean"]) <= hi - lo, name  # ~4 SE
    assert r["formats"]["plain"]["variance_ratio"] == 1.0
    assert r["formats"]["duplicate"]["variance_ratio_ci95"][1] < 0.6
    assert r["formats"]["duplicate"]["pair_correlation"] < -0.4
    assert abs(r["formats"]["plain"]["pair_correlation"]) < 0.05


def test_deal_luck_reads_a_games_file(bench, tmp_path):
    """--deal-luck GAMES.jsonl: the heuristic rows of a committed games file, each game's
    payoff against its deal's value; correlations in [-1, 1], one row a seat."""
    import subprocess

    games = tmp_path / "games.jsonl"
    games.write_text("".join(json.dumps({"opponent": o, "seed": s, "p1": a, "p2": b})
                             + "\n" for o, s, a, b in [
                                 ("heuristic", 1, 1.0, -1.0), ("heuristic", 2, -1.0, 1.0),
                                 ("x", 3, 1.0, 1.0), ("heuristic", 4, 1.0, 1.0),
                                 ("heuristic", 5, -1.0, -1.0)]))
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "duplicate_variance.py"),
                           str(ROOT / "results" / "agent-avenue" / "standard-sampled"),
                           "--deal-luck", str(games), "--values", "4", "--json"],
                          capture_output=True, text=True, check=True)
    r = json.loads(done.stdout)["deal_luck"]
    assert r["as P1"]["games"] == 4 and r["all"]["games"] == 8
    assert all(-1 <= f["correlation"] <= 1 for f in r.values())
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "duplicate_variance.py"),
                           "uniform"], capture_output=True, text=True)
    assert done.returncode == 2 and "give A and B" in done.stderr


def test_no_game_named_is_one_error(bench):
    """Two players that name no game (no run directory) and no --game: a SpycfrError naming
    what to give, which the script prints as one 'error:' line (a StopIteration's traceback
    before)."""
    from spycfr.errors import SpycfrError

    with pytest.raises(SpycfrError, match="name no game: give --game"):
        bench._game("uniform", "heuristic:hunter", None, None)
    assert bench._game("uniform", "heuristic", "kuhn", None).name == "kuhn"
