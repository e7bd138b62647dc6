"""A search agent's run directory through the commands (Agent Hunter tiny: cheap subgames):
solve writes it, and play, query, head-to-head and openings take it like any run."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from cli_helpers import spycfr
from spycfr.compiling import COMPILING
from spycfr.errors import SpycfrError
from spycfr.provenance import code_version
from spycfr.search.agent import (
    ENDGAME,
    PLAN_ENDGAME,
    AgentConfig,
    SearchAgent,
    agent_exploitability,
)


@pytest.fixture(scope="module")
def solved(tmp_path_factory):
    """A tiny agent's run directory, and what solve printed on stdout."""
    out = tmp_path_factory.mktemp("agent") / "tiny-agent"
    code, printed, err = spycfr("solve", "agent-hunter", "--preset", "tiny", "--algorithm",
                                "re-solving", "--iterations", "30", "-o", str(out), "-q")
    assert code == 0, err
    return str(out), printed


@pytest.fixture(scope="module")
def agent_dir(solved):
    return solved[0]


def test_solve_names_the_commands_that_read_the_agent_as_their_help_does(solved):
    """solve's last line names query's option by its name (--seat), not by the older name
    (--as) the query's help calls it."""
    out, printed = solved
    assert f"it plays with `spycfr play {out}`" in printed
    assert f"answers `spycfr query {out} --seat P1 RECORD`" in printed


def test_solve_writes_the_agents_configuration(agent_dir):
    meta = json.loads(open(f"{agent_dir}/run.json").read())
    assert meta["algorithm"] == "re-solving" and meta["iterations"] == 30
    assert meta["agent"]["value_function"] == "rollout" and meta["agent"]["depth"] == 1
    assert meta["agent"]["endgame"] == ENDGAME and meta["agent"]["plan_endgame"] == PLAN_ENDGAME
    assert meta["agent"]["plan_to_end"] is True  # tiny's whole game fits the plan's budget
    assert meta["config"]["preset"] == "tiny" and meta["version"]
    assert meta["code"] == code_version()  # the code that made the agent (LBR's games say theirs)


def test_a_small_variants_agent_states_its_exact_exploitability(agent_dir, tmp_path):
    """tiny's public tree is small: solve measures the agent exactly, the same figure as the
    walk run here on its own; the report and the query say so."""
    meta = json.loads(open(f"{agent_dir}/run.json").read())
    config = AgentConfig(**{k: meta["agent"][k] for k in AgentConfig().as_dict()})
    value, br, solves = agent_exploitability(SearchAgent("agent-hunter", meta["variant"],
                                                         config))
    assert meta["exploitability"] == pytest.approx(value, abs=1e-12)
    assert "exact" in meta["exploitability_note"]
    exact = meta["exact_measure"]
    assert (exact["br_p1"], exact["br_p2"], exact["re_solves"]) == pytest.approx(
        (br[0], br[1], solves), abs=1e-12)
    assert exact["unplayed_re_solves"] == 0  # every rollout of the walk was played
    code, _, err = spycfr("report", agent_dir, "-o", str(tmp_path / "report.md"))
    assert code == 0, err
    assert f"Exploitability: {value:.4g}, exact" in (tmp_path / "report.md").read_text()
    code, out, err = spycfr("query", agent_dir, "--as", "P1", "place:0-1 place:?")
    assert code == 0, err
    assert f"exploitability: {value:.4g} (exact" in out
    # tiny's subgames reach the end of the game: the answer names no leaf values
    words = " ".join(out.split())
    assert "solved to the end of the game, no leaves" in words and "leaf values" not in words
    # the agent's own values there are its whole-game plan's (AgentGame.own_values); where
    # they are a subgame's, the words say the subgame's strategies
    assert "both playing on by the agent's first plan (solved once over the whole game)" in words
    from spycfr.analysis.agentplay import agent_source
    from spycfr.runs.store import read_run

    meta = read_run(agent_dir)
    words = agent_source(meta)
    assert "playing on by them" in words and "first plan" not in words
    # the leaves in a player's words, today's (a run keeps the words of its day in
    # run.json: they named a module once, "(spycfr.search.continuation)")
    assert ("1 decision level(s) deep, the positions where it stops valued by games played "
            "out to the end by the game's heuristic players") in words
    meta.record["agent"]["value_function_words"] = "rollouts (spycfr.search.continuation)"
    assert agent_source(meta) == words and "spycfr." not in words
    # an agent that makes only the moves its cards need says so where it re-solves, not
    # where it plays its first plan's row or its openings table
    assert "needs_only" not in words
    meta.record["agent"]["needs_only"] = True
    # Agent Hunter gives no words for a rule of needed moves (Agent Avenue's are said:
    # test_results::test_the_needs_only_agents_openings_say_its_first_moves_are_cut_in_play)
    assert ("makes only the moves its cards need (needs_only: the game's rule of needed "
            "moves)") in agent_source(meta)
    assert "needs_only" not in agent_source(meta, plan_row=True)
    assert "needs_only" not in agent_source(meta, from_table=True)


