"""The workbench's pages through its WSGI application (no server, no browser): which runs
it calls search agents, and the names of entries whose folders end alike."""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace

import pytest

from spycfr.runs.agent_run import is_agent_run
from spycfr.runs.result import RunResult
from spycfr.runs.store import read_run_meta

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "results"
AGENT = RESULTS / "standard"  # Agent Hunter's search agent
SAMPLED = RESULTS / "agent-avenue" / "standard-sampled"  # an MCCFR run without a tree
TREE = RESULTS / "tiny"  # a run with its tree


def test_one_test_of_a_search_agents_run_serves_the_workbench():
    """is_agent_run takes run.json's object as the workbench holds it (sweeps and team runs
    included) as well as a RunResult; every page that says whether a run is a search agent
    asks it (no module of spycfr.web compares the algorithm itself: it did in five places)."""
    from spycfr.web import bench as bench_module
    from spycfr.web import games, pages
    from spycfr.web.bench import PageError, Workbench
    from spycfr.web.catalog import discover

    agent, sampled, tree = (read_run_meta(p) for p in (AGENT, SAMPLED, TREE))
    assert is_agent_run(agent) and is_agent_run(RunResult.from_json(agent))
    assert not is_agent_run(sampled) and not is_agent_run(RunResult.from_json(tree))
    assert not is_agent_run({"game": "agent-hunter", "swept": {}})  # a sweep's sweep.json
    for source in (ROOT / "solver" / "web").glob("*.py"):
        assert not re.search(r"ALGORITHM|re-solving", source.read_text()), source.name

    unmeasured = {"exploitability": None}
    assert "a search agent" in bench_module.fmt_eps({**unmeasured, "algorithm": "re-solving"})
    assert "a sampled run" in bench_module.fmt_eps({**unmeasured, "algorithm": "es-mccfr"})
    assert "a search agent" in pages._nodes(agent)
    assert "a sampled run" in pages._nodes(sampled)
    bench = Workbench(discover([str(AGENT), str(SAMPLED), str(TREE)]))
    for name, words in (("standard", "as the search agent of"),
                        ("tiny", "with the strategy of")):
        assert words in games._header(bench.entry(name), 0, 1)
    note = games.AGENT_REVIEW_NOTE
    assert note in games.review_form(bench, SimpleNamespace(query={"run": "standard"}))
    assert note not in games.review_form(bench, SimpleNamespace(query={"run": "tiny"}))
    with pytest.raises(PageError, match="is a search agent"):
        bench.load("standard")
    with pytest.raises(PageError, match="was sampled without a tree"):
        bench.load("standard-sampled")
