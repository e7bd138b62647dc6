"""Rollout leaf values (spycfr.search.continuation and Agent Hunter's ``rollouts`` hook):
games played to the end match a direct simulation, values follow their definition, the same
seed gives the same values, and the function is found by name."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from spycfr.errors import SpycfrError
from spycfr.games import get_plugin, make_variant
from spycfr.games.agent_hunter import rules as R
from spycfr.games.agent_hunter.heuristic import styled_heuristic
from spycfr.games.agent_hunter.leaf import RANGER, ROLLOUT_STYLES
from spycfr.games.agent_hunter.public import combine
from spycfr.public import protocol as pp
from spycfr.search import continuation_games as games
from spycfr.search import passes
from spycfr.search.agent import AgentConfig, SearchAgent
from spycfr.search.configure import configure_agent
from spycfr.search.continuation import Continuations
from spycfr.search.continuation_focus import balance_sample
from spycfr.search.continuation_rows import draws_per_row
from spycfr.search.leafchoice import StateDecisions, leaf_choice_step, robust
from spycfr.search.leafvalues import ExactTerminals, value_function
from spycfr.search.reading import solve_reading
from spycfr.search.subgame import subgame
from spycfr.search.tree import GameModel, build


@pytest.fixture(scope="module")
def tiny():
    plugin = get_plugin("agent-hunter")
    return plugin, GameModel.of(plugin.numba_params(make_variant("agent-hunter", "tiny")))


def _last_turn_states(game):
    """Public states of the whole tiny tree where P2 makes the game's last move."""
    full = build(game)
    return [full.pub[n] for n in range(full.kind.size)
            if full.kind[n] == 1 and full.pub[n][R.PHASE] == R.PH_TURN
            and full.pub[n][R.TURN] == game.params[R.P_MAX_TURNS] - 1]


def _simulate(pub, params, i0, i1, style):
    """The game from ``pub`` with private states i0, i1 and both seats playing ``style``,
    in Python; None where the heuristic is not deterministic on the way."""
    state = np.empty(R.STATE_SIZE, np.int16)
    combine(pub, params, i0, i1, state)
    acts = np.empty(R.protocol_max_actions(params), np.int32)
    while state[R.PHASE] != R.PH_OVER:
        k = R.legal_actions(state, params, acts)
        probs = np.zeros(k)
        styled_heuristic(state, params, np.int64(style), acts, k, probs)
        if probs.max() < 1.0:
            return None
        nxt = np.empty_like(state)
        R.apply_action(state, params, acts[int(probs.argmax())], nxt)
        state = nxt
    return R.returns_p1(state, params)


def test_a_rollout_one_move_from_the_end_is_the_direct_game(tiny):
    plugin, game = tiny
    checked = 0
    for pub in _last_turn_states(game)[:30]:
        for i0 in range(game.n[0] - 1):
            for i1 in range(game.n[1] - 1):
                want = _simulate(pub, game.params, i0, i1, 0)
                if want is None:
                    continue
                out = np.empty(1)
                plugin.rollouts(pub[None].astype(np.int32), game.params, np.zeros(1, np.int64),
                                np.array([i0]), np.array([i1]), np.zeros(1, np.int64),
                                np.zeros(1, np.int64), np.array([7]), out)
                assert out[0] == want
                checked += 1
    assert checked > 50


def test_rollouts_are_deterministic_given_the_seed(tiny):
    plugin, game = tiny
    pubs = np.array(_last_turn_states(game)[:5]).astype(np.int32)
    n = 400
    rng = np.random.default_rng(3)
    args = (pubs, game.params, rng.integers(0, 5, n), rng.integers(0, 6, n),
            rng.integers(0, 6, n), rng.integers(0, 3, n), rng.integers(0, 3, n),
            rng.integers(0, 2**31 - 1, n))
    a, b = np.empty(n), np.empty(n)
    plugin.rollouts(*args, a)
    plugin.rollouts(*args, b)
    assert np.array_equal(a, b) and set(np.unique(a)) <= {-1.0, 0.0, 1.0}


def _leaf_ranges(game, t, seed: int):
    """Subgame ``t``'s leaves' public states and random (seeded) ranges of each seat there."""
    rng = np.random.default_rng(seed)
    pubs = t.pub[t.leaves]
    return (pubs, rng.random((len(pubs), game.n[0])), rng.random((len(pubs), game.n[1])))


def _turn_subgame(game):
    """The one-move subgame at P1's first turn (leaves: P2's turn and terminals)."""
    plan = subgame(game, game.root(), 2)
    return subgame(game, plan.pub[plan.leaves[0]], 1)


def test_every_pair_played_gives_the_robust_continuation_values(tiny):
    """On tiny every pair of private states fits the budget: v0[l, i] =
    max_a min_b sum_j r1[l, j] U_ab(i, j) / Z with U the mean of the seeded games."""
    plugin, game = tiny
    t = _turn_subgame(game)
    leaves = np.array([n for n in t.leaves
                       if pp.python_impl(game.params, "current_player")(t.pub[n], game.params)
                       != pp.TERMINAL])
    pubs = t.pub[leaves]
    rng = np.random.default_rng(0)
    r0, r1 = rng.random((len(leaves), game.n[0])), rng.random((len(leaves), game.n[1]))
    r0[:, -1] = r1[:, -1] = 0.0  # NOTHING is no private state after the placements
    vf = Continuations(game, plugin.rollouts, (0, 1), value_function("scored-now", game, plugin),
                       pair_samples=3)
    v0, v1 = vf.values(pubs, r0, r1)
    seeds = np.random.default_rng(vf.seed).integers(0, 2**31 - 1, 3)
    for leaf in (0, len(leaves) - 1):
        u = np.zeros((game.n[0], game.n[1], 2, 2))
        for i in range(game.n[0] - 1):
            for j in range(game.n[1] - 1):
                for a in range(2):
                    for b in range(2):
                        out = np.empty(3)
                        plugin.rollouts(pubs.astype(np.int32), game.params,
                                        np.full(3, leaf), np.full(3, i), np.full(3, j),
                                        np.full(3, a), np.full(3, b), seeds, out)
                        u[i, j, a, b] = out.mean()
        for i in range(game.n[0] - 1):
            q = np.einsum("jab,j->ab", u[i], r1[leaf])
            assert v0[leaf, i] == pytest.approx(q.min(axis=1).max() / game.z)
        for j in range(game.n[1] - 1):
            q = -np.einsum("iab,i->ba", u[:, j], r0[leaf])
            assert v1[leaf, j] == pytest.approx(q.min(axis=1).max() / game.z)
    # the same seed, the same values; the games were played once for both calls
    played = vf.games_played
    again = vf.values(pubs, r0 * 2, r1)
    assert vf.games_played == played and np.allclose(again[1], 2 * v1)
    fresh = Continuations(game, plugin.rollouts, (0, 1), vf.fallback, pair_samples=3)
    assert all(np.array_equal(x, y) for x, y in zip(fresh.values(pubs, r0, r1), (v0, v1),
                                                     strict=True))