@pytest.mark.parametrize("args, message", [
    (["--algorithm", "re-solving", "--iterations", "0"], "--iterations must be an integer >= 1"),
    (["--algorithm", "re-solving", "--value-function", "net"], "not one of scored-now"),
    (["--algorithm", "re-solving", "--time-limit", "3"], "takes --iterations"),
    # the agent holds no memory limit (its whole-game plan on Agent Avenue small: 8.4 GB)
    (["--algorithm", "re-solving", "--memory-limit", "1"], "takes --iterations"),
    (["--algorithm", "cfr+", "--depth", "2"], "belong to --algorithm re-solving"),
    (["--algorithm", "re-solving", "--endgame", "-1"], "--endgame must be an integer >= 0"),
    (["--algorithm", "cfr+", "--plan-endgame", "0"], "belong to --algorithm re-solving"),
    (["--algorithm", "re-solving", "--plan-depth", "0"], "--plan-depth must be an integer >= 1"),
    (["--algorithm", "re-solving", "--subgame-budget", "-1"],
     "--subgame-budget must be an integer >= 0"),
    (["--algorithm", "re-solving", "--plan-play", "two"], "--plan-play must be an integer"),
    (["--algorithm", "cfr+", "--plan-depth", "3"], "belong to --algorithm re-solving"),
    (["--algorithm", "cfr+", "--subgame-budget", "0"], "belong to --algorithm re-solving"),
    (["--algorithm", "cfr+", "--plan-play", "1"], "belong to --algorithm re-solving"),
    (["--algorithm", "cfr+", "--needs-only"], "belong to --algorithm re-solving"),
    # Agent Hunter has no needed_moves hook: said before any solve
    (["--algorithm", "re-solving", "--needs-only"], "agent-hunter has no needed_moves hook"),
])
def test_bad_agent_options_are_one_line_errors(tmp_path, args, message):
    code, _, err = spycfr("solve", "agent-hunter", "--preset", "tiny", *args,
                          "-o", str(tmp_path / "x"))
    assert code == 2 and message in err and err.count("\n") == 1


@pytest.mark.parametrize("args, changes", [
    ([], {}),  # the game's defaults
    (["--plan-depth", "4", "--subgame-budget", "35000", "--plan-play", "2"],
     {"plan_depth": 4, "subgame_budget": 35000, "plan_play": 2}),
    (["--subgame-budget", "0", "--plan-play", "0"], {"subgame_budget": 0, "plan_play": 0}),
    # a relative weights file is recorded absolute: play and query read a relative one as
    # relative to the run directory (they failed with "no weights file RUN/w.npz")
    (["--value-function", "learned", "--value-file", "w.npz"],
     {"value_function": "learned", "value_file": str(Path("w.npz").resolve())}),
])
def test_the_plan_and_depth_rule_options_reach_the_agent(monkeypatch, tmp_path, args, changes):
    """--plan-depth, --subgame-budget and --plan-play set the agent's AgentConfig fields (what
    run.json's agent records), the rest the game's defaults."""
    import spycfr.runs.agent_run as agent_run

    seen = []

    def stop(out, game, preset, params, config, seed, say):
        seen.append(config)
        raise SystemExit(0)

    monkeypatch.setattr(agent_run, "write_agent_run", stop)
    code, _, err = spycfr("solve", "agent-hunter", "--preset", "mini", "--algorithm",
                          "re-solving", *args, "-o", str(tmp_path / "x"))
    assert code == 0, err
    assert seen == [AgentConfig.default("agent-hunter", **changes)]
    if changes.get("plan_play"):
        assert "its first 2 decision level(s) played as planned" in err


def test_needs_only_reaches_the_agent_and_its_settings_line(monkeypatch, tmp_path):
    """--needs-only sets AgentConfig.needs_only (run.json's agent records it: the run then
    plays only the moves its cards need), said in solve's first line; without it, off."""
    import spycfr.runs.agent_run as agent_run

    seen = []

    def stop(out, game, preset, params, config, seed, say):
        seen.append(config)
        raise SystemExit(0)

    monkeypatch.setattr(agent_run, "write_agent_run", stop)
    for args in ([], ["--needs-only"]):
        code, _, err = spycfr("solve", "agent-avenue", "--preset", "mini", "--algorithm",
                              "re-solving", *args, "-o", str(tmp_path / "x"))
        assert code == 0, err
        assert ("only the moves its cards need" in err) == bool(args)
    assert seen == [AgentConfig.default("agent-avenue"),
                    AgentConfig.default("agent-avenue", needs_only=True)]


@pytest.mark.parametrize("field, value, words", [
    ("depth", "deep", 'agent.depth must be an integer, got "deep"'),
    ("iterations", True, "agent.iterations must be an integer, got true"),
    ("value_function", 3, "agent.value_function must be a string, got 3"),
    ("opening_file", [], "agent.opening_file must be a string or null, got []"),
])
def test_a_damaged_agent_configuration_is_a_one_line_error(agent_dir, tmp_path, field,
                                                           value, words):
    """run.json's agent fields of the wrong type (a damaged or hand-edited file) are named
    in one line by every command that loads the agent (a TypeError's traceback before)."""
    import shutil

    run = tmp_path / "run"
    shutil.copytree(agent_dir, run)
    meta = json.loads((run / "run.json").read_text())
    meta["agent"][field] = value
    (run / "run.json").write_text(json.dumps(meta))
    moves = tmp_path / "moves.txt"
    moves.write_text("")
    for args in (["query", str(run), "--seat", "P1"], ["play", str(run), "--moves", str(moves)]):
        code, _, err = spycfr(*args)
        # numba's notice that it compiles (a cold cache) is a line of its own, not counted
        lines = [x for x in err.strip().splitlines() if x != COMPILING]
        assert code == 2 and len(lines) == 1, err
        assert f"{str(run / 'run.json')!r} is corrupt: {words}" in lines[0]


