"""Agent Avenue, advanced mode (black market cards) as numba rules of the game protocol.

``params`` is an :class:`AgentAvenueAdvancedParams` (``Variant.to_params()`` with
``mode="advanced"``: the full deck, board 14); its type selects these rules in the generic
engines. The simple mode's helpers and phases are reused from :mod:`rules` unchanged; this
module adds the black market (spec, "Black market cards"; rulebook, "Advanced Mode").

Flow: the deal (rules.py), then PH_MARKET (chance: the supply of 3). A turn is the simple
one up to the recruit; then both meeples move (modifiers of the owner's ongoing cards),
and each player who landed exactly on a black market space resolves, the active player
first and completely: PH_BM_TAKE (choose a supply card), PH_BM_SUPPLY (chance: the supply
refilled from the deck, before the ability), then an instant card's ability: PH_CHOOSE
(a choice of targets) or PH_EFFECT (chance: Smoke Screen's card, or one forced outcome
that tells what happened: Outpost's Sentinel or nothing, the Truck's move, an ability
ignored because it cannot be performed); a recruit by an ability moves again and may land
again (take again). When a player's resolution is over, PH_HAND_DRAW (chance) refills its
hand. Then the End step with the black market's extra win conditions.

Action codes: simple ones (rules.py); take ``T_BM << 20 | c``; an ability choice
``T_ABILITY << 20 | recruit << 4 | name`` (recruit: Spycation recruits at once).
Chance codes: the market a 15-bit mask; a supply card c; an effect a name, EFF_MOVED or
EFF_NONE; a hand draw as rules.py's draws. Observation codes: rules.py's kinds, and
``O_MARKET << 21 | sub << 18 | data`` for everything public about the black market (sub:
SUB_MARKET mask, SUB_TAKE c, SUB_SUPPLY c, SUB_ABILITY card << 5 | recruit << 4 | x).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from spycfr.engine import protocol
from spycfr.engine.rng import combine_key
from spycfr.games.agent_avenue import rules as R
from spycfr.games.agent_avenue.advanced_core import *  # noqa: F403  (the layout, re-exported)
from spycfr.games.agent_avenue.advanced_core import (
    BMDECK,
    BMP,
    CARD,
    CB,
    DD,
    DOUBLE,
    EFF_MOVED,
    EFF_NONE,
    END_P1_LEADER,
    END_P1_MASTER,
    END_P1_SECURITY,
    END_P2_LEADER,
    END_P2_MASTER,
    END_P2_SECURITY,
    L_DECK,
    L_DISCARD,
    L_HELD,
    L_OWNER,
    L_SUPPLY,
    LAND,
    LEADER,
    LOC,
    MASTERPLAN,
    MIND,
    N_BM,
    N_ONGOING,
    O_MARKET,
    OUTPOST,
    PH_BM_SUPPLY,
    PH_BM_TAKE,
    PH_CHOOSE,
    PH_EFFECT,
    PH_HAND_DRAW,
    PH_MARKET,
    POS,
    REFILLED,
    SE,
    SECRET,
    SECURITY,
    SMOKE,
    STATE_SIZE,
    SUB_ABILITY,
    SUB_MARKET,
    SUB_SUPPLY,
    SUB_TAKE,
    SUPPLY,
    SUPPLY_SIZE,
    SWAPPED,
    T_BM,
    TRUCK,
    AgentAvenueAdvancedParams,
    advance,
    choice_options,
    hand_need,
    has_choice,
    owns,
    recruit_one,
)
from spycfr.games.agent_avenue.advanced_heuristic import heuristic_policy
from spycfr.games.agent_avenue.rules import (
    ACTIVE,
    DECK,
    DECKSIZE,
    DOWN,
    GAP,
    HAND,
    HANDSIZE,
    PH_DEAL1,
    PH_OVER,
    PH_PLAY,
    PH_RECRUIT,
    PH_REFILL,
    PH_SWAP_DRAW,
    PHASE,
    PLAY,
    TURN,
    UP,
    WINNER,
)
from spycfr.tree import CHANCE, TERMINAL

# --- the contract ----------------------------------------------------------------------


@njit(cache=True)
def initial_state(params):
    """Before the deal: rules.py's start, the meeples on their home spaces (0 and 7), every
    black market card in its deck."""
    s = np.zeros(STATE_SIZE, dtype=np.int16)
    simple = R.initial_state(params)
    s[:simple.shape[0]] = simple
    s[POS] = 0
    s[POS + 1] = params.board // 2
    s[BMP] = -1
    s[CARD] = -1
    s[BMDECK] = N_BM
    for c in range(N_BM):
        s[LOC + c] = L_DECK
    return s


@njit(cache=True)
def current_player(state, params):
    ph = state[PHASE]
    if ph == PH_OVER:
        return TERMINAL
    if ph == PH_PLAY:
        return np.int64(state[ACTIVE])
    if ph == PH_RECRUIT:
        return np.int64(1 - state[ACTIVE])
    if ph == PH_BM_TAKE or ph == PH_CHOOSE:
        return np.int64(state[BMP])
    return CHANCE


@njit(cache=True)
def legal_actions(state, params, out):
    """rules.py's plays and takes; a card of the supply (in card order); the choices of an
    instant ability."""
    ph = state[PHASE]
    if ph == PH_PLAY or ph == PH_RECRUIT:
        return R.legal_actions(state, params, out)
    if ph == PH_BM_TAKE:
        k = 0
        for c in range(N_BM):
            if state[LOC + c] == L_SUPPLY:
                out[k] = (T_BM << 20) | c
                k += 1
        return k
    if ph == PH_CHOOSE:
        return choice_options(state, params, out)
    return 0


@njit(cache=True)
def effect_outcome(state, params):
    """The one outcome of a forced PH_EFFECT: Outpost's Sentinel (or nothing: no Sentinel
    in hand), the Truck's move; any other ability there is ignored."""
    c = state[CARD]
    if c == OUTPOST:
        return SE if state[HAND + 8 * state[BMP] + SE] > 0 else EFF_NONE
    if c == TRUCK:
        return EFF_MOVED
    return EFF_NONE


