"""The search agent's endgame rule (AgentConfig.endgame, plan_endgame): a subgame whose
rest of the game fits the budget in node-states (spycfr.search.tree.work) is solved to the
end, exact; over it, cut at the configured depth. Agent Hunter tiny: cheap subgames."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from cli_helpers import bench_script
from spycfr.errors import SpycfrError
from spycfr.games import get_plugin, make_variant
from spycfr.provenance import code_version
from spycfr.runs.agent_run import agent_config
from spycfr.runs.result import RunResult
from spycfr.search.agent import (
    ENDGAME,
    PLAN_ENDGAME,
    TURN_BUDGET,
    AgentConfig,
    SearchAgent,
    agent_strategies,
)
from spycfr.search.subgame import subgame
from spycfr.search.tree import GameModel, TooBig, build, nodes_to_end, work

TINY = make_variant("agent-hunter", "tiny").as_dict()
RESULTS = Path(__file__).resolve().parents[1] / "results"


@pytest.fixture(scope="module")
def tiny():
    return GameModel.of(get_plugin("agent-hunter").numba_params(make_variant("agent-hunter",
                                                                             "tiny")))


def test_the_rule_triggers_exactly_when_the_subgame_fits_the_budget(tiny):
    game = tiny
    turn = subgame(game, game.root(), 2)  # the placements; the first turn a leaf
    first_turn = turn.pub[turn.leaves[0]]
    rest = build(game, first_turn, live=True)
    nodes = nodes_to_end(game, first_turn, 10 ** 7)
    assert nodes == rest.size > 100 and nodes_to_end(game, first_turn, nodes - 1) is None
    cost = work(rest)
    assert cost > rest.size * max(game.n)  # rows and terminals count too
    with pytest.raises(TooBig):
        build(game, first_turn, live=True, max_work=cost - 1)
    agent = SearchAgent("agent-hunter", TINY, AgentConfig(iterations=5))
    assert np.array_equal(agent.endgame(first_turn, 1, cost).pub, rest.pub)
    assert agent.endgame(first_turn, 1, cost - 1) is None
    assert agent.endgame(first_turn, 1, 0) is None
    # the subgame the agent solves there: the whole rest of the game, or one move deep
    assert not agent.subgame(first_turn, 1, cost).leaves.size
    assert agent.subgame(first_turn, 1, cost - 1).leaves.size
    # the first plan by its own budget (from the deal's prior)
    whole = work(build(game, live=True), (game.weights[0] > 0, game.weights[1] > 0))
    for budget, leaves in ((whole, False), (whole - 1, True)):
        plan = SearchAgent("agent-hunter", TINY, AgentConfig(iterations=5, plan_endgame=budget))
        assert bool(plan.plan().tree.leaves.size) == leaves


def test_a_budget_over_the_whole_game_is_the_exact_leaf_agent(tiny):
    """With both budgets covering the whole game, the agent one move deep with scored-now
    leaves plays what the agent whose every subgame reaches the end plays: the same
    strategy at every public node as each seat, from the same re-solves."""
    whole = work(build(tiny, live=True))
    agent = SearchAgent("agent-hunter", TINY, AgentConfig(iterations=30, endgame=whole,
                                                          plan_endgame=whole))
    by_rule = agent_strategies(agent)
    assert by_rule[0] is agent.plan().tree  # walked on the plan's tree, not built again
    exact = agent_strategies(SearchAgent("agent-hunter", TINY, AgentConfig(
        iterations=30, depth=20, plan_depth=20)))
    assert by_rule[2] == exact[2] > 100
    for seat in (0, 1):
        assert np.array_equal(by_rule[1][seat], exact[1][seat])


def test_run_directories_from_before_the_rule_load_with_it_off():
    """The committed agents were measured without the rule: their run.json has no endgame
    key and loads with both budgets 0; a new agent gets the defaults, and a record that says
    0 keeps it off."""
    for run in ("standard", "agent-avenue/standard"):
        record = json.loads((RESULTS / run / "run.json").read_text())
        assert record["algorithm"] == "re-solving" and "endgame" not in record["agent"]
        config = agent_config(RunResult.from_json(record))
        assert config.endgame == 0 and config.plan_endgame == 0
        assert config.depth == record["agent"]["depth"]
    new = AgentConfig.default("agent-avenue")
    assert (new.endgame, new.plan_endgame) == (ENDGAME, PLAN_ENDGAME) and ENDGAME > 0
    assert (new.value_function, new.depth) == ("rollout", 2)
    record = {**record, "agent": {**record["agent"], **AgentConfig.default(
        "agent-avenue", endgame=0).as_dict()}}
    assert agent_config(RunResult.from_json(record)).endgame == 0


def test_live_rows_are_as_wide_as_the_counts_widest_row():
    """build(live=True) sizes its row tables by the widest private row that its count
    measured (before any table is made, so a tree over budget costs no tables): the tables
    of build(live=False), at the game's private width, cut to it (Agent Avenue tiny: a
    draw's rows are wider than its public moves)."""
    plugin = get_plugin("agent-avenue")
    variant = plugin.make_variant(None, make_variant("agent-avenue", "tiny").as_dict())
    game = GameModel.of((plugin.search_params or plugin.numba_params)(variant))
    narrow, wide = build(game, live=True), build(game)
    width = narrow.row_kid.shape[2]
    assert game.max_actions < width == wide.row_count.max() < game.max_private_actions
    for name in ("row_kid", "row_next", "row_prob"):
        assert np.array_equal(getattr(narrow, name), getattr(wide, name)[:, :, :width]), name
    for name in ("pub", "kind", "first", "row", "row_count"):
        assert np.array_equal(getattr(narrow, name), getattr(wide, name)), name


