"""Agent Hunter on the public-state model: what each player knows privately, what both see.

A player's **private state** is the content of its K houses: a K-tuple of distinct cards,
numbered like the placements of rules.py (lexicographic in house 1, 2, 3), plus one more
state, ``NOTHING`` (index P = N!/(N-K)!), before the player has placed. Everything else is
public (spec, "State"): the hand is the own cards not out and not in a house in play, so it
follows from the tuple and the public cards out. A house that is no longer in play
(eliminated, or emptied and awaiting a refill or left empty at the end) keeps in the tuple
the card that left it: that card was revealed, so the entry is public and never changes
again, and the private state changes only by the owner's own choices (placement, the card
put in by a switch, a refill): private transitions of the mover, never of the opponent.
So P1 and P2 each have P + 1 private states (721 on the rulesheet deck) and no card
removal between them (separate decks).

A **public state** is the rules' state array (rules.py) with every private field blanked:
a house in play reads 0, hands read 0, LEFT reads 0; its KNOW fields (what each player's
observations allow in each opposing house: public bookkeeping) prune public labels no
private state can take. Two more slots: PHASE may be ``PH_SIGNAL`` (an attack awaits the
defender's answer) with the attack's label in ``PENDING``.

**Public labels** at a decision (int32): a placement ``T_PLACE << 12``; a hand attack
``T_HAND << 12 | c << 2 | t`` (the rules' code); a switch ``T_SWITCH << 12 | h << 6 |
v << 2 | d`` (the card shown, v, where the rules put the hidden card); a house attack
``T_HOUSE << 12 | x << 4 | a << 2 | t`` (with the card shown, x); a refill ``T_REFILL << 12``.
After an attack a public **signal** (a chance node whose outcomes are masks over the
defender's private states): the answer (0 lo, 1 eq, 2 hi) of a hand attack, ``answer * 8 +
source`` of a house attack (source 0 after eq, 1 the defender's hand, 2 + g its house g).

Every transition is computed by the rules themselves (rules.py is the only rules code): a
public state and private states are combined into a rules state (:func:`combine`), the rules
move it on, and the result is blanked again (:func:`split`). At a signal the defender's
houses are filled with any contents that give the outcome (the rules' public results depend
on the outcome only).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from spycfr.games.agent_hunter import rules as R
from spycfr.games.agent_hunter.rules import (
    ANS_EQ,
    ANS_HI,
    ELIM,
    O_DECOYS,
    O_HAND,
    O_HOUSE,
    O_LEFT,
    O_OUT,
    O_SUPPLY,
    P_CARDS,
    P_DECOY_RULE,
    P_HOUSES,
    P_MAX_TURNS,
    P_PAYOFF,
    PH_OVER,
    PH_PLACE1,
    PH_PLACE2,
    PH_REFILL_ATT,
    PH_REFILL_DEF,
    PH_TURN,
    PHASE,
    PSTRIDE,
    REFILL,
    SRC_HAND,
    SRC_HOUSE0,
    SRC_NONE,
    STATE_SIZE,
    T_HAND,
    T_HOUSE,
    T_PLACE,
    T_REFILL,
    T_SWITCH,
    TO_MOVE,
    AgentHunterParams,
)
from spycfr.public.protocol import CHANCE, TERMINAL, register

PUB_SIZE = STATE_SIZE + 2
PENDING = STATE_SIZE  # the attack label awaiting its signal (-1: none)
PH_SIGNAL = 6
FILLER = 15  # a house in play in a combined state whose card does not matter
SET_BITS = (1 << 15) - 1  # rules.known_sets marks a house in play with bit 15


# --- private states --------------------------------------------------------------------


@njit(cache=True, inline="always")
def _perm(n, k):
    r = 1
    for i in range(k):
        r *= n - i
    return r


@njit(cache=True)
def num_placements(params):
    """P = N!/(N-K)!: the K-tuples of distinct cards; NOTHING is private state P."""
    return _perm(params[P_CARDS], params[P_HOUSES])


@njit(cache=True)
def num_private(params, seat):
    return num_placements(params) + 1


@njit(cache=True)
def initial_weights(params, seat, out):
    """Before the placements every player holds NOTHING."""
    out[:] = 0.0
    out[num_placements(params)] = 1.0


@njit(cache=True)
def unrank(params, i, t):
    """Write private state ``i``'s cards (houses 0..K-1) into ``t``; lexicographic order,
    the order of rules.legal_actions' placements."""
    n = params[P_CARDS]
    k = params[P_HOUSES]
    rest = i
    for h in range(k):
        block = _perm(n - h - 1, k - h - 1)
        r = rest // block
        rest -= r * block
        c = -1
        while r >= 0:  # the r-th card (0-based) not used by houses 0..h-1
            c += 1
            used = False
            for g in range(h):
                if t[g] == c:
                    used = True
            if not used:
                r -= 1
        t[h] = c


