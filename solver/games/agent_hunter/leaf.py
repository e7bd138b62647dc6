"""What a search agent may assume at the leaf of a depth-limited Agent Hunter subgame
without a trained value function: the game scored as it stands (its VP, then the hand-sum
tie-break). The same values as the public model's ``terminal_values`` on the public state
ended there, batched over a subgame's leaves with each seat's house sums tabulated once
per variant (a leaf then costs O(n) additions, not O(n) unrankings: 5x faster measured;
tabulated once per call before, half of a call's time)."""

from __future__ import annotations

import functools

import numpy as np
from numba import njit

from spycfr.games.agent_hunter import rules as R
from spycfr.games.agent_hunter.heuristic import HUNTER, styled_heuristic
from spycfr.games.agent_hunter.public import (
    action_entries,
    combine,
    house_sum,
    legal_actions,
    num_placements,
    out_sum,
    sign_of,
    unrank,
    vp_margin,
)
from spycfr.games.agent_hunter.rules import (
    KNOW,
    LAST,
    O_HOUSE,
    O_OUT,
    P_CARDS,
    P_PAYOFF,
    PH_OVER,
    PHASE,
    PSTRIDE,
    STATE_SIZE,
    T_SWITCH,
    TO_MOVE,
)

# the rollouts hook's styles: the heuristic players' (heuristic.py), the ``reader``: the
# hunter knowing, from the first move of the game played out, the card that the opponent
# has just switched in (a seat that sees through the switch: what a best responder learns
# where the switching player's card choice is a function of its cards; results/standard),
# and the ``ranger``: the hunter whose values still consistent with each opposing house are
# narrowed, at the first move played out, to the cards of a few private states drawn from
# the opponent's range at the leaf (``rollouts_guessing``'s guesses: where the opponent's
# strategy tells its cards, the draws agree and name them; where it mixes, they spread)
ROLLOUT_STYLES = ("hunter", "switcher", "prober", "reader", "ranger")
READER = 3
RANGER = 4


@njit(cache=True)
def _sums(params, n, seat):
    """(8, n): seat's house sum of each private state for each set of houses in play."""
    out = np.zeros((8, n), np.int64)
    pub = np.zeros(PSTRIDE * 2, np.int32)
    for live in range(8):
        for h in range(3):
            pub[seat * PSTRIDE + O_HOUSE + h] = 0 if (live >> h) & 1 else -2
        for i in range(n):
            out[live, i] = house_sum(pub, params, seat, i)
    return out


@njit(cache=True)
def _live(pub, seat):
    m = 0
    for h in range(3):
        if pub[seat * PSTRIDE + O_HOUSE + h] >= 0:
            m |= 1 << h
    return m


@functools.lru_cache(maxsize=32)
def house_sums(params, n: int, seat: int) -> np.ndarray:
    """``_sums(params, n, seat)`` tabulated once per variant and seat (read-only): a
    re-solve asks :func:`scored_now` about its leaves thousands of times, and tabulating
    the sums (8 x 721 house sums a seat on ``standard``) was half of each call's
    time (docs/search.md, "Agent Hunter's leaves scored with the house sums tabulated
    once")."""
    out = _sums(params, n, seat)
    out.flags.writeable = False
    return out


def scored_now(pubs: np.ndarray, params, r0: np.ndarray, r1: np.ndarray, v0: np.ndarray,
               v1: np.ndarray) -> None:
    """The ``scored_now`` hook: ``v_s[l, i] = sum_j u_s(i, j) r_other[l, j]`` with the game
    ended at public state ``pubs[l]`` (Agent Hunter: compat is all ones), each seat's house
    sums tabulated once per variant (:func:`house_sums`)."""
    _scored_now(pubs, params, r0, r1, v0, v1, house_sums(params, r0.shape[1], 0),
                house_sums(params, r1.shape[1], 1))


@njit(cache=True)
def _scored_now(pubs, params, r0, r1, v0, v1, sums0, sums1):
    """:func:`scored_now` given each seat's house sums (``_sums``)."""
    sums = (sums0, sums1)
    width = 3 * params[P_CARDS] + 1
    below = np.zeros(width + 1)
    for leaf in range(pubs.shape[0]):
        pub = pubs[leaf]
        d = vp_margin(pub)
        for seat in range(2):
            opp = r1[leaf] if seat == 0 else r0[leaf]
            out = v0[leaf] if seat == 0 else v1[leaf]
            total = opp.sum()
            sgn = 1.0 if seat == 0 else -1.0
            if params[P_PAYOFF] == 1 or d != 0:
                u = float(d) if params[P_PAYOFF] == 1 else sign_of(d)
                out[:] = sgn * u * total
                continue
            delta = 0
            if pub[O_OUT] != pub[PSTRIDE + O_OUT]:
                delta = out_sum(pub, 1) - out_sum(pub, 0)
            theirs = sums[1 - seat][_live(pub, 1 - seat)]
            mine = sums[seat][_live(pub, seat)]
            below[:] = 0.0
            for j in range(opp.shape[0]):
                below[theirs[j] + 1] += opp[j]
            for s in range(width):
                below[s + 1] += below[s]
            for i in range(out.shape[0]):
                s = mine[i]
                pivot = s - delta if seat == 0 else s + delta
                lo = min(max(pivot, 0), width)
                hi = min(max(pivot + 1, 0), width)
                out[i] = (total - below[hi]) - below[lo]


