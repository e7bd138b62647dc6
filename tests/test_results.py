"""The committed results still belong to this code: each run loads (its tree fingerprint
matches), and its recorded value and exploitability are what the exact best response says
now, within the 1e-4 the results promise."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from solver.exact.best_response import best_response, expected_value
from solver.runs import load_run

RESULTS = Path(__file__).resolve().parent.parent / "results"


# Every committed run that has a tree (the sampled full games are checked by their own test).
RUNS = sorted(str(p.parent.relative_to(RESULTS)) for p in RESULTS.rglob("strategy.npz"))


def test_the_results_are_there():
    assert {"tiny", "mini", "small", "agent-avenue/tiny", "agent-avenue/mini",
            "agent-avenue/small"} <= set(RUNS)


@pytest.mark.parametrize("preset", RUNS)
def test_committed_run_is_current(preset):
    meta = json.loads((RESULTS / preset / "run.json").read_text())
    run = load_run(RESULTS / preset)
    assert run.meta["variant"] == meta["variant"]
    br = [best_response(run.tree, run.strategy, p)[0] for p in (0, 1)]
    assert abs(br[0] + br[1] - meta["nash_conv"]) < 1e-12
    assert abs(expected_value(run.tree, run.strategy) - meta["value_p1"]) < 1e-12
    assert meta["exploitability"] <= 1e-4
    assert (RESULTS / preset / "report.md").read_text().count(f"{meta['exploitability']:.3g}")