@njit(cache=True)
def rank(params, t):
    """Private state of the cards ``t`` (houses 0..K-1, distinct)."""
    n = params[P_CARDS]
    k = params[P_HOUSES]
    i = 0
    for h in range(k):
        r = t[h]
        for g in range(h):
            if t[g] < t[h]:
                r -= 1
        i += r * _perm(n - h - 1, k - h - 1)
    return i


# --- public states and the bridge to the rules ----------------------------------------


@njit(cache=True)
def split(state, out):
    """Write the public part of a rules state into ``out`` (int32[PUB_SIZE])."""
    for q in range(STATE_SIZE):
        out[q] = state[q]
    for p in range(2):
        base = p * PSTRIDE
        for h in range(3):
            if state[base + O_HOUSE + h] >= 0:
                out[base + O_HOUSE + h] = 0
        out[base + O_HAND] = 0
        out[base + O_LEFT] = 0
    out[PENDING] = -1
    out[STATE_SIZE + 1] = 0


@njit(cache=True)
def _fill(pub, params, p, i, state):
    """Put private state ``i`` of player ``p`` into ``state`` (houses in play and hand)."""
    n = params[P_CARDS]
    k = params[P_HOUSES]
    base = p * PSTRIDE
    hand = ((1 << n) - 1) & ~pub[base + O_OUT]
    if i < num_placements(params):
        t = np.empty(3, dtype=np.int64)
        unrank(params, i, t)
        for h in range(k):
            if pub[base + O_HOUSE + h] >= 0:
                state[base + O_HOUSE + h] = t[h]
                hand &= ~(1 << t[h])
    state[base + O_HAND] = hand


@njit(cache=True)
def combine(pub, params, i0, i1, state):
    """The rules state of public state ``pub`` (not at a signal) with private states i0, i1
    (-1: a player whose houses in play only need to read as in play)."""
    for q in range(STATE_SIZE):
        state[q] = pub[q]
    for p in range(2):
        base = p * PSTRIDE
        for h in range(3):
            if pub[base + O_HOUSE + h] >= 0:
                state[base + O_HOUSE + h] = FILLER
        i = i0 if p == 0 else i1
        if i >= 0:
            _fill(pub, params, p, i, state)


@njit(cache=True)
def public_of_history(state, params, out):
    split(state, out)


@njit(cache=True)
def private_of_history(state, params, seat):
    """``seat``'s house contents (a house not in play: the card that left it), or NOTHING
    before it has placed."""
    k = params[P_HOUSES]
    base = seat * PSTRIDE
    phase = state[PHASE]
    if phase == PH_PLACE1 or (phase == PH_PLACE2 and seat == 1):
        return np.int64(num_placements(params))
    t = np.empty(3, dtype=np.int64)
    for h in range(k):
        c = state[base + O_HOUSE + h]
        t[h] = c if c >= 0 else (state[base + O_LEFT] >> (4 * h)) & 15
    return np.int64(rank(params, t))


# --- the public tree ---------------------------------------------------------------------


@njit(cache=True)
def initial_state(params):
    out = np.empty(PUB_SIZE, dtype=np.int32)
    split(R.initial_state(params), out)
    return out


