"""The search agent (spycfr.search.agent): subgames cut by decision levels, scored-now leaf
values, and continual re-solving along real Agent Hunter games (tiny: small enough that the
agent's subgames can reach the end, where it must play what the exact re-solving
measurement of spycfr.search.evaluate assembles)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from spycfr.engine import protocol as P
from spycfr.errors import SpycfrError
from spycfr.games import get_plugin, make_variant
from spycfr.games.agent_hunter import public as ah_public
from spycfr.public import protocol as pp
from spycfr.search import resolve
from spycfr.search.agent import AgentConfig, SearchAgent
from spycfr.search.evaluate import Settings, assemble
from spycfr.search.leafvalues import value_function
from spycfr.search.subgame import subgame
from spycfr.search.tree import LEAF, GameModel, build

TINY = make_variant("agent-hunter", "tiny").as_dict()


@pytest.fixture(scope="module")
def tiny():
    plugin = get_plugin("agent-hunter")
    return plugin, GameModel.of(plugin.numba_params(make_variant("agent-hunter", "tiny")))


def test_subgame_cuts_at_the_next_decision_level(tiny):
    _, game = tiny
    plan = subgame(game, game.root(), 2)  # both placements, the first turn a leaf
    assert list(plan.kind) == [0, 1, LEAF]
    turn = subgame(game, plan.pub[2], 1)
    assert turn.kind[0] == 0 and (turn.kind[1:] != 0).all() and (turn.kind[1:] != 1).all()
    # every decision below the root and every terminal is a leaf
    current = pp.python_impl(game.params, "current_player")
    for n in turn.leaves:
        assert current(turn.pub[n], game.params) in (0, 1, pp.TERMINAL)
    # rows as wide as this subgame's widest decision, not the game's (the placements)
    assert turn.row_kid.shape[2] == turn.row_count.max() < game.max_private_actions


def test_scored_now_is_the_terminal_payoff(tiny):
    plugin, game = tiny
    vf = value_function("scored-now", game, plugin)
    full = build(game)
    ends = np.flatnonzero(full.kind == pp.TERMINAL)[:40]
    rng = np.random.default_rng(1)
    r0, r1 = rng.random((len(ends), game.n[0])), rng.random((len(ends), game.n[1]))
    v0, v1 = vf.values(full.pub[ends], r0, r1)
    for leaf, node in enumerate(ends):
        m = full.payoff[full.term[node]]
        assert np.allclose(v0[leaf], m @ r1[leaf] / game.z)
        assert np.allclose(v1[leaf], -(r0[leaf] @ m) / game.z)


def test_scored_now_tabulates_the_house_sums_once_per_variant(tiny):
    """The ``scored_now`` hook reads each seat's house sums from a table made once per
    variant (``leaf.house_sums``), where it tabulated them at every call (half of a
    call's time on ``standard``): the values are those of the kernel given tables made
    afresh, to the last bit, on ``tiny``'s subgame leaves and on ``standard``'s (another
    table), and a second call makes no table."""
    from spycfr.games.agent_hunter import leaf

    plugin, _ = tiny
    for name in ("tiny", "standard"):
        game = GameModel.of(plugin.numba_params(make_variant("agent-hunter", name)))
        plan = subgame(game, game.root(), 2)
        turn = subgame(game, plan.pub[plan.leaves[0]], 1)  # standard: 750 leaves
        pubs = turn.pub[turn.leaves]
        rng = np.random.default_rng(3)
        r0, r1 = rng.random((len(pubs), game.n[0])), rng.random((len(pubs), game.n[1]))
        want = np.empty(r0.shape), np.empty(r1.shape)
        leaf._scored_now(pubs, game.params, r0, r1, *want, leaf._sums(game.params, game.n[0], 0),
                         leaf._sums(game.params, game.n[1], 1))
        for _ in range(2):
            got = np.empty(r0.shape), np.empty(r1.shape)
            made = leaf.house_sums.cache_info().misses
            plugin.scored_now(pubs, game.params, r0, r1, *got)
            assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])
        assert leaf.house_sums.cache_info().misses == made  # the second call made none
        assert not leaf.house_sums(game.params, game.n[0], 0).flags.writeable


def test_bad_agent_settings_are_one_line_errors(tiny):
    with pytest.raises(SpycfrError, match="^iterations must be >= 1"):
        SearchAgent("agent-hunter", TINY, AgentConfig(iterations=0))
    with pytest.raises(SpycfrError, match="not one of scored-now, learned"):
        SearchAgent("agent-hunter", TINY, AgentConfig(value_function="nets"))
    with pytest.raises(SpycfrError, match="weights file"):
        SearchAgent("agent-hunter", TINY, AgentConfig(value_function="learned"))


def _play(agent, seat, seed, check):
    """One game of the agent as ``seat`` against uniform play; ``check(game, state)`` at
    each of the agent's decisions. Returns P1's payoff."""
    impl = P.implementations(agent.params)
    rng = np.random.default_rng(seed)
    state = impl["initial_state"](agent.params)
    g = agent.game(seat)
    while impl["current_player"](state, agent.params) >= 0:
        acts = agent.legal(state)
        if impl["current_player"](state, agent.params) == seat:
            probs = g.policy(state)
            assert probs.shape == (len(acts),) and probs.sum() == pytest.approx(1.0)
            check(g, state)
            a = acts[rng.choice(len(acts), p=probs)]
        else:
            a = acts[rng.integers(len(acts))]
        state = agent.after(state, int(a))
        g.observe(state)
    return impl["returns_p1"](state, agent.params)


@pytest.mark.slow
def test_agent_to_the_end_plays_the_assembled_resolving_strategy(tiny):
    """With subgames to the end (no value function at work) the agent's plan and first
    re-solve in real games give the move probabilities of evaluate.assemble's re-solving
    agent. (Later re-solves agree only roughly: the agent's subgames end in leaves valued
    by terminal_values, assemble's in payoff matrices, and CFR+ at 60 iterations turns the
    1e-16 rounding differences into differences of 1e-3 and more in its average strategy
    a few re-solves on.)"""
    _, game = tiny
    config = AgentConfig(iterations=60, depth=20, plan_depth=20)
    agent = SearchAgent("agent-hunter", TINY, config)
    full = build(game)
    strategies = [assemble(full, s, Settings(iterations=60)).strategy for s in (0, 1)]
    checked = 0

    def check(g, state):
        nonlocal checked
        if g.solves > 1:
            return
        node = full.find(agent.public(state))
        i = agent.private(state, g.seat)
        n = full.row_count[full.row[node], i]
        mine = g.sol.strategy[g.sol.tree.row[g.s], i, :n]
        assert np.allclose(mine, strategies[g.seat][full.row[node], i, :n], atol=1e-9)
        checked += 1

    for seed in range(6):
        _play(agent, seed % 2, seed, check)
    assert checked >= 6


def test_depth_limited_agent_is_deterministic_and_tracks_its_range(tiny):
    agent = SearchAgent("agent-hunter", TINY, AgentConfig(iterations=20))
    seen: list[list[float]] = [[], []]
    for run in range(2):
        def check(g, state, run=run):
            info = g.move_info(state, g.seat)
            seen[run].extend(info.probs.tolist())
            # the agent holds its actual private state with positive range
            assert g.mine[agent.private(state, g.seat)] > 0
            post = g.posterior(state)
            assert post.sum() == pytest.approx(1.0) and (post >= 0).all()
            assert np.isfinite(info.values[info.probs > 0]).all()
        _play(agent, 1, 7, check)
    assert seen[0] == seen[1] and len(seen[0]) > 0
    assert ah_public.PUB_SIZE == agent.model.root().shape[0]


def test_a_record_of_moves_the_agent_never_makes_is_still_walked():
    """A query or review walks the agent through someone else's record: where the agent's own
    strategy makes the record's move with no card it could hold, its range would be empty,
    no re-solve would follow and the walk would stop (on results/standard, a query or a
    review after such a move raised StopIteration or 'not a decision of seat'). The walk
    takes the move as a mistake, its range everything its seat can hold; the exploitability
    walk, which sees no cards, still prunes the branch there."""
    import copy

    from spycfr.games import feature
    from spycfr.search.agentgame import _below

    agent = SearchAgent("agent-hunter", TINY, AgentConfig(iterations=5, endgame=0,
                                                          plan_endgame=0))
    variant = make_variant("agent-hunter", "tiny")
    codes = feature("agent-hunter", "records", "").actions(
        variant, "place:2-0 place:0-2 switch:1=2>1@2 switch:2=2>2@2")
    game, state = agent.game(0), agent.initial()
    for code in codes[:2]:
        state = agent.after(state, int(code))
        game.observe(state)
    # P1's turn: the agent's re-solve made to play the record's move with no card
    t, s = game.sol.tree, game.s
    assert t.kind[s] == 0
    target = agent.public(agent.after(state, int(codes[2])))
    child = next(c for c in range(t.count[s]) if _below(t, t.first[s] + c, target, 3))
    q = t.row[s]
    game.sol.strategy[q][t.row_kid[q] == child] = 0.0
    blind = copy.copy(game)
    blind.own = None  # as agent_strategies walks: no cards seen
    blind._step(int(t.first[s]) + child)
    assert not blind.mine.any()  # pruned there
    state = agent.after(state, int(codes[2]))
    game.observe(state)
    own = agent.private(state, 0)
    assert game.mine.sum() == pytest.approx(1.0) and game.mine[own] > 0
    # P2's reply is valued (a re-solve at the last subgame's leaf)
    info = game.move_info(state, 1)
    assert info.seat == 1 and np.isfinite(info.values).all()
    assert info.probs.sum() == pytest.approx(1.0)


@pytest.mark.slow
def test_the_agents_exact_exploitability_on_tiny():
    """Measured exactly on tiny (2 turns): subgames that reach the end from the first turn
    are nearly unexploitable; one move deep with leaves scored as if the game ended there is
    far from it (the leaf values, not the re-solving, are what is missing)."""
    from spycfr.search.agent import agent_exploitability

    deep, _, _ = agent_exploitability(SearchAgent("agent-hunter", TINY,
                                                  AgentConfig(iterations=100, depth=2)))
    shallow, br, solves = agent_exploitability(SearchAgent("agent-hunter", TINY,
                                                           AgentConfig(iterations=100)))
    assert deep < 0.002 and shallow > 0.1 and solves > 100
    assert br[0] >= -1e-9 and br[1] >= -1e-9


def test_long_solves_say_how_far_they_are(tiny, monkeypatch):
    """A solve past PROGRESS_AFTER seconds says its iterations, time spent and time left
    (here from the start: every iteration but the last), the plan's and a re-solve's; the
    RSS as the memory limit's refusals write sizes (memory.size_text)."""
    monkeypatch.setattr(resolve, "PROGRESS_AFTER", 0.0)
    monkeypatch.setattr(resolve, "PROGRESS_AGAIN", 0.0)
    lines: list[str] = []
    agent = SearchAgent("agent-hunter", TINY, AgentConfig(iterations=5), lines.append)
    _play(agent, 0, 3, lambda g, state: None)
    plan = [x for x in lines if x.startswith("solving the opening subgame (") and "CFR+" in x]
    assert [x.split(": ")[1].split(" CFR+")[0] for x in plan] == ["1/5", "2/5", "3/5", "4/5"]
    assert plan[0].endswith("the first iteration also values the leaves")
    assert all(re.search(r" s, RSS [0-9.]+ (GiB|MiB), about ", x) and x.endswith(" s to go")
               for x in plan[1:])
    assert any(x.startswith("solving the subgame from here") for x in lines)


def test_a_slow_first_iteration_says_it_values_the_leaves_meanwhile(tiny, monkeypatch):
    """The solve's callback comes after the first iteration, which values the leaves (Agent
    Avenue standard's rollouts: minutes without a line); a thread says so meanwhile, and
    stops once the iterations are told."""
    import time

    from spycfr.search import agent as agent_module

    real = agent_module.solve

    def slow(*args, **kwargs):
        time.sleep(0.45)  # the leaves' values, slow
        tell = kwargs["progress"]

        def slowly(done: int, total: int) -> None:  # slow iterations: told, and nothing else
            tell(done, total)
            time.sleep(0.2)

        return real(*args, **{**kwargs, "progress": slowly})

    monkeypatch.setattr(resolve, "PROGRESS_AFTER", 0.0)
    monkeypatch.setattr(resolve, "PROGRESS_AGAIN", 0.0)
    monkeypatch.setattr(agent_module, "solve", slow)
    lines: list[str] = []
    agent = SearchAgent("agent-hunter", TINY, AgentConfig(iterations=5), lines.append)
    assert agent.plan().tree.leaves.size
    plan = [x for x in lines if x.startswith("solving the opening subgame (")]
    valuing = [n for n, x in enumerate(plan) if ": valuing its " in x]
    assert valuing, lines
    assert all(" leaves (its first iteration), " in plan[n] and " s, RSS " in plan[n]
               for n in valuing)
    told = [n for n, x in enumerate(plan) if "CFR+ iterations" in x]
    assert told and max(valuing) < min(told)  # none once the iterations are told


def test_the_first_plan_says_how_far_it_is_from_its_first_seconds(monkeypatch):
    """The first plan says what it builds, its tree, then its CFR+ iterations with the time
    left and the RSS, also where the whole loop runs in numba (the plan to the end of the
    game: chunks); a long build says its seconds and RSS meanwhile (a thread)."""
    import time

    monkeypatch.setattr(resolve, "PROGRESS_AFTER", 0.0)
    monkeypatch.setattr(resolve, "PROGRESS_AGAIN", 0.0)
    monkeypatch.setattr(resolve, "CHUNK_SECONDS", 0.0)
    lines: list[str] = []
    agent = SearchAgent("agent-hunter", TINY, AgentConfig(iterations=5,
                                                          plan_endgame=60_000_000), lines.append)
    assert not agent.plan().tree.leaves.size  # the whole game: the numba loop
    assert lines[0].startswith("the first plan (solved once per agent): building its public")
    assert any(x.startswith("the first plan's tree: ") and "to the end of the game" in x
               for x in lines)
    plan = [x for x in lines if x.startswith("solving the opening subgame (")]
    assert [x.split(": ")[1].split(" CFR+")[0] for x in plan] == ["1/5", "2/5", "3/5", "4/5"]
    assert all(" s, RSS " in x and x.endswith(" s to go") for x in plan[1:])
    lines.clear()
    with agent.beating("building"):
        time.sleep(0.35)
    assert lines and all(x.startswith("building: ") and " s, RSS " in x for x in lines)
