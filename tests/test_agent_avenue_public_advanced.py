"""Agent Avenue's advanced mode on the public-state model (public_advanced.py) against its
history rules (advanced.py), along random seeded whole games: at every step the public
model, from the public state of the history state before it, reaches the public state of
the history state after it (the history's move as a public label, or its chance outcome,
then the public model's own steps: the signal and the refill after a recruitment); each
seat's private state follows the history (the mover's by its private action or draw, the
other's unchanged); the labels the mover's state may take are the labels of the history's
legal moves; the terminal payoff is the rules' probability of the game's draws over the
model's, times the result.

Advanced mode has no enumerable variant (only the full deck and board 14), so the
whole-tree checks of tests/test_public_conformance.py cannot run on it (it registers, and
the suite skips it as too big): these games are its conformance."""

from __future__ import annotations

import math

import numpy as np
import pytest

from spycfr.games.agent_avenue import advanced as A
from spycfr.games.agent_avenue import forget as FGT
from spycfr.games.agent_avenue import make_game
from spycfr.games.agent_avenue import moves as MOV
from spycfr.games.agent_avenue import multiset as MS
from spycfr.games.agent_avenue import numbering as NUM
from spycfr.games.agent_avenue import public as AP
from spycfr.games.agent_avenue import public_advanced as PA
from spycfr.games.agent_avenue import rules as R
from spycfr.public import protocol as pp
from spycfr.public.protocol import CHANCE, PRIVATE_CHANCE, TERMINAL
from test_agent_avenue_public import _model_probability  # multinomial / n^k

PARAMS = make_game("advanced").params
N = int(PARAMS.n)
PICKED = (A.DOUBLE, A.SECRET, A.OUTPOST)


def _pub(state):
    out = np.empty_like(state)
    PA.public_of_history(state, PARAMS, out)
    return out


def _priv(state, seat):
    return int(PA.private_of_history(state, PARAMS, seat))


def _apply(pub, code):
    out = np.empty_like(pub)
    PA.apply_action(pub, PARAMS, code, out)
    return out


def _labels(pub):
    buf = np.empty(PA.max_actions(PARAMS), np.int32)
    return [int(x) for x in buf[:PA.legal_actions(pub, PARAMS, buf)]]


def _private_actions(pub, i):
    """(label code, next state) of state i of the seat to move at ``pub``."""
    labels = _labels(pub)
    kids = np.empty(PA.max_private_actions(PARAMS), np.int32)
    nexts = np.empty_like(kids)
    m = PA.private_actions(pub, PARAMS, i, len(labels), kids, nexts)
    return [(labels[kids[e]], int(nexts[e])) for e in range(m)]


def _private_chance(pub, i):
    nexts = np.empty(PA.max_private_actions(PARAMS), np.int32)
    probs = np.empty(len(nexts))
    m = PA.private_chance(pub, PARAMS, i, nexts, probs)
    return {int(nexts[e]): float(probs[e]) for e in range(m)}


def _chance(pub):
    codes = np.empty(PA.max_actions(PARAMS), np.int32)
    probs = np.empty(len(codes))
    k = PA.chance_outcomes(pub, PARAMS, codes, probs)
    return {int(codes[e]): float(probs[e]) for e in range(k)}


def _label(state, action):
    """The public label of a history move (the face-down card and the discard hidden), or
    of a forced effect that takes from the resolver's hand (Outpost; an ignored pick)."""
    if state[R.PHASE] == R.PH_PLAY:
        if action >> 20 == R.T_SWAP:
            return MOV.SWAP_LABEL
        return (action & ~7) | 7
    return action


def _history_chance(state):
    codes = np.empty(A.max_actions(PARAMS), np.int32)
    probs = np.empty(len(codes))
    k = A.chance_outcomes(state, PARAMS, codes, probs)
    return codes[:k], probs[:k]


def _history_legal(state):
    buf = np.empty(A.max_actions(PARAMS), np.int32)
    return [int(x) for x in buf[:A.legal_actions(state, PARAMS, buf)]]