@njit(cache=True)
def current_player(pub, params):
    phase = pub[PHASE]
    if phase == PH_OVER:
        return np.int64(TERMINAL)
    if phase == PH_SIGNAL:
        return np.int64(CHANCE)
    return np.int64(pub[TO_MOVE])


@njit(cache=True)
def _known(pub, params, p):
    """rules.known_sets: what player ``p`` knows of each opposing house (public)."""
    state = np.empty(STATE_SIZE, dtype=np.int16)
    for q in range(STATE_SIZE):
        state[q] = pub[q]
    return R.known_sets(state, p, params[P_HOUSES], pub[p * PSTRIDE + O_OUT])


@njit(cache=True)
def legal_actions(pub, params, out):
    """The public labels at a decision, in increasing code order (see module docstring):
    only those some private state consistent with the public KNOW sets can take. (The sets
    see each house alone, so a few public nodes that no pair of private states reaches
    remain; where they leave no label at all, every house attack stays, so that every
    non-terminal node has a child.)"""
    n_cards = params[P_CARDS]
    k = params[P_HOUSES]
    phase = pub[PHASE]
    if phase == PH_PLACE1 or phase == PH_PLACE2:
        out[0] = T_PLACE << 12
        return 1
    if phase == PH_REFILL_ATT or phase == PH_REFILL_DEF:
        out[0] = T_REFILL << 12
        return 1
    if phase != PH_TURN:
        return 0
    p = pub[TO_MOVE]
    base = p * PSTRIDE
    obase = (1 - p) * PSTRIDE
    mine = _known(pub, params, 1 - p)  # what the opponent knows of my houses
    pinned = 0  # cards known to be in one of my houses, so not in my hand
    for h in range(k):
        m = mine[h] & SET_BITS
        if pub[base + O_HOUSE + h] >= 0 and m != 0 and (m & (m - 1)) == 0:
            pinned |= m
    maybe_hand = ((1 << n_cards) - 1) & ~pub[base + O_OUT] & ~pinned
    n = 0
    for c in range(n_cards):
        if (maybe_hand >> c) & 1:
            for t in range(k):
                if pub[obase + O_HOUSE + t] >= 0:
                    out[n] = (T_HAND << 12) | (c << 2) | t
                    n += 1
    if pub[base + O_SUPPLY] > 0:
        for h in range(k):
            if pub[base + O_HOUSE + h] < 0:
                continue
            for v in range(n_cards):
                if not (mine[h] >> v) & 1:
                    continue
                for d in range(k):
                    if pub[base + O_HOUSE + d] < 0:
                        continue
                    if params[P_DECOY_RULE] == 1 and d != h:
                        continue
                    out[n] = (T_SWITCH << 12) | (h << 6) | (v << 2) | d
                    n += 1
    for every in range(2):  # the second pass only if the KNOW sets left no label at all
        if every == 1 and n > 0:
            break
        for x in range(n_cards):
            for a in range(k):
                if pub[base + O_HOUSE + a] < 0 or not ((mine[a] >> x) & 1 or every == 1):
                    continue
                for t in range(k):
                    if pub[obase + O_HOUSE + t] >= 0:
                        out[n] = (T_HOUSE << 12) | (x << 4) | (a << 2) | t
                        n += 1
    return n


@njit(cache=True)
def _find(labels, n, code):
    """Index of ``code`` in the sorted ``labels[:n]``, or -1."""
    lo = 0
    hi = n
    while lo < hi:
        mid = (lo + hi) // 2
        if labels[mid] < code:
            lo = mid + 1
        else:
            hi = mid
    return lo if lo < n and labels[lo] == code else -1


@njit(cache=True, inline="always")
def _held_elsewhere(t, k, h, card):
    """Whether a house other than ``h`` of the placement ``t`` holds ``card``: moving it into
    house ``h`` would hold one card twice, a placement no consistent history reaches (and
    ``rank`` of it is another placement's index, or past the last)."""
    for g in range(k):
        if g != h and t[g] == card:
            return True
    return False


