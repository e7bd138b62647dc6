"""Agent Hunter rules as numba functions over a small int16 state array (the only rules code).

``params`` is ``Variant.to_params()``, an :class:`AgentHunterParams` of six int64 =
(cards N, houses K, decoys D, max_turns (0 = unbounded), decoy_rule (0 any, 1 switched),
payoff (0 win, 1 margin)); its type selects these rules in the generic engines
(:mod:`spycfr.engine.protocol`, registered in registration.py).

State layout (``np.int16[STATE_SIZE]``), per player p at offset ``p * PSTRIDE``:

- ``+0..+2`` HOUSE[k]: the card in safe house k (0..N-1), or EMPTY (-1: awaiting a
  refill, or left empty because the game ended), ELIM (-2: eliminated), ABSENT (-3: k >= K).
- ``+3..+5`` DECOYS[k]: decoy tokens beside house k.
- ``+6`` SUPPLY: decoys left in supply.
- ``+7`` HAND: bit mask of the cards in hand.
- ``+8`` OUT: bit mask of the cards out (face up on an eliminated house).
- ``+9`` LEFT: for each house k, bits 4k..4k+3 hold the own card that last left it without
  another taking its place (eliminated, or emptied by a house attack); meaningful only while
  k is not in play. Public (the card was revealed); read only by the public-state model
  (public.py), which keeps it as part of the player's private state.

Global fields: TURN (20, turns completed), PHASE (21: PH_PLACE1, PH_PLACE2, PH_TURN,
PH_REFILL_ATT, PH_REFILL_DEF, PH_OVER), REFILL (22: index of the house awaiting a refill
of the player to move, else -1), TO_MOVE (23: 0 = P1, 1 = P2, -1 when terminal).
Every own card is in exactly one of HAND, OUT or a HOUSE.

KNOW (24..29): KNOW + 3 * p + k is the bit mask of the values that player p's observations
still allow in the opponent's safe house k (a hi/lo answer narrows it, a card the opponent
showed from hand or from another house leaves it, a switch or refill of k resets it; cards
out are removed when it is read). It is bookkeeping for the information abstraction
(:func:`abstraction_key`), a function of public information only, never read by the rules.

LAST (30, 31): the last move as the player who did not make it observed it (its observation
code, low 15 bits then the rest): public bookkeeping for the public-state model (public.py),
whose public states must tell a node's children apart; never read by the rules.

Action codes (int32) are ``type << 12 | payload``:
placement (type 0): sum of card_i * N**i over houses i = 0..K-1; hand attack (1): c << 2 | t;
switch (2): h << 6 | w << 2 | d; house attack (3): a << 2 | t; refill (4): f.
Houses are 0-based here (1-based in records).

Observation codes pack ``type | f1 << 3 | f2 << 7 | f3 << 11 | f4 << 15 | f5 << 19`` with
4-bit fields, HIDDEN (15) for what the observer cannot see:
placement (cards of houses 1..K, or all HIDDEN), hand (c, t, answer), switch (h, v, w|HIDDEN,
d), house attack (a, x, t, answer, source: 0 after eq, 1 hand, 2 + g house g), refill
(f|HIDDEN, house). Answers: 0 lo, 1 eq, 2 hi (about the attacker's card).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from spycfr.engine.rng import combine_key, root_key
from spycfr.tree import TERMINAL

STATE_SIZE = 32
PSTRIDE = 10
O_HOUSE = 0
O_DECOYS = 3
O_SUPPLY = 6
O_HAND = 7
O_OUT = 8
O_LEFT = 9
TURN = 20
PHASE = 21
REFILL = 22
TO_MOVE = 23
KNOW = 24
LAST = 30

EMPTY = -1
ELIM = -2
ABSENT = -3

PH_PLACE1 = 0
PH_PLACE2 = 1
PH_TURN = 2
PH_REFILL_ATT = 3
PH_REFILL_DEF = 4
PH_OVER = 5

T_PLACE = 0
T_HAND = 1
T_SWITCH = 2
T_HOUSE = 3
T_REFILL = 4

ANS_LO = 0
ANS_EQ = 1
ANS_HI = 2
SRC_NONE = 0
SRC_HAND = 1
SRC_HOUSE0 = 2

HIDDEN = 15

P_CARDS = 0
P_HOUSES = 1
P_DECOYS = 2
P_MAX_TURNS = 3
P_DECOY_RULE = 4
P_PAYOFF = 5




class AgentHunterParams(NamedTuple):
    """The numba parameters record of a variant (indexable by the P_* constants)."""

    cards: np.int64
    houses: np.int64
    decoys: np.int64
    max_turns: np.int64
    decoy_rule: np.int64
    payoff: np.int64


# --- helpers ---------------------------------------------------------------------------


@njit(cache=True)
def pack_obs(typ, f1, f2, f3, f4, f5):
    """Observation code from the action type and its five 4-bit fields."""
    return np.int64(typ) | (np.int64(f1) << 3) | (np.int64(f2) << 7) | (np.int64(f3) << 11) | (
        np.int64(f4) << 15
    ) | (np.int64(f5) << 19)


@njit(cache=True)
def answer_of(mine, theirs):
    """A comparison's answer to the attacker: ANS_HI, ANS_LO or ANS_EQ, ``mine`` against
    ``theirs``."""
    if mine > theirs:
        return ANS_HI
    if mine < theirs:
        return ANS_LO
    return ANS_EQ


@njit(cache=True)
def all_eliminated(state, player, k):
    """Whether all ``k`` safe houses of ``player`` are eliminated (it has lost)."""
    base = player * PSTRIDE
    for i in range(k):
        if state[base + O_HOUSE + i] != ELIM:
            return False
    return True


@njit(cache=True)
def _finish_turn(out, params):
    """Close the current turn: count it, then score at max_turns or pass the move."""
    out[TURN] += 1
    out[REFILL] = -1
    if params[P_MAX_TURNS] > 0 and out[TURN] >= params[P_MAX_TURNS]:
        out[PHASE] = PH_OVER
        out[TO_MOVE] = -1
    else:
        out[PHASE] = PH_TURN
        out[TO_MOVE] = out[TURN] % 2


@njit(cache=True)
def _end_game(out):
    """All houses of one player are eliminated: the attack's turn counts and the game is over."""
    out[TURN] += 1
    out[REFILL] = -1
    out[PHASE] = PH_OVER
    out[TO_MOVE] = -1


