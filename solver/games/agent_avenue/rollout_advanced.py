"""Agent Avenue's ``rollouts`` hook in advanced mode: games played to the end from a leaf of
the search agent's public model (public_advanced.py) by the advanced heuristic
(advanced_heuristic.py) on both seats, as rollout.py does for simple mode.

A game starts at the leaf's public state with the pair's hands (and a pending face-down
card); the deck is every card not in play, in a hand or on the table, the forgotten discards
drawn from it first, then the refill the public model draws after the recruitment; the
black market is public and stays as the leaf has it. The draws below the leaf (the refills,
the supply, Smoke Screen's card) are the rules' own chance, sampled. The payoff is weighed
by the pair's card-removal ratio at the leaf (leaf.py's ``pair_weight``). What it shares
with simple mode is rollout_common.py's.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from spycfr.engine.rng import sample
from spycfr.games.agent_avenue import advanced as A
from spycfr.games.agent_avenue.advanced_core import REFILLED, STATE_SIZE
from spycfr.games.agent_avenue.public import TAKEN, decode, scheme_size
from spycfr.games.agent_avenue.public_advanced import (
    PH_CLEAR,
    PH_PICK,
    PH_REVEAL,
    offer_open,
    scheme,
)
from spycfr.games.agent_avenue.rollout_common import (
    clear_private,
    deal_deck,
    draw_discards,
    draw_refill,
    job_weight,
    leaf_weights,
    take_cards,
    unseen,
)
from spycfr.games.agent_avenue.rules import (
    ACTIVE,
    DECKSIZE,
    DOWN,
    HAND,
    PH_OVER,
    PH_RECRUIT,
    PH_REFILL,
    PHASE,
)
from spycfr.tree import CHANCE


@njit(cache=True)
def start_state(pub, params, i0, i1, state):
    """Write into ``state`` (advanced.py's layout) the game at public state ``pub`` with
    private states i0 and i1, the forgotten discards and a deferred refill drawn (numba's
    generator); False where the pair holds more cards of a name than there are (or ``pub``
    is the market, before any hand is known, or the end)."""
    ph = pub[PHASE]
    if ph == PH_OVER or ph == A.PH_MARKET:
        return False
    state[:] = pub
    clear_private(state)
    pool = unseen(pub, params, offer_open(pub, params))
    a = pub[ACTIVE]
    for s in range(2):
        pending, hs, _ = scheme(pub, params, s)
        i = i0 if s == 0 else i1
        if i <= 0 or i >= scheme_size(params, pending, hs, 0):
            return False
        hand, _, name = decode(params, pending, hs, 0, i)
        take_cards(state, pool, params, HAND + 8 * s, hand)
        if pending and offer_open(pub, params):
            state[DOWN] = name
            pool[name] -= 1
    if not deal_deck(state, pool, params):
        return False
    draw_discards(state, pub, params)  # the discards made, drawn from the unseen cards
    if state[DECKSIZE] != pub[DECKSIZE]:
        raise ValueError("the cards of a leaf do not add up to the deck's")
    if ph == PH_RECRUIT:  # the rules draw the refill themselves
        state[PHASE] = PH_REFILL if pub[REFILLED] > 0 else PH_RECRUIT
        return True
    if ph == PH_REVEAL or ph == PH_CLEAR:  # the refill, then the recruitment goes on
        draw_refill(state, params, a, pub[REFILLED])
    if ph == PH_REVEAL:
        state[PHASE] = PH_RECRUIT
        nxt = np.empty_like(state)
        A.apply_action(state, params, pub[TAKEN], nxt)
        state[:] = nxt
        state[TAKEN] = 0
    elif ph == PH_CLEAR:
        A._bm_continue(state, params)
    elif ph == PH_PICK:
        state[PHASE] = A.PH_CHOOSE if A.has_choice(state, params) else A.PH_EFFECT
    return True


@njit(cache=True)
def play_out(state, params):
    """Seat 0's payoff of the game from ``state`` to its end, both seats the advanced
    heuristic, chance by the rules' probabilities (numba's generator)."""
    nxt = np.empty(STATE_SIZE, np.int16)
    m = A.max_actions(params)
    actions = np.empty(m, np.int32)
    probs = np.empty(m)
    while state[PHASE] != PH_OVER:
        if A.current_player(state, params) == CHANCE:
            k = A.chance_outcomes(state, params, actions, probs)
        else:
            k = A.legal_actions(state, params, actions)
            A.heuristic_policy(state, params, actions, k, probs)
        A.apply_action(state, params, actions[sample(probs, k, np.random.random())], nxt)
        state[:] = nxt
    return A.returns_p1(state, params)


@njit(cache=True, parallel=True)
def rollouts(pubs, params, leaf, i0, i1, style0, style1, seeds, out):
    """The ``rollouts`` hook (rollout.py's), the one continuation the advanced heuristic
    (the styles are ignored). The games run in numba's threads (``prange``): each seeds
    its own thread's generator with its seed, so a game's payoff is the same whichever
    thread plays it and in whatever order."""
    scales, bases = leaf_weights(pubs, params, leaf)
    for q in prange(out.shape[0]):
        state = np.empty(STATE_SIZE, np.int16)
        w = job_weight(pubs, params, leaf, i0, i1, scales, bases, q)
        np.random.seed(seeds[q])  # this thread's generator: the game's draws from its seed
        if w == 0.0 or not start_state(pubs[leaf[q]], params, i0[q], i1[q], state):
            out[q] = 0.0
            continue
        out[q] = w * play_out(state, params)
