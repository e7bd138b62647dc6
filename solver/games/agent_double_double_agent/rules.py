"""Agent Double Double Agent rules as numba functions over the int16 state of ``layout.py``
(the only rules code), registered on the game protocol at the end of this module.

A game: P1 then P2 assign their loyalty tokens (hidden); each player's first hand is dealt
(one chance node per player, one outcome per possible hand); then turns alternate, P1
first. A turn: play a card face down on one's own side of an agent in play, or a ``?``
card face up (no effect, it leaves the game); when the agent reaches its threshold it
delivers (with chain reactions through its neighbours), each delivery a one-outcome chance
node that reveals its tokens and cards; in a player's first ``counters`` turns they then
activate an influence counter; they refill their hand from their pile (chance, one outcome
per card kind). The game ends after a turn leaving at most one agent in play, or when both
players have no cards left.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from spycfr.engine import protocol
from spycfr.games.agent_double_double_agent.heuristic import heuristic_policy
from spycfr.games.agent_double_double_agent.layout import (
    ACT,
    BACK_Q,
    CNT,
    HAND,
    K_P,
    K_Q0,
    K_Z7,
    KIND_BACK,
    KIND_VALUE,
    LOY,
    MOVER,
    NHAND,
    NKINDS,
    NPILE,
    O_DEAL_HIDDEN,
    O_DRAW_HIDDEN,
    O_FILE_BACK,
    O_LOYAL_HIDDEN,
    PAYLOAD,
    PENDING,
    PER,
    PH_COUNTER,
    PH_DEAL,
    PH_DRAW,
    PH_LOYAL,
    PH_OVER,
    PH_PLAY,
    PH_REVEAL,
    PHASE,
    PILE,
    POS,
    PTURN,
    QK,
    SCARDS,
    SCORE,
    SHIFT,
    ST_ABSENT,
    ST_P1,
    ST_PLAY,
    STAT,
    STATE_SIZE,
    SUM,
    T_COUNTER,
    T_DEAL,
    T_DRAW,
    T_FILE,
    T_LOYAL,
    T_REVEAL,
    T_UP,
    THR,
    TURN,
    Z7,
    A,
    ADDAParams,
    code,
    counter_movable,
    has_question,
    in_play,
    winner,
)
from spycfr.tree import CHANCE, TERMINAL


@njit(cache=True)
def initial_state(params):
    """Before P1's loyalty assignment: full draw piles, counters on their starting spaces."""
    s = np.zeros(STATE_SIZE, dtype=np.int16)
    for i in range(2 * A):
        s[LOY + i] = -1
        s[QK + i] = -1
    for a in range(A):
        if a < params.agents:
            s[POS + a] = params.start[a]
            s[THR + a] = params.threshold + params.plus[a]
            s[STAT + a] = ST_PLAY
        else:
            s[STAT + a] = ST_ABSENT
    for p in range(2):
        for k in range(NKINDS):
            s[PILE + p * NKINDS + k] = params.deck[k]
        s[NPILE + p] = params.deck_size
    s[PHASE] = PH_LOYAL
    s[MOVER] = 0
    return s


@njit(cache=True)
def is_terminal(state, params):
    return state[PHASE] == PH_OVER


@njit(cache=True)
def current_player(state, params):
    """0 (P1) or 1 (P2) to decide, CHANCE for deals, deliveries and draws, or TERMINAL."""
    ph = state[PHASE]
    if ph == PH_OVER:
        return TERMINAL
    if ph == PH_DEAL or ph == PH_REVEAL or ph == PH_DRAW:
        return CHANCE
    return np.int64(state[MOVER])


@njit(cache=True)
def loyalty_code(tokens):
    """The payload of a loyalty assignment: token under agent a times 10**a."""
    c = 0
    m = 1
    for a in range(tokens.shape[0]):
        c += tokens[a] * m
        m *= 10
    return c


@njit(cache=True)
def _next_permutation(t):
    """Step ``t`` to the next distinct permutation in lexicographic order (False at the end)."""
    n = t.shape[0]
    i = n - 2
    while i >= 0 and t[i] >= t[i + 1]:
        i -= 1
    if i < 0:
        return False
    j = n - 1
    while t[j] <= t[i]:
        j -= 1
    t[i], t[j] = t[j], t[i]
    lo, hi = i + 1, n - 1
    while lo < hi:
        t[lo], t[hi] = t[hi], t[lo]
        lo += 1
        hi -= 1
    return True


