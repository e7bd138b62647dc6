"""`--algorithm auto` (the rule of choose_algorithm), exact LP runs, and the certified value
interval of every full-tree run."""

from __future__ import annotations

import json

import pytest

from cli_helpers import spycfr
from spycfr.runs import engines, plan
from spycfr.runs.config import SolveConfig
from spycfr.runs.game import resolve_game
from spycfr.runs.solve import solve_run
from spycfr.runs.store import load_run

AH = "agent-hunter"


def config(**kw) -> SolveConfig:
    return SolveConfig(**{"game": AH, "preset": "tiny", "params": {}, "algorithm": "auto", **kw})


def choose_algorithm(config: SolveConfig, checkpoint_every: int | None = None):
    return plan.choose_algorithm(config, resolve_game(config), checkpoint_every)


def test_the_rule():
    """LP on a small tree with no iteration limit; pdcfr+ when iterations or a time limit are
    asked for, or above the LP's size; es-mccfr when the full tree would not fit."""
    assert choose_algorithm(config())[0] == "lp"
    assert choose_algorithm(config(target_exploitability=1e-6))[0] == "lp"
    chosen, why = choose_algorithm(config(iterations=10))
    assert chosen == "pdcfr+" and "--iterations" in why
    assert choose_algorithm(config(time_limit=5.0))[0] == "pdcfr+"
    assert choose_algorithm(config(alternating=False))[0] == "pdcfr+"
    chosen, why = choose_algorithm(config(target_exploitability=1e-6), checkpoint_every=10)
    assert chosen == "pdcfr+" and "--checkpoint-every" in why
    assert choose_algorithm(config(preset="mini"))[0] == "lp"  # 205,723 nodes
    assert choose_algorithm(config(preset="mini", target_exploitability=1e-4))[0] == "lp"
    chosen, why = choose_algorithm(config(preset="mini", target_exploitability=1e-3))
    assert chosen == "pdcfr+" and "loose" in why
    assert choose_algorithm(config(target_exploitability=1e-2))[0] == "lp"  # tiny: 7,339 nodes


def test_the_rule_by_size_and_memory(monkeypatch):
    monkeypatch.setattr(plan, "AUTO_LP_NODES", 1000)
    chosen, why = choose_algorithm(config())
    assert chosen == "pdcfr+" and "more than 1,000 for the exact LP" in why
    # a memory limit the full tree cannot fit: sampled, unless a target needs the tree
    monkeypatch.setattr(engines, "SOLVE_BYTES_PER_NODE", 10**9)
    chosen, why = choose_algorithm(config(memory_limit=1.0))
    assert chosen == "es-mccfr" and "would not fit" in why
    assert choose_algorithm(config(memory_limit=1.0, target_exploitability=1e-3))[0] == "pdcfr+"


def test_the_rulesheet_game_is_sampled_with_its_measured_settings():
    """Issue 26 item 8: with default options the rulesheet Agent Hunter is sampled with the
    settings its plug-in measured best (external sampling of the placements in the
    abstraction, the heuristic playing the rest), not refused; settings given are kept."""
    chosen = plan.plan_solve(config(preset="standard"), resolve_game(config(preset="standard")))
    assert chosen.config.algorithm == "es-mccfr"
    assert (chosen.config.abstraction, chosen.config.fallback, chosen.config.store_depth) == (
        True, "heuristic", 2)
    assert chosen.choice is not None and "measured sampling settings" in chosen.choice["why"]
    given = config(preset="standard", store_depth=4)
    kept = plan.plan_solve(given, resolve_game(given)).config
    assert (kept.abstraction, kept.fallback, kept.store_depth) == (False, None, 4)


def test_an_lp_run_directory(tmp_path):
    """An exact LP run: no iterations, no checkpoint, exploitability ~0, loadable; resuming
    it or asking it for iterations is a clear error."""
    d = tmp_path / "run"
    meta = solve_run(config(), out_dir=d)
    assert meta.algorithm == "lp" and meta.algorithm_choice.chosen == "lp"
    assert meta.iterations == 0 and meta.stopped_by == "exact"
    assert meta.exploitability < 1e-12 and meta.ms_per_iteration is None
    assert not (d / "checkpoint.npz").exists()
    run = load_run(d)
    assert run.result.config.algorithm == "lp"
    code, _, err = spycfr("solve", "--resume", str(d), "-q")
    assert code == 2 and "checkpoint.npz" in err
    code, _, err = spycfr("solve", AH, "--preset", "tiny", "--algorithm", "lp",
                          "--checkpoint-every", "5", "-o", str(tmp_path / "x"), "-q")
    assert code == 2 and "no iterations" in err


