"""A search agent's move values (``AgentGame.move_info``: what `query` and `play`'s review
show). Agent Avenue: below a swap's private draw, exact where its public model is exact
(discards kept), and on the model forgetting discards (the full game's search model) the
weight a discard would gain or lose, which put the full game's swap values outside [-1, 1]
(issue 23's `query ... "deal:CB.SA.SK.MO|?"`: swap:SA +2.759; docs/search.md), carried by
the swap's draw; its rollout leaves over the budget within the payoff range. Agent Hunter:
no such weight."""

from __future__ import annotations

import numpy as np
import pytest

from spycfr.engine import protocol as P
from spycfr.games import get_plugin, make_variant
from spycfr.games.agent_avenue import forget as FGT
from spycfr.games.agent_avenue import leaf as L
from spycfr.games.agent_avenue import moves as MOV
from spycfr.games.agent_avenue import multiset as MS
from spycfr.games.agent_avenue import numbering as NUM
from spycfr.games.agent_avenue import public as AP
from spycfr.games.agent_avenue import rules as R
from spycfr.public import protocol as pp
from spycfr.search import passes
from spycfr.search.agent import AgentConfig, SearchAgent
from spycfr.search.continuation import Continuations
from spycfr.search.leafvalues import ExactTerminals, value_function
from spycfr.search.resolve import fixed, solve
from spycfr.search.subgame import subgame
from spycfr.search.tree import GameModel


def _swaps(forget: int):
    """mini's public root (P1 to play, two discards left) two decision levels deep, and for
    each P1 hand and swap: (hand, W at the root, the state after the discard, W at the
    swap's draw, the sum over the draw of its probability times W after it)."""
    game = GameModel.of(make_variant("agent-avenue", "mini").to_params()._replace(
        forget=np.int64(forget)))
    params, t = game.params, subgame(game, game.root(), 2)
    q, c = t.row[0], t.first[0]  # the swap label is the root's first child
    assert t.kind[c] == pp.PRIVATE_CHANCE and t.pub[c][R.PHASE] == R.PH_SWAP_DRAW
    f, qc = t.first[c], t.row[c]
    w0, wc, wf = (L.weights(t.pub[n], params, *game.n) for n in (0, c, f))
    out = []
    for i in np.flatnonzero(game.weights[0][1:]) + 1:  # DEAD (0) holds no cards
        for e in range(t.row_count[q, i]):
            if t.row_kid[q, i, e] == 0:
                j = t.row_next[q, i, e]
                drawn = sum(t.row_prob[qc, j, x] * wf[t.row_next[qc, j, x]]
                            for x in range(t.row_count[qc, j]))
                out.append((i, w0[i], j, wc[j], drawn))
    return game, t, out


def test_the_exact_model_keeps_a_hands_weight_through_a_swap():
    """Discards kept: the card-removal weight W of every pair is the same before a swap, at
    its draw and, summed over the draw, after it (the model's probabilities times W are the
    deck's, whatever the discard), so values below a swap are on the scale of those
    beside it."""
    _, _, swaps = _swaps(0)
    assert len(swaps) > 20
    for _, before, _, at_draw, drawn in swaps:
        assert np.allclose(at_draw, before, rtol=1e-12, atol=0)
        assert np.allclose(drawn, before, rtol=1e-12, atol=0)