@njit(cache=True)
def legal_actions(state, params, out):
    """Write the legal action codes into out[:n] (an order fixed for every infoset); return n."""
    ph = state[PHASE]
    p = state[MOVER]
    n = 0
    if ph == PH_LOYAL:
        # Every distinct arrangement of the tokens over agents 1..n, lexicographic.
        t = params.tokens.copy()
        while True:
            out[n] = code(T_LOYAL, loyalty_code(t))
            n += 1
            if not _next_permutation(t):
                break
        return n
    if ph == PH_PLAY:
        # Face down on one's own side of an agent in play; a ? card only where no ? lies.
        for a in range(params.agents):
            if state[STAT + a] != ST_PLAY:
                continue
            q = has_question(state, a)
            for k in range(NKINDS):
                if state[HAND + p * NKINDS + k] > 0 and not (q and KIND_BACK[k] == BACK_Q):
                    out[n] = code(T_FILE, (a << 5) | k)
                    n += 1
        # A ? card face up (no known action: it leaves the game): always, or only when no
        # card can go face down (faceup=stuck).
        if params.faceup == 1 or n == 0:
            for k in range(K_Q0, NKINDS):
                if state[HAND + p * NKINDS + k] > 0:
                    out[n] = code(T_UP, k)
                    n += 1
        return n
    if ph == PH_COUNTER:
        for a in range(params.agents):
            if counter_movable(state, params, p, a):
                out[n] = code(T_COUNTER, a)
                n += 1
        return n
    return 0


@njit(cache=True)
def chance_outcomes(state, params, codes, probs):
    """Outcomes of a deal (each possible first hand), a delivery (one) or a draw (a kind)."""
    ph = state[PHASE]
    p = state[MOVER]
    if ph == PH_DEAL:
        m = params.deal_probs.shape[0]
        for i in range(m):
            codes[i] = code(T_DEAL, i)
            probs[i] = params.deal_probs[i]
        return m
    if ph == PH_REVEAL:
        pend = state[PENDING]
        a = 0
        while not (pend >> a) & 1:
            a += 1
        codes[0] = code(T_REVEAL, a)
        probs[0] = 1.0
        return 1
    if ph == PH_DRAW:
        n = 0
        total = state[NPILE + p]
        for k in range(NKINDS):
            c = state[PILE + p * NKINDS + k]
            if c > 0:
                codes[n] = code(T_DRAW, k)
                probs[n] = c / total
                n += 1
        return n
    return 0


@njit(cache=True)
def _deliver(out, params, a):
    """Agent a delivers: the winner scores its files; its neighbours' threshold drops."""
    w = winner(out, params, a)
    out[STAT + a] = ST_P1 + w
    out[SCORE + w] += out[SUM + a] + out[SUM + A + a]
    out[SCARDS + w] += out[CNT + a] + out[CNT + A + a]
    out[PENDING] |= 1 << a
    for b in (a - 1, a + 1):
        if 0 <= b < params.agents and out[STAT + b] == ST_PLAY:
            t = params.neighbour_threshold + params.plus[b]  # a +1 file counter still adds 1
            if t < out[THR + b]:
                out[THR + b] = t


@njit(cache=True)
def _deliver_chain(out, params, a):
    """Deliver agent a, then every agent whose lowered threshold is met (chain reaction)."""
    _deliver(out, params, a)
    changed = True
    while changed:
        changed = False
        for b in range(params.agents):
            if out[STAT + b] == ST_PLAY and out[CNT + b] + out[CNT + A + b] >= out[THR + b]:
                _deliver(out, params, b)
                changed = True


@njit(cache=True)
def _end_turn(out, params):
    p = out[MOVER]
    out[PTURN + p] += 1
    out[TURN] += 1
    q = 1 - p
    if out[NHAND + q] == 0:  # cannot happen with equal decks; a player without cards passes
        q = p
    out[MOVER] = q
    out[PHASE] = PH_PLAY


@njit(cache=True)
def _to_draw(out, params):
    """End of the turn: refill the hand while the pile lasts, then pass the move."""
    p = out[MOVER]
    if out[NPILE + p] > 0 and out[NHAND + p] < params.hand:
        out[PHASE] = PH_DRAW
    else:
        _end_turn(out, params)


@njit(cache=True)
def _after_play(out, params):
    """After a card and its deliveries: the game may end, else the counter, else the draw."""
    p = out[MOVER]
    cards = out[NHAND] + out[NHAND + 1] + out[NPILE] + out[NPILE + 1]
    if in_play(out, params) <= 1 or cards == 0:
        out[PHASE] = PH_OVER
        return
    if out[PTURN + p] < params.counters:
        for a in range(params.agents):
            if counter_movable(out, params, p, a):
                out[PHASE] = PH_COUNTER
                return
    _to_draw(out, params)


