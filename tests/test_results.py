"""The committed results still belong to this code: each run loads (its tree fingerprint
matches), and its recorded value and exploitability are what the exact best response says
now, within the 1e-4 the results promise."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from spycfr.exact.best_response import best_response, expected_value
from spycfr.runs import load_run
from spycfr.runs.store import file_sha256

RESULTS = Path(__file__).resolve().parent.parent / "results"


# Every committed run that has a tree (the sampled full games are checked by their own test).
# A sweep's own variant run directories are not committed (its table is, checked below).
RUNS = sorted(str(p.parent.relative_to(RESULTS)) for p in RESULTS.rglob("strategy.npz")
              if "sweeps" not in p.relative_to(RESULTS).parts)


def test_the_results_are_there():
    assert {"tiny", "mini", "small", "agent-avenue/tiny", "agent-avenue/mini",
            "agent-avenue/small"} <= set(RUNS)


@pytest.mark.slow
@pytest.mark.parametrize("preset", RUNS)
def test_committed_run_is_current(preset):
    meta = json.loads((RESULTS / preset / "run.json").read_text())
    run = load_run(RESULTS / preset)
    assert run.result.variant == meta["variant"]
    br = [best_response(run.tree, run.strategy, p)[0] for p in (0, 1)]
    assert abs(br[0] + br[1] - meta["nash_conv"]) < 1e-12
    assert abs(expected_value(run.tree, run.strategy) - meta["value_p1"]) < 1e-12
    assert meta["exploitability"] <= 1e-4
    assert (RESULTS / preset / "report.md").read_text().count(f"{meta['exploitability']:.3g}")


@pytest.mark.parametrize("preset", RUNS)
def test_committed_run_vouches_only_for_its_files(preset):
    """run.json's hashes name exactly files that are committed with it: a table left out of
    the repository (regenerable with `spycfr export`) is not vouched for."""
    files = json.loads((RESULTS / preset / "run.json").read_text()).get("files") or {}
    for name, sha in files.items():
        assert file_sha256(RESULTS / preset / name) == sha, name


@pytest.mark.slow
def test_committed_sweep_is_current():
    """Every variant of the committed sweep was solved to its target; one, solved again now
    with the sweep's settings, gives the recorded value bit for bit."""
    import pandas as pd

    from spycfr.runs.config import SolveConfig
    from spycfr.runs.solve import solve_run

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
                         target_exploitability=target, check_every=100)
    # (no --memory-limit: pytest's process holds what earlier test files left, and a CI run
    # refused a 4 GiB limit in another in-process solve, at 6.66 GiB resident)
    assert solve_run(config, write_tables=False).value_p1 == row["value_p1"]


SAMPLED = ["standard-placements", "agent-avenue/standard-sampled",
           "agent-double-double-agent/standard"]


@pytest.mark.slow
@pytest.mark.parametrize("run_name", SAMPLED)
def test_committed_sampled_strategy_is_the_recorded_state(run_name):
    """The sampled full games commit their strategy (the first two decisions' rows, kB):
    the checkpoint loads and is the state its run recorded."""
    from spycfr.runs.sampled import load_sampled_solver
    from spycfr.runs.solve import state_hash

    meta = json.loads((RESULTS / run_name / "run.json").read_text())
    solver = load_sampled_solver(RESULTS / run_name)
    assert solver.iteration == meta["iterations"] and solver.store_depth == 2
    assert solver.fallback == "heuristic"
    assert state_hash(solver.state_dict()) == meta["state_sha256"]


def test_committed_rulesheet_placements_are_its_openings_table():
    """Agent Hunter standard's two rows are the two seats' placements of openings.csv."""
    import numpy as np
    import pandas as pd

    from spycfr.runs.sampled import load_sampled_solver

    solver = load_sampled_solver(RESULTS / "standard-placements")
    state = solver.state_dict()
    table = pd.read_csv(RESULTS / "standard-placements" / "openings.csv")
    for seat, name in enumerate(("P1", "P2")):
        rows = table[table["player"] == name]
        assert len(rows) == 720
        key = int(state["inf_key"][list(state["inf_player"]).index(seat)])
        assert np.allclose(np.sort(rows["probability"].to_numpy()),
                           np.sort(solver.average_policy(key)))


