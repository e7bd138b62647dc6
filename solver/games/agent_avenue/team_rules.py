"""Agent Avenue's team variant (2v1, 2v2; simple mode) as numba rules of the game protocol.

The rulebook's "Team Variant" with the spec's model (docs/games/agent-avenue.md, "Team
variant"): two teams share a meeple and their cards in play; every seat holds its own hand
and sees only its own cards (``open_hands`` = 1 lets teammates see each other's hands: the
bound for a team that could talk). Seats are numbered team 0's first (team 0 starts), then
team 1's; the first seat of a team is its captain.

A turn of team A against team O: for a team of two, the captain names the teammate who
plays face up (PH_LEAD); that seat may discard-and-draw, then plays one card face up
(PH_UP); the teammate may discard-and-draw, then plays one card face down (PH_DOWN), of a
different name unless every card in its hand has the face-up name; a lone player plays its
pair as in the plain game (PH_PAIR). Then the face-up player draws back up, then the
face-down player (so the face-up player draws the deck's last card), O's captain recruits
up or down, and the End step runs; the deck-out fires when the deck is empty and a seat of
O cannot play (no card for a teammate, fewer than 2 for a lone player).

State layout (``np.int16[STATE_SIZE]``): the plain rules' slots where they mean the same
(PLAY + 8t in play per team, DECK, GAP, ACTIVE = the team on turn, PHASE, UP, DOWN, TURN,
WINNER, DECKSIZE, ENDED), and per seat s: HAND + 8s, DISC + 8s, DLEFT + s, HANDSIZE + s;
LEAD (the face-up seat of this turn), SEAT (the seat acting or drawing), RET (the phase a
discard's draw returns to). Action codes: the plain ones (swap, pair play, take), up
``T_UP << 20 | i``, down ``T_DOWN << 20 | i``, lead ``T_LEAD << 20 | m`` (m = 0 captain,
1 teammate).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from spycfr.engine import protocol
from spycfr.games.agent_avenue import rules as R
from spycfr.tree import CHANCE, TERMINAL

DLEFT = 0  # + seat
HANDSIZE = 4  # + seat
PLAY = R.PLAY  # + 8 * team
DECK = R.DECK
GAP = R.GAP
ACTIVE = R.ACTIVE
PHASE = R.PHASE
UP = R.UP
DOWN = R.DOWN
TURN = R.TURN
WINNER = R.WINNER
DECKSIZE = R.DECKSIZE
ENDED = R.ENDED
LEAD = 69
SEAT = 70
RET = 71
HAND = 72  # + 8 * seat
DISC = 104  # + 8 * seat
STATE_SIZE = 136
SLOTS = (HAND, HANDSIZE, DISC, DLEFT)  # a seat's slots, for the plain rules' helpers

PH_DEAL = 0
PH_LEAD = 1
PH_UP = 2
PH_DOWN = 3
PH_PAIR = 4
PH_SWAP_DRAW = 5
PH_OVER = R.PH_OVER  # 6: the plain rules' end-of-game helpers write it
PH_REFILL = 7
PH_RECRUIT = 8

T_SWAP = R.T_SWAP
T_PLAY = R.T_PLAY
T_TAKE = R.T_TAKE
T_UP = 4
T_DOWN = 5
T_LEAD = 6

O_LEAD = 7  # observation kinds 1..6 are the plain rules'
O_UP = 1 << 12  # sub-kinds of O_PLAY: a team's single cards
O_DOWN = 2 << 12


class AgentAvenueTeamParams(NamedTuple):
    """The numba parameters record of a team variant (see variant.py)."""

    n: np.int64
    copies: np.ndarray  # int64[n]
    moves: np.ndarray  # int64[n, 3]
    cb: np.int64
    dd: np.int64
    hand: np.int64
    discards: np.int64  # per seat of a team of two
    lone_discards: np.int64  # a lone player's allowance
    board: np.int64
    size0: np.int64  # seats of team 0 (1 or 2)
    size1: np.int64
    open_hands: np.int64  # 1: teammates see each other's cards (not the rulebook)


@njit(cache=True)
def team_of(params, seat):
    return 0 if seat < params.size0 else 1


@njit(cache=True)
def captain(params, team):
    return 0 if team == 0 else params.size0


@njit(cache=True)
def team_size(params, team):
    return params.size0 if team == 0 else params.size1


@njit(cache=True)
def sees(params, viewer, owner):
    """Whether ``viewer`` sees the private cards of ``owner``."""
    return viewer == owner or (params.open_hands == 1
                               and team_of(params, viewer) == team_of(params, owner))


@njit(cache=True)
def teammate(params, team, seat):
    """The other seat of ``seat``'s team of two."""
    return 2 * captain(params, team) + 1 - seat


