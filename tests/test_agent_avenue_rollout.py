"""Agent Avenue's rollout leaves (games/agent_avenue/rollout.py): the game a rollout starts
from is the real one (the unknown discards drawn where the model forgets them), a rollout
with no draw left is the heuristic's own game weighed by card removal, rollouts are
reproducible from their seeds, and the hook is what the ``rollout`` value function plays."""

from __future__ import annotations

import numpy as np
import pytest

from avenue_games import random_states, recruitments
from spycfr.games import get_plugin, make_variant
from spycfr.games.agent_avenue import leaf as L
from spycfr.games.agent_avenue import multiset as MS
from spycfr.games.agent_avenue import numbering as NUM
from spycfr.games.agent_avenue import public as AP
from spycfr.games.agent_avenue import rules as R
from spycfr.games.agent_avenue.rollout import rollouts, start_state
from spycfr.search.agent import AgentConfig, SearchAgent
from spycfr.search.configure import configure_agent
from spycfr.search.continuation import Continuations
from spycfr.search.leafvalues import value_function
from spycfr.search.tree import GameModel
from spycfr.tree import CHANCE

PLUGIN = get_plugin("agent-avenue")
SAME = (R.HAND, R.HAND + 8, R.PLAY, R.PLAY + 8)  # tables of 8 read whole
SLOTS = (R.GAP, R.ACTIVE, R.PHASE, R.UP, R.DOWN, R.DLEFT, R.DLEFT + 1, R.TURN, R.DECKSIZE,
         R.HANDSIZE, R.HANDSIZE + 1)


def _params(preset: str, forget: int = 0):
    return make_variant("agent-avenue", preset).to_params()._replace(forget=np.int64(forget))


def _random_games(params, games: int, seed: int):
    """(rules state, public state, P1's and P2's private states) at every play and refill
    of random games (moves uniform, draws by the deck): where the model numbers both
    seats' cards."""

    def seen(state):
        if state[R.PHASE] not in (R.PH_PLAY, R.PH_REFILL):
            return None
        pub = np.empty(R.STATE_SIZE, np.int16)
        AP.public_of_history(state, params, pub)
        return (state.copy(), pub, int(AP.private_of_history(state, params, 0)),
                int(AP.private_of_history(state, params, 1)))

    return random_states(R, params, games, seed, seen)


@pytest.mark.parametrize("preset, forget", [("mini", 0), ("mini", 1), ("standard", 1)])
def test_a_rollout_starts_from_the_real_game(preset, forget):
    """The rules' state rebuilt from a public state and the two private states is the real
    one: the same hands, play, meeples and offer; the same deck and discards where the model
    keeps them, else the same cards in the deck and the discards together."""
    params = _params(preset, forget)
    seen = 0
    for real, pub, i0, i1 in _random_games(params, 10, seed=1):
        state = np.zeros(R.STATE_SIZE, np.int16)
        np.random.seed(seen)
        assert start_state(pub, params, i0, i1, state)
        for base in SAME:
            assert np.array_equal(state[base:base + 8], real[base:base + 8])
        assert np.array_equal(state[list(SLOTS)], real[list(SLOTS)])
        if forget:
            rebuilt, was = (x[R.DECK:R.DECK + 8] + x[R.DISC:R.DISC + 8]
                            + x[R.DISC + 8:R.DISC + 16] for x in (state, real))
            assert np.array_equal(rebuilt, was)
            for s in range(2):
                assert state[R.DISC + 8 * s:R.DISC + 8 * s + 8].sum() == \
                    real[R.DISC + 8 * s:R.DISC + 8 * s + 8].sum()
        else:
            assert np.array_equal(state[R.DECK:R.DISC + 16], real[R.DECK:R.DISC + 16])
        seen += 1
    assert seen > 30


def _heuristic_game(state, params) -> float:
    """P1's payoff of the game from ``state`` with both seats playing the heuristic and no
    card left to draw, in Python over the rules."""
    acts = np.zeros(R.max_actions(params), np.int32)
    probs = np.zeros(R.max_actions(params))
    while state[R.PHASE] != R.PH_OVER:
        assert R.current_player(state, params) != CHANCE  # no draw left
        k = R.legal_actions(state, params, acts)
        R.heuristic_policy(state, params, acts, k, probs)
        nxt = np.empty_like(state)
        R.apply_action(state, params, acts[int(np.argmax(probs[:k]))], nxt)
        state = nxt
    return R.returns_p1(state, params)


@pytest.mark.parametrize("preset", ["tiny", "mini"])
def test_a_rollout_without_draws_is_the_heuristic_game_weighed_by_card_removal(preset):
    params = _params(preset)
    checked = 0
    for real, pub, i0, i1 in _random_games(params, 40, seed=2):
        if real[R.PHASE] != R.PH_PLAY or real[R.DECKSIZE] > 0:
            continue
        out = np.empty(1)
        rollouts(pub[None].astype(np.int32), params, np.zeros(1, np.int64), np.array([i0]),
                 np.array([i1]), np.zeros(1, np.int64), np.zeros(1, np.int64),
                 np.array([checked]), out)
        w = L.weights(pub, params, i0 + 1, i1 + 1)[i0, i1]
        assert w > 0 and out[0] == pytest.approx(w * _heuristic_game(real, params))
        checked += 1
    assert checked > 20