@njit(cache=True)
def _left(out, p, house, card):
    """Record that own ``card`` left ``p``'s ``house`` (LEFT field)."""
    f = p * PSTRIDE + O_LEFT
    out[f] = (out[f] & ~(15 << (4 * house))) | (card << (4 * house))


@njit(cache=True)
def _narrow(out, p, t, c, v):
    """Player ``p`` attacked the opponent's house ``t`` (holding ``v``) with card ``c``:
    the answer hi (c > v) or lo (c < v) narrows what p knows of t (eq eliminates it)."""
    if c > v:
        out[KNOW + 3 * p + t] &= (1 << c) - 1
    elif c < v:
        out[KNOW + 3 * p + t] &= ~((1 << (c + 1)) - 1)


# --- the contract ----------------------------------------------------------------------


@njit(cache=True)
def initial_state(params):
    """The state before P1's placement: all cards in hand, every decoy in supply."""
    s = np.zeros(STATE_SIZE, dtype=np.int16)
    n = params[P_CARDS]
    k = params[P_HOUSES]
    for p in range(2):
        base = p * PSTRIDE
        for i in range(3):
            s[base + O_HOUSE + i] = EMPTY if i < k else ABSENT
        s[base + O_SUPPLY] = params[P_DECOYS]
        s[base + O_HAND] = (1 << n) - 1
        s[base + O_OUT] = 0
        for i in range(3):
            s[KNOW + 3 * p + i] = (1 << n) - 1
    s[TURN] = 0
    s[PHASE] = PH_PLACE1
    s[REFILL] = -1
    s[TO_MOVE] = 0
    return s


