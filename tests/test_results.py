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
# A sweep's own variant run directories are not committed (its table is, checked below).
RUNS = sorted(str(p.parent.relative_to(RESULTS)) for p in RESULTS.rglob("strategy.npz")
              if "sweeps" not in p.relative_to(RESULTS).parts)


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


def test_committed_sweep_is_current():
    """Every variant of the committed sweep was solved to its target; one, solved again now
    with the sweep's settings, gives the recorded value bit for bit."""
    import pandas as pd

    from solver.runs.solve import SolveConfig, solve_run

    out = RESULTS / "sweeps" / "agent-hunter-decoys"
    summary = json.loads((out / "sweep.json").read_text())
    table = pd.read_parquet(out / "sweep.parquet")
    assert (table["status"] == "done").all() and len(table) == 36
    target = summary["solve"]["target_exploitability"]
    assert (table["exploitability"] <= target).all()
    assert ((table["value_lower"] <= table["value_p1"])
            & (table["value_p1"] <= table["value_upper"])).all()
    row = table[(table["cards"] == 3) & (table["decoys"] == 1) & (table["max_turns"] == 2)
                & (table["decoy_rule"] == "switched")].iloc[0]
    config = SolveConfig(game="agent-hunter", preset=None,
                         algorithm=summary["solve"]["algorithm"],
                         params={**summary["fixed"], "cards": "3", "decoys": "1",
                                 "max_turns": "2", "decoy_rule": "switched"},
                         iterations=summary["solve"]["max_iterations"],
                         target_exploitability=target, check_every=100, memory_limit=4.0)
    assert solve_run(config, write_tables=False)["value_p1"] == row["value_p1"]