def test_every_agent_field_type_is_checked_and_an_unknown_one_is_named(monkeypatch):
    """run.json's check of the agent's fields knows every AgentConfig annotation of today,
    and unions of int, float, bool, str and None; a field of a type it does not know (a new
    AgentConfig field) is a TypeError naming the field and the table to extend, not a
    KeyError of the annotation's text."""
    from spycfr.runs.agent_run import agent_config
    from spycfr.runs.result import RunResult

    fields = AgentConfig.__dataclass_fields__
    record = {"game": "agent-hunter", "variant": {}, "algorithm": "re-solving",
              "iterations": 1, "agent": {name: getattr(AgentConfig(), name) for name in fields}}
    assert agent_config(RunResult.from_json(record)) == AgentConfig()
    field = fields["plan_play"]
    for annotation, good, bad, words in [
            ("float", 0.5, True, "a number"), ("bool", True, 1, "true or false"),
            ("float | None", None, "x", "a number or null")]:
        monkeypatch.setattr(field, "type", annotation)
        record["agent"]["plan_play"] = good
        assert agent_config(RunResult.from_json(record)).plan_play == good
        record["agent"]["plan_play"] = bad
        with pytest.raises(SpycfrError, match=f"agent.plan_play must be {words}, got"):
            agent_config(RunResult.from_json(record))
    monkeypatch.setattr(field, "type", "list[int]")
    with pytest.raises(TypeError, match=r"AgentConfig.plan_play is annotated 'list\[int\]'"
                                        r".*_AGENT_KIND_PARTS"):
        agent_config(RunResult.from_json(record))


@pytest.mark.slow
def test_the_agent_plays_answers_and_meets_other_players(agent_dir, tmp_path):
    moves = tmp_path / "moves.txt"
    moves.write_text("1\n" * 20)
    code, out, err = spycfr("play", agent_dir, "--seat", "P2", "--seed", "1", "--moves",
                            str(moves), "--json")
    assert code == 0, err
    result = json.loads(out)
    words = " ".join(err.split())
    assert "as the search agent of" in words and "exploitability unknown" not in words
    assert "it plays its first plan, solved to the end of the game, and re-solves" in words
    assert len(result["review"]) == len(result["moves"]) > 0
    # tiny: every subgame reaches the end (the plan's and the re-solves' budgets hold it)
    assert all(r["to_end"] for r in result["review"])
    # valued as query values them: by the first plan (solved over the whole game) where it
    # holds the player's cards, else by the re-solve, to the end too
    assert any(r["from_plan"] for r in result["review"])
    assert "values from its first plan, solved over the whole game" in words
    assert all(isinstance(r["value"], float) for r in result["review"])
    assert "never met this position" not in err
    # the review's probability is the agent's own re-solved one, no equilibrium's
    assert re.search(r"#  move +agent prob +value", err) and "eq prob" not in err
    code, out, err = spycfr("query", agent_dir, "--as", "P1", "place:0-1 place:?", "--json")
    assert code == 0, err
    q = json.loads(out)
    assert abs(sum(m["probability"] for m in q["moves"]) - 1) < 1e-9
    # listed by probability as shown, then the best first (the moves never played too)
    keys = [(-round(m["probability"], 4), -(m["value"] if m["value"] is not None
                                             else float("-inf"))) for m in q["moves"]]
    assert keys == sorted(keys)
    assert all(m["value"] is not None for m in q["moves"] if m["probability"] > 0)
    assert abs(sum(p["probability"] for p in q["opponent_posterior"]) - 1) < 1e-9
    # the cards its houses hold, not house numbers ("houses 1-3-2" read as those)
    assert q["opponent_posterior"][0]["private_state"].startswith("houses hold ")
    code, out, err = spycfr("head-to-head", agent_dir, "heuristic", "--games", "4", "--json")
    assert code == 0, err
    h = json.loads(out)
    assert h["a_payoff"]["games"] == 4 and -1 <= h["a_payoff"]["mean"] <= 1
    # the progress counts the match's games once (A as P1 in two, then as P2 in two)
    told = [line.split(":")[0] for line in err.splitlines() if line.startswith("game ")]
    assert told == ["game 1/4", "game 2/4", "game 3/4", "game 4/4"], err
    code, out, err = spycfr("openings", agent_dir, "--json")
    assert code == 0, err
    code, _, err = spycfr("query", agent_dir, "--as", "P1", "place:0-1 place:? hand:9>1:hi")
    assert code == 2 and err.startswith("error:") and err.count("\n") == 1


def test_a_game_against_the_agent_keeps_its_progress_off_the_transcript(agent_dir, tmp_path,
                                                                       monkeypatch):
    """What the agent says while it works (its first plan, its solves' iterations and
    seconds) goes to stderr: stdout is the game alone, which `spycfr review` reads back
    whole. The progress lines were printed into the transcript once."""
    from spycfr.search import resolve

    monkeypatch.setattr(resolve, "PROGRESS_AFTER", 0.0)
    monkeypatch.setattr(resolve, "PROGRESS_AGAIN", 0.0)
    moves = tmp_path / "moves.txt"
    moves.write_text("1\n" * 20)
    code, out, err = spycfr("play", agent_dir, "--seat", "P2", "--seed", "1", "--moves",
                            str(moves))
    assert code == 0, err
    said = ("CFR+ iterations", "the first plan", "public nodes")
    assert any(x in err for x in said), err  # the agent did say how it works
    assert not any(x in out for x in said), out
    transcript = tmp_path / "game.txt"
    transcript.write_text(out)
    code, out, err = spycfr("review", agent_dir, "--file", str(transcript), "--json")
    assert code == 0, err
    assert json.loads(out)["errors"] == 0


@pytest.mark.parametrize(("player", "whole", "view"), [
    ("P2", "place:0-1 place:2-1 hand:2>1:eq", "place:? place:2-1 hand:2>1:eq"),
    ("P1", "place:0-1 place:2-1", "place:0-1 place:?"),
])
def test_query_reads_a_whole_record_as_the_players_view(agent_dir, player, whole, view):
    """A whole game's record (P1's cards shown to P2, or P2's to P1) is answered at the
    player's view, said in one line; it was refused ('P2 cannot see P1's hidden card')."""
    code, out, err = spycfr("query", agent_dir, "--as", player, whole, "--json")
    assert code == 0, err
    answer = json.loads(out)
    assert answer.pop("note").endswith(f"answering {player}'s view of it, {view}")
    code, out, err = spycfr("query", agent_dir, "--as", player, view, "--json")
    assert code == 0, err
    assert answer == json.loads(out)