def test_the_first_move_is_re_solved_once_however_often_it_is_observed():
    """Head to head observes the state after every step and then asks the policy there: the
    first move's re-solve for the agent's own cards (rollout leaves) was made twice."""
    agent = SearchAgent("agent-hunter", TINY, AgentConfig(iterations=5, value_function="rollout"))
    game = agent.game(0)
    state = agent.initial()
    game.observe(state)
    first = game.policy(state).copy()
    game.observe(state)
    assert game.solves == 1 and np.array_equal(game.policy(state), first)


def test_the_agents_leaf_queries_are_the_plans_where_every_re_solve_is_exact(tiny):
    """situations.agent_leaf_queries: with the plan cut after the placements and every
    re-solve below it exact (the rest of tiny fits the budget), the only leaf queries are
    the plan's, at its one leaf; seeded, the walk's exploitability that of the same agent
    unrecorded, and the agent as it was afterwards."""
    from spycfr.search.agent import agent_exploitability
    from spycfr.search.situations import agent_leaf_queries

    config = AgentConfig(iterations=5, plan_depth=2, depth=1, endgame=ENDGAME)
    agent = SearchAgent("agent-hunter", TINY, config)
    values = agent.values
    q = agent_leaf_queries(agent, 4, 0)
    assert agent.values is values and "solve" not in vars(agent) and "game" not in vars(agent)
    again = agent_leaf_queries(SearchAgent("agent-hunter", TINY, config), 4, 0)
    assert all(np.array_equal(q[k], again[k]) for k in q)
    plan = agent.plan()
    assert plan.tree.leaves.size == 1 and int(q["solves"]) == 1  # the plan alone asked
    assert (q["pub"] == plan.tree.pub[plan.tree.leaves[0]]).all() and q["pub"].shape[0] == 4
    assert int(q["total"]) >= 2 * config.iterations  # each seat's pass, then the best responses
    assert ((q["r0"].sum(1) > 0) | (q["r1"].sum(1) > 0)).all()
    assert not q["r0"][~q["m0"]].any() and not q["r1"][~q["m1"]].any()
    plain, br, resolves = agent_exploitability(SearchAgent("agent-hunter", TINY, config))
    assert float(q["exploitability"]) == pytest.approx(plain, abs=1e-9)
    assert q["best_responses"] == pytest.approx(br, abs=1e-9)
    assert int(q["resolves"]) == resolves > 100


def test_the_leaf_queries_walk_reads_the_whole_tree_it_is_given(monkeypatch):
    """agent_leaf_queries built the whole game's tree for its index and the walk built it
    again (Agent Hunter small: two of about 6 GB each in train_values_rounds.py --agent):
    now the walk reads the tree it is given, the one tree built (once, where none is
    given), and the exploitability is the unrecorded walk's."""
    from spycfr.search import agent as agent_module
    from spycfr.search.agent import agent_exploitability, whole_tree
    from spycfr.search.situations import agent_leaf_queries

    built = []
    inner = agent_module.whole_tree
    monkeypatch.setattr(agent_module, "whole_tree", lambda *a, **k: built.append(1) or inner(
        *a, **k))
    config = AgentConfig(iterations=5, plan_depth=2, depth=1, endgame=ENDGAME)
    # a plan with leaves: the walk needs the whole tree
    assert SearchAgent("agent-hunter", TINY, config).plan().tree.leaves.size
    agent = SearchAgent("agent-hunter", TINY, config)
    q = agent_leaf_queries(agent, 4, 0)
    assert len(built) == 1  # two before
    given = agent_leaf_queries(SearchAgent("agent-hunter", TINY, config), 4, 0,
                               whole_tree(agent.model))
    assert len(built) == 1  # the test's own call is the unpatched function's
    assert all(np.array_equal(q[k], given[k]) for k in q)
    plain, _, _ = agent_exploitability(SearchAgent("agent-hunter", TINY, config))
    assert float(given["exploitability"]) == pytest.approx(plain, abs=1e-12)


