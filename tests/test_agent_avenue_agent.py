"""Agent Avenue played by search (games/agent_avenue/leaf.py): the leaf values (the payoff at
a terminal, weighed by card removal as the public model's payoff is), the model that forgets
discards (what the agent re-solves on where the exact numbering is too big), and the agent
through whole games of it."""

from __future__ import annotations

import numpy as np
import pytest

from spycfr.engine import protocol as P
from spycfr.errors import SpycfrError
from spycfr.games import get_plugin, make_variant
from spycfr.games.agent_avenue import forget as FGT
from spycfr.games.agent_avenue import leaf as L
from spycfr.games.agent_avenue import moves as MOV
from spycfr.games.agent_avenue import multiset as MS
from spycfr.games.agent_avenue import numbering as NUM
from spycfr.games.agent_avenue import public as AP
from spycfr.games.agent_avenue import rules as R
from spycfr.public import protocol as pp
from spycfr.search.agent import AgentConfig, SearchAgent
from spycfr.search.leafvalues import value_function
from spycfr.search.subgame import subgame
from spycfr.search.tree import LEAF, GameModel

PLUGIN = get_plugin("agent-avenue")


def _model(preset: str, forget: int = 0) -> GameModel:
    return GameModel.of(make_variant("agent-avenue", preset).to_params()._replace(
        forget=np.int64(forget)))


def test_leaf_values_at_terminals_are_the_payoffs():
    game = _model("tiny")
    vf = value_function("scored-now", game, PLUGIN)
    full = subgame(game, game.root(), 99, terminal_leaves=False)  # the whole game
    ends = np.flatnonzero(full.kind == pp.TERMINAL)[:50]
    rng = np.random.default_rng(3)
    r0, r1 = rng.random((len(ends), game.n[0])), rng.random((len(ends), game.n[1]))
    v0, v1 = vf.values(full.pub[ends], r0, r1)
    for leaf, node in enumerate(ends):
        m = full.payoff[full.term[node]]
        assert np.allclose(v0[leaf], m @ r1[leaf] / game.z, atol=1e-6)
        assert np.allclose(v1[leaf], -(r0[leaf] @ m) / game.z, atol=1e-6)
    # asked again with one seat's range changed: the cached values of the other are kept
    r0[:, 1] += 1.0
    w0, w1 = vf.values(full.pub[ends], r0, r1)
    assert np.array_equal(w0, v0) and not np.allclose(w1, v1)


@pytest.mark.parametrize("preset, forget", [("mini", 0), ("mini", 1), ("small", 0)])
def test_card_removal_weights_sum_to_one_over_the_deal(preset, forget):
    """Before the first move, the deal's model weights times W are the deck's probabilities
    of the two hands: they sum to 1; a pair holding more of a name than the deck has weighs
    nothing."""
    game = _model(preset, forget)
    pub = game.root()
    w = L.weights(pub, game.params, *game.n)
    assert game.weights[0] @ w @ game.weights[1] == pytest.approx(1.0)
    params = game.params
    two = NUM.index(params, False, params.hand, 0, np.int64(2 << (MS.SHIFT * 1)) | 1, 0,
                   NUM.NO_NAME)  # mini and small: hand of 3, two copies of each name
    assert L._held(pub, params, 0, two) >= 0 and w[two, two] == 0.0
    assert 0.0 < L.estimate(pub, params) < 1.0  # P1 moves first: its tempo


def test_the_pair_weights_hook_is_a_row_of_w():
    """The plug-in's pair_weights (what the agent's posterior, move values and rollout rows
    weigh the opposing range by) is row i of W for seat 0, column i for seat 1: one row, not
    the whole W (2,641 x 2,641 in advanced mode), after a play too."""
    for preset, forget in (("mini", 0), ("standard", 1)):
        game = _model(preset, forget)
        pubs = [game.root(), subgame(game, game.root(), 1).pub[1]]
        for pub in pubs:
            w = L.weights(pub, game.params, *game.n)
            assert w.any()
            for i in (0, 1, 7, game.n[0] - 1):
                assert np.array_equal(PLUGIN.pair_weights(pub, game.params, 0, i, game.n[1]),
                                      w[i])
                assert np.array_equal(PLUGIN.pair_weights(pub, game.params, 1, i, game.n[0]),
                                      w[:, i])