def test_query_says_which_moves_tie_within_the_re_solves_precision(agent_dir):
    """Moves whose values are within the re-solve's precision (the review's tie, 0.01) of
    the best are ties, whatever the agent's mix among them: the loss column says 'tie' and a
    line names them (the agent's answers said nothing, a 56/44 mix between moves 0.0017
    apart reading as a ranking)."""
    from spycfr.analysis.agentplay import AGENT_TIE

    view = "place:? place:2-1 hand:2>1:eq"
    code, out, err = spycfr("query", agent_dir, "--as", "P2", view, "--json")
    assert code == 0, err
    q = json.loads(out)
    assert q["tolerance"] == AGENT_TIE
    best = max(m["value"] for m in q["moves"])
    for m in q["moves"]:
        assert m["loss"] == pytest.approx(best - m["value"], abs=1e-12)
        assert m["tie"] == (m["loss"] <= AGENT_TIE)
    ties = [m["move"] for m in q["moves"] if m["tie"]]
    assert q["best_moves"] == ties and len(ties) >= 2  # tiny: P2's attacks tie here
    code, out, err = spycfr("query", agent_dir, "--as", "P2", view)
    assert code == 0, err
    rows = {line.split()[0]: line.split()[-1] for line in out.splitlines()
            if line.startswith("  ") and line.split()[0] in {m["move"] for m in q["moves"]}}
    assert all(rows[m] == "tie" for m in ties) and "tie" not in (
        rows[m["move"]] for m in q["moves"] if not m["tie"])
    words = " ".join(out.split())
    assert f"{len(ties)} moves tie for the best within 0.01 ({', '.join(ties[:6])}" in words


def _as_if_too_big(agent_dir, tmp_path):
    """A copy of the agent run whose exploitability is unknown, as on a variant too big to
    measure exactly (its run.json as such a solve writes it)."""
    import shutil

    from spycfr.runs.agent_run import EXPLOITABILITY_NOTE

    run = tmp_path / "agent"
    shutil.copytree(agent_dir, run)
    meta = json.loads((run / "run.json").read_text())
    del meta["exact_measure"]
    meta.update(exploitability=None, exploitability_note=EXPLOITABILITY_NOTE)
    meta["agent"]["plan_to_end"] = False  # a big variant's first plan has leaves
    (run / "run.json").write_text(json.dumps(meta))
    return run


def test_the_agents_report_writes_no_negative_zero(agent_dir, tmp_path):
    """A best response of -1e-6 is written +0.0000 in the report (as the terminal writes
    values, analysis.markdown.num), never "-0.0000"."""
    import shutil

    run = tmp_path / "agent"
    shutil.copytree(agent_dir, run)
    meta = json.loads((run / "run.json").read_text())
    meta["exact_measure"]["br_p1"] = -1e-6
    (run / "run.json").write_text(json.dumps(meta))
    code, _, err = spycfr("report", str(run), "-o", str(tmp_path / "report.md"))
    assert code == 0, err
    text = " ".join((tmp_path / "report.md").read_text().split())
    assert "(best responses: P1 +0.0000, P2 " in text and "-0.0000" not in text


def test_the_agents_report_says_what_was_measured_instead(agent_dir, tmp_path):
    report = tmp_path / "report.md"
    code, _, err = spycfr("report", str(_as_if_too_big(agent_dir, tmp_path)), "-o",
                          str(report))
    assert code == 0, err
    text = report.read_text()
    assert "Exploitability: unknown" in text and "results above" not in text
    assert "Nothing was measured instead yet" in text
    assert "without it where they cover only the agent's own" in text
    assert "In play the agent re-solves its first move too" in text  # rollout leaves


def test_the_agents_report_lists_its_head_to_head_results(agent_dir, tmp_path):
    """headtohead-*.json beside the run: a row each, and how each was played (its seed and
    method, e.g. pairs of games by benchmarks/agent_headtohead.py)."""
    run = _as_if_too_big(agent_dir, tmp_path)
    ci = {"mean": 0.5, "ci95": [0.1, 0.9], "games": 10}
    result = {"a": "agent", "b": "heuristic", "seed": "games in pairs, seeds 5..9",
              "a_payoff": ci, "a_as_p1": ci, "a_as_p2": ci, "a_wins": 0.7, "draws": 0.1,
              "method": "10 games by hand"}
    (run / "headtohead-heuristic.json").write_text(json.dumps(result))
    code, _, err = spycfr("report", str(run), "-o", str(tmp_path / "report.md"))
    assert code == 0, err
    text = (tmp_path / "report.md").read_text()
    assert "| heuristic | 10 | +0.500 [+0.100, +0.900] | +0.500 | +0.500 | 70.0% | 10.0% |" \
        in text
    assert ("- against heuristic (`headtohead-heuristic.json`): games in pairs, seeds 5..9; "
            "10 games by hand") in text
    assert "What was measured instead: the head-to-head results above." in text


