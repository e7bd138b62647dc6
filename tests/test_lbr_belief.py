"""LBR's belief past its cap (spycfr.analysis.lbr.compact_belief, shared by the table path and the
agent's loop) on Agent Avenue mini, where private draws make many histories of one state:
merging them gives the exact belief (per state, so per private state of the agent's model
too), resampling keeps every heavy state within 1 / cap of its weight, the table path caps
as the agent's loop does, and an LBR game against the agent with a small cap finishes."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pytest

from spycfr.analysis.headtohead import payoff_bound, player_args, player_from
from spycfr.analysis.lbr import local_best_response, two_player_params, update_belief
from spycfr.analysis.lbr_agent import (
    AgentOpponent,
    _observation,
    _setup,
    compact,
    play_game,
    table_games,
)
from spycfr.cfr.mccfr_kernels import advance_keys
from spycfr.engine.playout import node_moves
from spycfr.engine.rng import root_key, sample, uniform
from spycfr.games import make_game
from spycfr.public import protocol as pp
from spycfr.search.agent import AgentConfig, SearchAgent
from spycfr.tree import TERMINAL


@pytest.fixture(scope="module")
def mini():
    return make_game("agent-avenue", "mini")


def _by(key, bs, bw, n):
    out: dict = defaultdict(float)
    for x in range(n):
        out[key(bs[x])] += bw[x]
    return dict(out)


def _beliefs(game, me, seed):
    """Along one game of uniform play: after each move, LBR's exact belief (every history)
    and the belief merged after every move (the particles, weights and counts of each)."""
    params = two_player_params(game)
    uni = player_args(player_from("uniform", game))
    cur, bs, bh, bw, work = _setup(params)
    h = np.array([root_key(s) for s in range(2)], dtype=np.int64)
    exact = [cur[None].copy(), h[None].copy(), np.ones(1), 1]
    merged = [cur[None].copy(), h[None].copy(), np.ones(1), 1]
    nxt = np.empty_like(cur)
    acts, probs = np.empty_like(work[3]), np.empty_like(work[4])
    rng = np.array([np.uint64(seed)], dtype=np.uint64)
    out = []
    while True:
        p, k = node_moves(cur, params, acts, probs)
        if p == TERMINAL:
            return params, out
        if p in (0, 1):
            probs[:k] = 1.0 / k
        act = acts[sample(probs, k, uniform(rng))]
        obs = _observation(params, cur, act, np.int64(me))
        for b in (exact, merged):
            s, kh, w, n = b
            b[:] = update_belief(params, np.int64(me), uni, np.zeros((0, 0)), obs, s, kh, w,
                                 np.int64(n), np.empty_like(s), np.empty_like(kh),
                                 np.empty_like(w), work[3], work[4], nxt)
        s, kh, w, n = merged
        before = n
        s, kh, w, _, _, _, n = compact(s, kh, w, n, np.empty_like(s), np.empty_like(kh),
                                       np.empty_like(w), False, 10**9, None, {})
        merged[:] = [s, kh, w, n]
        out.append((tuple(exact), tuple(merged), before))
        advance_keys(params, cur, nxt, act, h)


def test_merging_the_histories_of_one_state_is_the_exact_belief(mini):
    """The merged belief, per state and per private state of the agent's model, is the
    exact history belief summed the same way, after every move of games (LBR as P2: P1's
    draws of several cards in other orders are other histories of one state) where it
    merged something (a real check: the histories merged away, 115 on these seeds, counted
    rather than the moves that merged, since states that differ only in the name a swap
    discarded (rules.py's LASTDISC, read by the forgetful model's private state) are other
    states until the swap's draw, which merges them a move later: 6 moves merged, 9 before
    that slot, the same 115 histories)."""
    me = 1
    model = SearchAgent("agent-avenue", mini.variant_obj.as_dict(), AgentConfig()).model
    priv = pp.python_impl(model.params, "private_of_history")
    merged = 0
    for seed in (5, 9, 18):
        params, steps = _beliefs(mini, me, seed)
        for (es, _, ew, en), (ms, _, mw, mn), before in steps:
            merged += before - mn
            assert sum(mw[:mn]) == pytest.approx(1.0)
            assert len({s.tobytes() for s in ms[:mn]}) == mn  # no state twice
            state = _by(lambda s: s.tobytes(), ms, mw, mn)
            assert state == pytest.approx(_by(lambda s: s.tobytes(), es, ew, en), abs=1e-12)
            private = _by(lambda s: priv(s, model.params, 1 - me), ms, mw, mn)
            assert private == pytest.approx(
                _by(lambda s: priv(s, model.params, 1 - me), es, ew, en), abs=1e-12)
    assert merged >= 100


def test_resampling_keeps_the_heavy_states(mini):
    """Past the cap after merging: at most ``cap`` particles, all in the exact belief, every
    state of weight >= 1 / cap kept within 1 / cap of its weight, the same for the same
    seed."""
    params, steps = _beliefs(mini, 1, 2)
    (es, eh, ew, en), _, _ = max(steps, key=lambda x: len(set(map(bytes, x[0][0][:x[0][3]]))))
    exact = _by(lambda s: s.tobytes(), es, ew, en)
    cap = len(exact) // 2
    assert cap >= 4
    got = []
    for _ in range(2):
        counts: dict = {}
        rng = np.array([np.uint64(7)], dtype=np.uint64)
        s, _, w, _, _, _, n = compact(es.copy(), eh.copy(), ew.copy(), en, np.empty_like(es),
                                      np.empty_like(eh), np.empty_like(ew), False, cap, rng,
                                      counts)
        assert counts == {"merged": 1, "resampled": 1} and n <= cap
        kept = _by(lambda x: x.tobytes(), s, w, n)
        assert set(kept) <= set(exact) and sum(kept.values()) == pytest.approx(1.0)
        for state, weight in exact.items():
            if weight >= 1 / cap:
                assert abs(kept[state] - weight) <= 1 / cap + 1e-12
        got.append(kept)
    assert got[0] == got[1]


def test_the_table_path_caps_its_belief_as_the_agent_loop_does(mini):
    """The numba table path (LBR against a run's table) had no cap: past it now, the same
    compaction and streams as the agent's loop, so against uniform play with a cap of 8 the
    same games and, game for game, the same merges, resamplings and depletions; the same
    seed the same result, which counts them and says so."""
    uniform, heuristic = player_from("uniform", mini), player_from("heuristic", mini)
    total = np.zeros(3, np.int64)
    for me in (0, 1):
        numba, mine, compacted, counted = table_games(mini, uniform, me, 3, 0, 4, rollouts=2,
                                                      roll=heuristic, cap=8)
        assert np.array_equal(numba, mine) and np.array_equal(compacted, counted)
        total += compacted.sum(axis=0)
    assert total[0] > 0 and total[1] > 0  # merged and resampled: a real check
    results = [local_best_response(mini, uniform, 4, seed=3, rollouts=2,
                                   rollout_policy=heuristic, belief_cap=8) for _ in range(2)]
    assert results[0] == results[1]
    assert results[0]["belief_cap"] == 8 and results[0]["belief_compacted"]["resampled"] > 0
    assert "(systematic resampling, seeded)" in results[0]["method"]
    assert "particles: exact" in local_best_response(mini, uniform, 4, seed=3, rollouts=2,
                                                     rollout_policy=heuristic)["method"]


@pytest.mark.slow
def test_an_lbr_game_against_the_agent_with_a_small_cap_finishes(mini):
    """The game loop with the belief compacted (merged and resampled) at a cap of 4: games
    against Agent Avenue's agent in both seats finish with payoffs in the game's range (LBR
    playing on as the heuristic where the resampled belief lost every consistent
    history)."""
    agent = SearchAgent("agent-avenue", mini.variant_obj.as_dict(), AgentConfig(iterations=10))
    params = two_player_params(mini)
    roll = player_args(player_from("heuristic", mini))
    opponent = AgentOpponent(agent, player_from("heuristic", mini))
    counts: dict = {}
    for me in (0, 1):
        for g in range(2):
            payoff, largest, _ = play_game(params, me, opponent, roll, 2, 5, g, cap=4,
                                           counts=counts)
            assert abs(payoff) <= payoff_bound(mini) and largest > 0
    assert counts["merged"] > 0 and counts["resampled"] > 0
    assert counts["depleted"] > 0  # (these seeds: once) LBR played on as the heuristic


def test_both_paths_refuse_a_belief_capped_below_one_particle(mini, tmp_path):
    """lbr.check_lbr_options, the one check of the table path (local_best_response) and of
    the agent's long runs (lbr_agent_dask.agent_lbr): a cap of 0 is refused in one line,
    before anything is played or read."""
    from spycfr.analysis.headtohead import uniform_player
    from spycfr.analysis.lbr_agent_dask import agent_lbr
    from spycfr.errors import SpycfrError

    said = r"^belief_cap \(the LBR belief's cap\) must be >= 1 particle, got 0$"
    with pytest.raises(SpycfrError, match=said):
        local_best_response(mini, uniform_player(), 4, belief_cap=0)
    with pytest.raises(SpycfrError, match=said):
        agent_lbr(str(tmp_path / "no-run"), 4, belief_cap=0)