def test_the_forgetful_model_numbers_hands_only():
    """Hands only, but from a swap to its draw the hand and the name discarded (the draw
    carries the discard's weight: public.py): on the bridge, in the model's swap and in the
    draw's probabilities; after the draw the hand alone."""
    exact, forget = _model("mini"), _model("mini", 1)
    params = forget.params
    # 20 hands of 3 of 4 names; at a swap's draw 10 hands of 2 times the 4 names discarded
    assert exact.n == (201, 201) and forget.n == (41, 41)
    # a real game with a discard: the bridge's state is the hand, the discard forgotten
    impl = P.implementations(params)
    state = impl["initial_state"](params)
    deal = np.int32(R.draw_code(np.array([1, 1, 1, 0]), 4))  # DA EN CB
    for a in (deal, deal, (R.T_SWAP << 20) | 0):
        out = np.empty_like(state)
        impl["apply_action"](state, params, np.int32(a), out)
        before, state = state, out
    pub, root = np.empty_like(state), np.empty_like(state)
    AP.public_of_history(state, params, pub)
    AP.public_of_history(before, params, root)
    assert state[R.PHASE] == R.PH_SWAP_DRAW and state[R.LASTDISC] == 0 and pub[R.LASTDISC] == 0
    i = AP.private_of_history(state, params, 0)
    en_cb = sum(1 << (MS.SHIFT * t) for t in (1, 2))
    assert i == NUM.index(params, True, 2, 0, en_cb, 0, 0)  # EN.CB, DA just discarded
    with pytest.MonkeyPatch.context() as patch:  # mini searched on the forgetful model
        patch.setattr(L, "EXACT_LIMIT", 0)
        names = L.private_names(make_variant("agent-avenue", "mini"), pub, 0)
    assert len(names) == 41 and names[i] == "hand EN.CB, just discarded DA"
    kids, nexts = np.empty(64, np.int64), np.empty(64, np.int64)
    m = MOV.private_actions(root, params, AP.private_of_history(before, params, 0), 2, kids,
                           nexts)
    assert i in nexts[:m][kids[:m] == 0]  # the swap label's actions
    probs = np.empty(64)
    m = MOV.private_chance(pub, params, i, nexts, probs)
    # 2 copies of DA, none seen but the one discarded (the mover holds EN.CB): 2 of 6
    assert FGT.discard_weight(pub, params, en_cb, 0) == pytest.approx(4 * 2 / 6)
    assert probs[:m].sum() == pytest.approx(4 * 2 / 6)
    out = np.empty_like(state)
    impl["apply_action"](state, params, np.int32(R.draw_code(np.array([0, 0, 0, 1]), 4)), out)
    state = out
    assert state[R.DLEFT] == params.discards - 1 and state[R.PHASE] == R.PH_PLAY
    assert state[R.LASTDISC] == 0
    pub = np.empty_like(state)
    AP.public_of_history(state, params, pub)
    i = AP.private_of_history(state, params, 0)
    pending, hs, ds = NUM.scheme(pub, params, 0)
    hand, disc, _ = NUM.decode(params, pending, hs, ds, i)
    assert ds == 0 and disc == 0 and hand == sum(1 << (MS.SHIFT * t) for t in (1, 2, 3))
    names = L.private_names(make_variant("agent-avenue", "mini"), pub, 0)
    assert len(names) == exact.n[0] and names[0] == "impossible"