def test_head_to_head_pairs_summarised_and_compared_game_by_game(tmp_path):
    """benchmarks/agent_headtohead.py --summary: the mean, as P1 and P2, won and lost; with
    --compare each game against the other file's of the same opponent, seed and seat (seeds
    in one file only left out), the difference's interval clipped to twice the payoff range."""
    import subprocess
    import sys

    def lines(path, rows):
        path.write_text("".join(json.dumps({"opponent": "heuristic", "seed": s, "p1": a,
                                            "p2": b, "bound": 1.0, "wall": 10.0,
                                            "solve_seconds": [1.0, 2.0]}) + "\n"
                                for s, a, b in rows))
    lines(tmp_path / "new.jsonl", [(1, 1, -1), (2, 1, 1), (3, -1, -1)])
    lines(tmp_path / "old.jsonl", [(1, -1, -1), (2, 1, -1), (9, 1, 1)])
    root = Path(__file__).resolve().parent.parent
    done = subprocess.run([sys.executable, str(root / "benchmarks" / "agent_headtohead.py"),
                           "--summary", str(tmp_path / "new.jsonl"), "--compare",
                           str(tmp_path / "old.jsonl")], capture_output=True, text=True,
                          check=True)
    out = done.stdout
    assert "heuristic: +0.000 [-0.877, +0.877] in 6 games (3 pairs, seeds 1..3)" in out
    assert "as P1 +0.333, as P2 -0.333; won 3, lost 3, drawn 0" in out
    # differences 2, 0 (seed 1) and 0, 2 (seed 2): mean 1, 1.96 SE = 1.132, clipped at +2
    assert "(4 games of the same seeds, there -0.500): +1.000 [-0.132, +2.000]" in out
    # pairs written before the code was recorded say so, 2 games a pair
    assert "Every game played by code not recorded" in out
    code = {"version": "0.1.0", "commit": "abcdef1234", "modified": False}
    rows = [json.loads(x) for x in (tmp_path / "new.jsonl").read_text().splitlines()]
    (tmp_path / "mixed.jsonl").write_text("".join(
        json.dumps(r | ({"code": code} if r["seed"] == 1 else {})) + "\n" for r in rows))
    done = subprocess.run([sys.executable, str(root / "benchmarks" / "agent_headtohead.py"),
                           "--summary", str(tmp_path / "mixed.jsonl")], capture_output=True,
                          text=True, check=True)
    assert ("Played by 2 different codes (a games file resumed or merged across code changes: "
            "the mean mixes their agents): 2 games by spycfr 0.1.0 at abcdef1, 4 games by code "
            "not recorded") in done.stdout, done.stdout
    # 8 games all won: the exact binomial bound (win rate >= 0.631), not [+1.000, +1.000]
    lines(tmp_path / "won.jsonl", [(s, 1, 1) for s in range(1, 5)])
    done = subprocess.run([sys.executable, str(root / "benchmarks" / "agent_headtohead.py"),
                           "--summary", str(tmp_path / "won.jsonl")], capture_output=True,
                          text=True, check=True)
    assert "heuristic: +1.000 [+0.261, +1.000] in 8 games" in done.stdout, done.stdout


def test_the_agents_openings_say_they_are_its_first_plan(agent_dir, tmp_path):
    """Not a sampled run's average strategy: the header says what the agent's openings are:
    on tiny the plan reaches the end of the game, so the agent plays them (no leaves to
    spend on its own cards); with leaves (a big variant) it re-solves its first move."""
    code, out, err = spycfr("openings", agent_dir)
    assert code == 0, err
    words = " ".join(out.split())
    assert "search agent (re-solving, 30 CFR+ iterations per decision)" in words
    assert "The agent's openings: the moves of its first plan" in words
    assert "iterations to the end of the game, no leaf values); in play it plays these" in words
    assert "its first move too" not in words and "the positions where it stops" not in words
    assert "plan prob" in out and "MCCFR" not in out and "avg prob" not in out
    code, out, err = spycfr("openings", str(_as_if_too_big(agent_dir, tmp_path)))
    assert code == 0, err
    words = " ".join(out.split())
    # the leaves in words ('leaves valued by rollout' named the value function alone)
    assert ("first 2 decision levels, the positions where it stops valued by games played "
            "out to the end by the game's heuristic players") in words
    assert "re-solves every decision, its first move too" in words  # rollout leaves
    code, out, err = spycfr("openings", agent_dir, "--json")
    assert code == 0, err
    assert json.loads(out)["caveat"].startswith("The agent's openings: the moves of its first")


def test_a_review_says_what_valued_the_moves():
    """`spycfr play`'s review against an agent: by its first plan where that reaches the end
    of the game, exact where its subgames reached the end of the game (the endgame rule),
    its leaves' value function elsewhere."""
    from types import SimpleNamespace

    from spycfr.analysis.play import _agent_basis

    opp = SimpleNamespace(agent=SimpleNamespace(), result=SimpleNamespace(
        game="agent-hunter", record={"agent": {"value_function": "rollout"}}))
    rows = [{"to_end": True}, {"to_end": True}]
    assert _agent_basis(rows, opp) == "its subgames solved to the end of the game (no leaf " \
                                      "values)"
    # the leaves in words, not the value function's name ('their leaves valued by rollout')
    leaves = ("its re-solves, the positions where they stop valued by games played out to the "
              "end by the game's heuristic players, each seat continuing as the heuristic best "
              "for it against the opponent's worst")
    rows[0]["to_end"] = False
    assert _agent_basis(rows, opp) == ("solved to the end of the game at 1 of them, elsewhere "
                                       + leaves)
    rows[1]["to_end"] = False
    assert _agent_basis(rows, opp) == leaves
    rows[0]["from_plan"] = True  # valued by the first plan, solved over the whole game
    assert _agent_basis(rows, opp) == ("its first plan, solved over the whole game, at 1 of "
                                       f"them; {leaves}")
    rows[1]["from_plan"] = True
    assert _agent_basis(rows, opp) == "its first plan, solved over the whole game"


