"""Agent Avenue's advanced mode (black market cards) on the public-state model: simple mode's
model (public.py and its parts: the numbering, draws, plays and payoffs, shared) with the
black market.

A player's **private state** is its hand, the discards forgotten (always: ``params.forget``
is 1), and from its play to its refill the face-down card it played (pending): numbering.py's
numbering per hand size with no discards. From a swap to its draw the mover's state keeps
the name it discarded (pending, as a face-down card: simple mode's repair, forget.py's
notes), and the draw's probabilities carry forget.py's ``discard_weight``: so that
the discard does not reweigh the mover's hand by the card it names (docs/search.md, "the
forgotten discard's weight"). A hand holds at most 6 cards (4, Mind Control's agent and
Spycation's agent kept), 4 while a card is pending, so a seat has 1 + 8 C(11, 4) = 2,641
states; a swap from a hand of 6 (none seen in 300 random and heuristic games) would need
1 + 8 C(12, 5) = 6,337 to keep its name, so it forgets the name at once (the old bias, for
that hand only: :func:`keeps_name`).

A **public state** is the advanced rules' state array (advanced.py) with the hands,
discards, deck and face-down card blanked: the black market (where each of its cards is,
the supply of 3, the meeples' spaces, who resolves which card) is public as it stands, and
the rules' own steps (the moves with the owners' ongoing cards, the takes, the End step
with the black market's win conditions) run on it. The deal is the root (then the market,
a public chance). A turn is simple mode's (the play "face-up u" with the face-down card the
mover's private action, the recruitment, the face-down card revealed by a public signal,
the refill drawn after the recruitment: ``PH_CLEAR``, which also forgets the revealed
card); then the rules' black market resolution, whose steps are public but for three:

- an instant that takes from its resolver's hand (Double Trouble, Secret Recruit,
  Outpost: the rules' choice or forced outcome, depending on the hand) is a decision of the
  resolver (``PH_PICK``): a public label per name the card can recruit, and "none" (no such
  card in hand: the ability is ignored), each private state allowed exactly the labels its
  hand allows (Outpost's is forced), its hand losing the agent recruited;
- Mind Control and Spycation's "keep" put a public agent in the resolver's hand (a private
  transition of a public label);
- a hand draw after a resolution is private chance, as in simple mode.

Smoke Screen's card (the top of the agent deck, recruited face up) is a public chance with
simple mode's model of every draw (each name 1/n, weighed at the terminal by card removal:
it is in play there, so public.py's ratio counts it).
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.core import types
from numba.extending import overload

from spycfr.games.agent_avenue import advanced as A
from spycfr.games.agent_avenue import forget as FGT
from spycfr.games.agent_avenue import moves as MOV
from spycfr.games.agent_avenue import numbering as NUM
from spycfr.games.agent_avenue import payoff as PAY
from spycfr.games.agent_avenue import public as AP
from spycfr.games.agent_avenue.advanced_core import (
    BMDECK,
    BMP,
    CARD,
    DOUBLE,
    EFF_MOVED,
    EFF_NONE,
    L_HELD,
    L_OWNER,
    LOC,
    MIND,
    N_BM,
    N_ONGOING,
    OUTPOST,
    PH_BM_SUPPLY,
    PH_BM_TAKE,
    PH_CHOOSE,
    PH_EFFECT,
    PH_HAND_DRAW,
    PH_MARKET,
    REFILLED,
    SE,
    SECRET,
    SMOKE,
    SPYCATION,
    STATE_SIZE,
    SUPPLY,
    SWAPPED,
    T_ABILITY,
    TRUCK,
    AgentAvenueAdvancedParams,
    advance,
    choice_options,
    hand_need,
    is_target,
    recruit_one,
)
from spycfr.games.agent_avenue.moves import draw_rows, hand_draws, play_actions, play_rows
from spycfr.games.agent_avenue.multiset import digit, unit_code
from spycfr.games.agent_avenue.numbering import (
    DEAD,
    NO_NAME,
    TAKEN,
    cards_left,
    code_of,
    decode,
    index,
    scheme_size,
)
from spycfr.games.agent_avenue.payoff import held_code, held_values, play_ratio, scale_of
from spycfr.games.agent_avenue.rules import (
    ACTIVE,
    DECKSIZE,
    DOWN,
    HAND,
    HANDSIZE,
    LASTTAKE,
    PH_DEAL0,
    PH_DEAL1,
    PH_OVER,
    PH_PLAY,
    PH_RECRUIT,
    PH_REFILL,
    PH_SWAP_DRAW,
    PHASE,
    PLAY,
    UP,
    WINNER,
)
from spycfr.public.protocol import CHANCE, PRIVATE_CHANCE, TERMINAL, register

# Public phases beyond the rules' (0..12): the face-down card revealed (a public signal),
# the mover's refill (private chance; it forgets the revealed card), an instant that takes
# from its resolver's hand (a decision of the resolver).
PH_REVEAL = 13
PH_CLEAR = 14
PH_PICK = 15
MAX_HAND = 6  # 4, and an agent each from Mind Control and Spycation (one card of each)


# --- private states ----------------------------------------------------------------------


@njit(cache=True)
def scheme(pub, params, seat):
    """(pending, hand size, discards = 0) of ``seat``'s numbering at ``pub``: its face-down
    card is pending from its play until its refill (the hand then without the refill), the
    name it discarded from a swap to its draw (:func:`keeps_name`)."""
    ph = pub[PHASE]
    pending = seat == pub[ACTIVE] and (ph == PH_RECRUIT or ph == PH_REVEAL or ph == PH_CLEAR)
    return (pending or keeps_name(pub, params, seat), np.int64(pub[HANDSIZE + seat]),
            np.int64(0))


@njit(cache=True)
def keeps_name(pub, params, seat):
    """Whether ``seat``'s numbering at ``pub`` (a public or a rules' state) keeps the name
    it just discarded: at a swap's draw (numbering.py's ``swap_draw``), the hand left at most
    ``MAX_HAND - 2`` (the pending numbering's largest, within the 2,641 states)."""
    return NUM.swap_draw(pub, params, seat) and pub[HANDSIZE + seat] <= MAX_HAND - 2


@njit(cache=True)
def _keeps_after_swap(pub):
    """At a play: whether the mover's swap keeps the name (:func:`keeps_name` at its
    draw: the hand less the card discarded)."""
    return pub[HANDSIZE + pub[ACTIVE]] - 1 <= MAX_HAND - 2


@njit(cache=True)
def num_private(params, seat):
    return np.int64(max(scheme_size(params, False, MAX_HAND, 0),
                        scheme_size(params, True, MAX_HAND - 2, 0)))


# --- the public state and the bridge -----------------------------------------------------


@njit(cache=True)
def public_of_history(state, params, out):
    """The rules' state blanked (the name a swap discarded too); the deal is the root (the
    market next); from the play to the recruitment the mover's hand size and the deck as
    before its refill (drawn later in the public tree); an instant that takes from its
    resolver's hand at ``PH_PICK``."""
    AP.blank(state, params, out, PH_MARKET)
    out[SWAPPED] = 0
    ph = state[PHASE]
    a = state[ACTIVE]
    if ph == PH_REFILL:
        out[PHASE] = PH_RECRUIT
    elif ph == PH_RECRUIT:
        out[HANDSIZE + a] -= state[REFILLED]
        out[DECKSIZE] += state[REFILLED]
    elif (ph == PH_CHOOSE or ph == PH_EFFECT) and _picks(state):
        out[PHASE] = PH_PICK


@njit(cache=True)
def _picks(state):
    """Whether the instant being resolved takes an agent from its resolver's hand."""
    c = state[CARD]
    return c == DOUBLE or c == SECRET or c == OUTPOST


@njit(cache=True)
def private_of_history(state, params, seat):
    """-1 before the seat's deal, and for the mover at the recruitment after its refill
    (the public tree has not drawn it; the bridge never asks there); at a swap's draw the
    mover's hand and the name it discarded (:func:`keeps_name`)."""
    ph = state[PHASE]
    if ph == PH_DEAL0 or (ph == PH_DEAL1 and seat == 1):
        return np.int64(-1)
    hand = code_of(state, HAND + 8 * seat, params.n)
    hs = np.int64(state[HANDSIZE + seat])
    if seat == state[ACTIVE] and (ph == PH_REFILL or ph == PH_RECRUIT):
        if ph == PH_RECRUIT and state[REFILLED] > 0:
            return np.int64(-1)
        return index(params, True, hs, 0, hand, 0, np.int64(state[DOWN]))
    if keeps_name(state, params, seat):
        return index(params, True, hs, 0, hand, 0, np.int64(state[SWAPPED]))
    return index(params, False, hs, 0, hand, 0, NO_NAME)


@njit(cache=True)
def initial_state(params):
    s = A.initial_state(params)
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
    if ph == PH_BM_TAKE or ph == PH_CHOOSE or ph == PH_PICK:
        return np.int64(pub[BMP])
    if ph == PH_SWAP_DRAW or ph == PH_CLEAR:
        return np.int64(PRIVATE_CHANCE + a)
    if ph == PH_HAND_DRAW:
        return np.int64(PRIVATE_CHANCE + pub[BMP])
    return CHANCE  # the market, the supply, an effect, the signal


# --- labels --------------------------------------------------------------------------


@njit(cache=True)
def _candidate(pub, params, t):
    """Whether the instant at ``PH_PICK`` can recruit name t from its resolver's hand, as
    far as the public state tells: Double Trouble two of it, Secret Recruit one with none
    in the resolver's play, Outpost a Sentinel."""
    c = pub[CARD]
    if c == DOUBLE:
        return cards_left(pub, params, t) >= 2
    if c == SECRET:
        return cards_left(pub, params, t) >= 1 and pub[PLAY + 8 * pub[BMP] + t] == 0
    return t == SE and cards_left(pub, params, t) >= 1


@njit(cache=True)
def _pick_code(pub, t):
    """The label of recruiting name t at ``PH_PICK``: the rules' action (Double Trouble,
    Secret Recruit) or Outpost's chance outcome (the name)."""
    return np.int64(t) if pub[CARD] == OUTPOST else np.int64((T_ABILITY << 20) | t)


@njit(cache=True)
def _pick_label(pub, params, t):
    """The label index of name t at ``PH_PICK`` (-1: none), or of "none" for t = n."""
    k = 0
    for x in range(params.n):
        if _candidate(pub, params, x):
            if x == t:
                return k
            k += 1
    return k if t == params.n else -1


@njit(cache=True)
def legal_actions(pub, params, out):
    """Simple mode's swap and plays, take up/down; a card of the supply; the targets of
    Mind Control and Spycation (public); at ``PH_PICK`` each name the card can recruit,
    then "none" (``EFF_NONE``); one label at private chance."""
    ph = pub[PHASE]
    if ph == PH_PLAY or ph == PH_RECRUIT:
        return MOV.legal_actions(pub, params, out)
    if ph == PH_BM_TAKE:
        return A.legal_actions(pub, params, out)
    if ph == PH_CHOOSE:
        return choice_options(pub, params, out)
    if ph == PH_PICK:
        k = 0
        for t in range(params.n):
            if _candidate(pub, params, t):
                out[k] = _pick_code(pub, t)
                k += 1
        out[k] = EFF_NONE
        return k + 1
    if current_player(pub, params) >= PRIVATE_CHANCE:
        out[0] = 0
        return 1
    return 0


@njit(cache=True)
def private_actions(pub, params, i, n_labels, kids, nexts):
    """The mover's plays and swaps (public.py; a swap's state keeps the name discarded
    until its draw, :func:`keeps_name`); the recruiter's take and a take of the supply keep
    the state; at a pick the names its hand allows (or "none"), the hand less
    the agent; Mind Control's and Spycation's kept agent join the hand."""
    ph = pub[PHASE]
    p = pub[BMP]
    if ph == PH_PLAY:
        pending, hs, ds = scheme(pub, params, pub[ACTIVE])
        return play_actions(pub, params, i, pending, hs, ds, kids, nexts,
                            _keeps_after_swap(pub))
    if ph == PH_RECRUIT or ph == PH_BM_TAKE:
        for k in range(n_labels):
            kids[k] = k
            nexts[k] = i
        return n_labels
    if not 0 < i < scheme_size(params, False, pub[HANDSIZE + p], 0):
        kids[0] = 0  # DEAD, or an unused index (never reached)
        nexts[0] = DEAD
        return 1
    if ph == PH_PICK:
        hs = np.int64(pub[HANDSIZE + p])
        hand, _, _ = decode(params, False, hs, 0, i)
        m = 0
        need = 2 if pub[CARD] == DOUBLE else 1
        for t in range(params.n):
            if digit(hand, t) >= need and _candidate(pub, params, t):
                kids[m] = _pick_label(pub, params, t)
                nexts[m] = index(params, False, hs - 1, 0, hand - unit_code(t), 0, NO_NAME)
                m += 1
        if m == 0:  # the ability is ignored
            kids[0] = _pick_label(pub, params, params.n)
            nexts[0] = i
            m = 1
        return m
    if ph == PH_CHOOSE:
        hs = np.int64(pub[HANDSIZE + p])
        hand, _, _ = decode(params, False, hs, 0, i)
        k = 0
        for t in range(params.n):
            if is_target(pub, t):
                kids[k] = k  # Mind Control's agent, or Spycation's kept, joins the hand
                nexts[k] = index(params, False, hs + 1, 0, hand + unit_code(t), 0, NO_NAME)
                k += 1
                if pub[CARD] == SPYCATION:  # recruited again at once
                    kids[k] = k
                    nexts[k] = i
                    k += 1
        return k
    kids[0] = 0
    nexts[0] = DEAD
    return 1


@njit(cache=True)
def private_chance(pub, params, i, nexts, probs):
    """A discard's draw (1 card; it forgets the name discarded, its probabilities carrying
    forget.py's ``discard_weight``), the mover's refill after the recruitment (its revealed
    card forgotten), a hand draw after a black market resolution."""
    ph = pub[PHASE]
    seat = pub[BMP] if ph == PH_HAND_DRAW else pub[ACTIVE]
    pending, hs, _ = scheme(pub, params, seat)
    if 0 < i < scheme_size(params, pending, hs, 0):
        hand, _, name = decode(params, pending, hs, 0, i)
        k = 1
        if ph == PH_CLEAR:
            k = pub[REFILLED]
        elif ph == PH_HAND_DRAW:
            k = hand_need(pub, params, seat)
        m = hand_draws(pub, params, hand, np.int64(0), hs, np.int64(0), np.int64(k), nexts,
                   probs)
        if ph == PH_SWAP_DRAW:
            FGT.weigh_swap_draw(pub, params, hand, name, probs, m)
        return m
    nexts[0] = DEAD
    probs[0] = 1.0
    return 1


@njit(cache=True)
def private_action_rows(pub, params, seat, n_labels, kids, nexts, counts):
    """:func:`private_actions` of every state of ``seat`` at once (the protocol's hook): a
    play's rows by moves.py's ``play_rows``, the other decisions' state by state."""
    states = num_private(params, seat)
    if pub[PHASE] == PH_PLAY:
        pending, hs, ds = scheme(pub, params, pub[ACTIVE])
        play_rows(pub, params, pending, hs, ds, _keeps_after_swap(pub), states, kids, nexts,
                  counts)
        return
    for i in range(states):
        counts[i] = private_actions(pub, params, i, n_labels, kids[i], nexts[i])


@njit(cache=True)
def private_chance_rows(pub, params, seat, nexts, probs, counts):
    """:func:`private_chance` of every state of ``seat`` at once (the protocol's hook), by
    moves.py's ``draw_rows``."""
    ph = pub[PHASE]
    s = pub[BMP] if ph == PH_HAND_DRAW else pub[ACTIVE]
    pending, hs, _ = scheme(pub, params, s)
    k = 1
    if ph == PH_CLEAR:
        k = pub[REFILLED]
    elif ph == PH_HAND_DRAW:
        k = hand_need(pub, params, s)
    draw_rows(pub, params, pending, hs, np.int64(0), np.int64(k), ph == PH_SWAP_DRAW,
              num_private(params, seat), nexts, probs, counts)


@njit(cache=True)
def state_weight(pub, params, seat, i):
    """forget.py's ``state_weight`` on this model: ``discard_weight`` at a swap's draw where
    the mover's state keeps the name (:func:`keeps_name`), else 1: public.py's own there
    (its swap numbering, the name pending and no discards, ``params.forget`` being 1, is
    this model's :func:`scheme`)."""
    if not keeps_name(pub, params, seat):
        return 1.0
    return FGT.state_weight(pub, params, seat, i)


@njit(cache=True)
def chance_outcomes(pub, params, codes, probs):
    """The market and the supply as the rules'; the face-down card revealed (each name of
    which a card can be outside play: a signal); Smoke Screen's card (each such name, 1/n:
    the terminal weighs it); a forced effect (the Truck's move, an ability ignored)."""
    ph = pub[PHASE]
    if ph == PH_MARKET or ph == PH_BM_SUPPLY:
        return A.chance_outcomes(pub, params, codes, probs)
    smoke = ph == PH_EFFECT and pub[CARD] == SMOKE and pub[DECKSIZE] > 0
    if ph == PH_REVEAL or smoke:
        k = 0
        for d in range(params.n):
            if cards_left(pub, params, d) > 0:
                codes[k] = d
                probs[k] = 1.0 / params.n if smoke else 1.0
                k += 1
        return k
    codes[0] = EFF_MOVED if pub[CARD] == TRUCK else EFF_NONE
    probs[0] = 1.0
    return 1


@njit(cache=True)
def chance_mask(pub, params, outcome, seat, out):
    """At the signal, 1 on the mover's states whose pending card is the one revealed."""
    out[:] = 1.0
    if pub[PHASE] != PH_REVEAL or seat != pub[ACTIVE]:
        return
    out[:] = 0.0
    pending, hs, _ = scheme(pub, params, seat)
    for i in range(1, scheme_size(params, pending, hs, 0)):
        if (i - 1) % params.n == outcome:
            out[i] = 1.0


# --- moves -------------------------------------------------------------------------------


@njit(cache=True)
def apply_action(pub, params, action, out):
    out[:] = pub
    ph = pub[PHASE]
    a = pub[ACTIVE]
    p = pub[BMP]
    if ph == PH_PLAY or ph == PH_SWAP_DRAW:
        AP.apply_action(pub, params, action, out)
        if ph == PH_PLAY and action != MOV.SWAP_LABEL:
            need = params.hand - out[HANDSIZE + a]
            out[REFILLED] = max(0, min(need, out[DECKSIZE]))
        return
    if ph == PH_RECRUIT:
        out[TAKEN] = action & 1
        out[PHASE] = PH_REVEAL
    elif ph == PH_REVEAL:  # the rules' recruitment, the mover's refill left to PH_CLEAR
        take = pub[TAKEN]
        taken = pub[UP] if take == 0 else action
        left = action if take == 0 else pub[UP]
        out[A.LAND + 1 - a] = recruit_one(out, params, 1 - a, taken)
        out[A.LAND + a] = recruit_one(out, params, a, left)
        out[UP] = -1
        out[LASTTAKE] = 1 + take
        out[TAKEN] = -1
        out[PHASE] = PH_CLEAR
    elif ph == PH_CLEAR:
        out[HANDSIZE + a] += pub[REFILLED]
        out[DECKSIZE] -= pub[REFILLED]
        A.bm_continue(out, params)
    elif ph == PH_MARKET:
        A.apply_action(pub, params, action, out)
    elif ph == PH_BM_TAKE:
        c = action & 31
        out[LOC + c] = L_HELD
        out[SUPPLY] -= 1
        out[CARD] = c
        if out[BMDECK] > 0:
            out[PHASE] = PH_BM_SUPPLY
        else:
            _start_ability(out, params)
    elif ph == PH_BM_SUPPLY:
        out[LOC + action] = A.L_SUPPLY
        out[SUPPLY] += 1
        out[BMDECK] -= 1
        _start_ability(out, params)
    elif ph == PH_HAND_DRAW:
        k = hand_need(pub, params, p)
        out[HANDSIZE + p] += k
        out[DECKSIZE] -= k
        A.bm_continue(out, params)
    else:
        _resolve(out, params, p, action)


@njit(cache=True)
def _start_ability(out, params):
    """The rules' step after a take (advanced.py), where the resolver's hand decides
    between a choice and an ignored ability: ``PH_PICK``."""
    c = out[CARD]
    if c < N_ONGOING:
        out[LOC + c] = L_OWNER + out[BMP]
        out[CARD] = -1
        A.bm_continue(out, params)
    elif c == DOUBLE or c == SECRET or c == OUTPOST:
        out[PHASE] = PH_PICK
    else:
        out[PHASE] = PH_CHOOSE if A.has_choice(out, params) else PH_EFFECT


@njit(cache=True)
def _resolve(out, params, p, action):
    """An instant's ability: a pick, a choice of Mind Control or Spycation, an effect."""
    c = out[CARD]
    ph = out[PHASE]
    landed = False
    if action == EFF_MOVED:
        landed = advance(out, params, p, 1)
    elif action != EFF_NONE:
        t = action & 7
        if ph == PH_PICK:
            out[HANDSIZE + p] -= 1
            landed = recruit_one(out, params, p, t)
        elif ph == PH_EFFECT:  # Smoke Screen: the top card of the agent deck
            out[DECKSIZE] -= 1
            landed = recruit_one(out, params, p, t)
        elif c == MIND:
            out[PLAY + 8 * (1 - p) + t] -= 1
            out[HANDSIZE + p] += 1
        else:  # Spycation
            out[PLAY + 8 * p + t] -= 1
            if (action >> 4) & 1:
                landed = recruit_one(out, params, p, t)
            else:
                out[HANDSIZE + p] += 1
    A.ability_done(out, params, p, landed)


# --- payoffs -----------------------------------------------------------------------------


@njit(cache=True)
def _scale(pub, params):
    """n^K / N^(K) for the cards drawn (payoff.py's ``scale_of``; no refill is deferred
    at a terminal)."""
    total = 0
    for t in range(params.n):
        total += params.copies[t]
    return scale_of(pub, params, total - pub[DECKSIZE])


@njit(cache=True)
def terminal_payoff(pub, params, i, j):
    x = held_code(params, False, pub[HANDSIZE], 0, i)
    y = held_code(params, False, pub[HANDSIZE + 1], 0, j)
    if x < 0 or y < 0:
        return 0.0
    u = 1.0 if pub[WINNER] == 0 else -1.0
    return u * _scale(pub, params) * play_ratio(pub, params, x, y)


@njit(cache=True)
def terminal_values(pub, params, seat, opp, compat, out):
    u = 1.0 if pub[WINNER] == 0 else -1.0
    if seat == 1:
        u = -u
    held_values(pub, params, u * _scale(pub, params), scheme(pub, params, seat),
                scheme(pub, params, 1 - seat), opp, out)


# --- bounds ------------------------------------------------------------------------------


@njit(cache=True)
def max_actions(params):
    return A.max_actions(params)  # the market's 455 sets of 3


@njit(cache=True)
def max_private_actions(params):
    return AP.max_private_actions(params)  # a draw of 4 cards (330 multisets and DEAD)


@njit(cache=True)
def max_depth(params):
    # the rules' bound (advanced.py), a turn one edge longer (the signal and the refill
    # for the rules' refill)
    total = 0
    for t in range(params.n):
        total += params.copies[t]
    return A.max_depth(params) + (total + 2) // 2 + 1


# --- either mode's model (the search agent's leaf values and rollouts: leaf.py) ---------


def _scheme_any(pub, params, seat):
    raise NotImplementedError("numba code only")


def _scale_any(pub, params):
    raise NotImplementedError("numba code only")


def _reveal_any(params):
    raise NotImplementedError("numba code only")


def _advanced(params) -> bool:
    return (isinstance(params, types.BaseNamedTuple)  # type: ignore[attr-defined]  # numba's annotations omit this run-time export
            and params.instance_class is AgentAvenueAdvancedParams)


@overload(_scheme_any)
def _scheme_impl(pub, params, seat):
    if _advanced(params):
        return lambda pub, params, seat: scheme(pub, params, seat)
    return lambda pub, params, seat: NUM.scheme(pub, params, seat)


@overload(_scale_any)
def _scale_impl(pub, params):
    if _advanced(params):
        return lambda pub, params: _scale(pub, params)
    return lambda pub, params: PAY.draw_scale(pub, params)


def _weight_any(pub, params, seat, i):
    raise NotImplementedError("numba code only")


@overload(_weight_any)
def _weight_impl(pub, params, seat, i):
    if _advanced(params):
        return lambda pub, params, seat, i: state_weight(pub, params, seat, i)
    return lambda pub, params, seat, i: FGT.state_weight(pub, params, seat, i)


@overload(_reveal_any)
def _reveal_impl(params):
    if _advanced(params):
        return lambda params: PH_REVEAL
    return lambda params: NUM.PH_REVEAL


@njit(cache=True)
def model_scheme(pub, params, seat):
    """``scheme`` of the mode's model (public.py or this module)."""
    return _scheme_any(pub, params, seat)


@njit(cache=True)
def model_scale(pub, params):
    """The terminal's n^K / N^(K) of the mode's model."""
    return _scale_any(pub, params)


@njit(cache=True)
def model_state_weight(pub, params, seat, i):
    """``state_weight`` of the mode's model (public.py's or this module's)."""
    return _weight_any(pub, params, seat, i)


@njit(cache=True)
def offer_open(pub, params):
    """Whether the offer is on the table in the mode's model: the recruitment, and the
    signal that reveals its face-down card."""
    return pub[PHASE] == PH_RECRUIT or pub[PHASE] == _reveal_any(params)


assert TAKEN < REFILLED < STATE_SIZE and N_BM <= 16 and PH_PICK < 16
assert A.LOC + N_BM <= SWAPPED < STATE_SIZE

register(
    AgentAvenueAdvancedParams, num_private=num_private, initial_weights=AP.initial_weights,
    initial_state=initial_state, current_player=current_player, legal_actions=legal_actions,
    private_actions=private_actions, max_private_actions=max_private_actions,
    private_chance=private_chance, chance_outcomes=chance_outcomes, chance_mask=chance_mask,
    apply_action=apply_action, terminal_payoff=terminal_payoff,
    terminal_values=terminal_values, max_actions=max_actions, max_depth=max_depth,
    public_of_history=public_of_history, private_of_history=private_of_history,
    private_action_rows=private_action_rows, private_chance_rows=private_chance_rows,
)