def test_the_forgetful_models_swaps_follow_the_rules():
    """Random games of the rules on mini (two discards a seat), each swap's and each draw's
    state on the bridge (what LBR and the agent read) is one the model's swap or draw goes
    to from the state before, the draw with probability carrying the discard's weight."""
    params = _model("mini", 1).params
    impl = P.implementations(params)
    rng = np.random.default_rng(7)
    kids, nexts = np.empty(64, np.int64), np.empty(64, np.int64)
    probs, codes, cprobs = np.empty(64), np.empty(400, np.int32), np.empty(400)
    acts = np.empty(64, np.int32)
    pub, after = np.empty(R.STATE_SIZE, np.int16), np.empty(R.STATE_SIZE, np.int16)
    swaps = draws = 0
    weights: set[float] = set()
    for _ in range(60):
        state = impl["initial_state"](params)
        while (cp := impl["current_player"](state, params)) != P.TERMINAL:
            if cp in (0, 1):
                k = impl["legal_actions"](state, params, acts)
                a = acts[rng.integers(k)]
            else:
                k = impl["chance_outcomes"](state, params, codes, cprobs)
                a = codes[rng.choice(k, p=cprobs[:k] / cprobs[:k].sum())]
            impl["apply_action"](state, params, np.int32(a), after)
            mover = int(state[R.ACTIVE])
            if state[R.PHASE] == R.PH_PLAY and (a >> 20) == R.T_SWAP:
                AP.public_of_history(state, params, pub)
                i = AP.private_of_history(state, params, mover)
                m = MOV.private_actions(pub, params, i, 2, kids, nexts)
                j = AP.private_of_history(after, params, mover)
                assert j in nexts[:m][kids[:m] == 0]
                swaps += 1
            elif state[R.PHASE] == R.PH_SWAP_DRAW:
                AP.public_of_history(state, params, pub)
                i = AP.private_of_history(state, params, mover)
                m = MOV.private_chance(pub, params, i, nexts, probs)
                hand, _, d = NUM.decode(params, True, int(state[R.HANDSIZE + mover]), 0, i)
                assert d == state[R.LASTDISC]
                weight = FGT.discard_weight(pub, params, hand, d)
                assert probs[:m].sum() == pytest.approx(weight)
                weights.add(round(float(weight), 9))
                j = AP.private_of_history(after, params, mover)
                assert probs[:m][nexts[:m] == j].sum() > 0
                draws += 1
            state = after.copy()
    assert swaps == draws > 20 and len(weights) > 1


def test_the_full_game_is_searched_on_hands():
    params = PLUGIN.search_params(make_variant("agent-avenue", "standard"))
    # 330 hands of 4 of 8 names; at a swap's draw 120 hands of 3 times the 8 names discarded
    assert params.forget == 1 and int(NUM.num_private(params, 0)) == 961
    assert PLUGIN.search_params(make_variant("agent-avenue", "mini")).forget == 0



