"""benchmarks/agent_replay.py: games of agent_headtohead.py's pairs replayed with their
records and the agent's decisions, a shadow agent beside."""

from __future__ import annotations

import json

import pytest

from cli_helpers import bench_script, spycfr
from spycfr.analysis.headtohead import head_to_head, player_from
from spycfr.games import make_game


@pytest.fixture(scope="module")
def agent_dir(tmp_path_factory):
    """A tiny Agent Avenue agent that re-solves (no endgame rule: its leaves valued by
    rollouts at every decision)."""
    out = tmp_path_factory.mktemp("agent") / "tiny-avenue"
    code, _, err = spycfr("solve", "agent-avenue", "--preset", "tiny", "--algorithm",
                          "re-solving", "--iterations", "5", "--endgame", "0",
                          "--plan-endgame", "0", "-o", str(out), "-q")
    assert code == 0, err
    return str(out)


@pytest.mark.slow  # a tiny agent solved, games with re-solves: 4 min under load 7
def test_a_replay_is_the_pairs_game_with_its_record_and_a_shadow(agent_dir, tmp_path,
                                                                   capsys):
    """Each replayed game ends as head_to_head's pair of the same seed ends it (the agent
    P1 in the first game, P2 in the second), its record a whole game; at each of the agent's
    decisions its moves, probabilities (summing to 1) and a shadow's; --decisions stops a
    game unfinished; --summary counts them."""
    replay = bench_script("agent_replay")
    game = make_game("agent-avenue", "tiny")
    a = player_from(agent_dir, game)
    b = player_from("heuristic", game)
    out = tmp_path / "r.jsonl"
    seeds = (3,)
    replay.replay(agent_dir, str(out), [(s, seat) for s in seeds for seat in ("p1", "p2")],
                  "heuristic", {"opposing": ["heuristic", "cautious", "bold"]})
    rows = [json.loads(x) for x in out.read_text().splitlines()]
    for s in seeds:
        r = head_to_head(game, a, b, games=2, seed=s)
        got = {x["seat"]: x["payoff"] for x in rows if x["seed"] == s}
        assert got == {"p1": r["a_as_p1"]["mean"], "p2": r["a_as_p2"]["mean"]}
    for x in rows:
        assert x["record"].startswith("deal:") and x["decisions"]
        for d in x["decisions"]:
            assert len(d["moves"]) == len(d["probs"]) == len(d["shadow_probs"])
            assert sum(d["probs"]) == pytest.approx(1, abs=1e-3)
    cut = tmp_path / "cut.jsonl"
    replay.replay(agent_dir, str(cut), [(seeds[0], "p1")], "heuristic", {"turn_levels": True}, 1)
    (short,) = [json.loads(x) for x in cut.read_text().splitlines()]
    assert short["payoff"] is None and len(short["decisions"]) == 1
    assert "shadow_probs" in short["decisions"][0]  # the shadow re-solving a level a turn
    capsys.readouterr()
    replay.summary([str(out)])
    text = capsys.readouterr().out
    assert f"{len(rows)} games: swaps before the first play" in text
    assert "the shadow differs at" in text


@pytest.mark.parametrize("script, args, message", [
    ("agent_replay.py", ["--summary", "/nonexistent.jsonl"], "No such file"),
    ("agent_replay.py", ["/nonexistent", "OUT.jsonl", "1000:p1"], "does not exist"),
    ("agent_decision_profile.py", ["/nonexistent"], "does not exist"),
])
def test_the_replay_and_profile_scripts_say_bad_input_in_one_line(tmp_path, script, args,
                                                                  message):
    """A missing games file or run directory is one `error:` line and exit 2, not a
    traceback (both scripts did raise one)."""
    import subprocess
    import sys
    from pathlib import Path

    path = Path(__file__).resolve().parent.parent / "benchmarks" / script
    proc = subprocess.run([sys.executable, str(path), *args], capture_output=True, text=True,
                          cwd=tmp_path, timeout=300)
    assert proc.returncode == 2
    assert proc.stderr.startswith("error:") and message in proc.stderr
    assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


def test_a_watch_sees_every_move_and_may_stop_the_game():
    """play_games' watch (agent_replay.py's, which played the head-to-head loop again): told
    each move before it is made (the action drawn among those offered, chance too), the
    games as they are without it; False stops a game, its payoff nan."""
    import numpy as np

    from spycfr.analysis.agentplay import play_games
    from spycfr.analysis.headtohead import (
        heuristic_player,
        player_args,
        player_probs,
        uniform_player,
    )
    from spycfr.games import get_plugin
    from spycfr.tree import CHANCE

    game = make_game("agent-avenue", "tiny")
    params = get_plugin(game.name).numba_params(game.variant_obj)
    a, b = heuristic_player(game), uniform_player()
    seats = ((a, player_args(a)), (b, player_args(b)))
    plain, _ = play_games(params, 3, 7, True, *seats, player_probs)
    seen: list[tuple[int, int]] = []

    def watch(cur, p, acts, probs, x, agents) -> bool:
        assert x in acts and probs.size == acts.size and agents == {}
        seen.append((p, x))
        return True

    watched, _ = play_games(params, 3, 7, True, *seats, player_probs, watch=watch)
    assert np.array_equal(plain, watched)
    assert {p for p, _ in seen} == {0, 1, CHANCE}
    stopped, _ = play_games(params, 2, 7, True, *seats, player_probs,
                            watch=lambda *args: False)
    assert np.isnan(stopped).all()