@njit(cache=True)
def chance_outcomes(state, params, codes, probs):
    ph = state[PHASE]
    if ph <= PH_REFILL and ph != PH_PLAY:
        return R.chance_outcomes(state, params, codes, probs)
    if ph == PH_MARKET:  # every set of 3 of the shuffled deck, equally likely
        k = 0
        for i in range(N_BM):
            for j in range(i + 1, N_BM):
                for m in range(j + 1, N_BM):
                    codes[k] = (1 << i) | (1 << j) | (1 << m)
                    k += 1
        for j in range(k):
            probs[j] = 1.0 / k
        return k
    if ph == PH_BM_SUPPLY:  # the top card of the shuffled black market deck
        k = 0
        for c in range(N_BM):
            if state[LOC + c] == L_DECK:
                codes[k] = c
                probs[k] = 1.0 / state[BMDECK]
                k += 1
        return k
    if ph == PH_EFFECT:
        if state[CARD] == SMOKE and state[DECKSIZE] > 0:  # the top card of the agent deck
            k = 0
            for i in range(params.n):
                if state[DECK + i] > 0:
                    codes[k] = i
                    probs[k] = state[DECK + i] / state[DECKSIZE]
                    k += 1
            return k
        codes[0] = effect_outcome(state, params)
        probs[0] = 1.0
        return 1
    if ph == PH_HAND_DRAW:
        return R.deck_draws(state, params, hand_need(state, params, state[BMP]), codes, probs)
    return 0


@njit(cache=True)
def apply_action(state, params, action, out):
    """Write the state after ``action`` (a legal action or chance outcome) into ``out``."""
    ph = state[PHASE]
    if ph == PH_RECRUIT:
        out[:] = state
        out[R.LASTTAKE] = 1 + (action & 1)  # as rules.py records it (for the public model)
        _recruit(out, params, action & 1)
        return
    if ph < PH_OVER:  # the deal, swaps, plays and draws: rules.py
        R.apply_action(state, params, action, out)
        if ph == PH_DEAL1:
            out[PHASE] = PH_MARKET
        if ph == PH_PLAY and (action >> 20) == R.T_PLAY:
            out[REFILLED] = R.draw_count(out, params, state[ACTIVE])
        else:  # rules.py's LASTDISC (a swap's name) shares the slot: this mode's SWAPPED
            out[REFILLED] = state[REFILLED]
        if ph == PH_PLAY and (action >> 20) == R.T_SWAP:
            out[SWAPPED] = action & 7
        elif ph == PH_SWAP_DRAW:
            out[SWAPPED] = 0
        return
    out[:] = state
    p = state[BMP]
    if ph == PH_MARKET:
        for c in range(N_BM):
            if (action >> c) & 1:
                out[LOC + c] = L_SUPPLY
        out[SUPPLY] = SUPPLY_SIZE
        out[BMDECK] -= SUPPLY_SIZE
        out[PHASE] = PH_PLAY
    elif ph == PH_BM_TAKE:
        c = action & 31
        out[LOC + c] = L_HELD
        out[SUPPLY] -= 1
        out[CARD] = c
        if out[BMDECK] > 0:
            out[PHASE] = PH_BM_SUPPLY  # the supply is refilled before the ability resolves
        else:
            _start_ability(out, params)
    elif ph == PH_BM_SUPPLY:
        out[LOC + action] = L_SUPPLY
        out[SUPPLY] += 1
        out[BMDECK] -= 1
        _start_ability(out, params)
    elif ph == PH_CHOOSE:
        _choose(out, params, p, action)
    elif ph == PH_EFFECT:
        _effect(out, params, p, action)
    elif ph == PH_HAND_DRAW:
        R.add_draw(out, params, p, action)
        bm_continue(out, params)