@pytest.mark.parametrize("preset", ["standard", "advanced"])
def test_the_names_at_a_swaps_draw_are_each_seats_own(preset):
    """The states in words (`query`'s posterior, the workbench) at a swap's draw, where the
    model forgets discards (the full game, advanced mode): the mover's state is its hand
    and the name just discarded (no refill: the draw is its own); the other seat's are its
    hand alone, as at the play before (``private_names`` decides "just discarded" and the
    refill by the seat: the mover's refill at a recruitment, "+ 2 drawn", stays)."""
    variant = make_variant("agent-avenue", preset)
    params = L.search_params(variant)
    assert params.forget == 1
    impl = P.implementations(params)
    pub_of = pp.python_impl(params, "public_of_history")
    priv_of = pp.python_impl(params, "private_of_history")

    def names(state):
        pub = np.empty_like(state)
        pub_of(state, params, pub)
        return [L.private_names(variant, pub, s) for s in (0, 1)]

    def own(state):
        got = names(state)
        return [got[s][int(priv_of(state, params, s))] for s in (0, 1)]

    state = impl["initial_state"](params)
    deals = [R.draw_code(np.array(h), 8) for h in ([1, 1, 1, 0, 0, 0, 1, 0],   # DA.EN.CB.SK
                                                    [0, 1, 1, 0, 1, 1, 0, 0])]  # EN.CB.DD.SE
    for code in deals + ([7] if preset == "advanced" else []):  # the market's supply
        out = np.empty_like(state)
        impl["apply_action"](state, params, np.int32(code), out)
        state = out
    moves = [(R.T_SWAP << 20) | 6, R.draw_code(np.array([0] * 7 + [1]), 8),  # SK out, MO in
             (R.T_PLAY << 20) | (0 << 3) | 1]  # DA face up, EN face down
    seen = [state]
    for code in moves:
        out = np.empty_like(state)
        impl["apply_action"](state, params, np.int32(code), out)
        seen.append(out)
        state = out
    play, draw, drawn, recruit = seen
    assert draw[R.PHASE] == R.PH_SWAP_DRAW and recruit[R.PHASE] in (R.PH_REFILL, R.PH_RECRUIT)
    assert own(play) == ["hand DA.EN.CB.SK", "hand EN.CB.DD.SE"]
    assert own(draw) == ["hand DA.EN.CB, just discarded SK", "hand EN.CB.DD.SE"]
    assert names(draw)[1] == names(play)[1]  # the other seat's numbering: its hand alone
    assert not any("drawn" in w for seat in names(draw) for w in seat)
    assert sum("just discarded" in w for w in names(draw)[0]) > 100
    assert own(drawn) == ["hand DA.EN.CB.MO", "hand EN.CB.DD.SE"]
    assert own(recruit) == ["hand CB.MO + 2 drawn, face down EN", "hand EN.CB.DD.SE"]

def _play(agent, seat, seed, states=None):
    """One game of the agent as ``seat`` against the heuristic; returns the agent's payoff
    and its probabilities at its decisions (``states``: a list that gets the rules state
    at each)."""
    params = agent.params
    impl = P.implementations(params)
    rng = np.random.default_rng(seed)
    state = impl["initial_state"](params)
    g = agent.game(seat)
    seen = []
    codes, probs = np.empty(400, np.int32), np.empty(400)
    while (cp := impl["current_player"](state, params)) != P.TERMINAL:
        if cp in (0, 1):
            acts = agent.legal(state)
            if cp == seat:
                p = g.policy(state)
                assert g.mine[agent.private(state, seat)] > 0
                seen.append(p)
                if states is not None:
                    states.append(state.copy())
            else:
                p = np.zeros(len(acts))
                impl["heuristic_policy"](state, params, acts, len(acts), p)
            a = acts[rng.choice(len(acts), p=p / p.sum())]
        else:
            k = impl["chance_outcomes"](state, params, codes, probs)
            a = codes[rng.choice(k, p=probs[:k] / probs[:k].sum())]
        state = agent.after(state, int(a))
        g.observe(state)
    return impl["returns_p1"](state, params) * (1 - 2 * seat), seen


def test_the_agent_plays_whole_games_on_the_forgetful_model(monkeypatch):
    """mini searched on hands only (as the full game is): games with discards played to the
    end, probabilities summing to 1, the same game the same twice."""
    monkeypatch.setattr(L, "EXACT_LIMIT", 0)
    variant = make_variant("agent-avenue", "mini").as_dict()
    agent = SearchAgent("agent-avenue", variant, AgentConfig(iterations=20, depth=2))
    assert agent.model.n == (41, 41)
    for seat in (0, 1):
        result, seen = _play(agent, seat, 5 + seat)
        assert result in (-1.0, 1.0) and seen
        assert all(p.sum() == pytest.approx(1.0) and (p >= 0).all() for p in seen)
        again, seen2 = _play(agent, seat, 5 + seat)
        assert again == result and len(seen2) == len(seen)
        assert all(np.array_equal(a, b) for a, b in zip(seen, seen2, strict=True))