def test_round_0_walks_each_seat_with_its_own_agent_as_the_exact_walk_does(
        tiny, tmp_path, monkeypatch, capsys):
    """train_values_rounds.py --agent, round 0 (committed leaves, which depend on the seat):
    each seat's walk is its own agent's, first plan included (P2's plan solved with P1's
    values was 0.433 exploitable here, 0.503 on mini), so its queries come from both seats'
    plans and its exploitability is that of two agents made apart, each with its own seat's
    values, and agent_exact_walk.py --committed-leaves's for the same configuration."""
    from spycfr.search.agent import agent_exploitability
    from spycfr.search.resolve import solve
    from spycfr.search.values import CommittedValues

    knobs = ["--iterations", "20", "--depth", "1", "--plan-depth", "2", "--plan-endgame", "0",
             "--plan-play", "2"]
    monkeypatch.setattr("sys.argv", [
        "train_values_rounds.py", "agent-hunter", "--preset", "tiny", "--out",
        str(tmp_path), "--agent", "--rounds", "0", "--blueprint-iterations", "300", *knobs])
    bench_script("train_values_rounds").main()
    line = json.loads((tmp_path / "rounds.jsonl").read_text().splitlines()[0])
    assert line["solves_asking"] == 2 and line["states_asked"] == 1  # each seat's plan
    assert sum(line["best_responses"]) / 2 == pytest.approx(line["exploitability"], abs=1e-12)
    capsys.readouterr()
    assert bench_script("agent_exact_walk").main(
        ["agent-hunter", "tiny", *knobs, "--committed-leaves", "300"]) == 0
    result = capsys.readouterr().out.splitlines()[-1].split()
    walked = float(result[result.index("exploitability") + 1])
    assert bench_script("agent_exact_walk").main(
        ["agent-hunter", "tiny", *knobs, "--committed-leaves", "300", "--game-nodes", "10"]) == 2
    assert capsys.readouterr().err.strip().endswith("give a larger --game-nodes")

    full = build(tiny)
    vf = CommittedValues(full, solve(full, tiny.weights, 300).strategy)
    config = AgentConfig.default("agent-hunter", iterations=20, depth=1, plan_depth=2,
                                 plan_endgame=0, plan_play=2)
    agents = []
    for seat in (0, 1):
        agents.append(SearchAgent("agent-hunter", TINY, config))
        agents[seat].values = vf.for_agent(seat)
    apart, _, _ = agent_exploitability((agents[0], agents[1]))
    assert line["exploitability"] == pytest.approx(apart, abs=1e-12)
    assert walked == pytest.approx(apart, abs=1e-12)
    assert apart < 0.05  # P1's plan shared: 0.433


def test_each_seats_copy_is_made_once_while_the_values_are_the_same(tiny):
    """SearchAgent.for_seat: with leaf values that depend on the seat (committed), the seat's
    copy and its first plan are made once (every call made a new copy that solved its plan
    again), told the agent's progress of now; other values make new copies, and the copies
    of the values before are let go."""
    from spycfr.search.resolve import solve
    from spycfr.search.values import CommittedValues

    full = build(tiny)
    vf = CommittedValues(full, solve(full, tiny.weights, 30).strategy)
    config = AgentConfig.default("agent-hunter", iterations=5, depth=1, plan_depth=2,
                                 plan_endgame=0)
    agent = SearchAgent("agent-hunter", TINY, config)
    agent.values = vf
    p1, p2 = agent.for_seat(0), agent.for_seat(1)
    assert p1 is not agent and p1 is not p2 and (p1.values.seat, p2.values.seat) == (0, 1)
    plan = p1.plan()
    assert agent.for_seat(0) is p1 and agent.for_seat(0).plan() is plan
    assert agent.for_seat(1) is p2 and not agent._plans  # the agent's own plan: unsolved
    said: list[str] = []
    agent.progress = said.append
    assert agent.for_seat(0).progress == said.append
    agent.values = vf.for_agent(0)  # other values: another copy, its plan solved anew
    again = agent.for_seat(0)
    assert again is not p1 and again.plan() is not plan
    assert list(agent._seats) == [0]  # seat 1's copy of the old values (its plans) not kept
    assert np.allclose(again.plan().strategy, plan.strategy)