def _play_game(seed, seen, swaps, weights=None):
    """One random game on the history rules (with swaps or none), each step checked
    against the public model; returns the terminal history state, the public state, the
    rules' probability of the draws and Smoke Screen's card, the model's. ``seen`` collects
    the phases, cards and effects, ``weights`` the weight each swap's draw carries (the
    mover's state keeps the name discarded until the draw, the rules' SWAPPED)."""
    rng = np.random.default_rng(seed)
    s = A.initial_state(PARAMS)
    pub = _pub(s)
    assert np.array_equal(pub, PA.initial_state(PARAMS))
    p_rules = p_model = 1.0
    pending = -1  # the mover's state right after its play (its face-down card pending)
    w = np.empty(PA.num_private(PARAMS, 0))
    while A.current_player(s, PARAMS) != TERMINAL:
        ph = int(s[R.PHASE])
        who = int(A.current_player(s, PARAMS))
        if who == CHANCE:
            codes, probs = _history_chance(s)
            e = rng.integers(len(codes))
            h, q = int(codes[e]), float(probs[e])
        else:
            legal = _history_legal(s)
            if not swaps:
                legal = [a for a in legal if a >> 20 != R.T_SWAP or ph != R.PH_PLAY]
            h, q = legal[rng.integers(len(legal))], 1.0
        t = np.empty_like(s)
        A.apply_action(s, PARAMS, h, t)
        seen.add((ph, int(s[A.CARD]), h if ph == A.PH_EFFECT else -1))
        before = [_priv(s, x) for x in (0, 1)]
        after = [_priv(t, x) for x in (0, 1)]
        if ph in (R.PH_DEAL0, R.PH_DEAL1):  # the root's prior
            x = ph - R.PH_DEAL0
            AP.initial_weights(PARAMS, x, w)  # shared with simple mode
            assert w[after[x]] == pytest.approx(_model_probability(h, N))
            p_rules *= q
            p_model *= _model_probability(h, N)
        elif ph == R.PH_REFILL:  # drawn after the recruitment in the public tree
            assert np.array_equal(_pub(t), pub)
            p_rules *= q
            p_model *= _model_probability(h, N)
            s = t
            continue
        elif who == CHANCE and ph in (R.PH_SWAP_DRAW, A.PH_HAND_DRAW):
            x = int(s[R.ACTIVE]) if ph == R.PH_SWAP_DRAW else int(s[A.BMP])
            assert PA.current_player(pub, PARAMS) == PRIVATE_CHANCE + x
            draws = _private_chance(pub, before[x])
            weight = 1.0
            if ph == R.PH_SWAP_DRAW:
                hs = int(s[R.HANDSIZE + x])
                assert PA.keeps_name(pub, PARAMS, x) == (hs <= PA.MAX_HAND - 2)
                hand, _, d = NUM.decode(PARAMS, True, hs, 0, before[x])
                assert d == s[A.SWAPPED] and hand == NUM.code_of(s, R.HAND + 8 * x, N)
                weight = FGT.discard_weight(pub, PARAMS, hand, d)
                assert PA.state_weight(pub, PARAMS, x, before[x]) == weight
                assert sum(draws.values()) == pytest.approx(weight)
                assert t[A.SWAPPED] == 0
                if weights is not None:
                    weights.append(weight)
            assert draws[after[x]] == pytest.approx(_model_probability(h, N) * weight)
            assert after[1 - x] == before[1 - x]
            p_rules *= q
            p_model *= _model_probability(h, N)
            pub = _apply(pub, 0)
        elif who == CHANCE and not (ph == A.PH_EFFECT and s[A.CARD] in PICKED):
            assert PA.current_player(pub, PARAMS) == CHANCE
            outcomes = _chance(pub)
            if ph == A.PH_EFFECT and s[A.CARD] == A.SMOKE and s[R.DECKSIZE] > 0:
                assert outcomes[h] == pytest.approx(1.0 / N)
                p_rules *= q
                p_model *= 1.0 / N
            else:  # the market, the supply, a forced effect: as the rules
                assert outcomes[h] == pytest.approx(q)
            assert after == before
            pub = _apply(pub, h)
        else:  # a decision, or a pick (a forced effect that takes from the hand)
            x = who if who != CHANCE else int(s[A.BMP])
            assert PA.current_player(pub, PARAMS) == x
            moves = _private_actions(pub, before[x])
            allowed = {_label(s, a) for a in (_history_legal(s) if who != CHANCE else [h])}
            assert {lab for lab, _ in moves} == allowed
            assert set(_labels(pub)) >= allowed
            if ph != R.PH_RECRUIT:
                assert (_label(s, h), after[x]) in moves
            if ph == R.PH_PLAY and h >> 20 == R.T_PLAY:
                pending = after[x]
            if ph == R.PH_PLAY and h >> 20 == R.T_SWAP:  # the name kept until the draw
                assert t[A.SWAPPED] == h & 7 and t[R.PHASE] == R.PH_SWAP_DRAW
                assert NUM.decode(PARAMS, True, int(t[R.HANDSIZE + x]), 0, after[x])[2] == h & 7
            pub = _apply(pub, _label(s, h))
            if ph == R.PH_RECRUIT:  # the signal, then the mover's refill
                a = int(s[R.ACTIVE])
                assert PA.current_player(pub, PARAMS) == CHANCE
                d = int(s[R.DOWN])
                assert d in _chance(pub)
                mask = np.empty(PA.num_private(PARAMS, a))
                PA.chance_mask(pub, PARAMS, d, a, mask)
                assert mask[pending] == 1.0
                assert mask.sum() < mask.shape[0] / 2  # other pending cards ruled out
                pub = _apply(pub, d)
                assert PA.current_player(pub, PARAMS) == PRIVATE_CHANCE + a
                assert _private_chance(pub, pending)[after[a]] > 0
                pub = _apply(pub, 0)
            else:
                assert after[1 - x] == before[1 - x]
        assert np.array_equal(pub, _pub(t)), (seed, ph, h)
        for x in (0, 1):
            assert 0 < after[x] < PA.num_private(PARAMS, x) or (
                after[x] == -1 and t[R.PHASE] == R.PH_DEAL1 and x == 1)
        s = t
    return s, pub, p_rules, p_model