@njit(cache=True)
def private_actions(pub, params, i, n_labels, kids, nexts):
    """Private state ``i``'s actions at a decision: the rules' legal actions, each as its
    public label's index and the mover's private state after it. A private state no
    consistent history reaches (range 0 there) gets one placeholder action."""
    return action_entries(pub, params, i, kids, nexts,
                          np.empty(R.protocol_max_actions(params), dtype=np.int64))


@njit(cache=True)
def private_action_rows(pub, params, seat, n_labels, kids, nexts, counts):
    """:func:`private_actions` of every state of ``seat`` at once (the protocol's hook, what
    a tree's expansion asks): the public labels and the scratch arrays made once a node,
    where each state's call made them (five arrays a state, 721 states a decision on
    ``standard``). The same entries (test_resolve_speed)."""
    labels = np.empty(max_actions(params), dtype=np.int32)
    n_pub = legal_actions(pub, params, labels)
    src = np.empty(R.protocol_max_actions(params), dtype=np.int64)
    state = np.empty(STATE_SIZE, dtype=np.int16)
    acts = np.empty(R.protocol_max_actions(params), dtype=np.int32)
    t = np.empty(3, dtype=np.int64)
    for i in range(num_private(params, seat)):
        counts[i] = _entries(pub, params, i, kids[i], nexts[i], src, labels, n_pub, state,
                             acts, t)


@njit(cache=True)
def action_entries(pub, params, i, kids, nexts, src):
    """:func:`private_actions`' entries, each with ``src[e]``: the index of the rules action
    it is among ``rules.legal_actions`` of the state :func:`combine` makes of ``pub`` and
    ``i`` (the mover's; -1 for a placeholder), so that a player's probabilities over the
    rules' actions read as probabilities of the entries (``leaf.style_rows``)."""
    labels = np.empty(max_actions(params), dtype=np.int32)
    n_pub = legal_actions(pub, params, labels)
    return _entries(pub, params, i, kids, nexts, src, labels, n_pub,
                    np.empty(STATE_SIZE, dtype=np.int16),
                    np.empty(R.protocol_max_actions(params), dtype=np.int32),
                    np.empty(3, dtype=np.int64))


@njit(cache=True)
def _entries(pub, params, i, kids, nexts, src, labels, n_pub, state, acts, t):
    """:func:`action_entries` given the public labels (``labels[:n_pub]``) and scratch
    arrays for the state, its actions and its placement."""
    p = pub[TO_MOVE]
    nothing = num_placements(params)
    phase = pub[PHASE]
    if phase == PH_PLACE1 or phase == PH_PLACE2:
        if i != nothing:
            kids[0] = 0
            nexts[0] = i
            src[0] = -1
            return 1
        for j in range(nothing):  # the rules list the placements in this order (unrank)
            kids[j] = 0
            nexts[j] = j
            src[j] = j
        return nothing
    if i == nothing:
        kids[0] = 0
        nexts[0] = i
        src[0] = -1
        return 1
    combine(pub, params, i if p == 0 else -1, i if p == 1 else -1, state)
    n_acts = R.legal_actions(state, params, acts)
    unrank(params, i, t)
    base = p * PSTRIDE
    m = 0
    for e in range(n_acts):
        act = acts[e]
        typ = act >> 12
        pay = act & 0xFFF
        nxt = i
        if typ == T_HAND:
            code = act
        elif typ == T_SWITCH:
            h = pay >> 6
            w = (pay >> 2) & 15
            if _held_elsewhere(t, params[P_HOUSES], h, w):
                continue  # the hand card is in another of i's houses: i is not reached here
            code = (T_SWITCH << 12) | (h << 6) | (t[h] << 2) | (pay & 3)
            old = t[h]
            t[h] = w
            nxt = rank(params, t)
            t[h] = old
        elif typ == T_HOUSE:
            a = pay >> 2
            code = (T_HOUSE << 12) | (state[base + O_HOUSE + a] << 4) | pay
        else:  # refill
            g = state[REFILL]
            if _held_elsewhere(t, params[P_HOUSES], g, pay):
                continue  # as for a switch: i is not reached here
            code = T_REFILL << 12
            old = t[g]
            t[g] = pay
            nxt = rank(params, t)
            t[g] = old
        j = _find(labels, n_pub, code)
        if j < 0:
            continue  # a label the public KNOW sets rule out: i is not reached here
        kids[m] = j
        nexts[m] = nxt
        src[m] = e
        m += 1
    if m == 0:
        kids[0] = 0
        nexts[0] = i
        src[0] = -1
        m = 1
    return m