@njit(cache=True)
def current_player(state):
    """0 (P1) or 1 (P2) to move, -1 at a terminal state."""
    return np.int64(state[TO_MOVE])


@njit(cache=True)
def is_terminal(state, params):
    return state[PHASE] == PH_OVER


@njit(cache=True)
def legal_actions(state, params, out):
    """Write the legal action codes into out[0:n] in a fixed order known to the mover; return n."""
    n_cards = params[P_CARDS]
    k = params[P_HOUSES]
    phase = state[PHASE]
    p = state[TO_MOVE]
    n = 0
    if phase == PH_OVER:
        return 0
    if phase == PH_PLACE1 or phase == PH_PLACE2:
        # K-tuples of distinct cards, lexicographic in (house 1, house 2, house 3).
        for c0 in range(n_cards):
            if k == 1:
                out[n] = (T_PLACE << 12) | c0
                n += 1
                continue
            for c1 in range(n_cards):
                if c1 == c0:
                    continue
                if k == 2:
                    out[n] = (T_PLACE << 12) | (c0 + c1 * n_cards)
                    n += 1
                    continue
                for c2 in range(n_cards):
                    if c2 == c0 or c2 == c1:
                        continue
                    out[n] = (T_PLACE << 12) | (c0 + c1 * n_cards + c2 * n_cards * n_cards)
                    n += 1
        return n
    base = p * PSTRIDE
    obase = (1 - p) * PSTRIDE
    hand = state[base + O_HAND]
    if phase == PH_REFILL_ATT or phase == PH_REFILL_DEF:
        for f in range(n_cards):
            if (hand >> f) & 1:
                out[n] = (T_REFILL << 12) | f
                n += 1
        return n
    # Normal turn: hand attacks, then switches, then house attacks.
    for c in range(n_cards):
        if (hand >> c) & 1:
            for t in range(k):
                if state[obase + O_HOUSE + t] >= 0:
                    out[n] = (T_HAND << 12) | (c << 2) | t
                    n += 1
    if state[base + O_SUPPLY] > 0:
        for h in range(k):
            v = state[base + O_HOUSE + h]
            if v < 0:
                continue
            for w in range(n_cards):
                if not ((hand >> w) & 1) and w != v:
                    continue
                if params[P_DECOY_RULE] == 1:
                    out[n] = (T_SWITCH << 12) | (h << 6) | (w << 2) | h
                    n += 1
                else:
                    for d in range(k):
                        if state[base + O_HOUSE + d] >= 0:
                            out[n] = (T_SWITCH << 12) | (h << 6) | (w << 2) | d
                            n += 1
    for a in range(k):
        if state[base + O_HOUSE + a] < 0:
            continue
        for t in range(k):
            if state[obase + O_HOUSE + t] >= 0:
                out[n] = (T_HOUSE << 12) | (a << 2) | t
                n += 1
    return n