def test_an_agent_restricted_to_needed_moves_discards_only_where_the_hand_needs_it():
    """AgentConfig.needs_only (the plug-in's needed_moves: the swapper's rule): in whole
    games of mini, at each of the agent's re-solved decisions (not the first plan's) where
    it may discard but rules.swap_choice finds no discard its hand needs, its row at the
    re-solve's root holds only its plays and it gives the discards no probability, its
    probabilities summing to 1; the hook allows every play, and every discard where the
    hand needs one."""
    variant = make_variant("agent-avenue", "mini").as_dict()
    agent = SearchAgent("agent-avenue", variant,
                        AgentConfig(iterations=10, depth=1, needs_only=True))
    games, cut, needed = [], 0, 0

    class Watched(type(agent.game(0))):  # each own decision's rows as the agent solved them
        def policy(self, state):
            p = super().policy(state)
            t, s = self.sol.tree, self.s
            games.append((state.copy(), p, int(t.row_count[t.row[s], self.own]),
                          self.sol is not self.plan))
            return p

    agent.game = lambda seat: Watched(agent, seat)
    seat = 0  # P2 never discards in these games; P1 holds two discards after its first move
    for seed in (11, 12):  # the hand needs a discard at P1's second decision, then not
        games.clear()
        _play(agent, seat, seed)
        for state, p, entries, resolved in games:
            acts = agent.legal(state)
            allowed = L.needed_moves(agent.params, state, seat, acts)
            swaps = (acts >> 20) == R.T_SWAP
            assert p.sum() == pytest.approx(1.0)
            assert allowed[~swaps].all()
            assert allowed[swaps].all() or not allowed[swaps].any()
            if resolved and swaps.any() and not allowed[swaps].any():  # the plan's: whole
                assert p[swaps].sum() == 0.0 and entries == (~swaps).sum()
                cut += 1
            needed += bool(swaps.any() and allowed[swaps].all())
    assert cut >= 1 and needed >= 1
    with pytest.raises(SpycfrError, match="no agent restricted to the moves a hand needs: "
                       r"agent-hunter has no needed_moves hook \(.*\); games with one: "
                       "agent-avenue$"):
        SearchAgent("agent-hunter", make_variant("agent-hunter", "tiny").as_dict(),
                    AgentConfig(needs_only=True))


def test_the_exact_walk_refuses_an_agent_restricted_to_needed_moves():
    """The exact exploitability walk re-solves each public node once for the whole range,
    with no cards and no rules state, so it cannot cut a row by what its cards need
    (AgentConfig.needs_only): it refuses such an agent in one line (before, it measured
    the agent that keeps every move, silently), and a run's exact measure records the
    figure as unknown with that reason."""
    from spycfr.runs.agent_run import exact_measure
    from spycfr.search.agent import NEEDS_ONLY_WALK, agent_exploitability

    variant = make_variant("agent-avenue", "mini").as_dict()
    agent = SearchAgent("agent-avenue", variant,
                        AgentConfig(iterations=2, depth=1, needs_only=True))
    with pytest.raises(SpycfrError, match="cannot measure an agent with needs_only"):
        agent_exploitability(agent)
    with pytest.raises(SpycfrError, match="cannot measure an agent with needs_only"):
        agent_exploitability((SearchAgent("agent-avenue", variant, AgentConfig()), agent))
    assert exact_measure(agent) == {"exploitability": None,
                                    "exploitability_note": f"unknown: {NEEDS_ONLY_WALK}"}


