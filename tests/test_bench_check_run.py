"""benchmarks/bench_check_run.py's result: new over old as ratios, round by round (each
round's two reads share its load), beside each side's seconds."""

from __future__ import annotations

from pathlib import Path

from cli_helpers import bench_script

RESULTS = Path(__file__).resolve().parent.parent / "results"


def test_the_ratio_line_is_new_over_old_round_by_round():
    bench = bench_script("bench_check_run")
    old = [(8.0, 0.6), (9.0, 0.7), (7.0, 0.5)]  # (wall, CPU) a round
    new = [(2.0, 0.15), (4.5, 0.21), (1.75, 0.25)]
    line = bench.ratio_words(old, new)
    assert line == ("new/old, round by round: CPU 0.30x (range 0.25-0.50), "
                    "wall 0.25x (range 0.25-0.50)")


def test_a_run_prints_each_sides_seconds_and_the_ratios(capsys):
    bench = bench_script("bench_check_run")
    assert bench.main([str(RESULTS / "tiny"), "--old", "HEAD", "--rounds", "2"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("old (HEAD): wall best/median") and "(2 rounds)" in out[0]
    assert out[1].startswith("new (working tree): wall best/median")
    assert out[2].startswith("new/old, round by round: CPU ") and ", wall " in out[2]