@njit(cache=True)
def apply_action(state, params, action, out):
    """Write the state after ``action`` (assumed legal) into ``out``."""
    for i in range(STATE_SIZE):
        out[i] = state[i]
    seen = observation(state, params, action, 1 - state[TO_MOVE])
    out[LAST] = seen & 0x7FFF
    out[LAST + 1] = seen >> 15
    n_cards = params[P_CARDS]
    k = params[P_HOUSES]
    typ = action >> 12
    pay = action & 0xFFF
    p = state[TO_MOVE]
    o = 1 - p
    base = p * PSTRIDE
    obase = o * PSTRIDE
    if typ == T_PLACE:
        rest = pay
        for i in range(k):
            c = rest % n_cards
            rest //= n_cards
            out[base + O_HOUSE + i] = c
            out[base + O_HAND] &= ~(1 << c)
        if state[PHASE] == PH_PLACE1:
            out[PHASE] = PH_PLACE2
            out[TO_MOVE] = 1
        else:
            out[PHASE] = PH_TURN
            out[TO_MOVE] = 0
        return
    if typ == T_HAND:
        c = pay >> 2
        t = pay & 3
        _narrow(out, p, t, c, state[obase + O_HOUSE + t])
        for i in range(k):  # c was in the attacker's hand, so in none of its houses
            out[KNOW + 3 * o + i] &= ~(1 << c)
        if state[obase + O_HOUSE + t] == c:
            out[obase + O_HOUSE + t] = ELIM
            _left(out, o, t, c)
            out[base + O_HAND] &= ~(1 << c)
            out[base + O_OUT] |= 1 << c
            out[obase + O_OUT] |= 1 << c
            if all_eliminated(out, o, k):
                _end_game(out)
                return
        _finish_turn(out, params)
        return
    if typ == T_SWITCH:
        h = pay >> 6
        w = (pay >> 2) & 15
        d = pay & 3
        v = state[base + O_HOUSE + h]
        out[base + O_HAND] = (out[base + O_HAND] | (1 << v)) & ~(1 << w)
        out[base + O_HOUSE + h] = w
        out[base + O_DECOYS + d] += 1
        out[base + O_SUPPLY] -= 1
        for i in range(k):  # v was in h, so in no other house; h now holds any card
            out[KNOW + 3 * o + i] &= ~(1 << v)
        out[KNOW + 3 * o + h] = (1 << n_cards) - 1
        _finish_turn(out, params)
        return
    if typ == T_HOUSE:
        a = pay >> 2
        t = pay & 3
        x = state[base + O_HOUSE + a]
        v = state[obase + O_HOUSE + t]
        _narrow(out, p, t, x, v)
        _left(out, p, a, x)
        if x == v:
            out[obase + O_HOUSE + t] = ELIM
            _left(out, o, t, x)
            out[base + O_HOUSE + a] = EMPTY
            out[base + O_OUT] |= 1 << x
            out[obase + O_OUT] |= 1 << x
            if all_eliminated(out, o, k):
                _end_game(out)
                return
            out[PHASE] = PH_REFILL_ATT
            out[REFILL] = a
            return
        out[base + O_HOUSE + a] = ELIM
        out[base + O_OUT] |= 1 << x
        out[obase + O_OUT] |= 1 << x
        g = -1
        if (state[obase + O_HAND] >> x) & 1:
            out[obase + O_HAND] &= ~(1 << x)
        else:
            for i in range(k):
                if state[obase + O_HOUSE + i] == x:
                    g = i
            out[obase + O_HOUSE + g] = EMPTY
            _left(out, o, g, x)
        if all_eliminated(out, p, k):
            _end_game(out)
            return
        if g >= 0:
            out[PHASE] = PH_REFILL_DEF
            out[REFILL] = g
            out[TO_MOVE] = o
            return
        _finish_turn(out, params)
        return
    # Refill by the player to move of house REFILL (the opponent knows nothing of f).
    f = pay
    out[base + O_HOUSE + state[REFILL]] = f
    out[KNOW + 3 * o + state[REFILL]] = (1 << n_cards) - 1
    out[base + O_HAND] &= ~(1 << f)
    _finish_turn(out, params)