@pytest.mark.parametrize("run_name, opponents", [("standard", 4), ("agent-avenue/standard", 2)])
def test_committed_standard_agents_are_search_agents(run_name, opponents):
    """results/standard (Agent Hunter) and results/agent-avenue/standard are the re-solving
    agents `spycfr solve GAME --preset standard [--algorithm re-solving]` writes, with their
    head-to-head figures beside them."""
    meta = json.loads((RESULTS / run_name / "run.json").read_text())
    assert meta["algorithm"] == "re-solving" and meta["exploitability"] is None
    assert meta["agent"]["value_function"] == "rollout"
    matches = sorted((RESULTS / run_name).glob("headtohead-*.json"))
    assert len(matches) == opponents
    for path in matches:
        r = json.loads(path.read_text())
        lo, hi = r["a_payoff"]["ci95"]
        assert lo <= r["a_payoff"]["mean"] <= hi and r["a"] == run_name
        assert r["game"] == meta["game"] and r["a_payoff"]["games"] >= 40


@pytest.mark.parametrize("run_name", ["standard", "agent-avenue/standard",
                                      "agent-avenue/advanced"])
def test_committed_agent_reports_are_what_report_writes_now(run_name, tmp_path):
    """The search agents' committed report.md is `spycfr report`'s text now (results/standard's
    lacked how each head-to-head result was played; the count of LBR games beside the
    command's --lbr-games is said)."""
    import shutil

    from click.testing import CliRunner

    from spycfr.cli.main import cli

    run = tmp_path / "run"
    shutil.copytree(RESULTS / run_name, run, ignore=shutil.ignore_patterns("report.md"))
    result = CliRunner().invoke(cli, ["report", str(run), "-o", str(run / "report.md")])
    assert result.exit_code == 0, result.output
    assert (run / "report.md").read_text() == (RESULTS / run_name / "report.md").read_text()


def test_a_report_says_when_lbr_counted_more_games_than_asked():
    from spycfr.analysis.sampled_report import _lbr_count

    measured = {"command": "spycfr measure R --games 0 --lbr-games 10",
                "local_best_response": {"games": 11, "games_file": "lbr-games.jsonl"}}
    assert _lbr_count(measured) == ("; its local best response counts 11 games, not the 10 "
                                    "asked: every finished game of the same settings in "
                                    "lbr-games.jsonl counts")
    measured["local_best_response"]["games"] = 10
    assert _lbr_count(measured) == ""
    assert _lbr_count({"command": "spycfr measure R --games 100"}) == ""
    # measure_run records the games asked (lbr_games): read from there, not the command's
    # text (a run.json measured before the record, above, is still read from its command)
    lbr = {"games": 11, "games_file": "lbr-games.jsonl"}
    for command in ("spycfr measure R --games 0", "spycfr measure R --lbr-games 11"):
        said = _lbr_count({"command": command, "lbr_games": 10, "local_best_response": lbr})
        assert said.startswith("; its local best response counts 11 games, not the 10 asked")
    assert _lbr_count({"command": "spycfr measure R --lbr-games 10", "lbr_games": 11,
                       "local_best_response": lbr}) == ""