def test_the_forgetful_model_keeps_a_hands_weight_on_average_through_a_swap():
    """Discards forgotten (the full game's search model): a discarded card leaves the cards
    W weighs, which multiplies each pair's weight by (N - K + 1) / (n (c_d - D_d + 1)) (K
    cards out of the deck before it, D_d of the discarded name d among them with both
    hands, c_d its copies): the probability of having held that card replaced by the
    model's 1/n (on mini 3/4 or 3/8 a pair; on the full game 31/8 for a one-copy name at
    the first move), so a swap was valued by the card it discards. Now the state keeps d
    until the swap's draw, whose probabilities carry n (c_d - P_d - H_d) / (N - P - H) (P
    in play, H the mover's hand after the discard: n times the chance that a card it has
    not seen is a d): pair by pair W at the draw is W before times both factors (not 1:
    the opponent's copies of d are not in the second), and summed over the opponent's hands
    as the deal draws them it is W before, for every hand and discard; the draw passes it
    on."""
    game, t, swaps = _swaps(1)
    params = game.params
    total = int(np.sum(params.copies[:params.n]))
    out = total - int(t.pub[0][R.DECKSIZE])  # the two hands
    prior = game.weights[1]
    ratios = set()
    for i, before, j, at_draw, drawn in swaps:
        hand = NUM.decode(params, False, params.hand, 0, i)[0]
        kept, _, d = NUM.decode(params, True, params.hand - 1, 0, j)
        assert MS.digit(hand - kept, d) == 1 and hand - kept == MS.unit_code(d)
        settle = params.n * (params.copies[d] - MS.digit(kept, d)) / (total - params.hand + 1)
        assert FGT.discard_weight(t.pub[0], params, kept, d) == pytest.approx(settle, rel=1e-12)
        assert np.allclose(drawn, at_draw, rtol=1e-12, atol=0)
        for y in np.flatnonzero(before):
            theirs = L._held(t.pub[0], params, 1, y)
            held = MS.digit(hand, d) + MS.digit(theirs, d)
            factor = (total - out + 1) / (params.n * (params.copies[d] - held + 1))
            assert at_draw[y] == pytest.approx(before[y] * factor * settle, rel=1e-12)
            ratios.add(round(float(factor), 12))
        assert prior @ at_draw == pytest.approx(prior @ before, rel=1e-12)
    assert ratios == {0.375, 0.75}


def _after(pub, params, label):
    out = np.empty_like(pub)
    AP.apply_action(pub, params, np.int32(label), out)
    return out

def _first_moves_fixed(agent, state):
    """P1's move values at ``state`` (the agent's subgame, a private chance first) with every
    later decision fixed to its first action (a swap for P1, the face-up card for P2), so
    that each move's value is one line's, computable by hand: (the subgame's tree, move info)."""
    game = agent.game(0)
    game.observe(state)
    t = game.sol.tree
    assert t.leaves.size and t.kind[t.first[0]] == pp.PRIVATE_CHANCE
    sigma = np.zeros(t.row_kid.shape)
    passes.uniform(t.kind, t.row, t.row_count, sigma)
    for n in np.flatnonzero((t.kind == 0) | (t.kind == 1))[1:]:
        live = t.row_count[t.row[n]] > 0
        sigma[t.row[n], live] = 0.0
        sigma[t.row[n], live, 0] = 1.0  # a swap (P1), the face-up card (P2)
    game.sol, game.s = fixed(t, sigma, agent.model.weights, agent.values), 0
    return t, game.move_info(state, 0)



@pytest.mark.parametrize("forget", [0, 1])
def test_move_values_below_a_swaps_draw_are_the_values_of_their_lines(monkeypatch, forget):
    """P1's first move on mini, two decision levels deep, leaves scored as they stand, a
    fixed strategy below (P1 swaps again after its draw, P2 takes the face-up card): each
    line then ends at a leaf whose value is the public estimate alone, whatever the hands,
    so each move's true value is that estimate (or the payoff at the end): the independent
    computation. Every value shown equals it (to 1e-7: the leaves' W is kept in single
    precision) and lies in [-1, 1], on the exact model and on the one that forgets discards
    (P2's range is the deal's here, over which a swap's draw keeps the weight: test above).
    Before the draw carried the discard's weight, each swap's value on the forgetful model
    was scaled by the weight its second discard gains or loses (0.875 here): the full
    game's out-of-range values."""
    if forget:
        monkeypatch.setattr(L, "EXACT_LIMIT", 0)
    agent = SearchAgent("agent-avenue", make_variant("agent-avenue", "mini").as_dict(),
                        AgentConfig(iterations=1, depth=2, value_function="scored-now"))
    params = agent.params
    assert params.forget == forget
    state = P.implementations(params)["initial_state"](params)
    for hand in ([1, 1, 1, 0], [0, 1, 1, 1]):  # P1 DA.EN.CB, P2 EN.CB.DD
        state = agent.after(state, int(R.draw_code(np.array(hand), 4)))
    t, info = _first_moves_fixed(agent, state)
    root = agent.public(state)
    want = np.empty(len(info.actions))
    for x, a in enumerate(info.actions):
        if a >> 20 == R.T_SWAP:
            end = root
            for label in (MOV.SWAP_LABEL, 0, MOV.SWAP_LABEL, 0):  # swap, draw, swap, draw
                end = _after(end, params, label)
        else:
            up, down = (a >> 3) & 7, a & 7
            end = _after(root, params, (R.T_PLAY << 20) | (up << 3) | 7)
            end = _after(_after(end, params, (R.T_TAKE << 20) | R.TAKE_UP), params, down)
            if end[R.PHASE] != R.PH_OVER:
                end = _after(end, params, 0)  # P1's refill
        assert end[R.PHASE] == R.PH_OVER or (end[R.PHASE] == R.PH_PLAY
                                             and t.find(end) in set(t.leaves))
        want[x] = ((1.0 if end[R.WINNER] == 0 else -1.0) if end[R.PHASE] == R.PH_OVER
                   else L.estimate(end, params))
    swap = (info.actions >> 20) == R.T_SWAP
    assert swap.sum() == 3 and (~swap).sum() == 6
    assert np.allclose(info.values[~swap], want[~swap], rtol=0, atol=1e-7)
    assert np.allclose(info.values, want, rtol=0, atol=1e-7)
    assert (np.abs(info.values) <= 1).all()