def test_round_0_says_how_far_the_blueprint_is_from_its_first_seconds(tmp_path, monkeypatch,
                                                                       capsys):
    """train_values_rounds.py printed nothing while it built the whole game's tree and
    solved round 0's blueprint (minutes on small): it says what it builds, then the
    blueprint's CFR+ iterations with the seconds, the RSS and the time left (the search
    agent's progress lines, resolve.solve_progress), from PROGRESS_AFTER seconds on."""
    from spycfr.search import resolve

    monkeypatch.setattr(resolve, "PROGRESS_AFTER", 0.0)
    monkeypatch.setattr(resolve, "PROGRESS_AGAIN", 0.0)
    monkeypatch.setattr(resolve, "CHUNK_SECONDS", 0.0)  # the numba loop: one iteration a call
    monkeypatch.setattr("sys.argv", [
        "train_values_rounds.py", "agent-hunter", "--preset", "tiny", "--out", str(tmp_path),
        "--rounds", "0", "--blueprint-iterations", "6", "--depth", "1", "--iterations", "5"])
    bench_script("train_values_rounds").main()
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "  building the whole game's public tree (up to 10,000,000 nodes)"
    built = next(n for n, x in enumerate(out) if x.startswith("  the whole game's tree: "))
    assert " public nodes, " in out[built]
    assert all(x.startswith("  building the whole game's public tree: ") and ", RSS " in x
               for x in out[1:built])  # its seconds, every PROGRESS_AGAIN (here 0.1 s)
    said = [x for x in out if x.startswith("  solving the committed blueprint (the whole "
                                           "game) (")]
    assert [x.split(": ")[1].split(" CFR+")[0] for x in said] == [f"{k}/6" for k in range(1, 6)]
    assert said[0].endswith("the time left follows from the next iterations")
    assert all(" s, RSS " in x and x.endswith(" s to go") for x in said[1:])
    assert json.loads(out[-1])["round"] == 0  # the round's line comes after


def test_a_value_function_without_focus_leaves_the_first_move_to_the_plan(tiny):
    """The exact terminals' wrapper has ``focus`` (the first move re-solved for the agent's
    own cards) only where its inner function has it: rollouts yes, a learned network no."""
    from spycfr.search.leafvalues import ExactTerminals, ScoredNow, value_function

    plugin = get_plugin("agent-hunter")
    assert hasattr(value_function("rollout", tiny, plugin), "focus")
    assert hasattr(value_function("rollout", tiny, plugin), "one_sided")
    plain = ExactTerminals(ScoredNow(tiny, plugin.scored_now), tiny,
                           ScoredNow(tiny, plugin.scored_now))
    assert not hasattr(plain, "focus") and not hasattr(plain, "one_sided")
    with pytest.raises(AttributeError):
        plain.anything  # noqa: B018


def test_a_level_a_turn_gives_way_past_its_budget_to_a_level_a_decision():
    """AgentConfig.turn_budget: a re-solve's subgame a level a turn (turn_levels) of more
    node-states than the budget is built each decision a level instead (the build stops at
    the budget), under the depth rule as without turn_levels; within it, a level a turn.
    The agent counts both kinds (turn_subgames)."""
    variant = make_variant("agent-avenue", "mini").as_dict()
    agent = SearchAgent("agent-avenue", variant, AgentConfig(depth=2))
    pub = agent.model.root()
    by_turn = subgame(agent.model, pub, 2, turn_levels=True).size
    by_decision = [subgame(agent.model, pub, d).size for d in (1, 2)]
    assert by_turn > by_decision[1] > by_decision[0]
    width = max(agent.model.n)
    for budget, rule, size, counts in ((by_turn * width, 0, by_turn, [1, 0]),
                                       ((by_turn - 1) * width, 0, by_decision[1], [0, 1]),
                                       (1, 0, by_decision[1], [0, 1]),
                                       (1, width, by_decision[0], [0, 1])):
        turns = SearchAgent("agent-avenue", variant, AgentConfig(
            depth=2, turn_levels=True, turn_budget=budget, subgame_budget=rule))
        assert turns.subgame(pub, 2, rule=True).size == size
        assert turns.turn_subgames == counts
        # the first plan's subgame: neither turn levels nor their budget
        assert turns.subgame(pub, 2).size == by_decision[1]
    assert AgentConfig().turn_budget == TURN_BUDGET
    with pytest.raises(SpycfrError, match=r"^turn_budget \(the turn levels' budget\) must be >= 1"):
        AgentConfig(turn_budget=0).check()


