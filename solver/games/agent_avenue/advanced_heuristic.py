"""Agent Avenue, advanced mode: a simple heuristic player for head-to-head measurements
(registered with the rules in advanced.py)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from spycfr.games.agent_avenue.advanced_core import (
    BMP,
    CARD,
    CB,
    DD,
    DEVICE,
    DOUBLE,
    GETAWAY,
    LEADER,
    MASTERPLAN,
    MIND,
    OUTPOST,
    PH_BM_TAKE,
    PH_CHOOSE,
    POS,
    SECRET,
    SECURITY,
    SMOKE,
    SPYCATION,
    SUPERCOMPUTER,
    TRUCK,
    TWIN,
    WATCHTOWER,
    is_bm_space,
    owns,
    recruit_move,
)
from spycfr.games.agent_avenue.rules import (
    ACTIVE,
    BOLD,
    CAUTIOUS,
    HAND,
    MEAN,
    PH_RECRUIT,
    PHASE,
    PLAY,
    PLAY_SCORES,
    T_PLAY,
    UP,
    one_name,
    swap_choice_by,
    unseen_copies,
)

WIN_BONUS = 50.0  # a third Codebreaker; a third Daredevil costs as much (wins with Leader)
LAND_BONUS = 1.0  # landing on a black market space: a card to take
# The heuristic's fixed preference among the supply, best first: the ongoing cards that
# speed common agents up, a saved Daredevil loss, then instant moves and the other wins.
PREFERENCE = np.array([SUPERCOMPUTER, DEVICE, WATCHTOWER, LEADER, TWIN, SMOKE, OUTPOST, SECRET,
                       DOUBLE, MIND, TRUCK, GETAWAY, SECURITY, MASTERPLAN, SPYCATION])


@njit(cache=True)
def _gain(state, params, p, name, count):
    """What recruiting ``name`` as p's ``count``-th is worth to ``p``: the spaces it moves
    p forward (ongoing cards applied), a card if it lands on a black market space, and a
    win or a loss by Codebreakers or Daredevils."""
    m = recruit_move(state, params, p, name, count)
    g = float(m)
    if m != 0 and is_bm_space((state[POS + p] + m) % params.board):
        g += LAND_BONUS
    if name == CB and count >= 3:
        g += WIN_BONUS
    if name == DD and count >= 3:
        g += WIN_BONUS if owns(state, p, LEADER) else -WIN_BONUS
    return g


@njit(cache=True)
def _next_gain(state, params, p, name):
    return _gain(state, params, p, name, state[PLAY + 8 * p + name] + 1)


@njit(cache=True)
def _unseen_mean(state, params, viewer, who):
    """The mean gain to ``who`` of a card ``viewer`` cannot see (as rules.py's heuristic)."""
    total = 0.0
    weight = 0.0
    for i in range(params.n):
        k = unseen_copies(state, params, viewer, i)
        if k > 0:
            total += k * _next_gain(state, params, who, i)
            weight += k
    return total / weight if weight > 0 else 0.0


@njit(cache=True)
def _unseen_bound(state, params, viewer, who, style):
    """The lowest (``style`` CAUTIOUS) or highest (BOLD) gain to ``who`` over the names of
    the cards ``viewer`` cannot see (0 if none): rules.py's styled players' judgement of a
    hidden card."""
    bound = 0.0
    found = False
    for i in range(params.n):
        if unseen_copies(state, params, viewer, i) > 0:
            g = _next_gain(state, params, who, i)
            if not found or (g < bound if style == CAUTIOUS else g > bound):
                bound = g
                found = True
    return bound


@njit(cache=True)
def _unseen_styled(state, params, viewer, who, style):
    """A hidden card's gain to ``who`` as ``style`` judges it: the mean (MEAN, the
    heuristic's), the worst or the best name (CAUTIOUS, BOLD)."""
    if style == MEAN:
        return _unseen_mean(state, params, viewer, who)
    return _unseen_bound(state, params, viewer, who, style)


@njit(cache=True)
def _takes_up(state, params, up, o, a, viewer, style):
    """Recruiter ``o``'s choice for face-up ``up`` (True: it takes it), the hidden card
    judged by ``style`` among those ``viewer`` cannot see: what it gives ``a`` if o takes
    the face-up card by the style's opposite (a cautious recruiter expects the name best
    for ``a``), what it gives o by the style itself, as rules.py's ``_hidden_gains``."""
    other = style if style == MEAN else CAUTIOUS + BOLD - style
    keep = _next_gain(state, params, o, up) - _unseen_styled(state, params, viewer, a, other)
    swap = _unseen_styled(state, params, viewer, o, style) - _next_gain(state, params, a, up)
    return keep >= swap


@njit(cache=True)
def _choice_score(state, params, p, action):
    """The heuristic's score of an ability's target (module notes)."""
    c = state[CARD]
    i = action & 7
    if c == MIND:  # the opponent's card whose loss hurts it most (its third CB first)
        o = 1 - p
        n = state[PLAY + 8 * o + i]
        s = _gain(state, params, o, i, n + 1) - _gain(state, params, o, i, n)
        if i == CB and n >= 3:
            s += 20 * WIN_BONUS
        if i == DD and n >= 3:
            s += 20 * WIN_BONUS if owns(state, o, LEADER) else -20 * WIN_BONUS
        return s + 0.1 * _next_gain(state, params, p, i)
    if c == SPYCATION:
        n = state[PLAY + 8 * p + i]
        if (action >> 4) & 1:  # recruited again at once: the same column as before
            return _gain(state, params, p, i, n)
        risky = i == DD and n >= 2 and not owns(state, p, LEADER)
        return 0.5 + (WIN_BONUS / 10 if risky else 0.0)
    return _next_gain(state, params, p, i)  # Double Trouble, Secret Recruit


@njit(cache=True)
def _play_score(state, params, a, up, down, style):
    """What playing ``up`` face up and ``down`` face down is worth to ``a`` if the
    recruiter recruits as ``style`` does (the hidden card judged among those ``a`` cannot
    see): a's gain from its card less the recruiter's from the other."""
    o = 1 - a
    if _takes_up(state, params, up, o, a, a, style):
        return _next_gain(state, params, a, down) - _next_gain(state, params, o, up)
    return _next_gain(state, params, a, up) - _next_gain(state, params, o, down)


@njit(cache=True)
def _best_play_score(state, params, a):
    """The heuristic's best ``_play_score`` over the plays of ``a``'s hand (-1e300 if it
    has none; rules.py's pairs: two names, or two of the hand's only name)."""
    h = HAND + 8 * a
    only = one_name(state, params, a)
    best = -1e300
    for up in range(params.n):
        if state[h + up] == 0:
            continue
        for down in range(params.n):
            if state[h + down] == 0 or (down == up and (only < 0 or state[h + up] < 2)):
                continue
            best = max(best, _play_score(state, params, a, up, down, MEAN))
    return best


class AdvancedScores(NamedTuple):
    """rules.swap_choice_by's scores in advanced mode: ``_best_play_score``'s."""

    unused: int


PLAY_SCORES[AdvancedScores] = _best_play_score


@njit(cache=True)
def swap_choice(state, params, a, margin):
    """rules.swap_choice in advanced mode: the name whose discard and draw raise the
    heuristic's best play most on average, by at least ``margin`` spaces, or -1; the plays
    scored with this mode's gains (the ongoing cards, a landing on a black market space,
    Leader of the Pack's Daredevils). The search agent's ``needed_moves`` (leaf.py); the
    advanced heuristic itself never discards."""
    return swap_choice_by(AdvancedScores(0), state, params, a, margin)


@njit(cache=True)
def heuristic_policy(state, params, actions, k, probs):
    """rules.py's simple player (no discards; the best pair if the opponent recruits like
    it; recruit the better card on average), with the ongoing cards in its gains; it takes
    the first card of PREFERENCE in the supply and the best-scored ability target."""
    styled_policy(state, params, MEAN, actions, k, probs)


@njit(cache=True)
def styled_policy(state, params, style, actions, k, probs):
    """The heuristic (``style`` MEAN) or rules.py's styled players in advanced mode
    (CAUTIOUS, BOLD: the rollouts' continuations, rollout_advanced.py): they judge the
    face-down card of an offer by the name worst or best for the recruiter, in their own
    recruitments and in what they expect of the opponent's, as in simple mode; their takes
    and ability targets are the heuristic's."""
    for j in range(k):
        probs[j] = 0.0
    ph = state[PHASE]
    best = 0
    best_score = -1e300
    if ph == PH_RECRUIT:
        o = 1 - state[ACTIVE]
        probs[0 if _takes_up(state, params, state[UP], o, state[ACTIVE], o, style) else 1] = 1.0
        return
    if ph == PH_BM_TAKE:
        for j in range(k):
            rank = 0
            while PREFERENCE[rank] != (actions[j] & 31):
                rank += 1
            if -rank > best_score:
                best_score = -rank
                best = j
    elif ph == PH_CHOOSE:
        for j in range(k):
            score = _choice_score(state, params, state[BMP], actions[j])
            if score > best_score:
                best_score = score
                best = j
    else:
        a = state[ACTIVE]
        for j in range(k):
            act = actions[j]
            if (act >> 20) != T_PLAY:
                continue
            score = _play_score(state, params, a, (act >> 3) & 7, act & 7, style)
            if score > best_score:
                best_score = score
                best = j
    probs[best] = 1.0
