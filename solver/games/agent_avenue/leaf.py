"""What a search agent assumes at the leaf of a depth-limited Agent Avenue subgame (simple
mode's public model, public.py, or advanced mode's, public_advanced.py: each function reads
the numbering of the mode of ``params``): the game's payoff at a terminal, and before the
end an estimate of seat 0's expected payoff from the public state alone (the score is
public: the gap between the meeples, the Codebreakers and Daredevils in play, the deck
left; in advanced mode the black market is not in it), weighed, pair of private states by
pair, with the same card-removal ratio as the terminal payoff.

``v_s[l, i] = sum_j u_s(l) W_l[i, j] r_other[l, j]``, ``W_l[i, j]`` the model's correction
of the deal and draws to the deck's (public.py's module notes), at a leaf before the end the
cards out of the deck counted as they stand (hands, discards, the cards on the table). At a
recruitment (a leaf where a subgame starts at one, or after a swap) the value is the
estimate after the card that the recruiter, knowing only the mover's range, prefers; the
face-down card is then the mover's own (simple mode; in advanced mode, whose recruitment
goes on to the black market, the estimate as it stands). ``W`` is built once per public
state and kept (a solve evaluates its leaves twice per iteration), so an evaluation costs a
matrix product per group of leaves that share it.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

import numpy as np
from numba import njit

from spycfr.games.agent_avenue import public as AP
from spycfr.games.agent_avenue.advanced_core import AgentAvenueAdvancedParams
from spycfr.games.agent_avenue.multiset import digit, unit_code
from spycfr.games.agent_avenue.numbering import DEAD, cards_left, decode, scheme_size
from spycfr.games.agent_avenue.payoff import falling, scale_of
from spycfr.games.agent_avenue.public_advanced import (
    model_scale,
    model_scheme,
    model_state_weight,
    offer_open,
)
from spycfr.games.agent_avenue.rules import (
    ACTIVE,
    DECKSIZE,
    GAP,
    PH_OVER,
    PH_RECRUIT,
    PH_SWAP_DRAW,
    PHASE,
    PLAY,
    T_TAKE,
    UP,
    WINNER,
)

# Seat 0's expected payoff before the end: tanh of a weighted sum of the public score, the
# weights half a logistic regression's of P1's win on these features at the start of each
# turn of 12,000 heuristic-vs-heuristic games on the full deck (15% of moves uniformly
# random; log loss 0.633 against 0.693 knowing nothing): tanh(z / 2) = 2 P(win) - 1.
SPACE = 0.142  # per space of P1's lead over the half board (the deck-out's measure)
LATE = -0.47  # the lead weighs (1 + LATE) times as much when the deck is out
CODEBREAKER = (0.0, 0.04, 0.34)  # one and two Codebreakers in play (three win)
DAREDEVIL = (0.0, -0.14, -0.50)  # one and two Daredevils (three lose)
TEMPO = 0.065  # the side to move


@njit(cache=True)
def estimate(pub, params):
    """Seat 0's expected payoff at a public state before the end, in (-1, 1): the lead in
    spaces (the deck-out's measure), the Codebreakers and Daredevils each side has in play
    and who is to move."""
    total = 0
    for t in range(params.n):
        total += params.copies[t]
    late = 1.0 - pub[DECKSIZE] / max(total - 2 * params.hand, 1)
    lead = params.board // 2 - pub[GAP]
    x = SPACE * lead * (1.0 + LATE * late)
    if params.cb >= 0:
        x += CODEBREAKER[min(pub[PLAY + params.cb], 2)]
        x -= CODEBREAKER[min(pub[PLAY + 8 + params.cb], 2)]
    if params.dd >= 0:
        x += DAREDEVIL[min(pub[PLAY + params.dd], 2)]
        x -= DAREDEVIL[min(pub[PLAY + 8 + params.dd], 2)]
    x += TEMPO if pub[ACTIVE] == 0 else -TEMPO
    return np.tanh(x)


@njit(cache=True)
def _held(pub, params, seat, i):
    """The cards state i of ``seat`` holds out of the deck (hand, discards the numbering
    keeps, and a face-down card on the table until it is recruited), -1 for DEAD."""
    pending, hs, ds = model_scheme(pub, params, seat)
    return _held_in(pub, params, pending, hs, ds, i)


@njit(cache=True)
def _held_in(pub, params, pending, hs, ds, i):
    """:func:`_held` of state i of the numbering (pending, hs, ds)."""
    if i == DEAD or i >= scheme_size(params, pending, hs, ds):
        return np.int64(-1)
    hand, disc, name = decode(params, pending, hs, ds, i)
    code = hand + disc
    if name >= 0 and offer_open(pub, params):
        code += unit_code(name)
    return code


@njit(cache=True)
def leaf_scale(pub, params):
    """The model's probability of the cards out of the deck at ``pub`` over the deck's
    (payoff.py's ``draw_scale``), before the end the cards out counted as they stand."""
    if pub[PHASE] == PH_OVER:
        return model_scale(pub, params)
    total = 0
    for t in range(params.n):
        total += params.copies[t]
    return scale_of(pub, params, total - pub[DECKSIZE])


@njit(cache=True)
def leaf_base(pub, params):
    """The cards of each name out of the deck and out of both seats' states at ``pub``:
    in play, and the offer's face-up card on the table."""
    base = np.zeros(params.n, np.int64)
    for t in range(params.n):
        base[t] = pub[PLAY + t] + pub[PLAY + 8 + t]
    if pub[UP] >= 0 and offer_open(pub, params):
        base[pub[UP]] += 1  # the offer on the table
    return base


@njit(cache=True)
def _ratio(params, scale, base, x, y):
    """``W`` of the held cards x and y (multiset codes; 0 where either is -1)."""
    if x < 0 or y < 0:
        return 0.0
    r = scale
    for t in range(params.n):
        r *= falling(params.copies[t], base[t] + digit(x, t) + digit(y, t))
    return r


@njit(cache=True)
def pair_weight(pub, params, scale, base, i, j):
    """``W[i, j]`` of :func:`weights` for one pair (``scale`` and ``base`` of the leaf:
    :func:`leaf_scale`, :func:`leaf_base`)."""
    return (_ratio(params, scale, base, _held(pub, params, 0, i), _held(pub, params, 1, j))
            * model_state_weight(pub, params, 0, i) * model_state_weight(pub, params, 1, j))


@njit(cache=True)
def weights(pub, params, n0, n1):
    """``W[i, j]``: the deck's probability of the cards states i and j hold (with those in
    play and on the table) over the model's, 0 where either is DEAD or they hold more than
    the deck has (at a terminal, a decision, the revealed card's signal, a discard's draw;
    there, where the model forgets discards, times the weight the draw will carry:
    forget.py's ``state_weight``)."""
    w, ri, ci = live_weights(pub, params, n0, n1)
    out = np.zeros((n0, n1))
    for a in range(ri.shape[0]):
        for b in range(ci.shape[0]):
            out[ri[a], ci[b]] = w[a, b]
    return out


@njit(cache=True)
def weights_row(pub, params, seat, i, n_other):
    """Row i of ``seat`` of :func:`weights` (its column where ``seat`` is 1): what the
    agent's posterior and move values weigh the opposing range by (the plug-in's
    ``pair_weights``), without the whole W (2,641 x 2,641 in advanced mode)."""
    out = np.zeros(n_other)
    x = _held(pub, params, seat, i)
    if x < 0:
        return out
    scale = leaf_scale(pub, params)
    f = model_state_weight(pub, params, seat, i)
    base = leaf_base(pub, params)
    pending, hs, ds = model_scheme(pub, params, 1 - seat)
    # the other seat's DEAD and the indices its numbering at pub does not use weigh 0
    for j in range(1, min(n_other, scheme_size(params, pending, hs, ds))):
        out[j] = (_ratio(params, scale, base, x, _held_in(pub, params, pending, hs, ds, j))
                  * f * model_state_weight(pub, params, 1 - seat, j))
    return out


@njit(cache=True)
def _live_states(pub, params, n0, n1):
    """What :func:`live_weights` and its reference share: the leaf's scale and base, each
    numbering's held state (x, y; -1: none), the live ones' indices (ri, ci) and the column
    states' weights (fb, once each, not once a pair)."""
    scale = leaf_scale(pub, params)
    base = leaf_base(pub, params)
    x = np.empty(n0, np.int64)
    y = np.empty(n1, np.int64)
    for i in range(n0):
        x[i] = _held(pub, params, 0, i)
    for j in range(n1):
        y[j] = _held(pub, params, 1, j)
    ri = np.flatnonzero(x >= 0)
    ci = np.flatnonzero(y >= 0)
    fb = np.empty(ci.shape[0])
    for b in range(ci.shape[0]):
        fb[b] = model_state_weight(pub, params, 1, ci[b])
    return scale, base, x, y, ri, ci, fb


@njit(cache=True)
def live_weights(pub, params, n0, n1):
    """(``W`` on the states of the numberings at ``pub`` alone, those states' indices ri
    and ci): the rest of :func:`weights` is 0 (advanced mode's numberings use 331 of its
    2,641 indices at most decisions: the whole W would be 56 MB)."""
    scale, base, x, y, ri, ci, fb = _live_states(pub, params, n0, n1)
    # _ratio's factors tabulated: fall[t, d] = falling(copies[t], d), and each state's
    # digits once, so a pair is n table reads and products in _ratio's order (the same
    # bits: every factor is the value _ratio computes, multiplied in the same order)
    n = params.n
    dx = np.empty((ri.shape[0], n), np.int64)
    dy = np.empty((ci.shape[0], n), np.int64)
    top = 0
    for a in range(ri.shape[0]):
        for t in range(n):
            dx[a, t] = base[t] + digit(x[ri[a]], t)
            top = max(top, dx[a, t])
    most = 0
    for b in range(ci.shape[0]):
        for t in range(n):
            dy[b, t] = digit(y[ci[b]], t)
            most = max(most, dy[b, t])
    fall = np.empty((n, top + most + 1))
    for t in range(n):
        for d in range(top + most + 1):
            fall[t, d] = falling(params.copies[t], d)
    out = np.empty((ri.shape[0], ci.shape[0]))
    for a in range(ri.shape[0]):
        fa = model_state_weight(pub, params, 0, ri[a])
        for b in range(ci.shape[0]):
            r = scale
            for t in range(n):
                r *= fall[t, dx[a, t] + dy[b, t]]
            out[a, b] = r * fa * fb[b]
    return out, ri, ci


@njit(cache=True)
def live_weights_pairwise(pub, params, n0, n1):
    """:func:`live_weights` pair by pair through :func:`_ratio` (the reference its tables
    must equal bit for bit: tests/test_resolve_speed.py)."""
    scale, base, x, y, ri, ci, fb = _live_states(pub, params, n0, n1)
    out = np.empty((ri.shape[0], ci.shape[0]))
    for a in range(ri.shape[0]):
        fa = model_state_weight(pub, params, 0, ri[a])
        for b in range(ci.shape[0]):
            out[a, b] = _ratio(params, scale, base, x[ri[a]], y[ci[b]]) * fa * fb[b]
    return out, ri, ci


@njit(cache=True)
def weights_key(pub, params):
    """What :func:`weights` reads of a public state: leaves that differ only in who
    recruited which card, or in the gap, share their ``W``."""
    out = np.zeros(8 + 2 * params.n, np.int64)
    out[0] = pub[PHASE] == PH_OVER
    out[1] = pub[PHASE] == PH_RECRUIT
    for s in range(2):
        pending, hs, ds = model_scheme(pub, params, s)
        out[2 + 3 * s] = pending
        out[3 + 3 * s] = hs
        out[4 + 3 * s] = ds
    scale = model_scale(pub, params) if pub[PHASE] == PH_OVER else -1.0
    out[7] = np.int64(pub[DECKSIZE]) if scale < 0 else np.int64(np.float64(scale).view(np.int64))
    for t in range(params.n):
        out[8 + t] = pub[PLAY + t] + pub[PLAY + 8 + t]
        out[8 + params.n + t] = pub[UP] == t and pub[PHASE] == PH_RECRUIT
    return out


@njit(cache=True)
def recruit_outcomes(pub, params):
    """At a recruitment: seat 0's value after each take (0 up, 1 down) and face-down name,
    the game's payoff if it ends there, else :func:`estimate` (nan: no such name left)."""
    out = np.full((2, params.n), np.nan)
    taken = np.empty_like(pub)
    after = np.empty_like(pub)
    for take in range(2):
        AP.apply_action(pub, params, (T_TAKE << 20) | take, taken)
        for d in range(params.n):
            if cards_left(pub, params, d) <= 0:
                continue
            AP.apply_action(taken, params, d, after)
            if after[PHASE] == PH_OVER:
                out[take, d] = 1.0 if after[WINNER] == 0 else -1.0
            else:
                out[take, d] = estimate(after, params)
    return out


@njit(cache=True)
def face_down_names(pub, params, seat, n):
    """The face-down name of each of ``seat``'s states at a recruitment (-1: DEAD)."""
    out = np.full(n, -1, np.int64)
    pending, hs, ds = model_scheme(pub, params, seat)
    for i in range(1, min(n, scheme_size(params, pending, hs, ds))):
        out[i] = decode(params, pending, hs, ds, i)[2]
    return out


def _recruited(outcomes: np.ndarray, names: np.ndarray, mover_range: np.ndarray,
               recruiter: int) -> np.ndarray:
    """Seat 0's value for each of the mover's states at a recruitment leaf: the recruiter
    takes the card that is better for it on average over the face-down names the mover's
    range holds (what it knows of that card), the face-down card then the state's own
    (``outcomes`` as :func:`recruit_outcomes` with 0 for nan)."""
    live = names >= 0
    mass = np.bincount(names[live], weights=mover_range[live], minlength=outcomes.shape[1])
    means = outcomes @ mass
    take = int(np.argmax(means) if recruiter == 0 else np.argmin(means))
    return np.where(live, outcomes[take][np.maximum(names, 0)], 0.0)


@njit(cache=True)
def recruit_masses(leaves, movers, names, n_names, r0, r1):
    """Each recruitment leaf k's mass of the mover's range on each face-down name:
    ``_recruited``'s ``bincount``, the live states added in their order (the same sums)."""
    out = np.zeros((leaves.shape[0], n_names))
    for k in range(leaves.shape[0]):
        r = r0[leaves[k]] if movers[k] == 0 else r1[leaves[k]]
        for i in range(r.shape[0]):
            if names[k, i] >= 0:
                out[k, names[k, i]] += r[i]
    return out


@njit(cache=True)
def recruit_inputs(leaves, movers, names, outcomes, take, r0, r1, ri, roff, nr, ci, coff, nc):
    """Each recruitment leaf k's mover values (``_recruited``'s, the card ``take[k]``
    taken) and the vectors its two products through ``W`` read (:meth:`ScoredNow._recruit`'s
    operands, the same elementwise products): (us, x of the product that reads r1, x of the
    one that reads r0), row k each, as wide as the widest leaf's."""
    R = leaves.shape[0]
    us = np.zeros((R, names.shape[1]))
    xa = np.zeros((R, max(nc.max(), 1) if R else 1))
    xb = np.zeros((R, max(nr.max(), 1) if R else 1))
    for k in range(R):
        leaf, o = leaves[k], outcomes[k, take[k]]
        for i in range(names.shape[1]):
            if names[k, i] >= 0:
                us[k, i] = o[names[k, i]]
        for a in range(nr[k]):
            row = ri[roff[k] + a]
            xb[k, a] = us[k, row] * r0[leaf, row] if movers[k] == 0 else r0[leaf, row]
        for b in range(nc[k]):
            col = ci[coff[k] + b]
            xa[k, b] = r1[leaf, col] if movers[k] == 0 else us[k, col] * r1[leaf, col]
    return us, xa, xb


@njit(cache=True)
def recruit_values(leaves, movers, us, pa, pb, ri, roff, nr, ci, coff, nc, v0, v1):
    """Each recruitment leaf's values from its products (``pa`` through r1, ``pb`` through
    r0: :meth:`ScoredNow._recruit`'s a and b), 0 off W's live rows and columns."""
    for k in range(leaves.shape[0]):
        leaf = leaves[k]
        v0[leaf, :] = 0.0
        v1[leaf, :] = 0.0
        for a in range(nr[k]):
            row = ri[roff[k] + a]
            v0[leaf, row] = us[k, row] * pa[k, a] if movers[k] == 0 else pa[k, a]
        for b in range(nc[k]):
            col = ci[coff[k] + b]
            v1[leaf, col] = -pb[k, b] if movers[k] == 0 else -us[k, col] * pb[k, b]


@njit(cache=True, fastmath=True)
def live_products(u, gid, order, wflat, woff, ri, roff, nr, ci, coff, nc, r0, r1, do0, do1,
                  v0, v1):
    """Seat 0's and seat 1's scored-now values at each leaf l whose ``W`` is group
    ``gid[l]`` (-1: a recruitment, valued apart; its rows left as they are):
    ``v0[l, ri] = u[l] W r1[l, ci]`` and ``v1[l, ci] = -u[l] r0[l, ri] W``, 0 elsewhere,
    where ``do0`` (``do1``). Group g's ``W`` is ``wflat[woff[g]:]`` row-major
    ``nr[g] x nc[g]`` (single precision: its live rows ``ri[roff[g]:]`` and columns
    ``ci[coff[g]:]``); ``order`` lists the leaves group by group, so that each group's ``W``
    is read once a call for all its leaves (a small matrix product per group, in one numba
    call; sums in double precision, in any order: ``fastmath``)."""
    L = u.shape[0]
    x = np.zeros((L, v1.shape[1]))  # each leaf's opposing range on its group's columns
    acc = np.zeros((L, v1.shape[1]))
    start = 0
    while start < order.shape[0]:
        g = gid[order[start]]
        stop = start
        while stop < order.shape[0] and gid[order[stop]] == g:
            stop += 1
        leaves = order[start:stop]
        start = stop
        if g < 0:
            continue
        w0, n_r, n_c = woff[g], nr[g], nc[g]
        rows, cols = ri[roff[g]:roff[g] + n_r], ci[coff[g]:coff[g] + n_c]
        k = leaves.shape[0]
        if do0:
            for t in range(k):
                leaf = leaves[t]
                v0[leaf, :] = 0.0
                for b in range(n_c):
                    x[t, b] = r1[leaf, cols[b]]
            for a in range(n_r):
                w = wflat[w0 + a * n_c:w0 + (a + 1) * n_c]
                for t in range(k):
                    total = 0.0
                    for b in range(n_c):
                        total += w[b] * x[t, b]
                    v0[leaves[t], rows[a]] = u[leaves[t]] * total
        if do1:
            for t in range(k):
                v1[leaves[t], :] = 0.0
                acc[t, :n_c] = 0.0
            for a in range(n_r):
                w = wflat[w0 + a * n_c:w0 + (a + 1) * n_c]
                for t in range(k):
                    y = r0[leaves[t], rows[a]]
                    if y == 0.0:
                        continue
                    for b in range(n_c):
                        acc[t, b] += w[b] * y
            for t in range(k):
                leaf = leaves[t]
                for b in range(n_c):
                    v1[leaf, cols[b]] = -u[leaf] * acc[t, b]


class ScoredNow:
    """The ``scored_now`` hook: a callable keeping each public state's value and ``W`` (at
    most ``keep`` of each kind, the oldest dropped first), and for each set of leaves it is
    asked about (the last few: a solve asks about the same leaves twice an iteration) their
    values and ``W`` packed into flat arrays, so that a call is one numba pass over the
    leaves (:func:`live_products`), not a Python loop over them. A call whose opposing range
    is the last call's on the same leaves (the solver asks for both seats' values, then uses
    one) reuses those values. ``grouped``: the old path, a matrix product per group of
    leaves that share a ``W`` (the same sums in another order: the benchmark's and the
    tests' reference)."""

    def __init__(self, keep: int = 600) -> None:
        self.keep = keep
        self.grouped = False
        self._leaves: OrderedDict[bytes, tuple[Any, bytes]] = OrderedDict()
        self._weights: OrderedDict[bytes, tuple] = OrderedDict()
        self._params: dict[int, tuple[object, bytes]] = {}
        self._last: OrderedDict[bytes, tuple] = OrderedDict()
        self._packed: OrderedDict[bytes, tuple] = OrderedDict()

    def __call__(self, pubs, params, r0, r1, v0, v1) -> None:
        # the last call on the same leaves (a solve asks for its terminal and its other
        # leaves apart: a slot each)
        slot = pubs.tobytes() + self._params_key(params)
        same0 = same1 = False
        last: tuple = ()
        kept: tuple | None = None
        if slot in self._last:
            self._last.move_to_end(slot)
            last = self._last[slot]
            same0, same1 = _equal(last[0], r0), _equal(last[1], r1)
            kept = last[4]
        if same1:
            v0[:] = last[2]
        if same0:
            v1[:] = last[3]
        products: tuple | None = None
        if self.grouped:
            self._grouped(pubs, params, r0, r1, v0, v1, same0, same1)
        else:
            u, gid, pack, recruits = self._pack(slot, pubs, params, r0.shape[1], r1.shape[1])
            live_products(u, gid, np.argsort(gid, kind="stable"), *pack, r0, r1, not same1,
                          not same0, v0, v1)
            products = self._recruits(recruits, r0, r1, v0, v1, kept, same0, same1)
        # a range equal to the last one is kept as it was (its bytes are those): no copy;
        # and the values of the seat whose opposing range is unchanged are the last ones
        # but at the recruitments (the mover's values read its own range), so the last
        # array takes those rows in place of a copy of the whole. The last arrays are this
        # hook's alone: a changed one is written over, not made anew (a fresh array of
        # the leaves' size a call costs the kernel's page faults)
        rows = np.flatnonzero(pubs[:, PHASE] == PH_RECRUIT)
        kept_now = []
        for new, same, at in ((r0, same0, 0), (r1, same1, 1), (v0, same1, 2), (v1, same0, 3)):
            if same and at >= 2:
                last[at][rows] = new[rows]
            kept_now.append(last[at] if same else _copy_into(last[at] if last else None, new))
        self._last[slot] = (*kept_now, products)
        if len(self._last) > 4:
            self._last.popitem(last=False)

    def _pack(self, slot: bytes, pubs, params, n0: int, n1: int) -> tuple:
        """The leaves' values, their groups (-1: a recruitment) and their groups' ``W``
        packed flat, and the recruitments packed (:func:`_recruit_pack`), kept per slot
        (the last 8)."""
        hit = self._packed.get(slot)
        if hit is not None:
            self._packed.move_to_end(slot)
            return hit
        u = np.zeros(pubs.shape[0])
        gid = np.full(pubs.shape[0], -1, np.int64)
        groups: dict[bytes, int] = {}
        recruits = []
        doubles: dict[bytes, tuple] = {}  # a recruitment's W in double precision, once
        for leaf in range(pubs.shape[0]):
            value, wkey = self._leaf(pubs[leaf], params, n0, n1)
            if isinstance(value, tuple):
                if wkey not in doubles:
                    w, ri, ci = self._weights[wkey]
                    doubles[wkey] = (w.astype(np.float64), ri, ci)
                recruits.append((leaf, value, doubles[wkey]))
                continue
            u[leaf] = value
            gid[leaf] = groups.setdefault(wkey, len(groups))
        mats = [self._weights[k] for k in groups]
        nr = np.array([m[1].size for m in mats], np.int64)
        nc = np.array([m[2].size for m in mats], np.int64)
        pack = (_cat([m[0].ravel() for m in mats], np.float32), _offsets(nr * nc),
                _cat([m[1] for m in mats], np.int64), _offsets(nr), nr,
                _cat([m[2] for m in mats], np.int64), _offsets(nc), nc)
        out = (u, gid, pack, _recruit_pack(recruits, max(n0, n1)))
        self._packed[slot] = out
        if len(self._packed) > 8:
            self._packed.popitem(last=False)
        return out

    @staticmethod
    def _recruits(rec: tuple, r0, r1, v0, v1, kept: tuple | None, same0: bool, same1: bool
                  ) -> tuple | None:
        """Every recruitment leaf's values (simple mode) at once, :meth:`_recruit`'s leaf by
        leaf with the same bits: the mover's values and the products' operands in numba
        (sums in ``bincount``'s order, the same elementwise products), the two numpy
        products through ``W`` per leaf as they were (BLAS: no other order of their sums
        gives its bits), the means of each take in one stacked ``matmul`` (the same
        per-leaf products). ``kept``: the products of the last call on the same leaves,
        (through r1, through r0), those of an unchanged range kept (``same0``, ``same1``).
        Returns this call's products (None: no recruitment)."""
        leaves, movers, names, outcomes, ws, ri, roff, nr, ci, coff, nc = rec
        if not leaves.size:
            return None
        mass = recruit_masses(leaves, movers, names, outcomes.shape[2], r0, r1)
        means = np.matmul(outcomes, mass[:, :, None])[:, :, 0]
        # the recruiter (the other seat) takes its better card: seat 0 the larger mean
        take = np.where(movers == 0, np.argmin(means, 1), np.argmax(means, 1))
        us, xa, xb = recruit_inputs(leaves, movers, names, outcomes, take, r0, r1, ri, roff,
                                    nr, ci, coff, nc)
        last = kept or (None, None)
        keep_a, keep_b = kept is not None and same1, kept is not None and same0
        pa = last[0] if keep_a else np.zeros((leaves.size, xb.shape[1]))
        pb = last[1] if keep_b else np.zeros((leaves.size, xa.shape[1]))
        if not (keep_a and keep_b):
            for k, w in enumerate(ws):
                if not keep_a:
                    pa[k, :nr[k]] = w @ xa[k, :nc[k]]
                if not keep_b:
                    pb[k, :nc[k]] = xb[k, :nr[k]] @ w
        recruit_values(leaves, movers, us, pa, pb, ri, roff, nr, ci, coff, nc, v0, v1)
        return pa, pb

    @staticmethod
    def _recruit(leaf: int, mover: int, outcomes, names, wts: tuple, r0, r1, v0, v1) -> None:
        """One recruitment leaf's values (simple mode): :func:`_recruited` for the mover's
        states, through ``W`` (``wts``: its live part and their rows and columns; in single
        precision cast to double for each product). The leaf by leaf reference of
        :meth:`_recruits` (and the ``grouped`` path's)."""
        w, ri, ci = wts
        us = _recruited(outcomes, names, (r0[leaf], r1[leaf])[mover], 1 - mover)
        v0[leaf], v1[leaf] = 0.0, 0.0
        if mover == 0:
            v0[leaf, ri] = us[ri] * (w @ r1[leaf, ci])
            v1[leaf, ci] = -((us[ri] * r0[leaf, ri]) @ w)
        else:
            v0[leaf, ri] = w @ (us[ci] * r1[leaf, ci])
            v1[leaf, ci] = -us[ci] * (r0[leaf, ri] @ w)

    def _grouped(self, pubs, params, r0, r1, v0, v1, same0: bool, same1: bool) -> None:
        """The old path (``grouped``): a matrix product per group of leaves sharing ``W``."""
        u = np.empty(pubs.shape[0])
        groups: dict[bytes, list[int]] = {}
        recruits = []
        for leaf in range(pubs.shape[0]):
            value, wkey = self._leaf(pubs[leaf], params, r0.shape[1], r1.shape[1])
            if isinstance(value, tuple):
                recruits.append((leaf, value, wkey))
                continue
            u[leaf] = value
            groups.setdefault(wkey, []).append(leaf)
        # W's rows (seat 0's states) ri and columns ci that are not all 0: the values of
        # the other states are 0
        for wkey, leaves in groups.items():
            w, ri, ci = self._weights[wkey]
            idx = np.array(leaves)
            if not same1:
                v0[idx] = 0.0
                v0[np.ix_(idx, ri)] = u[idx, None] * (r1[np.ix_(idx, ci)].astype(np.float32)
                                                      @ w.T)
            if not same0:
                v1[idx] = 0.0
                v1[np.ix_(idx, ci)] = -u[idx, None] * (r0[np.ix_(idx, ri)].astype(np.float32)
                                                       @ w)
        for leaf, (mover, outcomes, names), wkey in recruits:
            self._recruit(leaf, mover, outcomes, names, self._weights[wkey], r0, r1, v0, v1)

    def _leaf(self, pub, params, n0: int, n1: int) -> tuple[Any, bytes]:
        """(seat 0's value, or at a recruitment (mover, values of each take and face-down
        name, each mover's state's face-down name); the key of its W)."""
        key = pub.tobytes() + self._params_key(params)
        if key in self._leaves:
            self._leaves.move_to_end(key)
            hit = self._leaves[key]
            self._weigh(hit[1], pub, params, n0, n1)
            return hit
        value: float | tuple
        if pub[PHASE] == PH_OVER:
            value = 1.0 if pub[WINNER] == 0 else -1.0
        elif pub[PHASE] == PH_RECRUIT and not isinstance(params, AgentAvenueAdvancedParams):
            mover = int(pub[ACTIVE])
            value = (mover, np.nan_to_num(recruit_outcomes(pub, params)),
                     face_down_names(pub, params, mover, (n0, n1)[mover]))
        else:
            value = float(estimate(pub, params))
        wkey = weights_key(pub, params).tobytes() + self._params_key(params)
        self._weigh(wkey, pub, params, n0, n1)
        self._leaves[key] = (value, wkey)
        if len(self._leaves) > 4 * self.keep:
            self._leaves.popitem(last=False)
        return value, wkey

    def _weigh(self, wkey: bytes, pub, params, n0: int, n1: int) -> None:
        """Make ``W`` of ``pub`` the most recent (built if it is not kept)."""
        if wkey not in self._weights:
            # single precision and only the rows and columns not all 0 (on the full game
            # about 64% of each): the products read W from memory
            w, ri, ci = live_weights(pub, params, n0, n1)
            rows, cols = (w != 0).any(1), (w != 0).any(0)
            self._weights[wkey] = (np.ascontiguousarray(w[np.ix_(rows, cols)], np.float32),
                                   ri[rows], ci[cols])
            if len(self._weights) > self.keep:
                self._weights.popitem(last=False)
        self._weights.move_to_end(wkey)

    def _params_key(self, params) -> bytes:
        hit = self._params.get(id(params))
        if hit is None or hit[0] is not params:
            hit = (params, repr([np.asarray(f).tolist() for f in params]).encode())
            self._params[id(params)] = hit
        return hit[1]


@njit(cache=True)
def _equal(a, b):
    """``np.array_equal`` of two 2-D arrays, without its temporary, stopping at the first
    entry that differs (a solve changes one seat's range a call: most calls' differ early)."""
    if a.shape != b.shape:
        return False
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            if a[i, j] != b[i, j]:
                return False
    return True


def _copy_into(old: np.ndarray | None, new: np.ndarray) -> np.ndarray:
    """A copy of ``new``: written into ``old`` where it has the shape and type (an array
    nothing else holds), else a new one."""
    if old is None or old.shape != new.shape or old.dtype != new.dtype:
        return new.copy()
    np.copyto(old, new)
    return old


def _recruit_pack(recruits: list, width: int) -> tuple:
    """The recruitment leaves of a call ((leaf, (mover, outcomes, names), (W in double
    precision, its rows, its columns)) each) as :meth:`ScoredNow._recruits` reads them: the
    leaves, movers, names (-1 past the mover's states), outcomes stacked, each leaf's ``W``,
    and its rows' and columns' indices end to end with their offsets and counts."""
    count = len(recruits)
    if not count:
        none = np.zeros(0, np.int64)
        return (none, none, none, np.zeros((0, 2, 1)), []) + (none,) * 6
    names = np.full((count, width), -1, np.int64)
    for k, (_, (_, _, nm), _) in enumerate(recruits):
        names[k, :nm.size] = nm
    nr = np.array([r[2][1].size for r in recruits], np.int64)
    nc = np.array([r[2][2].size for r in recruits], np.int64)
    return (np.array([r[0] for r in recruits], np.int64),
            np.array([r[1][0] for r in recruits], np.int64), names,
            np.array([r[1][1] for r in recruits], np.float64).reshape(count, 2, -1),
            [r[2][0] for r in recruits],
            _cat([r[2][1] for r in recruits], np.int64), _offsets(nr), nr,
            _cat([r[2][2] for r in recruits], np.int64), _offsets(nc), nc)


def _offsets(sizes: np.ndarray) -> np.ndarray:
    """Where each of parts of ``sizes`` starts when they are laid end to end."""
    return np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)


def _cat(parts: list, dtype) -> np.ndarray:
    """``parts`` end to end as one array of ``dtype`` (empty without parts)."""
    return np.concatenate(parts).astype(dtype) if parts else np.zeros(0, dtype)


scored_now = ScoredNow()


def search_params(variant):
    """The public model a search agent re-solves on: the exact one, or, where its numbering
    of a seat's hands and discards passes ``EXACT_LIMIT`` states (the full game: 108,901),
    the one that forgets which cards were discarded (hands only: 331 on the full game, and
    at a swap's draw the hand and the name discarded: 961; forget.py).
    Advanced mode's model (public_advanced.py) always forgets them (2,641 states a seat; the
    name discarded kept until the swap's draw there too)."""
    from spycfr.public.protocol import python_impl

    params = variant.to_params()
    if int(python_impl(params, "num_private")(params, 0)) > EXACT_LIMIT:
        params = params._replace(forget=np.int64(1))
    return params


EXACT_LIMIT = 20_000


def needed_moves(params, state: np.ndarray, seat: int, actions: np.ndarray) -> np.ndarray:
    """The plug-in's ``needed_moves``: every play, and the discards only where the hand
    needs one by the swapper's rule (rules.swap_choice at SWAP_MARGIN: a discard whose draw
    raises the best play's score by at least that on average; worth +0.19 a game to the
    heuristic, against +0.10 for every discard on the first turn: docs/search.md, "Why the
    agent spends its four discards at once"). Advanced mode's plays are scored with its
    own gains (advanced_heuristic.swap_choice: the black market's cards and spaces)."""
    from spycfr.games.agent_avenue import advanced_heuristic as AH
    from spycfr.games.agent_avenue import rules as R

    allowed = np.ones(len(actions), bool)
    swaps = (np.asarray(actions) >> 20) == R.T_SWAP
    if not swaps.any():
        return allowed
    choice = AH.swap_choice if isinstance(params, AgentAvenueAdvancedParams) else R.swap_choice
    if choice(state.copy(), params, seat, R.SWAP_MARGIN) < 0:
        allowed[swaps] = False
    return allowed


def private_names(variant, pub: np.ndarray, seat: int) -> list[str]:
    """Each private state of ``seat`` at public state ``pub`` of the search agent's model
    in words: the hand, the discards the model keeps, a face-down card on the table (or, at
    a swap's draw where the model forgets discards, the name just discarded). From its play
    to the recruitment the mover has drawn its refill, which the model draws later
    (public.py): "+ k drawn" names those cards, not in the state."""
    from spycfr.games.agent_avenue.rules import draw_count
    from spycfr.public.protocol import python_impl

    params = search_params(variant)
    codes = variant.names
    pending, hs, ds = model_scheme(pub, params, seat)
    size = scheme_size(params, pending, hs, ds)
    # the mover's pending name at a swap's draw is the one just discarded (no refill is
    # deferred there: the draw is its own); the other seat's numbering is its hand alone
    swap = pub[PHASE] == PH_SWAP_DRAW and seat == pub[ACTIVE]
    refill = int(draw_count(pub, params, seat)) if pub[PHASE] != PH_OVER and not swap else 0
    out = []
    for i in range(int(python_impl(params, "num_private")(params, seat))):
        if i == DEAD or i >= size:
            out.append("impossible")
            continue
        hand, disc, name = decode(params, pending, hs, ds, i)
        words = "hand " + _cards(hand, codes)
        if name >= 0 and refill:
            words = f"hand {refill} drawn" if hand == 0 else words + f" + {refill} drawn"
        if ds:
            words += ", discarded " + _cards(disc, codes)
        if name >= 0:
            words += f", {'just discarded' if swap else 'face down'} {codes[name]}"
        out.append(words)
    return out


def _cards(code: int, codes) -> str:
    """A multiset of cards as the records write it (DA.EN.EN), '-' when empty."""
    return ".".join(codes[t] for t in range(len(codes))
                    for _ in range(int(digit(code, t)))) or "-"