def test_a_walk_whose_rollouts_went_unplayed_is_not_called_exact():
    """The exact walk holds no actual cards: a re-solve whose rollouts are over their budget
    scores every leaf as it stands, which a real game (rollouts for its own cards) does not.
    Such re-solves are counted, and the figure is then not given as the agent's (forced
    here on tiny by a budget of 0, leaves at every re-solve: the endgame rule off)."""
    from spycfr.games import make_variant
    from spycfr.runs.agent_run import exact_measure

    agent = SearchAgent("agent-hunter", make_variant("agent-hunter", "tiny").as_dict(),
                        AgentConfig(iterations=10, value_function="rollout"))
    agent.values.inner.budget = 0
    said: list[str] = []
    fields = exact_measure(agent, said.append)
    assert fields is not None and fields["exploitability"] is None
    unplayed = fields["exact_measure"]["unplayed_re_solves"]
    assert 0 < unplayed <= fields["exact_measure"]["re_solves"]
    assert fields["exploitability_note"].startswith(f"unknown: in the exact walk {unplayed:,}")
    assert any("scored as they stand" in line for line in said)


def test_the_report_gives_why_a_walked_agent_is_unknown(agent_dir, tmp_path):
    """A run whose exact walk left rollouts unplayed (run.json as exact_measure writes it
    then): the report says why its exploitability is unknown, not that the game is too big."""
    import shutil

    run = tmp_path / "agent"
    shutil.copytree(agent_dir, run)
    meta = json.loads((run / "run.json").read_text())
    meta["exact_measure"]["unplayed_re_solves"] = 3
    meta.update(exploitability=None, exploitability_note="unknown: in the exact walk 3 of "
                "532 re-solves had more rollouts than their budget")
    (run / "run.json").write_text(json.dumps(meta))
    code, _, err = spycfr("report", str(run), "-o", str(tmp_path / "report.md"))
    assert code == 0, err
    text = " ".join((tmp_path / "report.md").read_text().split())
    assert ("**Exploitability: unknown.** In the exact walk 3 of 532 re-solves had more "
            "rollouts than their budget.") in text
    assert "far too big" not in text


def _played_as_p2(agent_dir, tmp_path, seed: int) -> dict:
    moves = tmp_path / "moves.txt"
    moves.write_text("1\n" * 20)
    code, out, err = spycfr("play", agent_dir, "--seat", "P2", "--seed", str(seed), "--moves",
                            str(moves), "--json")
    assert code == 0, err
    return json.loads(out)


def test_recorded_games_are_reviewed_by_the_agent_as_play_reviews_them(agent_dir, tmp_path):
    """`spycfr review` on a search agent's run: each seat's moves valued as `spycfr query
    --seat` values them (the agent in that seat, walked along the seat's view; it was a
    KeyError once: the values were only taken in a game played against it); P2's rows are
    those of the same game played."""
    played = _played_as_p2(agent_dir, tmp_path, 3)
    games = tmp_path / "games.txt"
    games.write_text(played["record"] + "\n" + played["record"] + "\n")
    code, out, err = spycfr("review", agent_dir, "--file", str(games), "--json")
    assert code == 0, err
    result = json.loads(out)
    assert result["errors"] == 0 and len(result["games"]) == 2
    for g in result["games"]:  # each record walked afresh: the second as the first
        rows = {r["view"]: r for r in g["seats"]["P2"]["moves"]}
        assert len(rows) == len(played["review"])
        for r in played["review"]:
            got = rows[r["view"]]
            assert got["move"] == r["move"] and got["basis"] == "agent"
            for k in ("probability", "value", "best_value"):
                assert abs(got[k] - r[k]) < 1e-9, (k, got, r)
        assert g["seats"]["P1"]["moves"]  # the agent's own seat reviewed too
    code, out, err = spycfr("review", agent_dir, played["record"])
    assert code == 0, err
    assert out.count("the costliest first (move, agent prob, value, loss)") == 2, out
    assert "eq prob" not in out


def test_the_workbench_plays_and_reviews_against_the_agent(agent_dir, tmp_path):
    """The workbench's play and review pages on a search agent's run: every page replays
    the game from its start, so each gets a walk of its own (the one agent of the server
    followed the first page's game and failed on the next: 'not a decision of seat 0');
    the review says the agent's re-solve valued the moves."""
    import html
    import re
    import threading
    import urllib.error
    import urllib.parse
    import urllib.request

    from spycfr.web.server import make_server_for

    played = _played_as_p2(agent_dir, tmp_path, 3)
    srv = make_server_for([agent_dir])
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        base = (f"http://127.0.0.1:{srv.server_port}/play?run={Path(agent_dir).name}"
                "&seat=P2&seed=3")
        picks: list[str] = []
        for _ in range(20):
            url = base + (f"&m={'.'.join(picks)}" if picks else "")
            with urllib.request.urlopen(url, timeout=600) as answer:
                assert answer.status == 200
                page = answer.read().decode()
            assert "internal error" not in page
            if 'id="result"' in page:
                break
            picks.append("0")  # the first move listed, as the terminal's '1'
        record = html.unescape(re.search(r'<code id="record">(.*?)</code>', page).group(1))
        assert record == played["record"]
        # the page again (the game's walk kept: its answers reused), then another line
        # from the start (the walk follows it afresh), then the first game's end again
        for again in (url, base + "&m=1", url):
            with urllib.request.urlopen(again, timeout=600) as answer:
                assert answer.status == 200
                text = answer.read().decode()
            assert "internal error" not in text and "your move" in text or 'id="result"' in text
        assert text == page
        assert "the search agent in that seat" in page and "re-solve's precision" in page
        assert "the program plays P1 as the search agent of" in page
        data = urllib.parse.urlencode({"records": record}).encode()
        with urllib.request.urlopen(urllib.request.Request(
                f"http://127.0.0.1:{srv.server_port}/review?run={Path(agent_dir).name}",
                data=data), timeout=600) as answer:
            assert answer.status == 200
            page = answer.read().decode()
        assert "internal error" not in page and "re-solve's precision" in page
        with pytest.raises(urllib.error.HTTPError) as refused:  # no tree to browse
            urllib.request.urlopen(f"http://127.0.0.1:{srv.server_port}/browse?run="
                                   f"{Path(agent_dir).name}", timeout=600)
        assert refused.value.code == 409
        assert "is a search agent (it re-solves as it plays" in refused.value.read().decode()
    finally:
        srv.shutdown()
        srv.server_close()