@njit(cache=True)
def _recruit(out, params, take):
    """O recruits the card it took, A the other; both move (with their ongoing cards); then
    whoever landed on a black market space takes a card, the active player first."""
    a = out[ACTIVE]
    o = 1 - a
    taken = out[UP] if take == R.TAKE_UP else out[DOWN]
    left = out[DOWN] if take == R.TAKE_UP else out[UP]
    out[LAND + o] = recruit_one(out, params, o, taken)
    out[LAND + a] = recruit_one(out, params, a, left)
    out[UP] = -1
    out[DOWN] = -1
    bm_continue(out, params)


@njit(cache=True)
def _start_ability(out, params):
    """The card taken is in hand: an ongoing card goes in front of its owner (no effect on
    the agent just recruited); an instant card resolves (a choice, or an effect)."""
    c = out[CARD]
    p = out[BMP]
    if c < N_ONGOING:
        out[LOC + c] = L_OWNER + p
        out[CARD] = -1
        bm_continue(out, params)
        return
    out[PHASE] = PH_CHOOSE if has_choice(out, params) else PH_EFFECT


@njit(cache=True)
def _choose(out, params, p, action):
    """Resolve Mind Control, Double Trouble, Secret Recruit or Spycation with its target."""
    c = out[CARD]
    i = action & 7
    landed = False
    if c == MIND:  # the opponent's agent goes to p's hand; no meeple moves
        out[PLAY + 8 * (1 - p) + i] -= 1
        out[HAND + 8 * p + i] += 1
        out[HANDSIZE + p] += 1
    elif c == DOUBLE or c == SECRET:  # recruit one from the hand (Double Trouble keeps one)
        out[HAND + 8 * p + i] -= 1
        out[HANDSIZE + p] -= 1
        landed = recruit_one(out, params, p, i)
    else:  # Spycation: back to the hand (no move), or recruited again at once
        out[PLAY + 8 * p + i] -= 1
        if (action >> 4) & 1:
            landed = recruit_one(out, params, p, i)
        else:
            out[HAND + 8 * p + i] += 1
            out[HANDSIZE + p] += 1
    ability_done(out, params, p, landed)


@njit(cache=True)
def _effect(out, params, p, outcome):
    """Resolve Outpost, Smoke Screen or Surveillance Truck, or an ignored ability."""
    c = out[CARD]
    landed = False
    if outcome == EFF_MOVED:
        landed = advance(out, params, p, 1)
    elif outcome != EFF_NONE:
        if c == OUTPOST:
            out[HAND + 8 * p + outcome] -= 1
            out[HANDSIZE + p] -= 1
        else:  # Smoke Screen: the top card of the agent deck
            out[DECK + outcome] -= 1
            out[DECKSIZE] -= 1
        landed = recruit_one(out, params, p, outcome)
    ability_done(out, params, p, landed)


@njit(cache=True)
def ability_done(out, params, p, landed):
    """An instant ability is resolved: its card is discarded; a landing takes again."""
    out[LOC + out[CARD]] = L_DISCARD
    out[CARD] = -1
    if landed:
        out[LAND + p] = 1
    bm_continue(out, params)


@njit(cache=True)
def bm_continue(out, params):
    """The next step after a resolution: the active player's pending take, then its hand
    refill, then the opponent's; then the End step. A landing with an empty supply takes
    nothing."""
    a = out[ACTIVE]
    for k in range(2):
        p = a if k == 0 else 1 - a
        if out[LAND + p]:
            out[LAND + p] = 0
            if out[SUPPLY] > 0:
                out[BMP] = p
                out[PHASE] = PH_BM_TAKE
                return
        if hand_need(out, params, p) > 0:
            out[BMP] = p
            out[PHASE] = PH_HAND_DRAW
            return
    out[BMP] = -1
    _end_step(out, params)