@njit(cache=True)
def observation(state, params, action, player):
    """What ``player`` observes when ``action`` is applied at ``state`` (see module docstring)."""
    n_cards = params[P_CARDS]
    k = params[P_HOUSES]
    typ = action >> 12
    pay = action & 0xFFF
    mover = state[TO_MOVE]
    sees = player == mover
    base = mover * PSTRIDE
    obase = (1 - mover) * PSTRIDE
    if typ == T_PLACE:
        if not sees:
            return pack_obs(T_PLACE, HIDDEN, HIDDEN, HIDDEN, 0, 0)
        f0 = pay % n_cards
        f1 = (pay // n_cards) % n_cards if k >= 2 else 0
        f2 = (pay // (n_cards * n_cards)) % n_cards if k >= 3 else 0
        return pack_obs(T_PLACE, f0, f1, f2, 0, 0)
    if typ == T_HAND:
        c = pay >> 2
        t = pay & 3
        return pack_obs(T_HAND, c, t, answer_of(c, state[obase + O_HOUSE + t]), 0, 0)
    if typ == T_SWITCH:
        h = pay >> 6
        w = (pay >> 2) & 15
        d = pay & 3
        v = state[base + O_HOUSE + h]
        return pack_obs(T_SWITCH, h, v, w if sees else HIDDEN, d, 0)
    if typ == T_HOUSE:
        a = pay >> 2
        t = pay & 3
        x = state[base + O_HOUSE + a]
        v = state[obase + O_HOUSE + t]
        ans = answer_of(x, v)
        src = SRC_NONE
        if ans != ANS_EQ:
            if (state[obase + O_HAND] >> x) & 1:
                src = SRC_HAND
            else:
                for i in range(k):
                    if state[obase + O_HOUSE + i] == x:
                        src = SRC_HOUSE0 + i
        return pack_obs(T_HOUSE, a, x, t, ans, src)
    return pack_obs(T_REFILL, pay if sees else HIDDEN, state[REFILL], 0, 0, 0)


@njit(cache=True)
def vp(state, player):
    """Victory points of ``player``: 1 + decoys for each opponent house that is eliminated."""
    obase = (1 - player) * PSTRIDE
    total = 0
    for i in range(3):
        if state[obase + O_HOUSE + i] == ELIM:
            total += 1 + state[obase + O_DECOYS + i]
    return total


@njit(cache=True)
def hand_sum(state, player):
    """Sum of the card values in ``player``'s hand."""
    hand = state[player * PSTRIDE + O_HAND]
    total = 0
    for c in range(16):
        if (hand >> c) & 1:
            total += c
    return total


@njit(cache=True)
def returns_p1(state, params):
    """P1's payoff at a terminal state: ``win`` +1/0/-1 (hand-sum tie-break) or ``margin``."""
    d = vp(state, 0) - vp(state, 1)
    if params[P_PAYOFF] == 1:
        return float(d)
    if d == 0:
        d = hand_sum(state, 0) - hand_sum(state, 1)
    if d > 0:
        return 1.0
    if d < 0:
        return -1.0
    return 0.0


# --- Python helpers --------------------------------------------------------------------


def encode_place(cards, n_cards: int) -> int:
    """Placement of ``cards`` (houses 0..K-1)."""
    return (T_PLACE << 12) | sum(int(c) * n_cards**i for i, c in enumerate(cards))


def encode_hand(c: int, t: int) -> int:
    return (T_HAND << 12) | (c << 2) | t


def encode_switch(h: int, w: int, d: int) -> int:
    return (T_SWITCH << 12) | (h << 6) | (w << 2) | d


def encode_house(a: int, t: int) -> int:
    return (T_HOUSE << 12) | (a << 2) | t


def encode_refill(f: int) -> int:
    return (T_REFILL << 12) | f


ACTION_TYPES = ("place", "hand", "switch", "house", "refill")


def decode_action(action: int, n_cards: int, houses: int) -> tuple[str, tuple[int, ...]]:
    """(type name, fields) of an action code; houses 0-based."""
    typ, pay = int(action) >> 12, int(action) & 0xFFF
    if typ == T_PLACE:
        return "place", tuple((pay // n_cards**i) % n_cards for i in range(houses))
    if typ == T_HAND:
        return "hand", (pay >> 2, pay & 3)
    if typ == T_SWITCH:
        return "switch", (pay >> 6, (pay >> 2) & 15, pay & 3)
    if typ == T_HOUSE:
        return "house", (pay >> 2, pay & 3)
    if typ == T_REFILL:
        return "refill", (pay,)
    raise ValueError(f"not an Agent Hunter action code: {action}")


def unpack_obs(code: int) -> tuple[int, int, int, int, int, int]:
    """(type, f1..f5) of an observation code."""
    code = int(code)
    return (code & 7, (code >> 3) & 15, (code >> 7) & 15, (code >> 11) & 15,
            (code >> 15) & 15, (code >> 19) & 15)


def max_actions(variant) -> int:
    """A safe size for the ``out`` buffer of ``legal_actions``."""
    n, k = variant.cards, variant.houses
    placements = math.perm(n, k)
    turn = n * k + k * n * k + k * k
    return max(placements, turn, n, 1)


# --- the numba game protocol -----------------------------------------------------------


@njit(cache=True)
def protocol_player(state, params):
    """The protocol's current_player: the player to move, or TERMINAL."""
    p = state[TO_MOVE]
    return TERMINAL if p < 0 else np.int64(p)


@njit(cache=True)
def no_chance_outcomes(state, params, codes, probs):
    """The protocol's chance_outcomes: none (the game has no chance node)."""
    return 0


@njit(cache=True)
def protocol_max_actions(params):
    """The protocol's max_actions: a bound on the legal actions at any decision."""
    n, k = params[P_CARDS], params[P_HOUSES]
    placements = 1
    for i in range(k):
        placements *= n - i
    return max(placements, n * k + k * n * k + k * k, n, 1)


@njit(cache=True)
def protocol_max_depth(params):
    """The protocol's max_depth: a bound on a game's length in moves (-1: unbounded)."""
    # Two placements, then per turn a move and possibly a refill.
    t = params[P_MAX_TURNS]
    return -1 if t <= 0 else 2 + 2 * t


# --- the information abstraction (Monte-Carlo CFR on the rulesheet game) ---------------


@njit(cache=True, inline="always")
def known_sets(state, p, k, out):
    """What player ``p`` knows of each opposing house: its consistent values if in play
    (KNOW minus the cards out; a value known to be in one house is removed from the others;
    bit 15 marks a house in play), else its status (ELIM, EMPTY, ABSENT, offset by 8)."""
    obase = (1 - p) * PSTRIDE
    m = np.zeros(3, dtype=np.int64)
    for i in range(k):
        if state[obase + O_HOUSE + i] >= 0:
            m[i] = state[KNOW + 3 * p + i] & ~out
    for _ in range(k - 1):  # singletons leave the other houses (houses hold distinct cards)
        for i in range(k):
            if m[i] != 0 and (m[i] & (m[i] - 1)) == 0:
                for j in range(k):
                    if j != i:
                        m[j] &= ~m[i]
    for i in range(3):
        c = state[obase + O_HOUSE + i]
        m[i] = (m[i] | (1 << 15)) if c >= 0 else c + 8
    return m


@njit(cache=True)
def abstraction_key(state, params, seat):
    """What ``seat`` knows that matters, the order of history forgotten: its own houses,
    decoys, supply and hand exactly; the public position (cards out, the opponent's
    eliminated houses, decoys and supply, turn, phase, refill); for each opposing house in
    play only the set of values still consistent with what was revealed (KNOW minus the
    cards out, a value pinned to one house removed from the others), and the same of the
    opponent about each own house (public too). Lost: the order and the moves that led
    there, and the links between houses that per-house sets do not carry (e.g. that two
    houses cannot both hold the same one of two values)."""
    k = params[P_HOUSES]
    base = seat * PSTRIDE
    obase = (1 - seat) * PSTRIDE
    out = state[base + O_OUT]
    h = root_key(seat)
    mine = known_sets(state, 1 - seat, k, out)  # what the opponent knows of my houses
    theirs = known_sets(state, seat, k, out)
    for i in range(k):
        h = combine_key(h, state[base + O_HOUSE + i] + 8)  # >= 0: ABSENT is -3
        h = combine_key(h, state[base + O_DECOYS + i])
        h = combine_key(h, mine[i])
        h = combine_key(h, theirs[i])
        h = combine_key(h, state[obase + O_DECOYS + i])
    for f in (base + O_SUPPLY, base + O_HAND, obase + O_SUPPLY, base + O_OUT, TURN, PHASE,
              REFILL, TO_MOVE):
        h = combine_key(h, state[f] + 8)
    return h
