"""benchmarks/agent_first_moves.py's CPU line: the options' cost as a ratio to the committed
agent's, measured in the same process, the first deal (numba's compiling) left out; its
inputs read before the agents load."""

from __future__ import annotations

from pathlib import Path

import pytest

from cli_helpers import bench_script
from spycfr.errors import SpycfrError
from spycfr.runs import agent_run

RESULTS = Path(__file__).resolve().parent.parent / "results"


def test_the_cpu_line_gives_the_options_cost_as_a_ratio_without_the_first_deal():
    bench = bench_script("agent_first_moves")
    line = bench.cpu_words([30.0, 2.0, 4.0], [40.0, 3.0, 4.0])
    assert "(2 deals)" in line and "total 6.0" in line and "total 7.0" in line
    assert "with the options over committed 1.17 (deal by deal 1.00 to 1.50)" in line
    assert "give two deals or more" in bench.cpu_words([30.0], [40.0])


def test_a_wrong_deal_or_supply_is_told_before_the_agents_load(monkeypatch):
    """The agents' load and first re-solve take minutes on a shared machine (565 s niced
    under a load of 9 for a wrong ``--market``): the deals and the supply are read first."""
    def load_agent(*args, **kwargs):
        raise AssertionError("the agent was loaded before the inputs were checked")

    monkeypatch.setattr(agent_run, "load_agent", load_agent)
    bench = bench_script("agent_first_moves")
    advanced = str(RESULTS / "agent-avenue" / "advanced")
    with pytest.raises(SpycfrError, match="not a black market card"):
        bench.first_moves(advanced, ["CB.CB.DD.SE"], {}, "XX.YY.ZZ")
    with pytest.raises(SpycfrError, match="XX is not an agent code"):
        bench.first_moves(advanced, ["CB.CB.DD.SE", "XX.SE.SE.SE"], {})