@pytest.mark.parametrize("algorithm", ["cfr+", "pdcfr+"])
def test_the_value_interval_is_certified(algorithm):
    """[lower, upper] = [-BR of P2, BR of P1]: it holds the value of the strategy (and the
    game's, 0 on this variant), and its width is NashConv."""
    meta = solve_run(config(algorithm=algorithm, iterations=30))
    lo, hi = meta.value_interval
    assert lo <= meta.value_p1 <= hi and lo <= 0.0 <= hi
    assert hi - lo == pytest.approx(meta.nash_conv, rel=1e-12, abs=1e-15)
    assert hi - lo > 0


def test_pdcfr_plus_through_the_cli_records_its_parameters():
    code, out, err = spycfr("solve", AH, "--preset", "tiny", "--algorithm", "pdcfr+",
                            "--iterations", "20", "--json", "-q")
    assert code == 0, err
    params = json.loads(out)["algorithm_params"]
    assert (params["alpha"], params["gamma"]) == (2.3, 5.0)
    code, out, err = spycfr("solve", AH, "--preset", "tiny", "--algorithm", "pdcfr+",
                            "--alpha", "1.5", "--iterations", "20", "--json", "-q")
    assert code == 0, err
    assert json.loads(out)["algorithm_params"]["alpha"] == 1.5


def test_the_lp_says_what_runs_and_the_time_spent(monkeypatch):
    """HiGHS reports no progress: the CLI says at once that the exact LP runs, then the time
    spent every LP_TICK seconds until it ends; -q says nothing."""
    from spycfr.cli import solve_progress

    monkeypatch.setattr(solve_progress, "LP_TICK", 0.05)
    code, out, err = spycfr("solve", AH, "--preset", "mini")
    assert code == 0, err
    assert "exact LP: HiGHS on P1's sequence-form program, tree of 205,723 nodes" in err
    assert "exact LP: solving," in err  # mini's LP takes more than a second
    code, out, err = spycfr("solve", AH, "--preset", "tiny", "-q")
    assert code == 0 and "exact LP" not in err


def test_a_target_races_pdcfr_plus_before_the_lp(tmp_path):
    """Issue 26 item 17: with a tight target, auto's LP is preceded by AUTO_RACE_ITERATIONS
    of pdcfr+, kept when they reach the target (a wide, shallow tree: Agent Hunter 5/2/0/1,
    1e-6 in 20); else the LP solves (tiny at 1e-9: pdcfr+ is far from it in 40 iterations).
    No target, or a loose one: the LP alone."""
    shallow = {"cards": 5, "houses": 2, "decoys": 0, "max_turns": 1}
    meta = solve_run(config(preset=None, params=shallow, target_exploitability=1e-6),
                     out_dir=tmp_path / "race")
    assert meta.algorithm == "pdcfr+" and meta.stopped_by == "target"
    assert 0 < meta.iterations <= plan.AUTO_RACE_ITERATIONS and meta.exploitability <= 1e-6
    assert meta.algorithm_choice.chosen == "pdcfr+"
    assert "reached the target in" in meta.algorithm_choice.why
    assert load_run(tmp_path / "race").result.config.algorithm == "pdcfr+"
    # The CLI says, after the line announcing the LP and its race, which method won.
    code, out, err = spycfr("solve", AH, "--cards", "5", "--houses", "2", "--decoys", "0",
                            "--max-turns", "1", "--target-exploitability", "1e-6")
    assert code == 0, err
    assert "--algorithm auto: lp, because" in err
    assert ("--algorithm auto: pdcfr+ reached the target in " in err
            and "its result is kept, the LP not run" in err)
    assert "algorithm       pdcfr+" in out
    lost = solve_run(config(target_exploitability=1e-9))
    assert lost.algorithm == "lp" and lost.stopped_by == "exact" and lost.exploitability < 1e-12
    assert "first 40 iterations of pdcfr+" in lost.algorithm_choice.why
    code, out, err = spycfr("solve", AH, "--preset", "tiny", "--target-exploitability", "1e-9")
    assert code == 0, err
    assert "--algorithm auto: pdcfr+ did not reach the target in 40 iterations; the exact LP " \
           "solves" in err and "algorithm       lp" in out
    for loose in (None, 1e-3):
        assert "pdcfr+" not in plan.plan_solve(config(target_exploitability=loose),
                                               resolve_game(config())).choice["why"]