@njit(cache=True)
def draw_count(state, params, s):
    """Cards seat ``s`` draws back up to the hand size (fewer if the deck runs short)."""
    return R.draw_count(state, params, s, SLOTS)


@njit(cache=True)
def _start_turn(out, params, team):
    out[ACTIVE] = team
    out[UP] = -1
    out[DOWN] = -1
    out[LEAD] = -1
    out[SEAT] = captain(params, team)
    out[PHASE] = PH_LEAD if team_size(params, team) == 2 else PH_PAIR


@njit(cache=True)
def _refill_from(out, params, s):
    """Draw back up: the face-up seat first, then its teammate; then the recruit. (A seat
    that has just drawn has nothing more to draw: from it, the next draw or the recruit.)"""
    while True:
        if draw_count(out, params, s) > 0:
            out[SEAT] = s
            out[PHASE] = PH_REFILL
            return
        if s == out[LEAD] and team_size(params, out[ACTIVE]) == 2:
            s = teammate(params, out[ACTIVE], s)
            continue
        out[PHASE] = PH_RECRUIT
        return


# --- the contract ----------------------------------------------------------------------


@njit(cache=True)
def initial_state(params):
    s = R.new_state(params, STATE_SIZE)
    for seat in range(params.size0 + params.size1):
        size = team_size(params, team_of(params, seat))
        s[DLEFT + seat] = params.discards if size == 2 else params.lone_discards
    s[LEAD] = -1
    s[PHASE] = PH_DEAL
    return s


@njit(cache=True)
def current_seat(state, params):
    ph = state[PHASE]
    if ph == PH_OVER:
        return TERMINAL
    if ph == PH_LEAD or ph == PH_UP or ph == PH_DOWN or ph == PH_PAIR:
        return np.int64(state[SEAT])
    if ph == PH_RECRUIT:
        return np.int64(captain(params, 1 - state[ACTIVE]))
    return CHANCE


@njit(cache=True)
def current_player(state, params):
    ph = state[PHASE]
    if ph == PH_OVER:
        return TERMINAL
    if ph == PH_DEAL or ph == PH_SWAP_DRAW or ph == PH_REFILL:
        return CHANCE
    return np.int64(team_of(params, current_seat(state, params)))


@njit(cache=True)
def num_seats(params):
    return params.size0 + params.size1


@njit(cache=True)
def legal_actions(state, params, out):
    """Lead (captain or teammate); swaps then a card or a pair; or take up/down."""
    ph = state[PHASE]
    if ph == PH_RECRUIT:
        out[0] = (T_TAKE << 20) | R.TAKE_UP
        out[1] = (T_TAKE << 20) | R.TAKE_DOWN
        return 2
    if ph == PH_LEAD:
        out[0] = T_LEAD << 20
        out[1] = (T_LEAD << 20) | 1
        return 2
    if ph != PH_UP and ph != PH_DOWN and ph != PH_PAIR:
        return 0
    s = state[SEAT]
    h = HAND + 8 * s
    n = 0
    if state[DLEFT + s] > 0 and state[DECKSIZE] > 0:
        n = R.each_name(state, params, s, T_SWAP, out, n, SLOTS)
    if ph == PH_UP:
        return R.each_name(state, params, s, T_UP, out, n, SLOTS)
    if ph == PH_DOWN:
        # The team variant's clause: a face-down card of another name than the face-up one,
        # unless every card of the hand has that name.
        up = state[UP]
        other = False
        for i in range(params.n):
            if i != up and state[h + i] > 0:
                other = True
        for i in range(params.n):
            if state[h + i] > 0 and (i != up or not other):
                out[n] = (T_DOWN << 20) | i
                n += 1
        return n
    return R.pair_plays(state, params, s, out, n, SLOTS)


@njit(cache=True)
def chance_outcomes(state, params, codes, probs):
    ph = state[PHASE]
    if ph == PH_DEAL:
        return R.deck_draws(state, params, params.hand, codes, probs)
    if ph == PH_SWAP_DRAW:
        return R.deck_draws(state, params, 1, codes, probs)
    if ph == PH_REFILL:
        return R.deck_draws(state, params, draw_count(state, params, state[SEAT]), codes, probs)
    return 0