@njit(cache=True)
def _signal_possible(known, card, ans):
    """Whether a defender's house whose values may be ``known`` can answer ``ans`` to
    ``card``."""
    if ans == ANS_EQ:
        return (known >> card) & 1 == 1
    if ans == ANS_HI:
        return (known & ((1 << card) - 1)) != 0
    return (known & SET_BITS & ~((1 << (card + 1)) - 1)) != 0


@njit(cache=True)
def chance_outcomes(pub, params, codes, probs):
    """The signals after a pending attack that the public KNOW sets allow (probability 1
    each: the defender's private state decides which one happens, via chance_mask)."""
    if pub[PHASE] != PH_SIGNAL:
        return 0
    k = params[P_HOUSES]
    p = pub[TO_MOVE]
    act = pub[PENDING]
    typ = act >> 12
    t = act & 3
    card = (act >> 2) & 15 if typ == T_HAND else (act >> 4) & 15
    theirs = _known(pub, params, p)
    obase = (1 - p) * PSTRIDE
    n = 0
    for ans in range(3):
        if not _signal_possible(theirs[t], card, ans):
            continue
        if typ == T_HAND or ans == ANS_EQ:
            codes[n] = ans * 8 + SRC_NONE if typ == T_HOUSE else ans
            probs[n] = 1.0
            n += 1
            continue
        pinned = False
        for g in range(k):
            if pub[obase + O_HOUSE + g] >= 0 and (theirs[g] & SET_BITS) == (1 << card):
                pinned = True
        if not pinned:
            codes[n] = ans * 8 + SRC_HAND
            probs[n] = 1.0
            n += 1
        for g in range(k):
            if g != t and pub[obase + O_HOUSE + g] >= 0 and (theirs[g] >> card) & 1:
                codes[n] = ans * 8 + SRC_HOUSE0 + g
                probs[n] = 1.0
                n += 1
    if n == 0:  # a public node no pair of private states reaches: one (masked) outcome
        codes[0] = ANS_EQ * 8 + SRC_NONE if typ == T_HOUSE else ANS_EQ
        probs[0] = 1.0
        n = 1
    return n


@njit(cache=True)
def _signal_of(params, act, k, t_cards, live):
    """The signal a defender holding ``t_cards`` (houses in play: ``live`` bits) gives to the
    pending attack ``act``."""
    typ = act >> 12
    t = act & 3
    if typ == T_HAND:
        return R.answer_of((act >> 2) & 15, t_cards[t])
    x = (act >> 4) & 15
    ans = R.answer_of(x, t_cards[t])
    if ans == ANS_EQ:
        return ans * 8 + SRC_NONE
    for g in range(k):
        if (live >> g) & 1 and t_cards[g] == x:
            return ans * 8 + SRC_HOUSE0 + g
    return ans * 8 + SRC_HAND


@njit(cache=True)
def chance_mask(pub, params, outcome, seat, out):
    """1 for the private states of ``seat`` that give ``outcome`` (the defender's), else 0;
    the attacker's states all 1 (the attack's label already fixed what it shows)."""
    p = pub[TO_MOVE]
    if seat == p:
        out[:] = 1.0
        return
    k = params[P_HOUSES]
    obase = seat * PSTRIDE
    live = 0
    for g in range(k):
        if pub[obase + O_HOUSE + g] >= 0:
            live |= 1 << g
    nothing = num_placements(params)
    t = np.empty(3, dtype=np.int64)
    for i in range(nothing):
        unrank(params, i, t)
        out[i] = 1.0 if _signal_of(params, pub[PENDING], k, t, live) == outcome else 0.0
    out[nothing] = 0.0


