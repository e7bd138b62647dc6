"""Agent Avenue's ``rollouts`` hook in advanced mode: games played to the end from a leaf of
the search agent's public model (public_advanced.py) by the advanced heuristic
(advanced_heuristic.py) or its styles on each seat, as rollout.py does for simple mode (the
same styles, rollout.py's STYLES: the cautious and bold players judge a face-down card by
the name worst or best for the recruiter, their takes and ability targets the heuristic's),
but for the black market's takes (:func:`take_choice`, every style's): a rollout's taker
looks at the rest of the turn and takes a card that wins by the turn's End step (or avoids
one that loses), where the heuristic takes by its fixed preference, blind to a card that
wins at once: in 300 games of the heuristic against itself a take that won by the End step
was in the supply at 171 of 1,054 takes and the heuristic's card did not win at 108 of them,
so a leaf before such a take was valued as if the win were not there, and the agent's value
leapt at the take itself (docs/search.md, "A value that leaps at a black market take").

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
from spycfr.games.agent_avenue.advanced_core import PH_BM_TAKE, REFILLED, STATE_SIZE
from spycfr.games.agent_avenue.advanced_heuristic import PREFERENCE, styled_policy
from spycfr.games.agent_avenue.numbering import TAKEN, decode, scheme_size
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
    MEAN,
    PH_OVER,
    PH_RECRUIT,
    PH_REFILL,
    PHASE,
    TURN,
    WINNER,
)
from spycfr.tree import CHANCE

# How many times a rollout's taker plays the rest of the turn after each card it can take
# (take_choice): the turn's chance (the supply's refill, Smoke Screen's card, a hand draw)
# sampled, the moves by the heuristic.
TAKE_LOOKS = 4
N_PREFERENCE = len(PREFERENCE)


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
        A.bm_continue(state, params)
    elif ph == PH_PICK:
        state[PHASE] = A.PH_CHOOSE if A.has_choice(state, params) else A.PH_EFFECT
    return True


@njit(cache=True)
def turn_outcome(state, params, p):
    """+1 if ``p`` has won the game by the End step of the turn ``state`` is in, -1 if it
    has lost, 0 if the game goes on: the rest of the turn played by the advanced heuristic,
    chance sampled (numba's generator). ``state`` is played on (the caller's copy)."""
    nxt = np.empty(STATE_SIZE, np.int16)
    m = A.max_actions(params)
    actions = np.empty(m, np.int32)
    probs = np.empty(m)
    turn = state[TURN]
    while state[PHASE] != PH_OVER and state[TURN] == turn:
        _styled_step(state, params, MEAN, MEAN, nxt, actions, probs)
    if state[PHASE] != PH_OVER:
        return 0
    return 1 if state[WINNER] == p else -1


@njit(cache=True)
def take_choice(state, params, actions, k):
    """The black market card a rollout's taker takes at ``state`` (a take; ``actions[:k]``
    its legal takes): the one whose turn ends best for it (won, going on, lost: the mean of
    TAKE_LOOKS plays of the rest of the turn, :func:`turn_outcome`), the heuristic's
    PREFERENCE among the equally good. The heuristic takes by PREFERENCE alone, blind to a
    card that wins at once (Masterplan with seven names in play, Security System with the
    other meeple on the taker's home, the Truck's step that catches ...)."""
    p = A.current_player(state, params)
    trial = np.empty(STATE_SIZE, np.int16)
    best = 0
    best_mean = -2.0
    best_rank = N_PREFERENCE
    for j in range(k):
        total = 0.0
        for _ in range(TAKE_LOOKS):
            A.apply_action(state, params, actions[j], trial)
            total += turn_outcome(trial, params, p)
        mean = total / TAKE_LOOKS
        rank = 0
        while rank < N_PREFERENCE - 1 and PREFERENCE[rank] != (actions[j] & 31):
            rank += 1
        if mean > best_mean or (mean == best_mean and rank < best_rank):
            best, best_mean, best_rank = j, mean, rank
    return best


@njit(cache=True)
def _styled_step(state, params, style0, style1, nxt, actions, probs):
    """``state`` <- the state after one step: the mover's move by its style (seat 0's
    ``style0``, seat 1's ``style1``; advanced_heuristic.py's ``styled_policy``, style 0 the
    heuristic), or chance by the rules' probabilities (numba's generator)."""
    who = A.current_player(state, params)
    if who == CHANCE:
        k = A.chance_outcomes(state, params, actions, probs)
    else:
        k = A.legal_actions(state, params, actions)
        styled_policy(state, params, style0 if who == 0 else style1, actions, k, probs)
    A.apply_action(state, params, actions[sample(probs, k, np.random.random())], nxt)
    state[:] = nxt


@njit(cache=True)
def play_out(state, params, style0, style1):
    """Seat 0's payoff of the game from ``state`` to its end, each seat playing its style
    (rollout.py's STYLES: 0 the advanced heuristic, 1 cautious, 2 bold), every seat's
    takes :func:`take_choice`'s, chance by the rules' probabilities (numba's generator)."""
    nxt = np.empty(STATE_SIZE, np.int16)
    m = A.max_actions(params)
    actions = np.empty(m, np.int32)
    probs = np.empty(m)
    while state[PHASE] != PH_OVER:
        if state[PHASE] == PH_BM_TAKE:  # a decision of the taker (advanced.py)
            k = A.legal_actions(state, params, actions)
            A.apply_action(state, params, actions[take_choice(state, params, actions, k)], nxt)
            state[:] = nxt
        else:
            _styled_step(state, params, style0, style1, nxt, actions, probs)
    return A.returns_p1(state, params)


@njit(cache=True, parallel=True)
def rollouts(pubs, params, leaf, i0, i1, style0, style1, seeds, out):
    """The ``rollouts`` hook (rollout.py's): each seat plays its style (``style0[q]``,
    ``style1[q]``: rollout.py's STYLES). The games run in numba's threads (``prange``): each seeds
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
        out[q] = w * play_out(state, params, style0[q], style1[q])