def private_names(variant, pub: np.ndarray | None = None, seat: int = 0) -> list[str]:
    """Each private state of the public model in words: the cards of houses 1..K ("houses
    hold 1-3-2": card 1 in house 1, card 3 in house 2; query's posterior once read "houses
    1-3-2", as if house numbers) (a house no longer in play keeps the card that left it),
    or not placed yet (the same numbering at every public state and for both seats)."""

    cards = placement_cards(variant.to_params())[:-1]
    return [*("houses hold " + "-".join(str(int(c)) for c in row) for row in cards),
            "not placed yet"]


@njit(cache=True)
def _read_switch(state, seat):
    """If the last move was the opponent's switch, ``seat`` knows the card it switched in
    (its KNOW field of that house narrowed to the card)."""
    seen = np.int64(state[LAST]) | (np.int64(state[LAST + 1]) << 15)
    if seen & 7 != T_SWITCH:
        return
    h = (seen >> 3) & 15
    card = state[(1 - seat) * PSTRIDE + O_HOUSE + h]
    if card >= 0:
        state[KNOW + 3 * seat + h] = 1 << card


@njit(cache=True)
def _read_range(state, params, seat, guesses):
    """``seat``'s KNOW of each opposing house in play narrowed to the cards that house holds
    in the opponent's private states ``guesses`` (-1: none); a house whose narrowed set
    would be empty (no guess agrees with what the seat already knows) keeps its KNOW."""
    t = np.zeros(3, np.int64)
    masks = np.zeros(3, np.int64)
    placements = num_placements(params)
    any_guess = False
    for d in range(guesses.shape[0]):
        g = guesses[d]
        if g < 0 or g >= placements:
            continue
        unrank(params, g, t)
        any_guess = True
        for h in range(params[R.P_HOUSES]):
            masks[h] |= np.int64(1) << t[h]
    if not any_guess:
        return
    for h in range(params[R.P_HOUSES]):
        if state[(1 - seat) * PSTRIDE + O_HOUSE + h] < 0:
            continue
        narrowed = np.int64(state[KNOW + 3 * seat + h]) & masks[h]
        if narrowed != 0:
            state[KNOW + 3 * seat + h] = narrowed


@njit(cache=True)
def rollouts_guessing(pubs, params, leaf, i0, i1, style0, style1, seeds, guesses, out):
    """The ``rollouts`` hook with the ``ranger``'s guesses: ``guesses[q]``, private states
    of the ranger's opponent drawn from its range at the leaf (-1: none; an empty array:
    no game has any), read by a seat playing ``ranger`` in game q at the first move played
    out (``_read_range``); the ranger then plays as the hunter."""
    state = np.empty(STATE_SIZE, np.int16)
    nxt = np.empty(STATE_SIZE, np.int16)
    m = R.protocol_max_actions(params)
    actions = np.empty(m, np.int32)
    probs = np.empty(m)
    pub = np.empty(pubs.shape[1], np.int32)
    for q in range(out.shape[0]):
        np.random.seed(seeds[q])
        pub[:] = pubs[leaf[q]]
        combine(pub, params, i0[q], i1[q], nxt)
        for x in range(STATE_SIZE):
            state[x] = nxt[x]
        for seat in range(2):
            style = style0[q] if seat == 0 else style1[q]
            if style == RANGER and guesses.shape[0] > 0:
                _read_range(state, params, seat, guesses[q])
        mover = state[TO_MOVE]
        if mover >= 0 and (style0[q] if mover == 0 else style1[q]) == READER:
            _read_switch(state, mover)
        while state[PHASE] != PH_OVER:
            k = R.legal_actions(state, params, actions)
            style = style0[q] if state[TO_MOVE] == 0 else style1[q]
            if style == READER or style == RANGER:
                style = HUNTER
            styled_heuristic(state, params, np.int64(style), actions, k, probs)
            u = np.random.random()
            a = k - 1
            acc = 0.0
            for x in range(k):
                acc += probs[x]
                if u < acc:
                    a = x
                    break
            R.apply_action(state, params, actions[a], nxt)
            for x in range(STATE_SIZE):
                state[x] = nxt[x]
        out[q] = R.returns_p1(state, params)