@pytest.mark.slow
@pytest.mark.parametrize("run_name", ["agent-avenue/standard", "agent-avenue/advanced"])
def test_committed_agent_openings_are_its_saved_plans(run_name):
    """The Agent Avenue agents' openings.csv (what `spycfr openings` and the report print)
    is the first plan the agent plays from, read from its committed plan.npz (results/
    agent-avenue/standard had no plan.npz and an openings.csv of older code: its top move
    differed from today's plan's in 339 of 2,177 situations); the values to 1e-12. 0.5-2
    minutes each here."""
    from spycfr.games import make_game
    from spycfr.runs.agent_run import agent_config, agent_openings, load_agent_config
    from spycfr.runs.store import read_run

    run = RESULTS / run_name
    meta = read_run(run)
    said: list[str] = []
    agent = load_agent_config(run, meta, agent_config(meta, run), said.append)
    frame = agent_openings(agent, make_game(meta.game, None, meta.variant))
    assert frame is not None
    assert any(x.startswith("the agent's first plan read from plan.npz") for x in said), said
    # every column as written but the values, equal to 1e-12: numba compiles for the machine's
    # CPU, whose vector width orders the sums (a4440ed's own values differ in the last bits on
    # this session's machine from the machine that wrote them)
    made = [line.split(",") for line in frame.to_csv(index=False).splitlines()]
    committed = [line.split(",") for line in (run / "openings.csv").read_text().splitlines()]
    assert len(made) == len(committed) and made[0] == committed[0]
    value = made[0].index("value")
    for ours, theirs in zip(made[1:], committed[1:], strict=True):
        assert ours[:value] + ours[value + 1:] == theirs[:value] + theirs[value + 1:]
        assert abs(float(ours[value]) - float(theirs[value])) <= 1e-12, (ours, theirs)


def test_sampled_openings_json_says_what_was_measured():
    """openings --json on a sampled run with a measured lower bound gives the text's caveat
    (the bound), where it said 'exploitability not measured' beside the measured bound."""
    from cli_helpers import spycfr

    code, text, _ = spycfr("openings", str(RESULTS / "standard-placements"), "--top", "1")
    assert code == 0
    code, out, _ = spycfr("openings", str(RESULTS / "standard-placements"), "--json")
    assert code == 0
    caveat = json.loads(out)["caveat"]
    assert caveat == text.splitlines()[1] and "not measured" not in caveat
    assert "at least 0.959 at 95%" in caveat