def test_rollout_leaves_over_the_budget_stay_within_the_payoff_range():
    """The agent's own cards valued by rollouts (over the budget: each leaf's row against
    16 opposing hands drawn at the solve's first call): the value is the games' payoffs
    over their card-removal weights times the current opposing mass under those weights,
    so, divided by that mass (what move_info does), it lies in [-1, 1], and it is 0 where
    the opposing range holds only hands the row cannot meet. Valued by the plain mean times
    the unweighted mass, 131 of 530 rows here were outside [-1, 1] (up to 634): the solve
    moves the opposing range below P2's recruitment, and the mass did not follow its card
    removal."""
    game = GameModel.of(make_variant("agent-avenue", "small").to_params())
    plugin = get_plugin("agent-avenue")
    t = subgame(game, game.root(), 2)
    fallback = value_function("scored-now", game, plugin)
    inner = Continuations(game, plugin.rollouts, (0,), fallback, budget=0, focus_samples=16,
                          pair_weights=plugin.pair_weights)
    vf = ExactTerminals(inner, game, fallback)
    own = NUM.index(game.params, False, 3, 0, np.int64(0x111), 0, NUM.NO_NAME)  # DA.EN.CB
    vf.focus(0, int(own), t)
    sol = solve(t, game.weights, 20, vf)
    leaf, rows, _, _ = inner._focus_values[0]
    assert rows.size > 100
    nodes = t.leaves[leaf]
    w = [L.weights(t.pub[n], game.params, *game.n)[i] for n, i in zip(nodes, rows, strict=True)]
    mass = np.array([wi @ sol.reach[1][n] for wi, n in zip(w, nodes, strict=True)])
    live = mass > 1e-12
    value = sol.values[0][nodes, rows][live] * game.z / mass[live]
    assert live.sum() > 100 and np.abs(value).max() <= 1 + 1e-9
    assert np.abs(value).max() > 0.5  # not all 0
    # each leaf's opposing range on the hands its first row cannot meet: that row's value 0
    ends = np.array([AP.current_player(p, game.params) == pp.TERMINAL for p in t.pub[t.leaves]])
    assert not ends.any()  # the inner function saw every leaf: its leaf indices are these
    r0, r1 = sol.reach[0][t.leaves], np.zeros((t.leaves.size, game.n[1]))
    first = {int(lf): (int(i), wi)  # the first row at each leaf
             for lf, i, wi in zip(leaf[::-1], rows[::-1], w[::-1], strict=True)}
    for lf, (_, wi) in first.items():
        r1[lf] = (wi == 0) * sol.reach[1][t.leaves[lf]]
    v0, _ = inner.values(t.pub[t.leaves], r0, r1)
    cut = [lf for lf in first if r1[lf].any()]
    assert len(cut) > 5
    assert all(v0[lf, first[lf][0]] == 0.0 for lf in cut)