@pytest.mark.slow
def test_the_commands_take_an_agent_avenue_agent(tmp_path):
    """tiny through the commands: solve writes the agent, query values each move (the
    recruitment's values reach past the revealed card) and names the opponent's likely
    hand and face-down card (weighed by card removal), play reviews every move, head-to-head
    and openings run."""
    import json

    from cli_helpers import spycfr

    out = str(tmp_path / "tiny-agent")
    code, _, err = spycfr("solve", "agent-avenue", "--preset", "tiny", "--algorithm",
                          "re-solving", "--iterations", "30", "-o", out, "-q")
    assert code == 0, err
    meta = json.loads(open(f"{out}/run.json").read())
    assert meta["agent"]["depth"] == 2  # the game's default: a turn
    assert meta["agent"]["value_function"] == "rollout"  # the game's default
    assert meta["agent"]["value_function_words"].startswith("games played out to the end")
    code, text, err = spycfr("query", out, "--as", "P2", "deal:?|CB.DD play:EN/? draw:?.?",
                             "--json")
    assert code == 0, err
    q = json.loads(text)
    assert [m["move"] for m in sorted(q["moves"], key=lambda m: m["move"])] == [
        "take:down", "take:up"]
    assert all(m["value"] is not None for m in q["moves"])
    # P1 played both cards and drew 2 (the model draws them after the recruitment)
    assert q["opponent_posterior"][0]["private_state"].startswith("hand 2 drawn, face down ")
    # the opponent's hand with card removal: 2 of EN, CB, DD, DD left (6 pairs)
    code, text, err = spycfr("query", out, "--as", "P1", "deal:EN.CB|?", "--json")
    assert code == 0, err
    post = {p["private_state"]: p["probability"] for p in json.loads(text)["opponent_posterior"]}
    assert post == pytest.approx({"hand CB.DD": 2 / 6, "hand EN.DD": 2 / 6, "hand DD.DD": 1 / 6,
                                  "hand EN.CB": 1 / 6})
    moves = tmp_path / "moves.txt"
    moves.write_text("1\n" * 10)
    code, text, err = spycfr("play", out, "--seat", "P2", "--seed", "2", "--moves",
                             str(moves), "--json")
    assert code == 0, err
    result = json.loads(text)
    assert len(result["review"]) == len(result["moves"]) > 0
    assert all(isinstance(r["value"], float) for r in result["review"])
    assert "never met this position" not in err
    code, text, err = spycfr("head-to-head", out, "heuristic", "--games", "2", "--json")
    assert code == 0, err
    assert json.loads(text)["a_payoff"]["games"] == 2
    code, text, err = spycfr("openings", out, "--json")
    assert code == 0, err


def _public_profile(full, strategies, public) -> np.ndarray:
    """The walk's rows (seat p's decisions from the agent playing p) as the public-tree
    engine's cells, each cell matched to the row action with the same child and next private
    state."""
    from spycfr.public.solver import uniform_strategy

    node = {tuple(full.pub[n].tolist()): n for n in range(full.size)}
    out = uniform_strategy(public)
    for q in np.flatnonzero(np.isin(public.node_player, (0, 1))):
        p = int(public.node_player[q])
        f = node[tuple(public.pub_states[q].tolist())]
        r = full.row[f]
        for e in range(public.live_start[p, q], public.live_start[p, q + 1]):
            i = public.live_priv[e]
            row = public.row_start[q] + e - public.live_start[p, q]
            m = full.row_count[r, i]
            for c in range(public.row_off[row], public.row_off[row + 1]):
                hit = np.flatnonzero((full.row_kid[r, i, :m] == public.ent_kid[c])
                                     & (full.row_next[r, i, :m] == public.ent_next[c]))
                assert hit.size == 1
                out[c] = strategies[p][r, i, hit[0]]
    return out


@pytest.mark.slow
def test_the_exploitability_walk_agrees_with_the_history_tree():
    """The walked agent's best-response values (the search module's dense public tree) are
    the history tree's exact best responses to the same strategy mapped through the public
    engine's tree (its own enumeration, live entries, the game's terminal hook)."""
    from spycfr.exact.best_response import best_response
    from spycfr.games import build_tree, make_game
    from spycfr.public.enumerate import build_public_tree
    from spycfr.public.mapping import HistoryMap
    from spycfr.search.agent import agent_strategies
    from spycfr.search.resolve import best_response_value

    agent = SearchAgent("agent-avenue", make_variant("agent-avenue", "tiny").as_dict(),
                        AgentConfig(iterations=20, depth=1))
    full, strategies, solves = agent_strategies(agent)
    assert solves > 100
    game = make_game("agent-avenue", "tiny")
    public = build_public_tree(game)
    history = build_tree(game)
    mapped = HistoryMap(public, history).strategy(_public_profile(full, strategies, public))
    for seat in (0, 1):
        walk = best_response_value(full, strategies[1 - seat], seat)
        assert walk == pytest.approx(best_response(history, mapped, seat)[0], abs=1e-9)
    assert walk > 0.1  # one move deep with scored-now leaves: far from the game value