def test_the_depth_rule_cuts_a_subgame_past_its_budget_a_level_shallower():
    """AgentConfig.subgame_budget: a re-solve's subgame of more node-states than the budget
    (public nodes times a seat's most private states) is cut a decision level shallower,
    down to 1; within it, or with the rule off (0: run directories from before it), as
    deep as configured."""
    plugin = get_plugin("agent-avenue")
    variant = make_variant("agent-avenue", "mini").as_dict()
    agent = SearchAgent("agent-avenue", variant, AgentConfig(depth=3))
    pub = agent.model.root()
    sizes = [subgame(agent.model, pub, d).size for d in (1, 2, 3)]
    assert sizes[0] < sizes[1] < sizes[2]
    width = max(agent.model.n)
    for budget, size in ((0, sizes[2]), (sizes[2] * width, sizes[2]),
                         ((sizes[2] - 1) * width, sizes[1]), (sizes[1] * width, sizes[1]),
                         (width, sizes[0]), (1, sizes[0])):
        cut = SearchAgent("agent-avenue", variant, AgentConfig(depth=3, subgame_budget=budget))
        assert cut.depth_limited(pub, 3).size == size
        assert cut.subgame(pub, 3, rule=True).size == size
        assert cut.subgame(pub, 3).size == sizes[2]  # the first plan's: no rule
    assert AgentConfig.default("agent-avenue").subgame_budget == plugin.agent_subgame_budget
    assert AgentConfig.default("agent-hunter").subgame_budget == 0
    with pytest.raises(SpycfrError, match="^subgame_budget must be >= 0 node-states"):
        AgentConfig(subgame_budget=-1).check()
    from spycfr.analysis.sampled_report import _depth_rule_words

    assert "1,000,000 node-states" in _depth_rule_words({"subgame_budget": 1_000_000})
    assert _depth_rule_words({}) == "" and _depth_rule_words({"subgame_budget": 0}) == ""


def test_the_exact_walks_agent_plays_head_to_head_with_versus(tmp_path, capsys):
    """agent_exact_walk.py --versus: the walk's agent (rollout leaves, the options given)
    plays pairs of games against a heuristic, one line a pair in agent_headtohead.py's form
    (its re-solves' seconds too), the same games for the same seeds; without --out it is
    refused with one line."""
    knobs = ["agent-hunter", "tiny", "--bare", "--iterations", "5", "--value-function",
             "rollout", "--rollout-budget", "10", "--focus-samples", "4", "--focus-rows", "8",
             "--reader-range", "public", "--choice", "leaf", "--guesses", "--guess-weight",
             "0.5", "--row-weight", "0.5", "--versus", "heuristic:hunter", "--pairs", "3"]
    walk = bench_script("agent_exact_walk")
    for name in ("a", "b"):
        assert walk.main([*knobs, "--out", str(tmp_path / name), "--first", "7"]) == 0
    lines = [json.loads(x) for x in (tmp_path / "a").read_text().splitlines()]
    assert [x["seed"] for x in lines] == [7, 8, 9]
    assert all(x["opponent"] == "heuristic:hunter" and x["p1"] in (-1.0, 0.0, 1.0)
               for x in lines)
    # each re-solve timed, as agent_headtohead.py's lines are (its loop)
    assert any(x["solve_seconds"] for x in lines)
    assert all(s >= 0 for x in lines for s in x["solve_seconds"])
    # each pair records the code that played it (spycfr.provenance.code_version)
    assert all(x["code"] == code_version() for x in lines)
    timings = ("wall", "solve_seconds")
    strip = [{k: v for k, v in x.items() if k not in timings} for x in lines]
    assert strip == [{k: v for k, v in json.loads(x).items() if k not in timings}
                     for x in (tmp_path / "b").read_text().splitlines()]
    capsys.readouterr()
    assert walk.main(knobs) == 2
    assert "--versus needs --out" in capsys.readouterr().err
    assert walk.main([*knobs[:-4], "--row-weight", "2", "--out", str(tmp_path / "c")]) == 2
    assert "row_weight 2.0: a number from 0 to 1" in capsys.readouterr().err