def test_a_seat_with_no_live_state_at_any_leaf_gives_values_of_zero(tiny):
    """Every value is a counterfactual one (times the opposing range): with one seat's range
    0 at every leaf both seats' values are 0, and no game is played."""
    plugin, game = tiny
    t = _turn_subgame(game)
    pubs = t.pub[t.leaves]
    r0 = np.random.default_rng(1).random((len(t.leaves), game.n[0]))
    r1 = np.zeros((len(t.leaves), game.n[1]))
    vf = Continuations(game, plugin.rollouts, (0, 1), value_function("scored-now", game, plugin),
                       pair_samples=3)
    for ranges in ((r0, r1), (r1, r0)):
        vf.reset()
        v0, v1 = vf.values(pubs, *ranges)
        assert not v0.any() and not v1.any() and v0.shape == ranges[0].shape
    assert vf.games_played == 0


def test_over_the_budget_only_the_focus_row_is_rolled_out(tiny):
    plugin, game = tiny
    t = _turn_subgame(game)
    pubs, r0, r1 = _leaf_ranges(game, t, seed=1)
    fallback = value_function("scored-now", game, plugin)
    vf = Continuations(game, plugin.rollouts, (0, 1), fallback, focus_samples=32, budget=10)
    base = fallback.values(pubs, r0, r1)
    v0, v1 = vf.values(pubs, r0, r1)
    assert vf.games_played == 0 and np.array_equal(v0, base[0])  # no focus: the fallback
    vf.focus(1, 2)
    vf.reset()
    v0, v1 = vf.values(pubs, r0, r1)
    assert vf.games_played == len(pubs) * 4 * 32
    assert np.array_equal(v0, base[0])
    others = np.arange(game.n[1]) != 2
    assert np.array_equal(v1[:, others], base[1][:, others])
    assert not np.allclose(v1[:, 2], base[1][:, 2])
    assert (np.abs(v1[:, 2]) <= r0.sum(axis=1) / game.z + 1e-12).all()


def test_rollout_is_registered_by_name(tiny):
    plugin, game = tiny
    vf = value_function("rollout", game, plugin)
    assert isinstance(vf, ExactTerminals) and isinstance(vf.inner, Continuations)
    names = list(dict.fromkeys((*plugin.continuations, *plugin.opposing_continuations)))
    assert list(vf.inner.styles) == [plugin.heuristic_styles.index(c) for c in names]
    assert [names[k] for k in vf.inner._own] == list(plugin.continuations)
    assert [names[k] for k in vf.inner._opp] == list(plugin.opposing_continuations)
    agent = SearchAgent("agent-hunter", make_variant("agent-hunter", "tiny").as_dict(),
                        AgentConfig(value_function="rollout"))
    assert agent.values.inner.name == "rollout"
    with pytest.raises(SpycfrError, match="no rollouts hook"):
        value_function("rollout", game, dataclasses.replace(plugin, rollouts=None))


def test_one_sided_only_with_a_focus_over_the_budget(tiny):
    plugin, game = tiny
    t = _turn_subgame(game)
    ranges = (np.ones(game.n[0]), np.ones(game.n[1]))
    vf = Continuations(game, plugin.rollouts, (0, 1), value_function("scored-now", game, plugin),
                       budget=10)
    assert not vf.one_sided(t, ranges)  # no focus: every row takes the fallback alike
    vf.focus(0, 3, t)
    assert vf.one_sided(t, ranges)
    vf.budget = 10**9
    assert not vf.one_sided(t, ranges)  # every pair played: both seats valued alike


def test_a_one_sided_agent_plays_a_game_valuing_its_own_cards(monkeypatch):
    """Over the budget (forced here on tiny) the agent re-solves its first move and each of
    its decisions without the gadget, the leaves valued by games for its own cards, and
    walks on at the opponent's decisions without playing any. Its progress names the first
    move's solve as the agent's (`spycfr play` showed the player "solving our first
    move")."""
    from spycfr.search import resolve

    monkeypatch.setattr(resolve, "PROGRESS_AFTER", 0.0)
    said: list[str] = []
    agent = SearchAgent("agent-hunter", make_variant("agent-hunter", "tiny").as_dict(),
                        AgentConfig(iterations=20, value_function="rollout"), said.append)
    inner = agent.values.inner
    inner.budget, inner.focus_samples = 10, 8
    rng = np.random.default_rng(5)
    state = agent.initial()
    g = agent.game(0)
    mine, last = 0, 0
    while state[R.PHASE] != R.PH_OVER:
        acts = agent.legal(state)
        if state[R.TO_MOVE] == 0:
            probs = g.policy(state)  # re-solved on arriving here (or now, the first move)
            assert probs.sum() == pytest.approx(1.0) and g.sol.enter is None
            assert inner.games_played > last and inner.focused.actual[0] == 0
            last = inner.games_played
            mine += 1
            a = acts[rng.choice(len(acts), p=probs)]
        else:
            a = acts[rng.integers(len(acts))]
        before = inner.games_played
        state = agent.after(state, int(a))
        g.observe(state)
        if state[R.PHASE] != R.PH_OVER and state[R.TO_MOVE] == 1:
            assert inner.games_played == before  # the opponent's decision: no games
    assert mine >= 2
    assert any(x.startswith("solving the agent's first move (") for x in said), said
    assert not any(" our " in f" {x} " for x in said), said


