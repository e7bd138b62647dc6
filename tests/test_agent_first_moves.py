"""benchmarks/agent_first_moves.py's CPU line: the options' cost as a ratio to the committed
agent's, measured in the same process, the first deal (numba's compiling) left out."""

from __future__ import annotations

from cli_helpers import bench_script


def test_the_cpu_line_gives_the_options_cost_as_a_ratio_without_the_first_deal():
    bench = bench_script("agent_first_moves")
    line = bench.cpu_words([30.0, 2.0, 4.0], [40.0, 3.0, 4.0])
    assert "(2 deals)" in line and "total 6.0" in line and "total 7.0" in line
    assert "with the options over committed 1.17 (deal by deal 1.00 to 1.50)" in line
    assert "give two deals or more" in bench.cpu_words([30.0], [40.0])