def test_the_workbench_says_why_an_agents_exploitability_and_nodes_are_unknown():
    """The runs' table and run page: the lower bound measured instead (as `spycfr query`
    says it), not 'sampled run', for the committed standard agent; no '?' for its nodes."""
    from spycfr.web.bench import fmt_eps
    from spycfr.web.pages import _nodes

    meta = json.loads((Path(__file__).parent.parent / "results/standard/run.json").read_text())
    lbr = meta["measured"]["local_best_response"]
    # its LBR's games were played before games recorded their code: the report's note too
    assert fmt_eps(meta) == (f"unknown; a local best response won {lbr['value']:+.3f} a game "
                             f"[95%: {lbr['ci95'][0]:+.3f}, {lbr['ci95'][1]:+.3f}] in "
                             f"{lbr['games']} games, so at least {lbr['ci95'][0]:.3f} at 95%; "
                             "its games were played against an agent whose code was not "
                             "recorded, and run.json does not record the code that made this "
                             "run's agent")
    assert "search agent" in _nodes(meta)
    assert fmt_eps({"exploitability": None}) == "unknown (a sampled run: not measured)"
    assert fmt_eps({"exploitability": None, "algorithm": "re-solving"}) == (
        "unknown (a search agent: not measured)")
    assert fmt_eps({"exploitability": 9.7e-5}) == "9.7e-05" and _nodes({"nodes": 7339}) == "7,339"


@pytest.mark.parametrize("run, shown", [
    ("agent-avenue/standard", "so at least 0.062 at 95%"),
    ("agent-avenue/advanced", "which shows no exploitability above 0 at 95%")])
def test_every_lower_bound_says_what_its_games_show(run, shown):
    """The lower bound on an unknown exploitability is what the games show at 95%, with the
    games played: Agent Avenue standard's local best response won +0.500 a game in 11 games,
    95% interval +0.062 to +0.938, and query, play's review, the workbench, openings, measure
    and the report all said 'at least 0.5' (advanced: 'at least 0.333' where the interval
    reaches below 0). One function (spycfr.analysis.bound) words it for all."""
    from spycfr.analysis.agentplay import agent_review_words
    from spycfr.analysis.markdown import Doc
    from spycfr.analysis.openings import sampled_caveat
    from spycfr.analysis.sampled_report import _measured
    from spycfr.cli.match import measured_lines
    from spycfr.cli.query import _unknown_exploitability
    from spycfr.runs.result import RunResult
    from spycfr.web.bench import fmt_eps

    data = json.loads((Path(__file__).parent.parent / "results" / run / "run.json").read_text())
    m = data["measured"]
    lbr = m["local_best_response"]
    meta = RunResult.from_json(data)
    doc = Doc()
    _measured(doc, meta, bool(m["head_to_head"]))
    said = {"workbench": fmt_eps(data), "review": agent_review_words(meta),
            "query": _unknown_exploitability(m, data.get("code")),
            "openings": sampled_caveat(m, None, data.get("code")),
            "measure": "\n".join(measured_lines(m, data.get("code"))),
            "report": " ".join(doc.parts)}
    games = f"in {lbr['games']} games"
    interval = f"[95%: {lbr['ci95'][0]:+.3f}, {lbr['ci95'][1]:+.3f}]"
    for where, text in said.items():
        text = " ".join(text.split())
        assert shown in text and games in text and interval in text, (where, text)
        assert f"at least {m['exploitability_lower_bound']['value']:.3g}" not in text, where
    assert f"at 95%: {max(0.0, lbr['ci95'][0]):.3f}**" in said["report"]
    # the games were an earlier agent's: query, play's review, the workbench, openings and
    # measure say so, as the report does (query, openings and measure said the bound alone)
    for where in said:
        assert re.search(r"its games were played (against an|by other code)", said[where]), where


def test_one_rule_gives_the_agents_losses_and_ties():
    """agent_losses and agent_tie, the one rule of `spycfr query` and of the review against
    an agent: a loss below the best valued move, a tie within AGENT_TIE, and no loss (nor
    tie) for a move the re-solve left without a value, or for every move where none has
    one (the review used to give such a move an infinite loss)."""
    import numpy as np

    from spycfr.analysis.agentplay import AGENT_TIE, agent_losses, agent_tie

    best, losses = agent_losses(np.array([0.5, np.nan, 0.5 - AGENT_TIE / 2, 0.2]))
    assert best == 0.5
    assert losses[0] == 0.0 and losses[1] is None
    assert losses[2] == pytest.approx(AGENT_TIE / 2) and losses[3] == pytest.approx(0.3)
    assert [agent_tie(x) for x in losses] == [True, None, True, False]
    assert agent_tie(AGENT_TIE) is True and agent_tie(AGENT_TIE * 1.01) is False
    assert agent_losses(np.array([np.nan, np.nan])) == (None, [None, None])