def test_the_balance_sample_is_seeded_holds_the_actual_cards_and_not_more(tiny):
    _, game = tiny
    t = _turn_subgame(game)
    w = np.zeros(game.n[0])
    w[[0, 1, 2, 4, 5]] = [0.1, 0.4, 0.2, 0.2, 0.1]
    a, b = balance_sample(0, 4, 3, t.pub[0], w), balance_sample(0, 4, 5, t.pub[0], w)
    assert 3 in a and 5 in b and a.size <= 4 and b.size <= 4
    assert set(a) | {5} == set(b) | {3}  # the same draw, whatever the actual cards
    assert set(a) - {3} <= {0, 1, 2, 4, 5}  # drawn from the range only
    assert np.array_equal(a, balance_sample(0, 4, 3, t.pub[0], w))  # seeded
    assert not np.array_equal(a, balance_sample(9, 4, 3, t.pub[0], w)) or a.size == 1
    assert list(balance_sample(0, 1, 3, t.pub[0], w)) == [3]


def test_balance_rows_leave_the_actual_cards_values_alone(tiny):
    """Rows drawn from the range get games of their own budget: the actual cards' values
    (so what the agent plays) are those of the focus alone, and the drawn rows are valued
    by games (not the fallback)."""
    plugin, game = tiny
    t = _turn_subgame(game)
    pubs, r0, r1 = _leaf_ranges(game, t, seed=1)
    fallback = value_function("scored-now", game, plugin)
    base = fallback.values(pubs, r0, r1)
    out = []
    for rows in (1, game.n[0] + 1):  # + 1: every row drawn
        vf = Continuations(game, plugin.rollouts, (0, 1), fallback, focus_samples=16,
                           budget=10, focus_rows=rows)
        vf.focus(0, 3, t, np.ones(game.n[0]))
        out.append((vf.values(pubs, r0, r1)[0], vf))
    (alone, one), (balanced, many) = out
    own, drawn = np.zeros(alone.shape, bool), np.zeros(alone.shape, bool)
    for leaf, pub in enumerate(pubs):
        own[leaf, one.focused.rows[pub.tobytes()]] = True
        drawn[leaf, many.focused.balance[pub.tobytes()]] = True
    assert own[:, 3].any() and np.array_equal(alone[own], balanced[own])
    assert many.games_played > one.games_played and many.sample.size == game.n[0]
    assert drawn.any() and not (drawn & own).any()
    drawn &= r0 > 0
    assert not np.allclose(balanced[drawn], base[0][drawn])
    assert np.array_equal(alone[~own], base[0][~own])


def test_balanced_rows_are_the_every_pair_values_where_the_games_are_certain(tiny):
    """At the end of tiny (P2's last move, the leaves where the game ends) with P1's range one
    private state per leaf, every row of P2's range sampled gives exactly the every-pair
    values: the same payoffs, the same rows, at the same leaves."""
    plugin, game = tiny
    start = _last_turn_states(game)[0]
    t = subgame(game, start, 1)
    current = pp.python_impl(game.params, "current_player")
    ended = [n for n in t.leaves if current(t.pub[n], game.params) == pp.TERMINAL]
    assert len(ended) > 3
    pubs = t.pub[ended]
    rng = np.random.default_rng(2)
    r0 = np.zeros((len(pubs), game.n[0]))
    r0[np.arange(len(pubs)), rng.integers(0, game.n[0] - 1, len(pubs))] = 1.0
    r1 = rng.random((len(pubs), game.n[1]))
    r1[:, -1] = 0.0
    fallback = value_function("scored-now", game, plugin)
    exact = Continuations(game, plugin.rollouts, (0, 1), fallback, opposing=(0, 1, 2))
    want = exact.values(pubs, r0, r1)[1]
    assert exact._pairs is not None
    vf = Continuations(game, plugin.rollouts, (0, 1), fallback, budget=10, focus_rows=99,
                       opposing=(0, 1, 2))
    vf.focus(1, 0, t, np.r_[np.ones(game.n[1] - 1), 0.0])
    got = vf.values(pubs, r0, r1)[1]
    valued = np.zeros(got.shape, bool)
    for leaf, pub in enumerate(pubs):
        key = pub.tobytes()
        valued[leaf, np.r_[vf.focused.rows[key], vf.focused.balance[key]].astype(int)] = True
    valued &= r1 > 0
    assert valued.sum() > len(pubs)
    assert np.allclose(got[valued], want[valued])


def test_the_opposing_continuations_are_what_a_row_guards_against(tiny):
    """``max_a min_b`` over own continuations a and opposing b; the plug-in's
    opposing_continuations reach the rollout value function."""
    plugin, game = tiny
    t = _turn_subgame(game)
    leaves = np.array([n for n in t.leaves
                       if pp.python_impl(game.params, "current_player")(t.pub[n], game.params)
                       != pp.TERMINAL])
    pubs = t.pub[leaves]
    rng = np.random.default_rng(4)
    r0, r1 = rng.random((len(leaves), game.n[0])), rng.random((len(leaves), game.n[1]))
    r0[:, -1] = r1[:, -1] = 0.0
    fallback = value_function("scored-now", game, plugin)
    every = Continuations(game, plugin.rollouts, (0, 1, 2), fallback, pair_samples=3,
                          budget=10**6)
    every.values(pubs, r0, r1)
    vf = Continuations(game, plugin.rollouts, (0, 1), fallback, pair_samples=3,
                       budget=10**6, opposing=(0, 1, 2))
    v0, v1 = vf.values(pubs, r0, r1)
    u, (rows0, rows1) = every._pairs, every._live  # (L, i, a, b, j), styles 0, 1, 2
    q0 = np.einsum("liabj,lj->liab", u, r1[:, rows1])
    assert np.allclose(v0[:, rows0], q0[:, :, :2, :].min(axis=3).max(axis=2) / game.z)
    q1 = -np.einsum("liabj,li->ljba", u, r0[:, rows0])
    assert np.allclose(v1[:, rows1], q1[:, :, :2, :].min(axis=3).max(axis=2) / game.z)
    opposing = dataclasses.replace(plugin, opposing_continuations=("hunter", "switcher",
                                                                   "prober"))
    inner = value_function("rollout", game, opposing).inner
    assert list(inner.styles) == [0, 1, 2] and list(inner._own) == [0, 1]