def test_random_advanced_games_follow_the_history():
    """40 random games: every step as the module docstring says; between them every
    instant card resolved, Outpost recruiting a Sentinel, takes and hand draws. In the 20
    games without a swap the terminal payoff is the rules' probability of the draws over
    the model's times the result (the model forgets discards, and with them the card
    removal a discarded card makes: an abstraction, payoff.py's ``scale_of``). In the
    others each swap's draw carries the discard's weight, the mover's state keeping the
    name until then."""
    seen: set = set()
    weights: list[float] = []
    for seed in range(40):
        s, pub, p_rules, p_model = _play_game(seed, seen, swaps=seed % 2 == 0,
                                              weights=weights)
        assert PA.current_player(pub, PARAMS) == TERMINAL
        if seed % 2 == 0:
            continue
        assert s[R.DLEFT] == s[R.DLEFT + 1] == PARAMS.discards
        i, j = _priv(s, 0), _priv(s, 1)
        u = 1.0 if s[R.WINNER] == 0 else -1.0
        assert PA.terminal_payoff(pub, PARAMS, i, j) == pytest.approx(
            u * p_rules / p_model, rel=1e-9)
        n0 = PA.num_private(PARAMS, 0)
        opp = np.zeros(n0)
        opp[j] = 0.5
        out = np.empty(n0)
        PA.terminal_values(pub, PARAMS, 0, opp, np.ones((1, 1)), out)
        assert out[i] == pytest.approx(0.5 * u * p_rules / p_model, rel=1e-9)
    cards = {c for ph, c, _ in seen if ph == A.PH_BM_SUPPLY or ph == A.PH_BM_TAKE}
    resolved = {c for ph, c, _ in seen if ph in (A.PH_CHOOSE, A.PH_EFFECT)}
    assert resolved >= set(range(A.N_ONGOING, A.N_BM)), resolved
    assert cards and (A.PH_HAND_DRAW, -1, -1) in {(ph, -1, -1) for ph, _, _ in seen}
    assert (A.PH_EFFECT, A.OUTPOST, A.SE) in seen  # Outpost recruiting a Sentinel
    assert len(weights) > 40 and len({round(w, 9) for w in weights}) > 5