def test_the_agents_review_of_a_move_without_a_value_says_so():
    """A review row of a move the agent's re-solve did not value: no value, no loss, no
    tie, and `spycfr play` prints '-' for it instead of failing or reading 'inf'; the best
    moves are the ties of the valued ones, best first."""
    from types import SimpleNamespace

    import numpy as np

    from spycfr.analysis.agentplay import AgentOpponent
    from spycfr.analysis.play import Decision, _say_review

    opp = object.__new__(AgentOpponent)
    values = np.array([0.1, np.nan, 0.3, 0.295])
    opp.infos = {(0, "v"): SimpleNamespace(values=values, probs=np.full(4, 0.25), to_end=True,
                                           from_table=False, from_plan=False, cut=None,
                                           actions=np.arange(4))}
    labels = ["a", "b", "c", "d"]
    rows = opp.review([Decision("v", m, i, 0, [], labels) for i, m in enumerate(labels)], 0)
    assert [r["loss"] is None for r in rows] == [False, True, False, False]
    assert rows[1]["value"] is None and rows[1]["tie"] is None
    assert [r["tie"] for r in rows] == [False, None, True, True]
    assert rows[0]["loss"] == pytest.approx(0.2) and rows[0]["best_value"] == 0.3
    assert rows[0]["best_moves"] == ["c", "d"]
    said: list[str] = []
    _say_review(rows, SimpleNamespace(agent=SimpleNamespace(value_function="rollout"),
                                      result=SimpleNamespace(exploitability=0.0117,
                                                             measured=None)), said.append)
    words = " ".join(" ".join(said).split())
    assert "valued as `spycfr query --seat` values it there" in words
    assert "the agent is 0.0117 exploitable (exact)" in words
    line_b = next(line for line in said if line.split()[:2] == ["2", "b"])
    assert line_b.split()[-3:] == ["-", "+0.3000", "-"]
    # the loss as the table and `spycfr review` say it: 'lost', positive ("(-0.2000, best:"
    # read as a value beside the value column's own signed figures)
    assert said[-1].startswith("1 of your 4 moves lost value; the costliest: a (lost 0.2000 "
                               "against ")
    # re-solves with leaves: the header names them in words, wrapped as the lines below it
    # (it ran to 250 characters on one line)
    for r in rows:
        r["to_end"] = False
    said.clear()
    _say_review(rows, SimpleNamespace(
        agent=SimpleNamespace(value_function="rollout"),
        result=SimpleNamespace(game="agent-hunter", exploitability=0.0117, measured=None,
                               record={"agent": {"value_function": "rollout"}})), said.append)
    lines = "\n".join(said).splitlines()
    assert lines[1].startswith("review of your moves (values from its re-solves, the positions")
    assert max(len(line) for line in lines[:4]) <= 100, lines[:4]


def test_the_review_form_of_an_agent_run_says_it_takes_minutes(agent_dir):
    """A search agent reviews a game by re-solving along it, once per seat (minutes on the
    bigger games): its review form says so and how to halve it, and every review form shows
    a line while the review runs; a tree run's form has no such note."""
    import io
    from wsgiref.util import setup_testing_defaults

    from spycfr.web.app import make_app
    from spycfr.web.catalog import discover
    from spycfr.web.games import AGENT_REVIEW_NOTE

    tiny = str(Path(__file__).resolve().parent.parent / "results" / "tiny")
    app = make_app(discover([agent_dir, tiny]))
    for run, agent in ((Path(agent_dir).name, True), ("tiny", False)):
        environ: dict = {"PATH_INFO": "/review", "QUERY_STRING": f"run={run}"}
        setup_testing_defaults(environ)
        environ["wsgi.errors"] = io.StringIO()
        said: list[str] = []
        page = b"".join(app(environ, lambda status, headers, *_, said=said:
                            said.append(status))).decode()
        assert said[0].startswith("200")
        assert ('id="slow"' in page and "review one seat to halve it" in page) == agent
        assert "halve it" in AGENT_REVIEW_NOTE
        assert 'id="wait" hidden' in page and "getElementById('wait').hidden=false" in page


def test_the_workbench_keeps_walks_of_the_loaded_agent_only(agent_dir):
    """A kept walk holds its agent: walks of games against an agent the workbench no longer
    has loaded (its cache keeps one) are dropped when another is loaded, so that they do
    not keep up to WALKS_KEPT agents in memory (1-3 GB each on Agent Avenue)."""
    from types import SimpleNamespace

    from spycfr.web.bench import Workbench
    from spycfr.web.catalog import discover

    bench = Workbench(discover([agent_dir]))
    name = Path(agent_dir).name
    other = SimpleNamespace(agent=object())  # a walk of another agent, evicted since
    bench._walks[("other-agent", (0, 1))] = other
    opp, _ = bench.opponent(name, (0, 5))
    assert list(bench._walks) == [(name, (0, 5))]
    assert bench._walks[(name, (0, 5))] is opp.agent
    again, _ = bench.opponent(name, (1, 6))  # the same agent's walks stay
    assert list(bench._walks) == [(name, (0, 5)), (name, (1, 6))]
    assert again.agent.agent is opp.agent.agent


def test_the_first_progress_line_says_the_leaf_values_in_words():
    """solve's first line said 'leaves valued rollout' (the option's value, a player cannot
    read it); it says the value function as play and the report do."""
    from spycfr.cli.solve_agent import settings_line
    from spycfr.runs.agent_run import value_words

    for game, name in (("agent-hunter", "rollout"), ("agent-avenue", "scored-now")):
        line = settings_line(game, AgentConfig(value_function=name))
        assert line.endswith("where a subgame stops short, the positions there valued by "
                             + value_words(game, name)), line
        assert "valued rollout" not in line and "valued scored-now" not in line