def test_focus_each_values_every_state_as_its_own_focus(tiny):
    """focus_each: each state's rows get the values a focus on that state alone gives them
    (the same games: row, leaf, opposing range and seed), at every number of draws its own
    games give; a state that would need a row at another number is deferred; where every
    pair fits the budget none is."""
    plugin, game = tiny
    t = _turn_subgame(game)
    pubs, n0 = t.pub[t.leaves], game.n[0]
    rng = np.random.default_rng(3)
    r0, r1 = rng.random((len(pubs), n0)), rng.random((len(pubs), game.n[1]))
    vf = Continuations(game, plugin.rollouts, (0, 1), value_function("scored-now", game, plugin),
                       focus_samples=32, budget=10, focus_budget=3000)
    alone = {}
    for i in range(n0):
        vf.focus(0, i, t)
        vf.reset()
        mine = np.zeros((len(pubs), n0), bool)  # (leaf, row): where state i leads
        for leaf, pub in enumerate(pubs):
            mine[leaf, vf.focused.rows[pub.tobytes()]] = True
        alone[i] = (vf.values(pubs, r0, r1)[0], mine)
    vf.focus_each(0, range(n0), t)
    vf.reset()
    each = vf.values(pubs, r0, r1)[0]
    valued = [i for i in range(n0) if i not in vf.deferred]
    assert valued and set(vf.alone_over_budget) == set(range(n0))
    for i in valued:
        assert np.array_equal(each[alone[i][1]], alone[i][0][alone[i][1]])
    # states of different numbers of draws (26 and 28 here) shared the solve: none of their
    # rows is shared, so none was deferred (deferral is not reached on tiny)
    draws = {draws_per_row(len(games.jobs_of(vf, pubs, (r0, r1), 0, rows_at, (), np.zeros(32))),
                           4, 3000, 8, 32)
             for _, rows_at in vf.focused.units}
    assert len(draws) > 1 and vf.deferred == []
    vf.budget = 10**9
    vf.focus_each(0, range(n0), t)
    vf.reset()
    vf.values(pubs, r0, r1)
    assert vf.deferred == [] and vf.alone_over_budget == []


def _after_moves(variant, actions):
    """(the public state, P1's and P2's private states) after the rules ``actions``."""
    from spycfr.games.agent_hunter.public import private_of_history, public_of_history

    params = variant.to_params()
    state = R.initial_state(params)
    for a in actions:
        nxt = np.empty_like(state)
        R.apply_action(state, params, a, nxt)
        state = nxt
    pub = np.zeros(R.STATE_SIZE, np.int32)
    public_of_history(state, params, pub)
    return params, pub, [private_of_history(state, params, s) for s in (0, 1)]


def _styled_games(plugin, params, pub, privates, style1, n=200):
    """P1's payoffs of ``n`` rollouts from ``pub``, P1 the hunter, P2 ``style1``."""
    out = np.empty(n)
    plugin.rollouts(pub[None], params, np.zeros(n, np.int64), np.full(n, privates[0]),
                    np.full(n, privates[1]), np.zeros(n, np.int64), np.full(n, style1),
                    np.arange(n, dtype=np.int64), out)
    return out


def test_the_reader_sees_through_the_switch_just_made():
    from spycfr.games.agent_hunter.leaf import READER

    plugin = get_plugin("agent-hunter")
    assert plugin.rollout_styles == ROLLOUT_STYLES and ROLLOUT_STYLES[READER] == "reader"
    variant = make_variant("agent-hunter", "standard")
    placed = [R.encode_place((0, 1, 9), 10), R.encode_place((0, 2, 7), 10)]
    # P1 shows its 0 in house 1, puts it back, a decoy beside it: the hunter no longer
    # knows the house (its KNOW reset), the reader eliminates it at once with its own 0
    params, pub, privates = _after_moves(variant, [*placed, R.encode_switch(0, 0, 0)])
    reader = _styled_games(plugin, params, pub, privates, READER)
    hunter = _styled_games(plugin, params, pub, privates, 0)
    assert np.all(reader == -1.0) and hunter.mean() > -0.9
    # after anything but a switch the reader is the hunter, game for game
    params, pub, privates = _after_moves(variant, [*placed, R.encode_hand(5, 0)])
    assert np.array_equal(_styled_games(plugin, params, pub, privates, READER),
                          _styled_games(plugin, params, pub, privates, 0))


def _ranger_games(plugin, params, pub, privates, guesses, n=100):
    """P1's payoffs of ``n`` rollouts from ``pub``, P1 the hunter, P2 the ranger given
    ``guesses`` (P1's private states) in every game."""
    out = np.empty(n)
    plugin.rollouts_guessing(pub[None], params, np.zeros(n, np.int64), np.full(n, privates[0]),
                             np.full(n, privates[1]), np.zeros(n, np.int64),
                             np.full(n, RANGER), np.arange(n, dtype=np.int64),
                             np.tile(np.asarray(guesses, np.int64), (n, 1)), out)
    return out


def test_the_ranger_believes_its_guesses_of_the_opposing_houses():
    plugin = get_plugin("agent-hunter")
    assert ROLLOUT_STYLES[RANGER] == plugin.range_reader == "ranger"
    variant = make_variant("agent-hunter", "standard")
    placed = [R.encode_place((0, 1, 9), 10), R.encode_place((0, 2, 7), 10)]
    params, pub, privates = _after_moves(variant, [*placed, R.encode_hand(5, 0)])
    hunter = _styled_games(plugin, params, pub, privates, 0, n=100)
    # guessing P1's actual houses (a range that is a point mass), the ranger eliminates
    # them (P2 holds the 1 and the 9 in hand, the 0 in a house) and wins every game
    right = _ranger_games(plugin, params, pub, privates, [privates[0]] * 4)
    assert np.all(right == -1.0) and hunter.mean() > -0.5
    # no guess: the hunter, game for game; a wrong guess leaves it no better than that
    assert np.array_equal(_ranger_games(plugin, params, pub, privates, [-1] * 4), hunter)
    _, _, wrong = _after_moves(variant, [R.encode_place((3, 4, 5), 10), placed[1],
                                         R.encode_hand(5, 0)])
    assert _ranger_games(plugin, params, pub, privates, [wrong[0]] * 4).mean() > -0.9


def _ranger(game, plugin, **kw):
    return Continuations(game, plugin.rollouts, (0, 1), value_function("scored-now", game, plugin),
                         opposing=(0, 1, RANGER), guessing=plugin.rollouts_guessing,
                         reader=RANGER, **kw)


