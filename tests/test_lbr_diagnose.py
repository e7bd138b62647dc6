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
