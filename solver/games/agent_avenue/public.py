"""Agent Avenue (simple mode) on the public-state model: what each player knows privately,
what both see.

A player's **private state** is its hand and its discards (face down: hidden), two
multisets over the variant's names, and between its play and the recruitment the card it
played face down (pending). Their sizes are public, so states are numbered *per size*
(:func:`index`): at a public node, index i of seat s means the i-th (hand, discards) pair of
the sizes the node shows for s, or the i-th (hand, discards, pending) triple while s's
face-down card is pending (:func:`scheme`). A seat's scheme changes only at its own moves
and draws, which renumber its states. State 0 is ``DEAD``, where draws that cannot happen
go (below); an index beyond the scheme's count is never reached and behaves as DEAD.

A **public state** is the rules' state array (rules.py) with the hands, discards, deck and
face-down card blanked, so the rules' own end step runs on it. The play is public label
"face-up u" (the face-down name is the mover's private action); the recruiter's choice is a
public label; then a public **signal** reveals the face-down card d (a chance node, mask 1
on the mover's states pending d). The mover's refill is drawn after the recruitment, not
before as in the rules (the recruiter sees only how many cards it draws, which the public
state knows): one private-chance step (``PH_CLEAR``) draws it and forgets the revealed card,
a step the history map folds into the recruitment. So the pending card never meets the
refill and the largest numbering is hands of the full size times discards.

**Draws** (the deal, a discard's draw, the refill) are private chance, modelled as draws
with replacement, each name 1/n (a multiset x of k cards: multinomial(k; x) / n^k), a draw
impossible from the drawer's own view (no copy left outside its hand, discards and play)
going to DEAD. The true probability of the game's draws is the same multinomials times
``prod_t c_t^(D_t) / N^(K)`` (falling factorials: D_t cards of name t drawn by anyone out of
c_t, K of N in all), which depends on both players' cards; the model's is the multinomials
times n^-K. So the terminal payoff carries the ratio ``n^K prod_t c_t^(D_t) / N^(K)``, D = in
play + both hands + both discards: exact values and the card removal between the players
(0 where they hold more than the deck has), with ``compatible`` left at 1. The ratio depends
only on the leaf's public state and private states, so the seats' futures stay Markov in
(public node, private state).

**Forgetting discards** (``params.forget``): forget.py's notes.

The model's parts: the multiset codes (multiset.py), the numbering of private states
(numbering.py), the moves and draws (moves.py), the weight a forgotten discard carries
(forget.py), the payoffs (payoff.py); this module holds the public state, its bridge to
the rules' histories, the signal, the deal, and registers the model.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from spycfr.games.agent_avenue import rules as R
from spycfr.games.agent_avenue.moves import (
    SWAP_LABEL,
    legal_actions,
    private_action_rows,
    private_actions,
    private_chance,
    private_chance_rows,
)
from spycfr.games.agent_avenue.multiset import binom, digit, multinomial, next_multiset
from spycfr.games.agent_avenue.numbering import (
    DEAD,
    NO_NAME,
    PH_CLEAR,
    PH_REVEAL,
    TAKEN,
    cards_left,
    code_of,
    discards_held,
    index,
    num_private,
    scheme,
    scheme_size,
    swap_draw,
)
from spycfr.games.agent_avenue.payoff import terminal_payoff, terminal_values
from spycfr.games.agent_avenue.rules import (
    ACTIVE,
    DECK,
    DECKSIZE,
    DISC,
    DLEFT,
    DOWN,
    HAND,
    HANDSIZE,
    LASTDISC,
    LASTTAKE,
    PH_DEAL0,
    PH_DEAL1,
    PH_OVER,
    PH_PLAY,
    PH_RECRUIT,
    PH_REFILL,
    PH_SWAP_DRAW,
    PHASE,
    UP,
    AgentAvenueParams,
)
from spycfr.public.protocol import CHANCE, PRIVATE_CHANCE, TERMINAL, register

# --- the public state and the bridge -----------------------------------------------------


@njit(cache=True)
def blank(state, params, out, root):
    """``out``: the rules' state with the hands, discards, deck and face-down card blanked;
    before the deal is over, the public root (phase ``root``, the hands dealt). Advanced
    mode's model shares it."""
    out[:] = state
    for x in range(16):
        out[HAND + x] = 0
        out[DISC + x] = 0
    for x in range(8):
        out[DECK + x] = 0
    out[DOWN] = -1
    out[TAKEN] = -1
    if state[PHASE] == PH_DEAL0 or state[PHASE] == PH_DEAL1:
        out[PHASE] = root
        out[HANDSIZE] = params.hand
        out[HANDSIZE + 1] = params.hand
        total = 0
        for t in range(params.n):
            total += params.copies[t]
        out[DECKSIZE] = total - 2 * params.hand