def test_the_range_reader_guesses_the_cards_a_move_tells_and_spreads_where_it_mixes(tiny):
    """The reader's guesses at each leaf are drawn from the focus rows' range pushed through
    the strategy: where a move is one row's alone it guesses that row's cards, where two
    rows play it alike it guesses both about equally often; seeded."""
    plugin, game = tiny
    t = _turn_subgame(game)
    vf = _ranger(game, plugin, focus_rows=3)
    assert vf.reads_range
    own, other = 3, 5
    w = np.zeros(game.n[0])
    w[[own, other]] = 1.0
    vf.focus(0, own, t, w)
    assert set(vf.sample) == {own, other}
    q = t.row[0]
    uniform = np.zeros(t.row_kid.shape)
    passes.uniform(t.kind, t.row, t.row_count, uniform)
    pure = uniform.copy()
    pure[q, own, :] = 0.0
    pure[q, own, 0] = 1.0  # own: its first move; other: its last
    pure[q, other, :] = 0.0
    pure[q, other, t.row_count[q, other] - 1] = 1.0
    leaves = t.pub[t.leaves]
    vf.read(t, pure)
    g = vf._guesses(leaves, 64)
    reach = np.zeros((t.size, game.n[0]))
    passes.forward(0, *t.seat_arrays(0), pure, w, reach)
    told = 0
    for x, n in enumerate(t.leaves):
        live = np.flatnonzero(reach[n] > 0)
        assert set(g[x].ravel()) <= set(live) | {-1}
        if live.size == 1:  # one row's move: every guess names its cards
            assert np.all(g[x] == live[0])
            told += 1
        if live.size == 0:
            assert np.all(g[x] == -1)
    assert told > 0
    # both rows uniform: at a leaf both reach alike the guesses split between them
    vf.read(t, None)
    g = vf._guesses(leaves, 64)
    passes.forward(0, *t.seat_arrays(0), uniform, w, reach)
    both = [x for x, n in enumerate(t.leaves)
            if np.count_nonzero(reach[n]) == 2 and np.isclose(*reach[n][reach[n] > 0])]
    assert both
    for x in both:
        share = np.mean(g[x] == np.flatnonzero(reach[t.leaves[x]])[0])
        assert 0.35 < share < 0.65
    assert np.array_equal(g, vf._guesses(leaves, 64))  # seeded: the same draws again


def test_configure_checks_everything_before_changing_anything(tiny):
    """Continuations.configure: each option changes what it names, the own styles kept; a bad
    value of any option is refused with its name and what is allowed, and nothing changes;
    configure_agent takes the game's style names, refuses an unknown one and leaves that
    are not rollouts, and does nothing where nothing is asked."""
    plugin, game = tiny
    vf = _ranger(game, plugin)
    before = (vf.own_styles, vf.opposing_styles, vf.focus_rows, vf.reader_rounds,
              vf.reader_range)
    assert before == ((0, 1), (0, 1, RANGER), 1, 1, "own")
    for kw, match in ((dict(opposing=()), "opposing"), (dict(opposing=(0, -1)), "opposing"),
                      (dict(focus_rows=0), "focus_rows 0: a whole number >= 1"),
                      (dict(focus_rows=2.0), "focus_rows"),
                      (dict(reader_rounds=-1), "reader_rounds -1: a whole number >= 0"),
                      (dict(reader_range="x"), "reader_range 'x': one of own, public"),
                      (dict(guess_weight=1.5), "guess_weight 1.5: a number from 0 to 1"),
                      (dict(guess_weight=True), "guess_weight"),
                      (dict(row_weight=-0.1), "row_weight -0.1: a number from 0 to 1"),
                      (dict(row_weight="0.5"), "row_weight")):
        with pytest.raises(ValueError, match=match):
            vf.configure(**{"reader_rounds": 3, "focus_rows": 3, **kw})  # good ones beside
        assert (vf.own_styles, vf.opposing_styles, vf.focus_rows, vf.reader_rounds,
                vf.reader_range) == before
    vf.configure(opposing=(1, 2), focus_rows=3, reader_rounds=0, reader_range="public")
    assert (vf.own_styles, vf.opposing_styles, vf.focus_rows, vf.reader_rounds,
            vf.reader_range) == ((0, 1), (1, 2), 3, 0, "public")
    assert list(vf.styles) == [0, 1, 2] and not vf.reads_range
    vf.configure(reader_rounds=2)  # the rest as they were
    assert (vf.opposing_styles, vf.focus_rows, vf.reader_rounds) == ((1, 2), 3, 2)
    assert (vf.guess_weight, vf.row_weight) == (1.0, 0.0)
    vf.configure(guess_weight=0.25, row_weight=1)
    assert (vf.guess_weight, vf.row_weight) == (0.25, 1.0)
    made = vf._decisions()  # a solve's decisions: the plain ones first, the options given
    assert (made.plain, made.guess_weight, made.row_weight) == (2, 0.25, 1.0)

    agent = SearchAgent("agent-hunter", make_variant("agent-hunter", "tiny").as_dict(),
                        AgentConfig(iterations=2, value_function="rollout"))
    inner = agent.values.inner
    own = inner.own_styles
    configure_agent(agent, ["ranger"], focus_rows=2)
    assert inner.opposing_styles == (ROLLOUT_STYLES.index("ranger"),) and inner.reads_range
    assert inner.own_styles == own and inner.focus_rows == 2
    with pytest.raises(ValueError, match="opposing nobody: not a rollout style of agent-hunter"):
        configure_agent(agent, ["nobody"])
    plain = SearchAgent("agent-hunter", make_variant("agent-hunter", "tiny").as_dict(),
                        AgentConfig(iterations=2))
    configure_agent(plain, None)  # nothing asked: whatever the leaves
    with pytest.raises(ValueError, match="not rollouts"):
        configure_agent(plain, focus_rows=2)