def test_rollouts_are_reproducible_and_weigh_impossible_pairs_nothing():
    params = _params("standard", 1)
    found = _random_games(params, 2, seed=3)
    pubs = np.array([pub for _, pub, _, _ in found[::4]], np.int32)
    n = 600
    rng = np.random.default_rng(4)
    leaf = rng.integers(0, len(pubs), n)
    i0 = np.array([found[4 * x][2] for x in leaf])
    i1 = np.array([found[4 * x][3] for x in leaf])
    args = (pubs, params, leaf, i0, i1, np.zeros(n, np.int64), np.zeros(n, np.int64))
    a, b, c = np.empty(n), np.empty(n), np.empty(n)
    rollouts(*args, np.arange(n), a)
    rollouts(*args, np.arange(n), b)
    rollouts(*args, np.arange(n) + n, c)
    assert np.array_equal(a, b) and not np.array_equal(a, c)
    w = np.array([L.weights(pubs[x], params, i0[q] + 1, i1[q] + 1)[i0[q], i1[q]]
                  for q, x in enumerate(leaf)])
    assert (w > 0).all() and np.allclose(np.abs(a), w)
    # tiny (two copies of each name) at the deal: both holding both Codebreakers weighs 0
    tiny = _params("tiny")
    cbcb = NUM.index(tiny, False, 2, 0, np.int64(2) << (MS.SHIFT * tiny.cb), 0, NUM.NO_NAME)
    out = np.empty(1)
    rollouts(AP.initial_state(tiny)[None].astype(np.int32), tiny, np.zeros(1, np.int64),
             np.array([cbcb]), np.array([cbcb]), np.zeros(1, np.int64), np.zeros(1, np.int64),
             np.array([1]), out)
    assert out[0] == 0.0


def test_the_cautious_and_bold_recruiters_judge_the_hidden_card_by_its_worst_and_best_name():
    """A styled recruiter takes the face-up card when, with the hidden card the name worst
    (cautious) or best (bold) for it in each choice, keeping it is at least as good as
    taking the hidden one (by hand, over the names the recruiter cannot see); the mean
    style is the heuristic itself."""
    params = _params("standard")
    acts = np.zeros(R.max_actions(params), np.int32)
    probs = np.zeros(R.max_actions(params))
    differ = 0
    for state in recruitments(R, params, 30, seed=5):
        a = int(state[R.ACTIVE])
        o = 1 - a
        k = R.legal_actions(state, params, acts)
        unseen = [t for t in range(params.n)
                  if params.copies[t] - state[R.HAND + 8 * o + t] - state[R.DISC + 8 * o + t]
                  - state[R.PLAY + t] - state[R.PLAY + 8 + t] - (t == state[R.UP]) > 0]
        up = int(state[R.UP])
        takes = {}
        for style, pick in ((R.CAUTIOUS, (max, min)), (R.BOLD, (min, max))):
            keep = R._gain(state, params, o, up) - pick[0](R._gain(state, params, a, t)
                                                           for t in unseen)
            swap = pick[1](R._gain(state, params, o, t) for t in unseen) - \
                R._gain(state, params, a, up)
            R.styled_policy(state, params, style, acts, k, probs)
            assert probs[:k].tolist() == ([1.0, 0.0] if keep >= swap else [0.0, 1.0])
            takes[style] = probs[0]
        R.heuristic_policy(state, params, acts, k, probs)
        heuristic = probs[:k].copy()
        R.styled_policy(state, params, R.MEAN, acts, k, probs)
        assert np.array_equal(probs[:k], heuristic)
        differ += takes[R.CAUTIOUS] != takes[R.BOLD]
    assert differ > 5


def _best_play(state, params, a):
    """The heuristic's best play score for ``a``'s hand, by hand: every pair (up, down) of
    different names (or the hand's only name twice), the recruiter's choice by
    rules._takes_up with the hidden card judged by its mean among the cards ``a`` cannot
    see."""
    o = 1 - a
    hid_a, hid_o = R._hidden_gains(state, params, o, a, a, R.MEAN)
    names = [t for t in range(params.n) if state[R.HAND + 8 * a + t] > 0]
    pairs = [(u, d) for u in names for d in names if u != d] or \
        [(u, u) for u in names if state[R.HAND + 8 * a + u] >= 2]
    best = -1e300
    for u, d in pairs:
        if R._takes_up(state, params, u, o, a, hid_a, hid_o):
            score = R._gain(state, params, a, d) - R._gain(state, params, o, u)
        else:
            score = R._gain(state, params, a, u) - R._gain(state, params, o, d)
        best = max(best, score)
    return best