@njit(cache=True)
def apply_action(pub, params, action, out):
    """The public state after a label (at a decision) or a signal (at a chance node)."""
    state = np.empty(STATE_SIZE, dtype=np.int16)
    after = np.empty(STATE_SIZE, dtype=np.int16)
    phase = pub[PHASE]
    typ = action >> 12
    if phase != PH_SIGNAL and (typ == T_HAND or typ == T_HOUSE):
        for q in range(PUB_SIZE):
            out[q] = pub[q]
        out[PHASE] = PH_SIGNAL
        out[PENDING] = action
        return
    k = params[P_HOUSES]
    if phase != PH_SIGNAL:
        combine(pub, params, -1, -1, state)
        p = pub[TO_MOVE]
        base = p * PSTRIDE
        if typ == T_PLACE:  # any placement: houses 0..K-1 hold cards 0..K-1
            act = T_PLACE << 12
            for h in range(k):
                act += h * params[P_CARDS] ** h
        elif typ == T_SWITCH:  # the rules need the card shown, v, in house h; put v back
            h = (action >> 6) & 3
            v = (action >> 2) & 15
            state[base + O_HOUSE + h] = v
            act = action
        else:
            act = (T_REFILL << 12) | 0
        R.apply_action(state, params, np.int32(act), after)
        split(after, out)
        return
    # A signal: contents of the attacker's and defender's houses that give this outcome.
    act = pub[PENDING]
    out_pub = pub.copy()
    out_pub[PHASE] = PH_TURN
    out_pub[PENDING] = -1
    combine(out_pub, params, -1, -1, state)
    p = pub[TO_MOVE]
    obase = (1 - p) * PSTRIDE
    t = act & 3
    typ = act >> 12
    card = (act >> 2) & 15 if typ == T_HAND else (act >> 4) & 15
    ans = action if typ == T_HAND else action >> 3
    v = card if ans == ANS_EQ else (card - 1 if ans == ANS_HI else card + 1)
    state[obase + O_HOUSE + t] = v
    state[obase + O_HAND] = 0
    if typ == T_HAND:
        R.apply_action(state, params, np.int32(act), after)
    else:
        a = (act >> 2) & 3
        state[p * PSTRIDE + O_HOUSE + a] = card
        src = action & 7
        if ans != ANS_EQ:
            if src == SRC_HAND:
                state[obase + O_HAND] = 1 << card
            else:
                state[obase + O_HOUSE + src - SRC_HOUSE0] = card
        R.apply_action(state, params, np.int32((T_HOUSE << 12) | (a << 2) | t), after)
    split(after, out)


# --- terminals -------------------------------------------------------------------------


@njit(cache=True)
def house_sum(pub, params, p, i):
    """Sum of the cards in player ``p``'s houses in play when it holds private state i
    (unranked in closed form, K <= 3, without allocating: this runs at every terminal)."""
    n = params[P_CARDS]
    k = params[P_HOUSES]
    if i >= _perm(n, k):
        return 0
    base = p * PSTRIDE + O_HOUSE
    if k == 1:
        return i if pub[base] >= 0 else 0
    block = _perm(n - 1, k - 1)
    c0 = i // block
    rest = i - c0 * block
    if k == 2:
        c1 = rest + (rest >= c0)
        return c0 * (pub[base] >= 0) + c1 * (pub[base + 1] >= 0)
    r1 = rest // (n - 2)
    c2 = rest - r1 * (n - 2)
    c1 = r1 + (r1 >= c0)
    lo = min(c0, c1)
    hi = max(c0, c1)
    c2 += c2 >= lo
    c2 += c2 >= hi
    return c0 * (pub[base] >= 0) + c1 * (pub[base + 1] >= 0) + c2 * (pub[base + 2] >= 0)


@njit(cache=True)
def vp_margin(pub):
    """VP(P1) - VP(P2): every eliminated house and its decoys are public."""
    d = 0
    for p in range(2):
        obase = (1 - p) * PSTRIDE
        for h in range(3):
            if pub[obase + O_HOUSE + h] == ELIM:
                d += (1 - 2 * p) * (1 + pub[obase + O_DECOYS + h])
    return d