@njit(cache=True)
def rollouts(pubs, params, leaf, i0, i1, style0, style1, seeds, out):
    """The ``rollouts`` hook: ``out[q]``, P1's payoff of one game played to the end from
    public state ``pubs[leaf[q]]`` with P1 holding private state ``i0[q]`` and P2 ``i1[q]``,
    each seat playing the style ``style0[q]`` / ``style1[q]`` (``ROLLOUT_STYLES``; its
    random choices, refills and the prober's attacks, from numba's generator seeded with
    ``seeds[q]`` per game: the same arguments give the same payoffs, and games with one seed
    share their random numbers: common random numbers across leaves). A ``ranger`` without
    guesses is the hunter."""
    rollouts_guessing(pubs, params, leaf, i0, i1, style0, style1, seeds,
                      np.zeros((0, 0), np.int64), out)


@njit(cache=True)
def style_rows(pub, params, style, states, out):
    """The ``style_rows`` hook: ``out[x, e]``, the probability that the mover at decision
    ``pub`` holding private state ``states[x]`` takes entry e of its row
    (``public.private_actions``' order), playing the heuristic style ``style`` (a number of
    ``heuristic.HEURISTIC_STYLES``: hunter, switcher, prober). The styles
    read only the mover's own cards and public bookkeeping (heuristic.py), so the other
    seat's cards are not needed. 0 past each row's entries and at placeholders."""
    m_pub = R.protocol_max_actions(params)
    kids = np.empty(m_pub, np.int64)
    nexts = np.empty(m_pub, np.int64)
    src = np.empty(m_pub, np.int64)
    acts = np.empty(m_pub, np.int32)
    probs = np.empty(m_pub)
    state = np.empty(STATE_SIZE, np.int16)
    p = pub[TO_MOVE]
    for x in range(states.shape[0]):
        i = states[x]
        out[x, :] = 0.0
        m = action_entries(pub, params, i, kids, nexts, src)
        combine(pub, params, i if p == 0 else -1, i if p == 1 else -1, state)
        k = R.legal_actions(state, params, acts)
        styled_heuristic(state, params, np.int64(style), acts, k, probs)
        for e in range(m):
            if src[e] >= 0:
                out[x, e] = probs[src[e]]


@njit(cache=True)
def move_kinds(pub, params, out):
    """The ``move_kinds`` hook: ``out[o]``, the kind of public label o at decision ``pub``
    (``public.legal_actions``' order), its type: a hand attack, a switch or a house attack
    (``rules.T_HAND``, ``T_SWITCH``, ``T_HOUSE``; a placement's or refill's label is alone
    at its decision); returns the number of labels. The prober's moves are all of one kind
    (uniformly random hand attacks), so a player that makes only hand attacks is the prober
    by kind however it picks them."""
    n = legal_actions(pub, params, out)
    for o in range(n):
        out[o] = out[o] >> 12
    return n


def opening_classes(variant) -> tuple[np.ndarray, list[str]]:
    """The ``opening_classes`` hook: each placement's class, its set of cards ("0,2,9"; NOTHING
    a class of its own). The rules treat the houses alike (a house's number only names it
    in later decoys and attacks), so placements that differ by the houses' order are one
    opening up to relabelling the houses."""

    cards = placement_cards(variant.to_params())
    keys: dict[str, int] = {}
    out = np.empty(cards.shape[0], np.int64)
    for i, row in enumerate(cards[:-1]):
        key = ",".join(str(c) for c in sorted(int(c) for c in row))
        out[i] = keys.setdefault(key, len(keys))
    out[-1] = len(keys)
    return out, [*keys, "not placed yet"]


def guess_features(params: np.ndarray) -> np.ndarray:
    """The ``guess_features`` hook: :func:`placement_cards`, so that a guess of the opposing
    decision at a leaf is the ranger that believes one house holds one card
    (spycfr.search.continuation, ``guess_by`` "feature"): at most houses x cards guesses
    where a guess per placement is one per live placement (72 on ``standard`` after the
    openings)."""
    return placement_cards(params)


def placement_cards(params: np.ndarray) -> np.ndarray:
    """(private states, houses): the card each placement holds in each house (-1 for "not
    placed yet"), what :func:`private_names`, :func:`opening_classes` and the
    ``guess_features`` hook read."""
    params = np.asarray(params, np.int64)
    n = int(num_placements(params))
    k = int(params[R.P_HOUSES])
    t = np.zeros(3, np.int64)
    out = np.full((n + 1, k), -1, np.int64)
    for i in range(n):
        unrank(params, i, t)
        out[i] = t[:k]
    return out