def test_agent_hunters_move_values_stay_within_the_payoff_range():
    """Agent Hunter's private transitions (a switch, a refill) are the mover's too, but its
    model has no card removal between the decks (compatibility all ones, no pair weights),
    so they never change the opposing mass a move's value is divided by: the agent's and
    the opponent's move values (against the agent's range) on tiny, its rollout leaves over
    the budget as on the full game, lie in [-1, 1] (to rounding)."""
    plugin = get_plugin("agent-hunter")
    assert plugin.pair_weights is None
    agent = SearchAgent("agent-hunter", make_variant("agent-hunter", "tiny").as_dict(),
                        AgentConfig.default("agent-hunter", plan_endgame=0, endgame=0,
                                            iterations=30))
    assert (agent.model.compat == 1).all()
    agent.values.inner.budget = 0
    params = agent.params
    impl = P.implementations(params)
    values = []
    for seat in (0, 1):
        rng = np.random.default_rng(seat)
        state, game = impl["initial_state"](params), agent.game(seat)
        codes, probs = np.empty(400, np.int32), np.empty(400)
        while (cp := impl["current_player"](state, params)) != P.TERMINAL:
            if cp in (0, 1):
                info = game.move_info(state, cp)
                values.extend(info.values[~np.isnan(info.values)])
                p = info.probs
                a = agent.legal(state)[rng.choice(len(p), p=p / p.sum())]
            else:
                k = impl["chance_outcomes"](state, params, codes, probs)
                a = codes[rng.choice(k, p=probs[:k] / probs[:k].sum())]
            state = agent.after(state, int(a))
            game.observe(state)
    values = np.array(values)
    assert values.size > 30 and np.abs(values).max() <= 1 + 1e-9
    assert np.abs(values).max() > 0.5


# --- advanced mode: its model forgets discards too (always), repaired as simple mode's ---

SUPPLY = (1 << 0) | (1 << 1) | (1 << 2)  # DEVICE.WATCHTOWER.TWIN (the openings' supply)


def _advanced_root(game: GameModel) -> np.ndarray:
    """Advanced mode's public state after the market: P1 to play, both hands of 4."""
    from spycfr.games.agent_avenue import public_advanced as PA

    out = np.empty_like(game.root())
    PA.apply_action(game.root(), game.params, np.int32(SUPPLY), out)
    assert out[R.PHASE] == R.PH_PLAY
    return out


def test_advanced_mode_keeps_a_hands_weight_on_average_through_a_swap():
    """Advanced mode's model (2,641 states a seat, discards always forgotten): as simple
    mode's full game, a discard multiplies each pair's W by (N - K + 1) / (n (c_d - D_d +
    1)) (31/8 for a one-copy name, Sidekick or Mole, at the first move: the source of its
    query values above 1), so the mover's state keeps the name until the swap's draw, whose
    probabilities carry forget.py's ``discard_weight``: W at the draw is W before times both
    factors pair by pair, and summed over P2's hands as the deal draws them it is W before,
    for every hand of P1 and every discard; the draw passes it on. Before the repair W at
    the draw was W before times the first factor alone."""
    from spycfr.games.agent_avenue import make_game

    game = GameModel.of(make_game("advanced").params)
    params, root = game.params, _advanced_root(game)
    t = subgame(game, root, 1)
    q, c = t.row[0], t.first[0]  # the swap label is the root's first child
    assert t.kind[c] == pp.PRIVATE_CHANCE and t.pub[c][R.PHASE] == R.PH_SWAP_DRAW
    f, qc = t.first[c], t.row[c]
    w0, wc, wf = (L.weights(t.pub[n], params, *game.n) for n in (0, c, f))
    total = int(np.sum(params.copies[:params.n]))
    prior = game.weights[1]
    ratios, settles, swaps = set(), set(), 0
    for i in np.flatnonzero(game.weights[0][1:]) + 1:
        hand = NUM.decode(params, False, params.hand, 0, i)[0]
        for e in range(t.row_count[q, i]):
            if t.row_kid[q, i, e] != 0:
                continue
            j = t.row_next[q, i, e]
            kept, _, d = NUM.decode(params, True, params.hand - 1, 0, j)
            assert hand - kept == MS.unit_code(d)
            settle = params.n * (params.copies[d] - MS.digit(kept, d)) / (total - params.hand + 1)
            assert FGT.discard_weight(root, params, kept, d) == pytest.approx(settle, rel=1e-12)
            drawn = sum(t.row_prob[qc, j, x] * wf[t.row_next[qc, j, x]]
                        for x in range(t.row_count[qc, j]))
            assert np.allclose(drawn, wc[j], rtol=1e-12, atol=1e-300)
            assert prior @ wc[j] == pytest.approx(prior @ w0[i], rel=1e-12)
            settles.add(round(float(settle), 12))
            swaps += 1
            if swaps % 40 and params.copies[d] > 1:
                continue
            for y in np.flatnonzero(w0[i]):  # pair by pair: a one-copy name, every 40th
                theirs = L._held(root, params, 1, y)
                held = MS.digit(hand, d) + MS.digit(theirs, d)
                factor = (total - 2 * params.hand + 1) / (params.n * (params.copies[d] - held + 1))
                assert wc[j, y] == pytest.approx(w0[i, y] * factor * settle, rel=1e-12)
                ratios.add(round(float(factor), 12))
    assert swaps > 700 and 31 / 8 in {round(r, 12) for r in ratios} and len(settles) == 5