def _seats_above(t, n: int) -> tuple[int, ...]:
    """The seats of the decisions above node ``n`` of subtree ``t``, from its root."""
    seats, a = [], int(t.parent[n])
    while a >= 0:
        if int(t.kind[a]) in (0, 1):
            seats.append(int(t.kind[a]))
        a = int(t.parent[a])
    return tuple(reversed(seats))


def test_turn_levels_reach_past_the_recruitment_after_a_swap():
    """subgame's turn_levels (AgentConfig.turn_levels): from P1's first decision, two levels
    of decisions stop at the same seat's next move after a swap, where two levels of turns
    (a seat's run of decisions) go through the swaps, the play and P2's recruitment, and
    stop at P2's next decision, as after a play; after a play both cut at the same place."""
    game = _model("mini", 1)
    current = pp.python_impl(game.params, "current_player")
    first = game.root()  # the deal is private: the public root is P1's first decision
    assert current(first, game.params) == 0
    cuts = {}
    for turns in (False, True):
        t = subgame(game, first, 2, turn_levels=turns)
        cuts[turns] = {_seats_above(t, n) for n in range(t.kind.size)
                       if t.kind[n] == LEAF and current(t.pub[n], game.params) in (0, 1)}
    assert cuts[False] == {(0, 0), (0, 1)}  # a swap, then P1's next move: a leaf
    # mini: two discards a seat, so up to two swaps before the play
    assert cuts[True] == {(0, 1), (0, 0, 1), (0, 0, 0, 1)}


