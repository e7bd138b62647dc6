"""benchmarks/lbr_diagnose.py --summary --committed: the games of the same seeds, from a
measure's games file (a settings line first) or from another diagnosis file (none)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from cli_helpers import bench_script

DIAGNOSIS = Path(__file__).resolve().parent.parent / "results" / "standard" / "lbr-diagnosis"


def test_committed_games_are_read_with_or_without_a_settings_line(capsys):
    """detect.jsonl (games 0-3 of each seat, no settings line) beside itself: all 8 games,
    no difference; beside lbr-games.jsonl (a settings line first): the same 8 seeds. Read
    from the second line on, the diagnosis file lost its first game (7 of 8)."""
    diagnose = bench_script("lbr_diagnose")
    games = DIAGNOSIS / "detect.jsonl"
    diagnose.summarize(str(games), committed=str(games))
    out = capsys.readouterr().out
    assert "(8 games); these less those, game by game: +0.000" in out, out
    measure = DIAGNOSIS.parent / "lbr-games.jsonl"
    diagnose.summarize(str(games), committed=str(measure))
    # the committed games of the diagnosis's seeds, read here: the measure's lines after its
    # settings line, those of the (seat, game) pairs the diagnosis played
    played = {(r["seat"], r["game"]) for r in map(json.loads, games.read_text().splitlines())}
    old = [r["payoff"] for r in map(json.loads, measure.read_text().splitlines()[1:])
           if (r["seat"], r["game"]) in played]
    assert len(played) == len(old) == 8
    assert f"{np.mean(old):+.3f} (8 games)" in capsys.readouterr().out


def test_games_all_won_are_not_given_as_a_certainty(capsys):
    """detect-kind.jsonl: LBR won all 8 games; its interval is the exact binomial one
    (+0.261 at the low end), not '[+1.000, +1.000]'; beside itself, 8 differences of 0 are
    Hoeffding's +- 1.921 on twice the payoff range, not '[+0.000, +0.000]'."""
    diagnose = bench_script("lbr_diagnose")
    games = DIAGNOSIS / "detect-kind.jsonl"
    assert all(json.loads(line)["payoff"] == 1 for line in games.read_text().splitlines())
    diagnose.summarize(str(games), committed=str(games))
    out = capsys.readouterr().out
    assert "8 games, LBR +1.000 [+0.261, +1.000]" in out, out
    assert "game by game: +0.000 [-1.921, +1.921]" in out, out


def test_the_payoff_range_is_the_games_own(tmp_path, capsys):
    """The summary's intervals lie in the game's payoff range, which each game line records
    (the game's plug-in bound, as head to head's): Agent Hunter with margin payoffs (tiny:
    up to 4 a game), LBR winning every game by 3 is not every game won by the most a game
    pays (the guess was the largest payoff seen, 3: the binomial bound, [+0.787, +3.000]);
    it is Hoeffding's interval in +- 4, [-0.841, +4.000]."""
    from spycfr.analysis.headtohead import payoff_bound, seats_ci
    from spycfr.games import make_game

    bound = payoff_bound(make_game("agent-hunter", "tiny", {"payoff": "margin"}))
    rows = [{"seat": s, "game": g, "belief": "public", "payoff": 3.0, "bound": bound,
             "vp": [0, 0], "turns": 5, "seconds": 1.0, "moves": []}
            for s in (0, 1) for g in range(4)]
    games = tmp_path / "margin.jsonl"
    games.write_text("".join(json.dumps(r) + "\n" for r in rows))
    bench_script("lbr_diagnose").summarize(str(games))
    _, (low, high) = seats_ci([np.full(4, 3.0), np.full(4, 3.0)], bound)
    assert high == bound == 4.0  # Hoeffding's in the game's range, not the one seen
    assert f"8 games, LBR +3.000 [{low:+.3f}, {high:+.3f}]" in capsys.readouterr().out