def test_an_instant_that_takes_from_the_hand_is_its_resolvers_pick():
    """Double Trouble: a label per name of which two can be in hand, then "none"; a hand
    holding two Enforcers and two Codebreakers may recruit either, a hand of four names
    only "none" (the ability ignored), the hand less the agent recruited."""
    s = A.initial_state(PARAMS)
    pub = _pub(s)
    pub[R.PHASE] = PA.PH_PICK
    pub[A.BMP] = 0
    pub[A.CARD] = A.DOUBLE
    pub[R.HANDSIZE] = 4
    pub[R.PLAY + 8 + 6] = 1  # P2's Sidekick (the only one) in play
    labels = _labels(pub)
    names = [c & 7 for c in labels[:-1]]
    assert names == [0, 1, 2, 3, 4, 5] and labels[-1] == A.EFF_NONE  # no pair of SK, MO

    def hand(counts):
        code = sum(int(c) << (MS.SHIFT * t) for t, c in enumerate(counts))
        return int(PA.index(PARAMS, False, sum(counts), 0, code, 0, PA.NO_NAME))

    got = _private_actions(pub, hand([0, 2, 2, 0, 0, 0, 0, 0]))
    assert got == [(labels[1], hand([0, 1, 2, 0, 0, 0, 0, 0])),
                   (labels[2], hand([0, 2, 1, 0, 0, 0, 0, 0]))]
    assert _private_actions(pub, hand([1, 1, 1, 1, 0, 0, 0, 0])) == [
        (A.EFF_NONE, hand([1, 1, 1, 1, 0, 0, 0, 0]))]
    child = _apply(pub, labels[1])  # an Enforcer recruited: P1 moves 1
    assert child[R.HANDSIZE] == 3 and child[R.PLAY + 1] == 1 and child[A.POS] == 1
    assert child[A.LOC + A.DOUBLE] == A.L_DISCARD
    assert pp.has_public(PARAMS)