@njit(cache=True)
def apply_action(state, params, action, out):
    """Write the state after ``action`` (a legal action or chance outcome) into ``out``."""
    for i in range(STATE_SIZE):
        out[i] = state[i]
    typ = action >> SHIFT
    pay = action & PAYLOAD
    p = state[MOVER]
    if typ == T_LOYAL:
        rest = pay
        for a in range(params.agents):
            out[LOY + p * A + a] = rest % 10
            rest //= 10
        if p == 0:
            out[MOVER] = 1
        else:
            out[PHASE] = PH_DEAL
            out[MOVER] = 0
        return
    if typ == T_DEAL:
        for k in range(NKINDS):
            c = params.deal_sets[pay, k]
            out[HAND + p * NKINDS + k] = c
            out[PILE + p * NKINDS + k] -= c
        out[NHAND + p] = params.hand
        out[NPILE + p] -= params.hand
        if p == 0:
            out[MOVER] = 1
        else:
            out[PHASE] = PH_PLAY
            out[MOVER] = 0
        return
    if typ == T_FILE:
        a = pay >> 5
        k = pay & 31
        out[HAND + p * NKINDS + k] -= 1
        out[NHAND + p] -= 1
        i = p * A + a
        out[CNT + i] += 1
        out[SUM + i] += KIND_VALUE[k]
        if k == K_P:
            out[PER + i] += 1
        if k == K_Z7:
            out[Z7 + i] += 1
        if KIND_BACK[k] == BACK_Q:
            out[QK + i] = k
        if out[CNT + a] + out[CNT + A + a] >= out[THR + a]:
            _deliver_chain(out, params, a)
        if out[PENDING] != 0:
            out[PHASE] = PH_REVEAL
        else:
            _after_play(out, params)
        return
    if typ == T_UP:
        out[HAND + p * NKINDS + pay] -= 1
        out[NHAND + p] -= 1
        _after_play(out, params)
        return
    if typ == T_REVEAL:
        out[PENDING] &= ~(1 << pay)
        if out[PENDING] == 0:
            _after_play(out, params)
        return
    if typ == T_COUNTER:
        out[POS + pay] += -1 if p == 0 else 1
        out[ACT + pay] = 1
        _to_draw(out, params)
        return
    # T_DRAW
    out[HAND + p * NKINDS + pay] += 1
    out[PILE + p * NKINDS + pay] -= 1
    out[NHAND + p] += 1
    out[NPILE + p] -= 1
    _to_draw(out, params)


@njit(cache=True)
def observation(state, params, action, seat):
    """What ``seat`` observes when ``action`` is applied at ``state`` (codes: layout.py)."""
    typ = action >> SHIFT
    pay = action & PAYLOAD
    own = seat == state[MOVER]
    if typ == T_LOYAL:
        return code(T_LOYAL, pay) if own else code(O_LOYAL_HIDDEN, 0)
    if typ == T_DEAL:
        return code(T_DEAL, pay) if own else code(O_DEAL_HIDDEN, 0)
    if typ == T_FILE:
        if own:
            return code(T_FILE, pay)
        return code(O_FILE_BACK, (pay & ~31) | KIND_BACK[pay & 31])
    if typ == T_REVEAL:
        # Both see everything on the agent: the opponent's token and hidden faces are new.
        i = (1 - seat) * A + pay
        q = state[QK + i] - K_Q0 + 1 if state[QK + i] >= 0 else 0
        return code(T_REVEAL, pay | (state[LOY + i] << 3) | (state[Z7 + i] << 7) | (q << 11))
    if typ == T_DRAW:
        return code(T_DRAW, pay) if own else code(O_DRAW_HIDDEN, 0)
    return code(typ, pay)  # T_UP, T_COUNTER: public


@njit(cache=True)
def returns_p1(state, params):
    """P1's payoff: ``win`` +1/0/-1 (higher score; tie: fewer cards in the score pile), or
    ``margin`` (score difference)."""
    d = state[SCORE] - state[SCORE + 1]
    if params.payoff == 1:
        return float(d)
    if d == 0:
        d = state[SCARDS + 1] - state[SCARDS]
    if d > 0:
        return 1.0
    if d < 0:
        return -1.0
    return 0.0


@njit(cache=True)
def max_actions(params):
    """A bound on legal actions and chance outcomes."""
    plays = params.agents * min(params.hand, NKINDS) + 8
    return max(params.n_perms, params.deal_probs.shape[0], plays, NKINDS, 1)


@njit(cache=True)
def max_depth(params):
    """Two assignments, two deals, one play per card, one draw per card beyond the hand,
    at most one delivery and one counter move per agent."""
    d = params.deck_size
    return 4 + 2 * d + 2 * (d - params.hand) + 2 * params.agents


def legal_list(state, params) -> list[int]:
    """The legal actions (or chance outcomes) at ``state``, as Python ints."""
    buf = np.empty(int(max_actions(params)), dtype=np.int32)
    if current_player(state, params) == CHANCE:
        probs = np.empty(buf.shape[0])
        n = chance_outcomes(state, params, buf, probs)
    else:
        n = legal_actions(state, params, buf)
    return [int(a) for a in buf[:n]]


def step(state, params, action: int) -> np.ndarray:
    """The state after ``action`` (a new array)."""
    out = np.empty_like(state)
    apply_action(state, params, np.int32(action), out)
    return out


assert CHANCE not in (0, 1) and TERMINAL not in (0, 1)
protocol.register(
    ADDAParams, initial_state=initial_state, current_player=current_player,
    legal_actions=legal_actions, chance_outcomes=chance_outcomes, apply_action=apply_action,
    observation=observation, returns_p1=returns_p1, max_actions=max_actions,
    max_depth=max_depth, heuristic_policy=heuristic_policy,
)