def test_settings_are_every_option_configure_sets(tiny):
    """settings() left out the own styles (configure_detection set the robust leaves' styles
    apart, then the opposing ones again); it holds them now, and configure takes ``own``:
    leaves configured by another's settings are set up alike. configure_agent's ``own`` is
    checked with the rest before anything changes (it changed the own styles, then refused
    a bad option)."""
    from types import SimpleNamespace

    from spycfr.search.configure import configure_agent

    plugin, game = tiny
    vf = _ranger(game, plugin)
    vf.configure(own=(1,), opposing=(0, 2), focus_rows=3, reader_rounds=2, choice="leaf",
                 guesses=True, guess_draws=2, guess_weight=0.5, row_weight=0.25)
    assert (vf.own_styles, vf.opposing_styles) == ((1,), (0, 2))
    made = vf.settings()
    assert made["own"] == (1,)
    alike = _ranger(game, plugin)
    alike.configure(**made)
    assert alike.settings() == made and list(alike.styles) == list(vf.styles)
    vf.configure(own=(0, 1))  # the opposing styles kept
    assert (vf.own_styles, vf.opposing_styles) == ((0, 1), (0, 2))
    with pytest.raises(ValueError, match="own"):
        vf.configure(own=())
    agent = SimpleNamespace(values=alike, plugin=plugin)
    with pytest.raises(ValueError, match="choice 'x'"):
        configure_agent(agent, own=["hunter"], choice="x")
    assert alike.settings() == made  # the own styles too


def test_without_a_range_reader_the_rounds_are_one_solve(tiny):
    plugin, game = tiny
    t = _turn_subgame(game)
    vf = _ranger(game, plugin)
    vf.guard_against((0, 1), (0, 1, 2))
    calls = []
    vf.focus(0, 3, t)
    solve_reading(vf, t, lambda: calls.append(1))
    assert calls == [1]
    vf.guard_against((0, 1), (0, 1, RANGER))
    vf.focus(0, 3, t)
    vf.reader_rounds = 2

    class Sol:
        strategy = np.zeros(t.row_kid.shape)

    solve_reading(vf, t, lambda: calls.append(2) or Sol())
    assert calls == [1, 2, 2, 2]


def test_a_reading_round_replays_only_the_readers_games(tiny):
    """Over the budget (the focus row's games), a round that reads the range again plays
    only the games against the reader; the values are those of a solve that played all."""
    plugin, game = tiny
    t = _turn_subgame(game)
    pubs, r0, r1 = _leaf_ranges(game, t, seed=2)
    w = np.zeros(game.n[0])
    w[[3, 5]] = 1.0
    sigma = np.zeros(t.row_kid.shape)
    passes.uniform(t.kind, t.row, t.row_count, sigma)
    q = t.row[0]
    sigma[q, 3, :] = 0.0
    sigma[q, 3, 0] = 1.0
    values, played = [], []
    for rounds in ((None, sigma), (sigma,)):
        vf = _ranger(game, plugin, focus_rows=3, focus_samples=16, budget=10)
        vf.focus(0, 3, t, w)
        for strategy in rounds:
            vf.read(t, strategy)
            vf.reset()
            before = vf.games_played
            v = vf.values(pubs, r0, r1)
            played.append(vf.games_played - before)
        values.append(v)
    assert np.array_equal(values[0][0], values[1][0])
    # the first round and the fresh solve play every game, the reading round a third
    assert played[0] == played[2] > 0 and played[1] * 3 == played[0]


def test_the_public_reader_reads_rows_drawn_alike_whatever_the_actual_cards(tiny):
    """``reader_range`` "public": the reader's range is focus_rows - 1 rows drawn alike from
    the live rows of the agent's range (not its weights, not the actual cards), valued
    first, so their values, and so what the reader reads, are the same whichever the actual
    cards are; the actual cards' rows they do not reach are valued too. With the default
    the actual cards are always in the reader's range, weighted by the agent's range."""
    plugin, game = tiny
    t = _turn_subgame(game)
    pubs, r0, r1 = _leaf_ranges(game, t, seed=3)
    w = np.zeros(game.n[0])
    live = [1, 2, 3, 4, 5]
    w[live] = [5.0, 1.0, 1.0, 1.0, 1.0]
    with pytest.raises(ValueError, match="reader_range 'x'"):
        _ranger(game, plugin, reader_range="x")
    got = []
    for own in (0, 3):
        vf = _ranger(game, plugin, focus_rows=4, focus_samples=16, budget=10,
                     reader_range="public")
        vf.focus(0, own, t, w)
        assert vf.public_rows.size == 3 and set(vf.public_rows) <= set(live)
        assert set(vf.sample) == set(vf.public_rows) | {own}
        seat, root = vf.focused.reader_root
        assert seat == 0 and set(np.flatnonzero(root)) == set(vf.public_rows)
        assert np.all(root[vf.public_rows] == 1.0)
        vf.read(t, None)
        vf.reset()
        got.append((vf.public_rows.copy(), vf.values(pubs, r0, r1)[0], vf._G))
    assert np.array_equal(got[0][0], got[1][0])
    assert np.array_equal(got[0][2], got[1][2])  # the same guesses at every leaf
    drawn = _reached_rows(t, got[0][0])
    compared = 0
    for x, n in enumerate(t.leaves):
        rows = np.flatnonzero(drawn[n] > 0)
        assert np.array_equal(got[0][1][x, rows], got[1][1][x, rows])
        compared += rows.size
    assert compared
    # 0, not drawn (outside the range given): its rows valued by games where the drawn rows
    # do not reach them, not the fallback's values
    assert 0 not in got[0][0]
    fallback = value_function("scored-now", game, plugin).values(pubs, r0, r1)[0]
    mine = _reached_rows(t, [0])
    assert any(not np.isclose(got[0][1][x, i], fallback[x, i])
               for x, n in enumerate(t.leaves)
               for i in np.flatnonzero((mine[n] > 0) & (drawn[n] <= 0)))
    # the default: the actual cards among the reader's range, weighted by the agent's
    vf = _ranger(game, plugin, focus_rows=4, focus_samples=16, budget=10)
    vf.focus(0, 0, t, w)
    assert vf.focused.reader_root[1][0] == 0.0 and 0 in vf.sample  # 0 is not in the range given
    vf.focus(0, 3, t, w)
    assert vf.focused.reader_root[1][3] == 1.0 and 3 in vf.sample


def _reached_rows(t, rows):
    sigma = np.zeros(t.row_kid.shape)
    passes.uniform(t.kind, t.row, t.row_count, sigma)
    root = np.zeros(t.game.n[0])
    root[np.asarray(rows, np.int64)] = 1.0
    out = np.zeros((t.size, root.size))
    passes.forward(0, *t.seat_arrays(0), sigma, root, out)
    return out


