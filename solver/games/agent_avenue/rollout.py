"""Agent Avenue's ``rollouts`` hook (simple mode): games played to the end from a leaf of the
search agent's public model by the heuristic players (rules.py), the values of
:mod:`spycfr.search.continuation`'s continuation strategies.

A game of job q starts at public state ``pubs[leaf[q]]`` with seat 0 holding private state
``i0[q]`` and seat 1 ``i1[q]`` of the model's numbering (public.py): their hands, the
face-down card pending at a recruitment, the discards where the model keeps them. The deck
is every card not in play, in a hand, on the table or discarded; where the model forgets
the discards (``params.forget``: the full game) they are drawn from those unseen cards, the
deck being the rest, so that the draws below the leaf come from the true deck with card
removal. The payoff is weighed by the card-removal ratio ``W`` of the pair at the leaf
(leaf.py, :func:`~spycfr.games.agent_avenue.leaf.pair_weight`), the same as the model's
payoffs and the scored-now estimate, 0 where the pair holds more cards than the deck has.
The helpers both modes use (the deal of a rollout's game, the draws, a job's weight) are
rollout_common.py's; this module keeps what simple mode alone does.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from spycfr.engine.rng import sample
from spycfr.games.agent_avenue import rules as R
from spycfr.games.agent_avenue.numbering import PH_CLEAR, decode, scheme
from spycfr.games.agent_avenue.rollout_common import (
    clear_private,
    deal_deck,
    draw_card,
    draw_discards,
    draw_refill,
    job_weight,
    leaf_weights,
    take_cards,
    unseen,
)
from spycfr.games.agent_avenue.rules import (
    ACTIVE,
    DECK,
    DECKSIZE,
    DISC,
    DOWN,
    HAND,
    HANDSIZE,
    PH_OVER,
    PH_PLAY,
    PH_RECRUIT,
    PH_REFILL,
    PHASE,
    STATE_SIZE,
)
from spycfr.tree import CHANCE

# The continuation styles (plug-in ``rollout_styles``; rules.py's styled_policy): the
# heuristic, players who judge the face-down card of an offer by the name worst or best for
# the recruiter instead of the mean (cautious, bold), and the heuristic who also discards
# (swapper; simple mode only: rollout_advanced.py plays the first three)
STYLES = ("heuristic", "cautious", "bold", "swapper")


@njit(cache=True)
def start_state(pub, params, i0, i1, state):
    """Write into ``state`` (rules' layout) the game at public state ``pub`` with private
    states i0 and i1, the unknown discards drawn (numba's generator); False where the pair
    holds more cards of a name than there are, or ``pub`` is not a decision of the model's
    (a play, a recruitment) nor the refill after a recruitment."""
    ph = pub[PHASE]
    if ph != PH_PLAY and ph != PH_RECRUIT and ph != PH_CLEAR:
        return False
    for x in range(STATE_SIZE):
        state[x] = pub[x]
    clear_private(state)
    pool = unseen(pub, params, ph == PH_RECRUIT)
    refill = np.zeros(2, np.int64)
    a = pub[ACTIVE]
    for s in range(2):
        pending, hs, ds = scheme(pub, params, s)
        i = i0 if s == 0 else i1
        if i <= 0:
            return False
        hand, disc, name = decode(params, pending, hs, ds, i)
        take_cards(state, pool, params, HAND + 8 * s, hand)
        take_cards(state, pool, params, DISC + 8 * s, disc)
        state[HANDSIZE + s] = hs
        if ph == PH_RECRUIT and s == a:
            state[DOWN] = name
            pool[name] -= 1
        elif ph == PH_CLEAR and s != a:  # its refill (the revealed card is in play)
            refill[s] = pub[HANDSIZE + s] - hs
    if not deal_deck(state, pool, params):
        return False
    if params.forget:  # the discards made, drawn from the unseen cards
        draw_discards(state, pub, params)
    if state[DECKSIZE] != pub[DECKSIZE] + refill[0] + refill[1]:
        raise ValueError("the cards of a leaf do not add up to the deck's")
    for s in range(2):
        draw_refill(state, params, s, refill[s])
    if ph == PH_RECRUIT:
        state[PHASE] = PH_REFILL if R.draw_count(state, params, a) > 0 else PH_RECRUIT
    elif ph == PH_CLEAR:
        state[PHASE] = PH_PLAY
    return True


@njit(cache=True)
def _policy(state, params, style, actions, k, probs):
    """The continuation player ``style`` (:data:`STYLES`)."""
    R.styled_policy(state, params, style, actions, k, probs)


@njit(cache=True)
def play_out(state, params, style0, style1):
    """Seat 0's payoff of the game from ``state`` (rules' layout) to its end, each seat
    playing its style, the draws from the deck by numba's generator."""
    nxt = np.empty(STATE_SIZE, np.int16)
    m = R.max_actions(params)
    actions = np.empty(m, np.int32)
    probs = np.empty(m)
    x = np.zeros(R.MAX_NAMES, np.int64)
    while state[PHASE] != PH_OVER:
        who = R.current_player(state, params)
        if who == CHANCE:  # a swap's draw or the refill, card by card
            k = 1 if state[PHASE] == R.PH_SWAP_DRAW else R.draw_count(state, params,
                                                                        state[ACTIVE])
            x[:] = 0
            for _ in range(k):
                x[draw_card(state, params)] += 1
            for t in range(params.n):  # back: apply_action takes them from the deck
                state[DECK + t] += x[t]
            state[DECKSIZE] += k
            action = R.draw_code(x, params.n)
        else:
            k = R.legal_actions(state, params, actions)
            _policy(state, params, style0 if who == 0 else style1, actions, k, probs)
            action = actions[sample(probs, k, np.random.random())]
        R.apply_action(state, params, action, nxt)
        state[:] = nxt
    return R.returns_p1(state, params)


@njit(cache=True)
def rollouts(pubs, params, leaf, i0, i1, style0, style1, seeds, out):
    """The ``rollouts`` hook: ``out[q]``, seat 0's payoff of one game from ``pubs[leaf[q]]``
    with private states ``i0[q]`` and ``i1[q]``, each seat playing its style, times the
    pair's card-removal ratio there (module notes); numba's generator seeded with
    ``seeds[q]`` per game (the same arguments, the same payoffs; games with one seed share
    their random numbers)."""
    scales, bases = leaf_weights(pubs, params, leaf)
    state = np.empty(STATE_SIZE, np.int16)
    for q in range(out.shape[0]):
        w = job_weight(pubs, params, leaf, i0, i1, scales, bases, q)
        np.random.seed(seeds[q])  # this thread's generator: the game's draws from its seed
        if w == 0.0 or not start_state(pubs[leaf[q]], params, i0[q], i1[q], state):
            out[q] = 0.0
            continue
        out[q] = w * play_out(state, params, style0[q], style1[q])