@njit(cache=True)
def apply_action(state, params, action, out):
    """Write the state after ``action`` (a legal action or chance outcome) into ``out``."""
    out[:] = state
    ph = state[PHASE]
    s = state[SEAT]
    if ph == PH_DEAL:
        R.add_draw(out, params, s, action, SLOTS)
        if s + 1 < params.size0 + params.size1:
            out[SEAT] = s + 1
        else:
            _start_turn(out, params, 0)
        return
    if ph == PH_SWAP_DRAW:
        R.add_draw(out, params, s, action, SLOTS)
        out[PHASE] = out[RET]
        return
    if ph == PH_REFILL:
        R.add_draw(out, params, s, action, SLOTS)
        _refill_from(out, params, s)
        return
    typ = action >> 20
    if typ == T_LEAD:
        lead = captain(params, out[ACTIVE]) + (action & 1)
        out[LEAD] = lead
        out[SEAT] = lead
        out[PHASE] = PH_UP
        return
    if typ == T_SWAP:
        R.discard(out, s, action & 7, SLOTS)
        out[RET] = ph
        out[PHASE] = PH_SWAP_DRAW
        return
    if typ == T_UP:
        i = action & 7
        R.take_card(out, s, i, SLOTS)
        out[UP] = i
        out[SEAT] = teammate(params, out[ACTIVE], s)
        out[PHASE] = PH_DOWN
        return
    if typ == T_DOWN:
        i = action & 7
        R.take_card(out, s, i, SLOTS)
        out[DOWN] = i
        _refill_from(out, params, out[LEAD])
        return
    if typ == T_PLAY:
        R.play_pair(out, s, action, SLOTS)
        out[LEAD] = s
        _refill_from(out, params, s)
        return
    R.recruit(out, params, action & 1)
    _end_step(out, params)


@njit(cache=True)
def _end_step(out, params):
    """The plain rules' End step (rules.end_step) but for the team variant's deck-out
    clause (a seat of the next team cannot play: _can_play) and its next turn (a lead)."""
    if R.end_conditions(out, params):
        return
    o = 1 - out[ACTIVE]
    if out[DECKSIZE] == 0 and not _can_play(out, params, o):  # the team deck-out clause
        R.deck_out(out, params)
        return
    out[TURN] += 1
    _start_turn(out, params, o)


@njit(cache=True)
def _can_play(state, params, team):
    """Whether ``team`` can play a turn from its hands: a card per teammate, two alone."""
    c = captain(params, team)
    if team_size(params, team) == 1:
        return state[HANDSIZE + c] >= 2
    return state[HANDSIZE + c] > 0 and state[HANDSIZE + c + 1] > 0


@njit(cache=True)
def observation(state, params, action, seat):
    """What ``seat`` observes when ``action`` is applied (module docstring: the codes)."""
    ph = state[PHASE]
    s = state[SEAT]
    if ph == PH_DEAL or ph == PH_SWAP_DRAW or ph == PH_REFILL:
        return R.draw_observation(params, action, ph == PH_DEAL, sees(params, seat, s))
    typ = action >> 20
    if typ == T_LEAD:
        return (O_LEAD << 21) | (action & 1)
    if typ == T_UP:
        return (R.O_PLAY << 21) | O_UP | (action & 7)
    if typ == T_DOWN:
        return (R.O_PLAY << 21) | O_DOWN | ((action & 7) if sees(params, seat, s)
                                            else R.HIDDEN)
    return R.move_observation(state, action, sees(params, seat, s))


# The same slots (WINNER) and bounds (swaps, pair plays, draws of a hand) as the plain game.
returns_p1 = R.returns_p1
max_actions = R.max_actions


@njit(cache=True)
def max_depth(params):
    # Every turn puts 2 cards in play in at most 6 edges (lead, up, down, two refills,
    # recruit); the deal is an edge per seat; each discard is two edges.
    total = 0
    for i in range(params.n):
        total += params.copies[i]
    seats = params.size0 + params.size1
    return seats + 6 * (total // 2 + 1) + 2 * seats * max(params.discards, params.lone_discards)


protocol.register(
    AgentAvenueTeamParams, initial_state=initial_state, current_player=current_player,
    current_seat=current_seat, num_seats=num_seats, legal_actions=legal_actions,
    chance_outcomes=chance_outcomes, apply_action=apply_action, observation=observation,
    returns_p1=returns_p1, max_actions=max_actions, max_depth=max_depth,
)