@njit(cache=True)
def public_of_history(state, params, out):
    """The rules' state blanked (the name a swap discarded too); the deal is the root; from
    the play to the recruitment the mover's hand size and the deck as before its refill
    (drawn later in the public tree)."""
    blank(state, params, out, PH_PLAY)
    out[LASTDISC] = 0
    ph = state[PHASE]
    a = state[ACTIVE]
    if ph == PH_REFILL or ph == PH_RECRUIT:
        out[PHASE] = PH_RECRUIT
        pre = min(state[HANDSIZE + a], params.hand - 2)  # the hand was full if cards are left
        out[DECKSIZE] += state[HANDSIZE + a] - pre
        out[HANDSIZE + a] = pre


@njit(cache=True)
def private_of_history(state, params, seat):
    """-1 before the seat's deal, and for the mover at the recruitment after its refill or
    at the end (the public tree has not drawn the refill; the bridge never asks there)."""
    ph = state[PHASE]
    if ph == PH_DEAL0 or (ph == PH_DEAL1 and seat == 1):
        return np.int64(-1)
    n = params.n
    hand = code_of(state, HAND + 8 * seat, n)
    disc = np.int64(0) if params.forget else code_of(state, DISC + 8 * seat, n)
    ds = discards_held(state, params, seat)
    hs = np.int64(state[HANDSIZE + seat])
    if seat == state[ACTIVE] and (ph == PH_REFILL or ph == PH_RECRUIT):
        if hs > params.hand - 2:
            return np.int64(-1)
        return index(params, True, hs, ds, hand, disc, np.int64(state[DOWN]))
    if seat == state[ACTIVE] and ph == PH_OVER:
        return np.int64(-1)
    if swap_draw(state, params, seat):
        return index(params, True, hs, ds, hand, disc, np.int64(state[LASTDISC]))
    return index(params, False, hs, ds, hand, disc, NO_NAME)


@njit(cache=True)
def initial_state(params):
    s = R.initial_state(params)
    out = np.empty_like(s)
    public_of_history(s, params, out)
    return out


@njit(cache=True)
def current_player(pub, params):
    ph = pub[PHASE]
    a = pub[ACTIVE]
    if ph == PH_OVER:
        return TERMINAL
    if ph == PH_PLAY:
        return np.int64(a)
    if ph == PH_RECRUIT:
        return np.int64(1 - a)
    if ph == PH_REVEAL:
        return CHANCE
    if ph == PH_CLEAR:
        return np.int64(PRIVATE_CHANCE + 1 - a)
    return np.int64(PRIVATE_CHANCE + a)  # a discard's draw


@njit(cache=True)
def chance_outcomes(pub, params, codes, probs):
    """The face-down card revealed: each name of which a card can be outside play."""
    k = 0
    for d in range(params.n):
        if cards_left(pub, params, d) > 0:
            codes[k] = d
            probs[k] = 1.0
            k += 1
    return k