def test_a_needs_only_agents_cut_moves_say_why_they_have_no_value(tmp_path):
    """A needs-only agent's re-solve cuts the swaps its hand does not need (mini with three
    copies of each name: swaps left for P2 after P1's turn): `spycfr query` listed them
    with value '?' and loss '-' and nothing said why (results/agent-avenue/standard's
    P1 'deal:CB.CB.DD.SE|?'). Now each is marked cut, and one line under the table says
    what a cut move is, in the game's words for its rule (needed_moves_words); a review of
    such a move says the same. A hand that needs its swaps gets no such line. The opponent's
    posterior says how many states it holds beyond the eight it shows, and their mass."""
    import json

    from cli_helpers import spycfr

    out = str(tmp_path / "needs")
    code, _, err = spycfr("solve", "agent-avenue", "--preset", "mini", "--copies", "3",
                          "--algorithm", "re-solving", "--needs-only", "--iterations", "5",
                          "--depth", "1", "--value-function", "scored-now", "--endgame", "0",
                          "--plan-endgame", "0", "-o", out, "-q")
    assert code == 0, err
    view = "deal:?|DA.EN.CB play:DA/? draw:?.? take:up=EN"
    code, text, err = spycfr("query", out, "--as", "P2", view, "--json")
    assert code == 0, err
    q = json.loads(text)
    cut = {m["move"] for m in q["moves"] if m["cut"]}
    assert cut == {"swap:DA", "swap:EN", "swap:CB"}
    assert all(m["value"] is None and m["probability"] == 0.0 for m in q["moves"] if m["cut"])
    assert all(m["value"] is not None for m in q["moves"] if not m["cut"])
    assert PLUGIN.needed_moves_words in q["cut_words"]
    # the posterior's states beyond the eight shown are counted, with their mass (a flat
    # posterior's first eight read as the likely ones)
    shown, rest = q["opponent_posterior"], q["opponent_posterior_rest"]
    assert len(shown) == 8 and rest["states"] > 0
    assert sum(p["probability"] for p in shown) + rest["probability"] == pytest.approx(1.0)
    # the source line above the table names the same rule (it said 'the game's rule of
    # needed moves' while the line under the table gave the rule)
    assert f"(needs_only: {PLUGIN.needed_moves_words})" in q["source"]
    code, text, err = spycfr("query", out, "--as", "P2", view)
    assert code == 0, err
    rows = [line.split() for line in text.splitlines() if line.startswith("  swap:")]
    assert rows and all(r[-2:] == ["-", "cut"] for r in rows)
    assert f"  ... {rest['states']:,} more, {rest['probability']:.4f} in all\n" in text
    words = " ".join(text.split())
    assert ("cut (no value): a move these cards do not need: the agent makes only the moves "
            "its cards need (needs_only: a swap only where discarding a card") in words
    # a hand whose swaps its rule keeps: nothing cut, no such line
    code, text, err = spycfr("query", out, "--as", "P2",
                             "deal:?|CB.CB.DD play:DA/? draw:?.? take:up=EN")
    assert code == 0, err
    rows = [line.split() for line in text.splitlines() if line.startswith("  swap:")]
    assert rows and all(r[-1] != "cut" and r[-2] != "-" for r in rows)
    assert "(no value)" not in text
    code, text, err = spycfr("review", out, "--seat", "P2", "--json",
                             "deal:DA.CB.DD|DA.EN.CB play:DA/CB draw:EN.DD take:up=CB "
                             "swap:DA>DD")
    assert code == 0, err
    moves = {m["move"]: m for m in json.loads(text)["games"][0]["seats"]["P2"]["moves"]}
    assert moves["swap:DA"]["loss"] is None and moves["swap:DA"]["cut"]
    assert "; not valued: a move these cards do not need" in moves["swap:DA"]["words"]
    assert not moves["take:up"]["cut"] and moves["take:up"]["loss"] is not None


def test_a_needs_only_agents_first_move_in_play_is_cut_as_its_query_cuts_it():
    """A game walks the deal a chance step at a time (P1's hand, then P2's): the agent as
    P1 re-solved its first move once its own hand was dealt, at a rules state where the
    deal was still to finish, and cut its row by what its cards need there: nothing (a
    chance node has no moves to refuse), so the swaps its hand does not need stayed.
    results/agent-avenue/standard swapped DA 99.2% holding DA.DA.SA.SE in `spycfr play`
    (seed 3), which its query and review say it never does (they walk the deal as one
    token). Now the first move is re-solved once the deal is done: the swaps the rule
    refuses get nothing."""
    mini = make_variant("agent-avenue", "mini", {"copies": 3})
    agent = SearchAgent("agent-avenue", mini.as_dict(),
                        AgentConfig(iterations=5, depth=1, value_function="rollout",
                                    needs_only=True))
    inner = agent.values.inner
    inner.budget, inner.focus_samples = 10, 8
    impl = P.implementations(agent.params)
    buf, probs = np.empty(64, np.int32), np.empty(64)
    rng = np.random.default_rng(5)
    checked = 0
    for _ in range(40):
        state, game = agent.initial(), agent.game(0)
        while int(impl["current_player"](state, agent.params)) not in (0, 1):  # the deal
            k = int(impl["chance_outcomes"](state, agent.params, buf, probs))
            state = agent.after(state, int(buf[rng.choice(k, p=probs[:k] / probs[:k].sum())]))
            game.observe(state)
        acts = agent.legal(state)
        allowed = np.asarray(PLUGIN.needed_moves(agent.params, state, 0, acts), bool)
        if allowed.all():
            continue  # a hand that needs a swap: nothing cut
        played = game.policy(state)
        assert played[~allowed].sum() == 0.0, (played, allowed)
        checked += 1
        if checked == 2:
            break
    assert checked == 2