@njit(cache=True)
def out_sum(pub, p):
    """Sum of player ``p``'s cards out of play (the public bitmask at O_OUT)."""
    s = 0
    for c in range(16):
        if (pub[p * PSTRIDE + O_OUT] >> c) & 1:
            s += c
    return s


@njit(cache=True)
def sign_of(x):
    """-1, 0 or 1 as ``x`` is below, at or above 0 (float)."""
    return 1.0 if x > 0 else (-1.0 if x < 0 else 0.0)


@njit(cache=True)
def terminal_payoff(pub, params, i, j):
    """P1's payoff (rules.returns_p1): a VP margin is public; with payoff ``win`` and equal
    VP, the hand sums decide, and a hand is the cards not out and not in a house in play:
    hand_sum(P1) - hand_sum(P2) = out_sum(P2) - out_sum(P1) + houses(P2) - houses(P1)."""
    d = vp_margin(pub)
    if params[P_PAYOFF] == 1:
        return float(d)
    if d != 0:
        return sign_of(d)
    return sign_of(out_sum(pub, 1) - out_sum(pub, 0)
                   + house_sum(pub, params, 1, j) - house_sum(pub, params, 0, i))


@njit(cache=True)
def terminal_values(pub, params, seat, opp, compat, out):
    """out[i] = sum_j u_seat(i, j) opp[j] in O(n): the VP margin is public, and the hand-sum
    tie-break compares house sums, so the opposing range is bucketed by its house sum.
    (Agent Hunter has no card removal between the decks: ``compat`` is all ones.)"""
    total = 0.0
    for j in range(opp.shape[0]):
        total += opp[j]
    d = vp_margin(pub)
    sgn = 1.0 if seat == 0 else -1.0
    if params[P_PAYOFF] == 1 or d != 0:
        u = float(d) if params[P_PAYOFF] == 1 else sign_of(d)
        out[:] = sgn * u * total
        return
    # Equal VP: P1 wins iff houses(P2) - houses(P1) + delta > 0.
    delta = 0  # both players have the same values out (spec, Readings 2)
    if pub[O_OUT] != pub[PSTRIDE + O_OUT]:
        delta = out_sum(pub, 1) - out_sum(pub, 0)
    width = 3 * params[P_CARDS] + 1
    below = np.zeros(width + 1)  # below[s + 1]: mass of opposing house sum s, then < s + 1
    for j in range(opp.shape[0]):
        if opp[j] != 0.0:
            below[house_sum(pub, params, 1 - seat, j) + 1] += opp[j]
    for s in range(width):
        below[s + 1] += below[s]
    for i in range(out.shape[0]):
        # Seat 0 holding sum s wins against P2 sums > s - delta (and loses against those
        # below); seat 1 holding sum s wins against P1 sums > s + delta.
        s = house_sum(pub, params, seat, i)
        pivot = s - delta if seat == 0 else s + delta
        lo = min(max(pivot, 0), width)
        hi = min(max(pivot + 1, 0), width)
        less = below[lo]
        more = total - below[hi]
        out[i] = more - less


@njit(cache=True)
def max_actions(params):
    """An upper bound on public labels (hand, switch and house attacks) and signals."""
    n, k = params[P_CARDS], params[P_HOUSES]
    return max(n * k + 2 * n * k * k, 3 * (k + 1), 1)


@njit(cache=True)
def max_private_actions(params):
    return R.protocol_max_actions(params)


@njit(cache=True)
def max_depth(params):
    """Two placements, then per turn a move, its signal and a refill."""
    t = params[P_MAX_TURNS]
    return -1 if t <= 0 else 2 + 3 * t


register(
    AgentHunterParams, num_private=num_private, initial_weights=initial_weights,
    initial_state=initial_state, current_player=current_player, legal_actions=legal_actions,
    chance_outcomes=chance_outcomes, apply_action=apply_action,
    terminal_payoff=terminal_payoff, max_actions=max_actions, max_depth=max_depth,
    public_of_history=public_of_history, private_of_history=private_of_history,
    private_actions=private_actions, private_action_rows=private_action_rows,
    max_private_actions=max_private_actions,
    chance_mask=chance_mask, terminal_values=terminal_values,
)