@njit(cache=True)
def _end_step(out, params):
    """rules.py's End step plus the black market's win conditions (Leader of the Pack turns
    three Daredevils into a win, Masterplan, Security System); ties to the active player."""
    a = out[ACTIVE]
    o = 1 - a
    g = out[GAP]
    fired = 0
    if g <= 0:
        fired |= R.END_P1_CATCH
    if g >= params.board:
        fired |= R.END_P2_CATCH
    for p in range(2):
        if out[PLAY + 8 * p + CB] >= 3:
            fired |= R.END_P1_CB << p
        if out[PLAY + 8 * p + DD] >= 3:
            fired |= (END_P1_LEADER if owns(out, p, LEADER) else R.END_P1_DD) << p
        if owns(out, p, MASTERPLAN):
            names = 0
            for i in range(params.n):
                if out[PLAY + 8 * p + i] > 0:
                    names += 1
            if names >= 7:
                fired |= END_P1_MASTER << p
        if owns(out, p, SECURITY) and out[POS + 1 - p] == p * (params.board // 2):
            fired |= END_P1_SECURITY << p
    if fired:
        # A player wins by a win condition of its own or a lose condition of the other.
        p1 = (fired & (R.END_P1_CATCH | R.END_P1_CB | R.END_P2_DD | END_P1_LEADER
                       | END_P1_MASTER | END_P1_SECURITY)) != 0
        p2 = (fired & (R.END_P2_CATCH | R.END_P2_CB | R.END_P1_DD | END_P2_LEADER
                       | END_P2_MASTER | END_P2_SECURITY)) != 0
        if p1 and p2:
            R.end_game(out, a, fired | R.END_TIE)
        else:
            R.end_game(out, 0 if p1 else 1, fired)
        return
    if out[DECKSIZE] == 0 and out[HANDSIZE + o] < 2:
        half = params.board // 2
        if g < half:
            R.end_game(out, 0, R.END_DECK_OUT)
        elif g > half:
            R.end_game(out, 1, R.END_DECK_OUT)
        else:
            R.end_game(out, a, R.END_DECK_OUT | R.END_TIE)
        return
    out[TURN] += 1
    out[ACTIVE] = o
    out[PHASE] = PH_PLAY


@njit(cache=True)
def observation(state, params, action, seat):
    """What ``seat`` observes of ``action`` at ``state`` (module docstring: the codes). The
    black market is public; a hand draw is seen by the drawer, its size by both."""
    ph = state[PHASE]
    if ph < PH_OVER:
        return R.observation(state, params, action, seat)
    if ph == PH_HAND_DRAW:
        return R.draw_observation(params, action, False, seat == state[BMP])
    if ph == PH_MARKET:
        return (O_MARKET << 21) | (SUB_MARKET << 18) | action
    if ph == PH_BM_TAKE:
        return (O_MARKET << 21) | (SUB_TAKE << 18) | (action & 31)
    if ph == PH_BM_SUPPLY:
        return (O_MARKET << 21) | (SUB_SUPPLY << 18) | action
    return (O_MARKET << 21) | (SUB_ABILITY << 18) | (state[CARD] << 5) | (action & 31)


@njit(cache=True)
def returns_p1(state, params):
    return 1.0 if state[WINNER] == 0 else -1.0


@njit(cache=True)
def max_actions(params):
    # rules.py's bound, or the 455 sets of 3 of the market.
    return max(R.max_actions(params), 455)


@njit(cache=True)
def max_depth(params):
    # Turns: every turn puts 2 cards from a hand in play and only Mind Control and Spycation
    # (one card each, once) put one back: at most (total + 2) / 2 turns of 3 edges. Then the
    # deal, the market, the discards with their draws, and at most 15 takes of 4 edges
    # (take, supply, ability, hand draw).
    total = 0
    for i in range(params.n):
        total += params.copies[i]
    return 3 + 3 * ((total + 2) // 2 + 1) + 4 * params.discards + 4 * N_BM


@njit(cache=True)
def abstraction_key(state, params, seat):
    """rules.py's information abstraction (the seat's hand and discards, what is public and
    matters, history order forgotten) plus the black market, all public: both meeples'
    spaces, where every black market card is, who resolves which card, pending landings."""
    h = R.abstraction_key(state, params, seat)
    for f in (POS, POS + 1, LAND, LAND + 1, BMP, CARD):
        h = combine_key(h, state[f] + 64)
    for c in range(N_BM):
        h = combine_key(h, state[LOC + c])
    return h


protocol.register(
    AgentAvenueAdvancedParams, initial_state=initial_state, current_player=current_player,
    legal_actions=legal_actions, chance_outcomes=chance_outcomes, apply_action=apply_action,
    observation=observation, returns_p1=returns_p1, max_actions=max_actions,
    max_depth=max_depth, heuristic_policy=heuristic_policy, abstraction_key=abstraction_key,
)