@pytest.mark.parametrize("hand", [[1, 1, 1, 0, 0, 0, 1, 0], [0, 0, 2, 0, 1, 0, 0, 1]])
def test_advanced_move_values_below_a_swaps_draw_are_the_values_of_their_lines(hand):
    """Advanced mode, P1's first move at the openings' supply, two decision levels deep,
    leaves scored as they stand, a fixed strategy below (P1 swaps again after its draw, P2
    takes the face-up card; a black market take there is a leaf): each line ends at a leaf
    whose value is the public estimate alone, so each move's true value is that estimate
    (or the payoff at the end): the independent computation. Every value shown equals it
    (to 1e-7: the leaves' W in single precision) and lies in [-1, 1], the swaps too (P2's
    range the deal's, over which a swap's draw keeps the weight: test above). Before the
    repair the swaps' values were scaled by the weight their discards gained or lost
    (31/8 for a Sidekick or Mole)."""
    from spycfr.games.agent_avenue import advanced as A
    from spycfr.games.agent_avenue import public_advanced as PA

    agent = SearchAgent("agent-avenue", {"mode": "advanced"},
                        AgentConfig(iterations=1, depth=2, plan_depth=2,
                                    value_function="scored-now"))
    params = agent.params
    state = A.initial_state(params)
    for code in (R.draw_code(np.array(hand), 8),  # P1: DA.EN.CB.SK or CB.CB.DD.MO
                 R.draw_code(np.array([0, 1, 1, 0, 1, 1, 0, 0]), 8), SUPPLY):  # P2 EN.CB.DD.SE
        state = agent.after(state, int(code))
    t, info = _first_moves_fixed(agent, state)
    root = agent.public(state)

    def after(pub, label):
        out = np.empty_like(pub)
        PA.apply_action(pub, params, np.int32(label), out)
        return out

    leaves = {int(n) for n in t.leaves}
    want = np.empty(len(info.actions))
    for x, a in enumerate(info.actions):
        if a >> 20 == R.T_SWAP:
            end = root
            for label in (MOV.SWAP_LABEL, 0, MOV.SWAP_LABEL, 0):  # swap, draw, swap, draw
                end = after(end, label)
        else:
            up, down = (a >> 3) & 7, a & 7
            end = after(root, (R.T_PLAY << 20) | (up << 3) | 7)
            end = after(after(end, (R.T_TAKE << 20) | R.TAKE_UP), down)  # take, signal
            end = after(end, 0)  # P1's refill; then the black market, or P2's turn
        over = end[R.PHASE] == R.PH_OVER
        assert over or t.find(end) in leaves
        want[x] = ((1.0 if end[R.WINNER] == 0 else -1.0) if over
                   else L.estimate(end, params))
    swap = (info.actions >> 20) == R.T_SWAP
    assert swap.sum() == sum(c > 0 for c in hand) and (~swap).sum() > 5
    assert np.allclose(info.values, want, rtol=0, atol=1e-7)
    assert (np.abs(info.values) <= 1).all()
