"""AgentConfig.plan_play: the search agent plays its first plan's strategy at the plan's
decisions in its first decision levels instead of re-solving them, and re-solves below as
before (Agent Hunter tiny: the plan is both placements, the first turn a leaf). The plan is
solved by fewer CFR+ iterations than a re-solve here, so a re-solve of P2's placement and the
plan's own row differ, and the tests can tell which one the agent played."""

from __future__ import annotations

import numpy as np
import pytest

from spycfr.engine import protocol as P
from spycfr.errors import SpycfrError
from spycfr.games import make_variant
from spycfr.search.agent import AgentConfig, SearchAgent, agent_strategies
from spycfr.search.agentgame import decision_level
from spycfr.search.tree import LEAF

TINY = make_variant("agent-hunter", "tiny").as_dict()


def _agent(plan_play: int) -> SearchAgent:
    return SearchAgent("agent-hunter", TINY, AgentConfig(iterations=20, plan_iterations=3,
                                                         plan_play=plan_play))


@pytest.fixture(scope="module")
def walks():
    """Each setting's agent and its exact walk (the whole tree, both seats' strategies, the
    re-solves counted)."""
    out = {}
    for levels in (0, 1, 2):
        agent = _agent(levels)
        out[levels] = (agent, *agent_strategies(agent))
    return out


def test_decision_levels_count_the_decisions_above(walks):
    agent = walks[0][0]
    t = agent.plan().tree
    assert list(t.kind) == [0, 1, LEAF]
    assert [decision_level(t, n) for n in range(t.size)] == [0, 1, 2]


def test_the_plans_rows_are_played_where_the_option_covers_them(walks):
    """With plan_play 2 both placements are the plan's rows, exactly, in both seats' walks;
    with 0 P2's placement is re-solved (another row: the test can tell them apart), and
    with 1 too (it is the plan's level 1)."""
    for levels, (agent, full, strategies, _) in walks.items():
        plan = agent.plan()
        t = plan.tree
        for n in (0, 1):
            f = full.find(t.pub[n])
            seat = int(t.kind[n])
            w = t.row_kid.shape[2]
            played = strategies[seat][full.row[f]]
            same = np.array_equal(played[:, :w], plan.strategy[t.row[n]])
            assert same == (n < levels or n == 0), (levels, n)
            assert not played[:, w:].any()


def test_below_the_plans_levels_the_agent_re_solves_as_before(walks):
    """P2's placement is one public node on tiny: one re-solve fewer in the walk with
    plan_play 2; P1's play is the same (its placement is the plan's in every setting);
    below, P2's agent still re-solves (its first turn is not the plan's, which ends in a
    leaf there) and plays other rows than with its placement re-solved (the gadget's values
    now come from the plan at P2's first turn instead of from that re-solve)."""
    (_, full, s0, n0), (_, _, s1, n1), (_, _, s2, n2) = walks[0], walks[1], walks[2]
    assert n2 == n0 - 1 and n1 == n0
    assert np.array_equal(s2[0], s0[0]) and np.array_equal(s1[1], s0[1])
    turns = [f for f in range(full.size) if full.kind[f] == 1 and decision_level(full, f) >= 2]
    assert turns and any(not np.array_equal(s2[1][full.row[f]], s0[1][full.row[f]])
                         for f in turns)


def test_a_real_game_plays_the_plan_then_re_solves():
    """Along a real game as P2: no re-solve at its placement (the plan's solution, its row
    for the actual private state), then the re-solves at P1's first turn (the plan's leaf)
    and at its own."""
    agent = _agent(2)
    impl = P.implementations(agent.params)
    rng = np.random.default_rng(3)
    state = impl["initial_state"](agent.params)
    g = agent.game(1)
    seen = []
    while impl["current_player"](state, agent.params) >= 0:
        acts = agent.legal(state)
        if impl["current_player"](state, agent.params) == 1:
            probs = g.policy(state)
            seen.append((g.sol is g.plan, g.solves))
            if len(seen) == 1:
                t, i = g.sol.tree, agent.private(state, 1)
                row = g.sol.strategy[t.row[g.s], i, :t.row_count[t.row[g.s], i]]
                assert np.allclose(np.sort(probs[probs > 0]), np.sort(row[row > 0]))
            a = acts[rng.choice(len(acts), p=probs)]
        else:
            a = acts[rng.integers(len(acts))]
        state = agent.after(state, int(a))
        g.observe(state)
    assert seen[0] == (True, 0) and len(seen) >= 2 and seen[1] == (False, 2)