def test_the_opposing_decision_charges_a_row_alone_at_its_leaf_and_not_pooled_rows():
    """``leaf_choice_step`` (``choice`` "leaf"): two rows, one continuation of their own;
    the opponent's plain continuation gives each 0.5, its guess of row k gives row k -1 and
    the other row +1. At a leaf that row 0 alone reaches the decision learns to guess row 0
    (row 0 valued -1); where both rows pool, with equal reach, it mixes the two guesses and
    each row is valued 0. The per-row ``max_a min_b`` charges -1 either way."""
    u = np.array([[[0.5, -1.0, 1.0]], [[0.5, 1.0, -1.0]]])  # (rows, a, b)
    for reach, want in (([1.0, 0.0], -1.0), ([1.0, 1.0], 0.0)):
        regret, avg = np.zeros(3), np.zeros(3)
        for t in range(1, 201):
            value, sigma = leaf_choice_step(u, np.array(reach), regret)
            avg += t * sigma
            assert (regret >= 0).all()
        assert value[0] == pytest.approx(want, abs=1e-9)
        assert avg[0] / avg.sum() < 0.01  # the plain continuation is not chosen
    assert value[1] == pytest.approx(0.0, abs=1e-9)
    assert np.array_equal(robust(u), [-1.0, -1.0])
    # the row's own continuation stays its own choice: its best against the current mix
    two = np.array([[[0.5, -1.0], [0.0, 0.3]]])  # (1 row, a, b)
    value, sigma = leaf_choice_step(two, np.array([1.0]), np.zeros(2))
    assert np.allclose(sigma, 0.5) and value[0] == pytest.approx(0.15)


def test_the_opposing_decision_without_guesses_keeps_the_values_where_the_choice_is_trivial(
        tiny):
    """With one opposing continuation the decision has nothing to choose: ``choice`` "leaf"
    and "state" (per leaf and opposing state) give the focus rows' values of ``choice`` "row"
    (max_a min_b) at every call; with three, each row's value lies between its ``max_a
    min_b`` and its best against the uniform mix (per state: the leaf's at the first call,
    both uniform, then at least ``max_a mean_m min_b``, each draw's state choosing against
    it); a wrong name is refused, and "state" with the per-leaf decision's weights."""
    plugin, game = tiny
    t = _turn_subgame(game)
    pubs, r0, r1 = _leaf_ranges(game, t, seed=1)
    fallback = value_function("scored-now", game, plugin)
    with pytest.raises(ValueError, match="choice 'x'"):
        Continuations(game, plugin.rollouts, (0, 1), fallback, choice="x")
    for kw in ({"guess_weight": 0.5}, {"row_weight": 0.25}):
        with pytest.raises(ValueError, match="choice 'state' with"):
            Continuations(game, plugin.rollouts, (0, 1), fallback, choice="state", **kw)
    vf = Continuations(game, plugin.rollouts, (0, 1), fallback, row_weight=0.25)
    with pytest.raises(ValueError, match="choice 'state' with"):
        vf.configure(choice="state")
    assert vf.choice == "row"  # nothing changed
    got = {}
    for opposing in ((0,), (0, 1, 2)):
        for choice in ("row", "leaf", "state"):
            vf = Continuations(game, plugin.rollouts, (0, 1), fallback, focus_samples=32,
                               budget=10, opposing=opposing, choice=choice)
            vf.focus(0, 2)
            vf.reset()
            got[opposing, choice] = [vf.values(pubs, r0, r1)[0].copy() for _ in range(3)]
            made = vf
            if choice != "row":
                assert len(vf.leaf_choice()) == len(vf._choices) > 0
    for x in range(3):
        assert np.allclose(got[(0,), "leaf"][x], got[(0,), "row"][x], atol=1e-12)
        assert np.allclose(got[(0,), "state"][x], got[(0,), "row"][x], atol=1e-12)
    row, leaf = got[(0, 1, 2), "row"][0], got[(0, 1, 2), "leaf"][0]
    assert (leaf[:, 2] >= row[:, 2] - 1e-12).all() and not np.allclose(leaf[:, 2], row[:, 2])
    state = got[(0, 1, 2), "state"]
    assert np.allclose(state[0], leaf, atol=1e-12)  # uniform at the first call, either
    # later each draw's state chooses against it: never under max_a mean_m min_b
    for x in made._rows:
        worst = x.draws.values.min(axis=1).mean(axis=1).max() * (x.weights @ r1[x.leaf]) / game.z
        assert x.row == 2 and state[2][x.leaf, 2] >= worst - 1e-12
    assert not np.allclose(state[2][:, 2], got[(0, 1, 2), "leaf"][2][:, 2])
    others = np.arange(game.n[0]) != 2
    assert np.array_equal(leaf[:, others], row[:, others])  # the rest: the fallback
    assert np.array_equal(state[2][:, others], row[:, others])


@pytest.mark.parametrize("choice, guesses", [("leaf", True), ("leaf", False), ("row", False),
                                             ("state", True), ("state", False)])
def test_the_opposing_decision_values_the_public_rows_without_actual_cards(tiny, choice,
                                                                           guesses):
    """With the opposing decision (with or without guesses), or the per-row choice, over
    rows drawn from public information, a focus with no actual cards (the exploitability
    walk's) values the drawn rows as a focus on any actual cards does, guesses and decision
    included: the walk then plays what a game does. Without the public range such a focus
    is no focus (the fallback)."""
    plugin, game = tiny
    t = _turn_subgame(game)
    pubs, r0, r1 = _leaf_ranges(game, t, seed=3)
    w = np.zeros(game.n[0])
    w[[1, 2, 3, 4, 5]] = 1.0
    got = []
    for own in (None, 0, 3):
        vf = _guessing(game, plugin, choice=choice, guesses=guesses)
        vf.focus(0, own, t, w)
        assert vf.guessing_rows == guesses and not vf.reads_range and vf.public_rows.size == 5
        vf.reset()
        got.append([vf.values(pubs, r0, r1)[0].copy() for _ in range(3)])
        assert any(np.asarray(vf.guessed_rows(p)).size for p in pubs) == guesses
        assert vf.one_sided(t, (r0[0], r1[0]))
    drawn = _reached_rows(t, [1, 2, 3, 4, 5])
    for x, n in enumerate(t.leaves):
        rows = np.flatnonzero(drawn[n] > 0)
        for step in range(3):
            # (to rounding: the rows are summed in another order)
            assert np.allclose(got[0][step][x, rows], got[1][step][x, rows], atol=1e-12)
            assert np.allclose(got[0][step][x, rows], got[2][step][x, rows], atol=1e-12)
    scored = vf.fallback.values(pubs, r0, r1)[0]
    assert not np.allclose(got[0][0], scored)  # the rows drawn valued by their games
    vf = _guessing(game, plugin)
    vf.configure(reader_range="own")
    vf.focus(0, None, t, w)
    assert vf.focused.actual is None and vf.public_rows.size == 0