@njit(cache=True)
def chance_mask(pub, params, outcome, seat, out):
    """1 on the mover's states whose pending face-down card is the one revealed."""
    if seat != pub[ACTIVE]:
        out[:] = 1.0
        return
    out[:] = 0.0
    pending, hs, ds = scheme(pub, params, seat)
    for i in range(1, scheme_size(params, pending, hs, ds)):
        if (i - 1) % params.n == outcome:
            out[i] = 1.0


@njit(cache=True)
def apply_action(pub, params, action, out):
    out[:] = pub
    ph = pub[PHASE]
    a = pub[ACTIVE]
    if ph == PH_PLAY:
        if action == SWAP_LABEL:
            out[DLEFT + a] -= 1
            out[HANDSIZE + a] -= 1
            out[PHASE] = PH_SWAP_DRAW
            return
        out[HANDSIZE + a] -= 2
        out[UP] = (action >> 3) & 7
        out[PHASE] = PH_RECRUIT
        return
    if ph == PH_SWAP_DRAW:
        out[HANDSIZE + a] += 1
        out[DECKSIZE] -= 1
        out[PHASE] = PH_PLAY
        return
    if ph == PH_RECRUIT:
        out[TAKEN] = action & 1
        out[PHASE] = PH_REVEAL
        return
    if ph == PH_REVEAL:
        out[DOWN] = action
        R.recruit(out, params, pub[TAKEN])
        out[LASTTAKE] = 1 + pub[TAKEN]
        out[TAKEN] = -1
        k = R.draw_count(out, params, a)  # the refill, drawn at PH_CLEAR: the sizes now
        out[HANDSIZE + a] += k  # (the rules' end step reads them)
        out[DECKSIZE] -= k
        R.end_step(out, params)
        if out[PHASE] != PH_OVER:
            out[PHASE] = PH_CLEAR
        return
    out[PHASE] = PH_PLAY  # PH_CLEAR


# --- the deal and bounds -----------------------------------------------------------------


@njit(cache=True)
def initial_weights(params, seat, out):
    """Each hand of the deal by the model (multinomial / n^hand); those exceeding a name's
    copies, DEAD."""
    n = params.n
    out[:] = 0.0
    total = 0.0
    x = np.int64(params.hand)
    scale = 1.0 / float(n) ** params.hand
    while x >= 0:
        ok = True
        for t in range(n):
            if digit(x, t) > params.copies[t]:
                ok = False
        p = multinomial(x, n, params.hand) * scale
        if ok:
            out[index(params, False, params.hand, 0, x, 0, NO_NAME)] = p
            total += p
        x = next_multiset(x, n)
    out[DEAD] = max(0.0, 1.0 - total)


@njit(cache=True)
def max_actions(params):
    return max(params.n + 1, 2)


@njit(cache=True)
def max_private_actions(params):
    n = params.n
    # plays and swaps; a draw of at most `hand` cards, and DEAD
    return max(n + n * (n - 1), binom(n + params.hand - 1, params.hand) + 1, 2)


@njit(cache=True)
def max_depth(params):
    # A turn: swaps (a label and a draw each), a play, the recruitment, the signal and the
    # refill; at most total / 2 turns.
    total = 0
    for t in range(params.n):
        total += params.copies[t]
    return 2 + 4 * (total // 2 + 1) + 4 * params.discards

register(
    AgentAvenueParams, num_private=num_private, initial_weights=initial_weights,
    initial_state=initial_state, current_player=current_player, legal_actions=legal_actions,
    private_actions=private_actions, max_private_actions=max_private_actions,
    private_chance=private_chance, chance_outcomes=chance_outcomes, chance_mask=chance_mask,
    apply_action=apply_action, terminal_payoff=terminal_payoff,
    terminal_values=terminal_values, max_actions=max_actions, max_depth=max_depth,
    public_of_history=public_of_history, private_of_history=private_of_history,
    private_action_rows=private_action_rows, private_chance_rows=private_chance_rows,
)