def test_a_negative_plan_play_is_a_one_line_error():
    with pytest.raises(SpycfrError, match="^plan_play must be >= 0"):
        AgentConfig(plan_play=-1).check()


def test_the_reports_effort_row_names_it():
    from spycfr.analysis.sampled_report import _plan_play_words

    assert "first 2 decision levels" in _plan_play_words({"plan_play": 2})
    assert _plan_play_words({}) == "" and _plan_play_words({"plan_play": 0}) == ""


def test_a_run_playing_the_plan_does_not_replay_its_first_move():
    """runs.agent_run.replays_first_move (the openings' and the report's caveat that the
    plan's first moves are not what a rollout agent plays): not with plan_play."""
    from types import SimpleNamespace

    from spycfr.runs.agent_run import replays_first_move

    agent = {"value_function": "rollout", "opening_file": None}
    assert replays_first_move(SimpleNamespace(record={"agent": agent}))
    assert not replays_first_move(SimpleNamespace(record={"agent": {**agent, "plan_play": 1}}))


def test_answers_from_the_plans_rows_say_so_not_re_solved_now():
    """Where the agent plays its first plan's row (P2's placement here), a query's words name
    the plan, solved once from the start of the game with its own depth and leaves; after a
    re-solve they say re-solved now (a user saw 're-solved now' over an Agent Avenue
    standard first move that was the plan's own row)."""
    from types import SimpleNamespace

    from spycfr.analysis.agentplay import agent_source

    agent = _agent(2)
    impl = P.implementations(agent.params)
    rng = np.random.default_rng(3)
    state = impl["initial_state"](agent.params)
    g = agent.game(1)
    meta = SimpleNamespace(game="agent-hunter", exploitability=None, record={"agent": {
        "iterations": 20, "plan_iterations": 3, "depth": 4, "plan_depth": 2,
        "value_function": "rollout", "value_function_words": "heuristic play-outs"}})
    words = []
    while impl["current_player"](state, agent.params) >= 0:
        acts = agent.legal(state)
        if impl["current_player"](state, agent.params) == 1:
            info = g.move_info(state, 1)
            assert info.plan_row == (g.sol is g.plan)
            words.append(agent_source(meta, info.to_end, info.from_plan, info.from_table,
                                      info.plan_row))
            probs = g.policy(state)
            a = acts[rng.choice(len(acts), p=probs)]
        else:
            a = acts[rng.integers(len(acts))]
        state = agent.after(state, int(a))
        g.observe(state)
    assert words[0].startswith("the search agent's first plan, solved once from the start of "
                               "the game (3 CFR+ iterations, 2 decision level(s) deep, the "
                               "positions where it stops valued by games played out to the "
                               "end by the game's heuristic players")
    assert "re-solved" not in words[0] and "over the whole game" not in words[0]
    assert len(words) >= 2 and words[1].startswith("re-solved now by the search agent (20 CFR+")


def test_the_first_move_waits_for_the_cards():
    """Agent Avenue's initial state is the deal's chance node, at the same public state as
    the first decision: observing it (as `spycfr query`'s walk does, from the game's start)
    must not spend the first move's re-solve there, on private state -1, but after the deal,
    on the cards dealt (standard's first move has leaves: there it re-solved for the wrong
    hand, and the query answered the plan's row)."""
    agent = SearchAgent("agent-avenue", make_variant("agent-avenue", "tiny").as_dict(),
                        AgentConfig.default("agent-avenue", iterations=5, plan_iterations=5))
    impl = P.implementations(agent.params)
    state = agent.initial()
    g = agent.game(0)
    g.observe(state)
    assert agent.private(state, 0) == -1 and g.fresh  # the first move is still to come
    acts, probs = np.zeros(4096, np.int64), np.zeros(4096)
    while impl["current_player"](state, agent.params) == P.CHANCE:
        k = impl["chance_outcomes"](state, agent.params, acts, probs)
        state = agent.after(state, int(acts[k // 2]))
    g.observe(state)
    assert agent.private(state, 0) >= 0 and not g.fresh
