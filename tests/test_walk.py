"""The reach-weighted walk of the report sections (spycfr.analysis.sections.walk) on committed
runs: what it counts at the ends of games adds up to the probability of a game, 1."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from spycfr.games.agent_avenue.analysis.report import agent_avenue_stats
from spycfr.games.agent_hunter.analysis.report import agent_hunter_stats
from spycfr.runs import load_run

RESULTS = Path(__file__).resolve().parent.parent / "results"


def test_agent_avenue_games_end_once_and_recruits_are_counted():
    run = load_run(RESULTS / "agent-avenue" / "tiny")
    st = agent_avenue_stats(run.tree, run.strategy)
    assert st.ends.sum() == pytest.approx(1.0, abs=1e-12)  # every game ends, by one reason
    assert st.length.sum() == pytest.approx(1.0, abs=1e-12)
    assert 0.0 <= st.won_active[0] <= 1.0 + 1e-12 and 0.0 <= st.ties[0] <= st.ends.sum()
    n = st.recruit[:, 0]
    assert np.all(n > 0) and np.all(st.recruit[:, 1:4] <= n[:, None] + 1e-12)


def test_agent_hunter_outcomes_add_up():
    run = load_run(RESULTS / "tiny")
    st = agent_hunter_stats(run.tree, run.strategy)
    assert st.outcome.sum() == pytest.approx(1.0, abs=1e-12)
    assert st.end.sum() == pytest.approx(1.0, abs=1e-12)
    assert st.usage[:, :, 0].sum() == 0.0  # placements are not counted as turns