def _decisions(games, seed):
    """History states at decisions and refills (a recruitment's public state) of random
    games, where both seats' private states are known."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(games):
        s = A.initial_state(PARAMS)
        while A.current_player(s, PARAMS) != TERMINAL:
            known = min(_priv(s, 0), _priv(s, 1)) > 0
            if known and s[R.PHASE] == R.PH_REFILL:
                out.append(s)
            if A.current_player(s, PARAMS) == CHANCE:
                codes, probs = _history_chance(s)
                h = int(codes[rng.choice(len(codes), p=probs / probs.sum())])
            else:
                if known:
                    out.append(s)
                legal = _history_legal(s)
                h = legal[rng.integers(len(legal))]
            t = np.empty_like(s)
            A.apply_action(s, PARAMS, h, t)
            s = t
    return out


def test_a_rollout_starts_from_the_real_game():
    """At decisions of random games (the black market's included), the rollout's game from
    the public state and both private states is the history's but for the unseen cards:
    the same hands, play, black market and public state; the deck and the drawn discards
    together the history's deck and discards. Rollouts are reproducible from their seeds
    and weigh their payoff by card removal (|value| <= the pair's ratio)."""
    from spycfr.games.agent_avenue import PLUGIN
    from spycfr.games.agent_avenue.leaf import leaf_base, leaf_scale, pair_weight, weights
    from spycfr.games.agent_avenue.rollout_advanced import start_state

    states = _decisions(4, 7)
    phases = {int(s[R.PHASE]) for s in states}
    assert {R.PH_PLAY, R.PH_REFILL, A.PH_BM_TAKE} <= phases
    got = np.empty_like(states[0])
    for s in states:
        pub = _pub(s)
        assert start_state(pub, PARAMS, _priv(s, 0), _priv(s, 1), got)
        assert np.array_equal(_pub(got), pub)
        for base in (R.HAND, R.HAND + 8, R.PLAY, R.PLAY + 8):
            assert np.array_equal(got[base:base + N], s[base:base + N])
        assert np.array_equal(got[A.POS:], s[A.POS:])
        unseen = [got[R.DECK:R.DECK + N] + got[R.DISC:R.DISC + N] + got[R.DISC + 8:R.DISC + 16]
                  for got in (got, s)]
        assert np.array_equal(unseen[0], unseen[1])
    pubs = np.array([_pub(s) for s in states[::7]])
    q = len(pubs)
    args = [np.arange(q), np.array([_priv(s, 0) for s in states[::7]]),
            np.array([_priv(s, 1) for s in states[::7]]), np.zeros(q, np.int64),
            np.zeros(q, np.int64), np.arange(q) + 11]
    one, two = np.empty(q), np.empty(q)
    PLUGIN.rollouts(pubs, PARAMS, *args, one)
    PLUGIN.rollouts(pubs, PARAMS, *args, two)
    assert np.array_equal(one, two) and np.any(one != 0)
    for x in range(q):
        w = pair_weight(pubs[x], PARAMS, leaf_scale(pubs[x], PARAMS),
                        leaf_base(pubs[x], PARAMS), args[1][x], args[2][x])
        assert abs(one[x]) == pytest.approx(w)
    n = PA.num_private(PARAMS, 0)
    full = weights(pubs[0], PARAMS, n, n)  # the live states' W, zeros elsewhere
    assert full[args[1][0], args[2][0]] == pytest.approx(abs(one[0])) and full[0].sum() == 0


@pytest.mark.slow
def test_the_search_agent_plans_from_the_dealt_market():
    """The agent's walk starts at the black market's public chance (455 supplies, unsolved:
    a first plan over all of them took over 14 GB) and its first plan is solved from the
    supply a game deals, from the deal's prior, one per supply (a second game with it
    reuses it); then it decides (one seeded first move, 2 CFR+ iterations)."""
    from spycfr.search.agent import AgentConfig, SearchAgent

    agent = SearchAgent("agent-avenue", {"mode": "advanced"},
                        AgentConfig.default("agent-avenue", iterations=2))
    start = agent.start()
    assert start.tree.kind[0] == CHANCE and start.tree.count[0] == 455
    assert start.tree.leaves.size == 455 and not start.strategy.any()
    rng = np.random.default_rng(5)
    state = agent.initial()
    codes = np.empty(PA.max_actions(PARAMS), np.int32)
    probs = np.empty(len(codes))
    while A.current_player(state, PARAMS) == CHANCE:  # the deals, then the market
        k = A.chance_outcomes(state, PARAMS, codes, probs)
        state = agent.after(state, int(codes[rng.choice(k, p=probs[:k] / probs[:k].sum())]))
    pub = agent.public(state)
    assert pub[R.PHASE] == R.PH_PLAY and not np.array_equal(pub, agent.model.root())
    games = agent.game(0), agent.game(1)
    for g in games:
        g.observe(state)
    plan = agent.plan(pub)
    assert games[0].plan is plan and games[1].plan is plan
    assert np.array_equal(plan.tree.pub[0], pub) and plan.tree.kind[0] == 0
    for s in (0, 1):  # the market is public and independent of the hands
        assert np.array_equal(plan.reach[s][0], agent.model.weights[s])
    other = start.tree.pub[start.tree.leaves[0]]
    assert not np.array_equal(other, pub) and agent.plan(other) is not plan
    p = games[0].policy(state)
    assert p.shape == agent.legal(state).shape and p.sum() == pytest.approx(1.0)
    assert games[0].solves == 1 and games[1].solves == 0  # P1's move for its own cards


def test_the_largest_hands_are_numbered():
    """A hand of 6 (4, Mind Control's and Spycation's agents) and, after it plays, 4 in
    hand with its face-down card pending: the last indices of the 2,641 (hands of 5 came
    up in 195 of some 21,000 hand states of 300 random and heuristic games, of 6 none)."""
    n = PA.num_private(PARAMS, 0)
    assert n == 1 + 8 * math.comb(11, 4) == 2641
    six = PA.index(PARAMS, False, 6, 0, 6, 0, PA.NO_NAME)  # six DA: the last
    four = PA.index(PARAMS, True, 4, 0, 4, 0, 7)
    assert six == math.comb(13, 6) < n and four == n - 1


def _supply_root():
    """The public state after the market DEVICE.WATCHTOWER.TWIN: P1 to play, hands of 4."""
    pub = _apply(PA.initial_state(PARAMS), (1 << A.DEVICE) | (1 << A.WATCHTOWER) | (1 << A.TWIN))
    assert pub[R.PHASE] == R.PH_PLAY and pub[R.ACTIVE] == 0
    return pub


def _hand(counts):
    return int(sum(int(c) << (MS.SHIFT * t) for t, c in enumerate(counts)))


@pytest.mark.parametrize("size, states", [(4, 1 + 8 * math.comb(10, 3)),
                                          (5, 1 + 8 * math.comb(11, 4)),
                                          (6, 1 + math.comb(12, 5))])
def test_a_swaps_draw_keeps_the_name_discarded(size, states):
    """From a swap to its draw the mover's state is its hand and the name discarded: 961
    states at the draw from a hand of 4, 2,641 (the numbering's largest) from a hand of 5
    (after Mind Control or Spycation); the draw's probabilities carry public.py's
    ``discard_weight`` (the state's weight in W too) and go to the hand alone. A swap
    from a hand of 6 would need 6,337 states: it forgets the name at once (its draw's
    probabilities the model's own, summing to 1). The other seat is its hand throughout."""
    pub = _supply_root()
    pub[R.HANDSIZE] = size
    pub[R.DECKSIZE] -= size - 4
    counts = [2, 1, 1, 0, 0, 0, 0, 0]
    counts[3] = size - 4  # DA DA EN CB and Saboteurs
    i = int(PA.index(PARAMS, False, size, 0, _hand(counts), 0, PA.NO_NAME))
    kept = [nxt for lab, nxt in _private_actions(pub, i) if lab == MOV.SWAP_LABEL]
    assert len(kept) == sum(c > 0 for c in counts)
    draw = _apply(pub, MOV.SWAP_LABEL)
    assert draw[R.PHASE] == R.PH_SWAP_DRAW and draw[R.HANDSIZE] == size - 1
    keeps = size <= PA.MAX_HAND - 2 + 1
    pending, hs, _ = PA.scheme(draw, PARAMS, 0)
    assert PA.keeps_name(draw, PARAMS, 0) == pending == keeps and hs == size - 1
    assert PA.scheme(draw, PARAMS, 1) == PA.scheme(pub, PARAMS, 1)  # not pending
    assert PA.scheme_size(PARAMS, pending, hs, 0) == states <= PA.num_private(PARAMS, 0)
    left = [int(PARAMS.copies[t]) - counts[t] for t in range(N)]  # out of P1's hand
    unseen = sum(left) + (1 if keeps else 0)
    for j in kept:
        hand, _, d = NUM.decode(PARAMS, pending, hs, 0, j)
        assert (d >= 0) == keeps
        probs = _private_chance(draw, j)
        if keeps:
            assert hand + MS.unit_code(d) == _hand(counts)
            weight = N * (left[d] + 1) / unseen  # n times the chance an unseen card is a d
            assert FGT.discard_weight(draw, PARAMS, hand, d) == pytest.approx(weight)
        else:
            weight = 1.0
        assert PA.state_weight(draw, PARAMS, 0, j) == pytest.approx(weight)
        assert sum(probs.values()) == pytest.approx(weight)
        after = _apply(draw, 0)
        assert PA.scheme(after, PARAMS, 0) == (False, size, 0)
        assert all(0 < x < PA.scheme_size(PARAMS, False, size, 0) for x in probs)
    assert keeps or kept == [int(PA.index(PARAMS, False, size - 1, 0,
                                          _hand(counts) - MS.unit_code(t), 0, PA.NO_NAME))
                             for t in range(N) if counts[t]]