def _guessing(game, plugin, **kw):
    """Rollout leaves guarding against the hunter and switcher, the ranger the game's
    reader (not among them), every live row of tiny's drawn from public information."""
    return Continuations(game, plugin.rollouts, (0, 1), value_function("scored-now", game, plugin),
                         guessing=plugin.rollouts_guessing, reader=RANGER, focus_rows=8,
                         focus_samples=16, budget=10, reader_range="public", **kw)


def test_guesses_by_feature_give_the_ranger_the_rows_of_one_houses_card(tiny):
    """``guess_by`` "feature" (Agent Hunter's guess_features: each house's card): at each
    leaf one guess per (house, card) among the rows guessed there, a group met twice kept
    once, each the rows holding that card in that house. The guess columns of the
    decision's values are the ranger's games given those rows: where a group is one row,
    the column of that row's guess by "row" (the same draws and seeds); the plain
    continuations' columns the same either way. ``guess_draws`` caps the guess games'
    draws (the plain columns unchanged; all draws: the same values); bad values refused."""
    plugin, game = tiny
    t = _turn_subgame(game)
    pubs, r0, r1 = _leaf_ranges(game, t, seed=3)
    w = np.zeros(game.n[0])
    w[[1, 2, 3, 4, 5]] = 1.0
    features = plugin.guess_features(game.params)
    assert features.shape == (game.n[0], 2) and (features[-1] == -1).all()
    q = {}
    for by, draws in (("row", 0), ("feature", 0), ("feature", 16), ("feature", 3)):
        vf = _guessing(game, plugin, choice="leaf", guesses=True, guess_features=plugin.
                       guess_features, guess_by=by, guess_draws=draws)
        vf.focus(0, 0, t, w)
        vf.reset()
        vf.values(pubs, r0, r1)
        q[by, draws] = {d.leaf: (d.rows, d.q) for d in vf._choices.decisions}
        if by == "row" or draws:
            continue
        for lf in q[by, draws]:
            rows, groups = vf.guessed_rows(pubs[lf]), vf.guess_groups(pubs[lf])
            want = {tuple(rows[features[rows, h] == c]) for h in range(2)
                    for c in np.unique(features[rows, h])}
            got = {tuple(g[g >= 0]) for g in groups}
            assert got == want and len(groups) == len(want)
            assert (groups[:, 0] >= 0).all()
    singles = 0
    for lf, (rows, qr) in q["row", 0].items():
        frows, qf = q["feature", 0][lf]
        assert np.array_equal(rows, frows)
        assert np.array_equal(qf[:, :, :2], qr[:, :, :2])  # hunter, switcher
        vf = _guessing(game, plugin, choice="leaf", guesses=True,
                       guess_features=plugin.guess_features, guess_by="feature")
        vf.focus(0, 0, t, w)
        guessed = list(vf.guessed_rows(pubs[lf]))
        for x, g in enumerate(vf.guess_groups(pubs[lf])):
            if (g >= 0).sum() == 1:
                singles += 1
                assert np.array_equal(qf[:, :, 2 + x], qr[:, :, 2 + guessed.index(g[0])])
        assert np.array_equal(q["feature", 16][lf][1], qf)  # 16 draws: all of them
        few = q["feature", 3][lf][1]
        assert np.array_equal(few[:, :, :2], qf[:, :, :2])
    assert singles > 0 and not all(np.array_equal(q["feature", 3][lf][1], q["feature", 0][lf][1])
                                   for lf in q["feature", 0])
    for kw, words in (({"guess_by": "x"}, "guess_by 'x'"), ({"guess_draws": -1}, "guess_draws"),
                      ({"guess_by": "feature", "guess_features": None}, "guess_features")):
        with pytest.raises(ValueError, match=words):
            _guessing(game, plugin, **kw)


@pytest.mark.parametrize("draws", [0, 3])
def test_the_state_choice_keeps_each_draws_values_whose_mean_is_the_rows(tiny, draws):
    """``choice`` "state" keeps each valued row's values per draw (a, b, m) and the opposing
    state of each draw: their mean over the draws is the row's mean values (the per-leaf
    decision's), the guess columns too, where ``guess_draws`` plays fewer draws (those past
    them take the guess games' mean); the draws' states are the row's draws from the
    opposing range at the leaf (live there). The decisions are one per leaf and state."""
    plugin, game = tiny
    t = _turn_subgame(game)
    pubs, r0, r1 = _leaf_ranges(game, t, seed=3)
    w = np.zeros(game.n[0])
    w[[1, 2, 3, 4, 5]] = 1.0
    vf = _guessing(game, plugin, choice="state", guesses=True,
                   guess_features=plugin.guess_features, guess_by="feature", guess_draws=draws)
    vf.focus(0, 0, t, w)
    vf.reset()
    vf.values(pubs, r0, r1)
    assert vf._rows and all(x.draws is not None for x in vf._rows)
    plain = vf._opp.size
    for x in vf._rows:
        lf, mean, (per, js) = x.leaf, x.values, x.draws
        assert per.shape == mean.shape + (js.size,) and mean.shape[1] > plain  # guesses
        assert np.allclose(per.mean(axis=2), mean, atol=1e-12)
        assert (r1[lf, js] > 0).all()
        if draws:
            assert np.array_equal(per[:, plain:, draws:],
                                  np.repeat(mean[:, plain:, None], js.size - draws, axis=2))
    assert isinstance(vf._choices, StateDecisions) and len(vf._choices) == len(
        {x.leaf for x in vf._rows})
    states = {lf: s for _, lf, s, _ in vf._choices.by_state()}
    for x in vf._rows:
        assert set(x.draws.states) <= set(states[x.leaf])