def _intervals(node, where: str):
    """(where, ci95, games) of every ``ci95`` in a JSON object, nested ones included."""
    if isinstance(node, dict):
        if isinstance(node.get("ci95"), list):
            yield where, node["ci95"], node.get("games")
        for key, value in node.items():
            yield from _intervals(value, f"{where}.{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _intervals(value, f"{where}[{i}]")


def test_no_committed_interval_is_zero_width_where_games_exist():
    """Every 95% interval in a committed result (head to head, LBR, measured bounds) has
    width where it counts games: the old interval code wrote [1.0, 1.0] for a seat that won
    every game (30 of 30 is not a certainty), which headtohead.seats_ci bounds now."""
    checked, zero = 0, []
    for path in sorted(RESULTS.rglob("*.json")):
        for where, ci, games in _intervals(json.loads(path.read_text()), ""):
            if games == 0:
                continue
            checked += 1
            if not ci[0] < ci[1]:
                zero.append(f"{path.relative_to(RESULTS)}{where}: {ci} in {games} games")
    assert checked > 50 and not zero, zero


def test_committed_agent_avenue_standard_plays_only_the_moves_its_cards_need():
    """results/agent-avenue/standard's agent is the needs-only one (adopted 2026-11-28 by the
    rule in its README: run.json's agent.needs_only): every command that loads the directory
    plays it so, play's opponent, query and LBR (load_agent) and head-to-head (player_from),
    and the first plan it reads from plan.npz is still the saved one (needs_only is not one of
    the plan's inputs: the plan holds no actual cards to cut)."""
    from spycfr.analysis.agentplay import AgentOpponent
    from spycfr.analysis.headtohead import player_from
    from spycfr.games import make_game
    from spycfr.runs.agent_run import PLAN_FIELDS, load_agent

    run = RESULTS / "agent-avenue" / "standard"
    meta = json.loads((run / "run.json").read_text())
    assert meta["agent"]["needs_only"] is True and "needs_only" not in PLAN_FIELDS
    game = make_game("agent-avenue", "standard", {})
    agents = [load_agent(run), player_from(str(run), game).agent, AgentOpponent(str(run)).agent]
    assert [a.config.needs_only for a in agents] == [True, True, True]


def test_the_needs_only_agents_openings_say_its_first_moves_are_cut_in_play():
    """`spycfr openings` on results/agent-avenue/standard shows its first plan, solved without
    cards (a swap first for nearly every hand), while the needs-only agent discards only where
    its hand needs one: the words say so, and say nothing of it for an agent without it."""
    from spycfr.analysis.openings import agent_openings_words, needs_only_words
    from spycfr.games import get_plugin
    from spycfr.runs.store import read_run

    meta = read_run(RESULTS / "agent-avenue" / "standard")
    words = " ".join(agent_openings_words(meta).split())
    # the game's rule in its words (query's 'cut' line says it too), not a placeholder
    rule = get_plugin("agent-avenue").needed_moves_words
    assert f"It makes only the moves its cards need (needs_only: {rule})" in words
    assert "it plays another" in words
    # the committed report's first-move table says it as `spycfr report` writes it
    report = (RESULTS / "agent-avenue" / "standard" / "report.md").read_text()
    assert needs_only_words(meta).strip() in report
    meta.record["agent"]["needs_only"] = False
    assert "needs_only" not in agent_openings_words(meta) and not needs_only_words(meta)


def _regenerate_solve_options(preset: str) -> list[str]:
    """The options results/regenerate.sh gives `spycfr solve agent-avenue --preset PRESET
    --algorithm re-solving` (its agent_avenue_agent call's third word, split as bash splits
    the function's unquoted $solve_options)."""
    import re
    import shlex

    text = (RESULTS / "regenerate.sh").read_text().replace("\\\n", " ")
    assert ('"$SPYCFR" solve agent-avenue --preset "$preset" --algorithm re-solving '
            '$solve_options') in " ".join(text.split())
    calls = re.findall(rf'^\s*agent_avenue_agent {preset} "\$\{{AGENT_PAIRS:-\d+\}}" (.*)$',
                       text, re.MULTILINE)
    assert len(calls) == 1, calls
    return shlex.split(calls[0])[0].split()


@pytest.mark.parametrize("preset", ["standard", "advanced"])
def test_regenerate_remakes_the_committed_agent_avenue_agent(preset, monkeypatch, tmp_path):
    """results/regenerate.sh's solve for agent-avenue/PRESET makes the agent its committed
    run.json plays (agent_config: a key the run.json lacks loads as AgentConfig's default, 0:
    off), where today's solve defaults would be taken instead: the standard agent, made before
    the endgame rule and the subgame budget, would have been remade with both on. The solve
    stops at the configuration, before its first plan (minutes)."""
    from click.testing import CliRunner

    from spycfr.cli.main import cli
    from spycfr.runs.agent_run import agent_config
    from spycfr.runs.store import read_run

    class Made(Exception):
        pass

    made = []

    def capture(out_dir, game, name, params, config, seed=0, progress=None):
        made.append((config, seed))
        raise Made

    monkeypatch.setattr("spycfr.runs.agent_run.write_agent_run", capture)
    options = _regenerate_solve_options(preset)
    result = CliRunner().invoke(cli, ["solve", "agent-avenue", "--preset", preset,
                                      "--algorithm", "re-solving", *options,
                                      "-o", str(tmp_path / "agent")])
    assert isinstance(result.exception, Made), result.output
    meta = read_run(RESULTS / "agent-avenue" / preset)
    committed = agent_config(meta)
    remade = made[0][0].as_dict()
    assert made[0][1] == meta.record["seed"]
    assert remade == committed.as_dict(), {
        k: (v, remade[k]) for k, v in committed.as_dict().items() if remade[k] != v}