def test_the_swapper_discards_the_card_whose_draw_raises_its_best_play_most():
    """The swapper style (rules.SWAPPER) at a play: where a card's replacement, drawn in
    proportion to the copies it cannot see, raises its best play's score by SWAP_MARGIN or
    more on average, it discards the card that raises it most (by hand over the names);
    else, or with no discard left, it plays as the heuristic; it recruits as the
    heuristic."""
    params = _params("standard", 1)
    acts = np.zeros(R.max_actions(params), np.int32)
    probs = np.zeros(R.max_actions(params))
    heuristic = np.zeros(R.max_actions(params))
    swapped = played = 0
    for state, *_ in _random_games(params, 12, seed=8):
        if state[R.PHASE] != R.PH_PLAY:
            continue
        a = int(state[R.ACTIVE])
        k = R.legal_actions(state, params, acts)
        R.heuristic_policy(state, params, acts, k, heuristic)
        before = state.copy()
        R.styled_policy(state, params, R.SWAPPER, acts, k, probs)
        assert np.array_equal(state, before)  # reckoned on the state, left as it was
        want = None
        if state[R.DLEFT + a] > 0 and state[R.DECKSIZE] > 0:
            unseen = [max(R.unseen_copies(state, params, a, t), 0) for t in range(params.n)]
            now, rises = _best_play(state, params, a), {}
            for c in range(params.n):
                if state[R.HAND + 8 * a + c] == 0:
                    continue
                total = 0.0
                for d in range(params.n):
                    if unseen[d]:
                        after = state.copy()  # c discarded, d drawn
                        after[R.HAND + 8 * a + c] -= 1
                        after[R.DISC + 8 * a + c] += 1
                        after[R.HAND + 8 * a + d] += 1
                        total += unseen[d] * _best_play(after, params, a)
                rises[c] = total / sum(unseen) - now
            c = max(rises, key=rises.__getitem__)
            if rises[c] >= R.SWAP_MARGIN:
                want = (R.T_SWAP << 20) | c
        if want is not None:
            assert probs[:k].tolist() == [float(x == want) for x in acts[:k]]
            swapped += 1
        else:
            assert np.array_equal(probs[:k], heuristic[:k])
            played += 1
    assert swapped > 5 and played > 5
    for state in recruitments(R, params, 5, seed=9):
        k = R.legal_actions(state, params, acts)
        R.heuristic_policy(state, params, acts, k, heuristic)
        R.styled_policy(state, params, R.SWAPPER, acts, k, probs)
        assert np.array_equal(probs[:k], heuristic[:k])


def test_advanced_rollouts_refuse_the_swapper():
    """The swapper is simple mode's: advanced mode's rollouts (rollout_advanced.py, which
    plays the first three styles) refuse it by name rather than play something else."""
    params = make_variant("agent-avenue", "advanced").to_params()
    one = np.zeros(1, np.int64)
    with pytest.raises(ValueError, match="'swapper': simple mode's"):
        PLUGIN.rollouts(np.zeros((1, 8), np.int32), params, one, one, one, one,
                        one + R.SWAPPER, one, np.empty(1))


def test_rollout_leaves_are_registered():
    game = GameModel.of(_params("tiny"))
    vf = value_function("rollout", game, PLUGIN)
    # the hook plays rollout.py's games in simple mode (rollout_advanced.py's in advanced)
    assert isinstance(vf.inner, Continuations) and vf.inner.rollouts is PLUGIN.rollouts
    assert list(vf.inner.styles) == [0] and PLUGIN.continuations == ("heuristic",)
    agent = SearchAgent("agent-avenue", make_variant("agent-avenue", "tiny").as_dict(),
                        AgentConfig(value_function="rollout"))
    assert agent.values.inner.name == "rollout"
    # the rollouts' styles by name (benchmarks' --opposing): guarded against where asked,
    # the heuristic alone by default
    assert agent.values.inner.opposing_styles == (0,)
    configure_agent(agent, ["heuristic", "cautious", "bold"])
    assert agent.values.inner.opposing_styles == (0, 1, 2)
    assert agent.values.inner.own_styles == (0,)
    with pytest.raises(ValueError, match="opposing reckless: not a rollout style of "
                       "agent-avenue [(]one of heuristic, cautious, bold, swapper[)]"):
        configure_agent(agent, ["reckless"])
    # its own continuations by name (--own): the better of the heuristic and the swapper,
    # the opposing ones kept; a name not a style refused, nothing changed
    configure_agent(agent, own=["heuristic", "swapper"])
    assert agent.values.inner.own_styles == (0, R.SWAPPER)
    assert agent.values.inner.opposing_styles == (0, 1, 2)
    with pytest.raises(ValueError, match="own reckless: not a rollout style"):
        configure_agent(agent, ["heuristic"], own=["reckless"])
    assert agent.values.inner.own_styles == (0, R.SWAPPER)
    assert agent.values.inner.opposing_styles == (0, 1, 2)
