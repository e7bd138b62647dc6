"""Agent Avenue (simple mode) as numba rules of the game protocol (the only rules code).

``params`` is ``Variant.to_params()``, an :class:`AgentAvenueParams`; its type selects these
rules in the generic engines (:mod:`spycfr.engine.protocol`, registered at the end).
Names are local indices 0..n-1 of the variant's agents, in the spec's table order.

State layout (``np.int16[STATE_SIZE]``), 8 slots per name table:
HAND + 8p + i (cards of name i in player p's hand), PLAY + 8p + i (in play), DECK + i (in the
agent deck), DISC + 8p + i (discarded); GAP (clockwise distance from P1's meeple to P2's),
ACTIVE (player whose turn it is), PHASE, UP/DOWN (the pending face-up and face-down
names), DLEFT + p (discards left), TURN (turns completed), WINNER (-1 while playing),
DECKSIZE, HANDSIZE + p, ENDED (bits: how the game ended, see END_*), LASTTAKE.

A turn of the active player A against O: PH_PLAY (A swaps a card, then chance draws one,
back to PH_PLAY; or A plays up/down), PH_REFILL (chance: A draws back up, skipped when no
card can be drawn), PH_RECRUIT (O takes up or down), then the End step. The deal is two
chance nodes (P1's hand, P2's hand). Draws of several cards are one chance outcome: the
multiset drawn, code ``sum x_i * 5**i``, with the multivariate hypergeometric probability.

Action codes: swap ``T_SWAP << 20 | i``; play ``T_PLAY << 20 | up << 3 | down``; take
``T_TAKE << 20 | d`` (d = 0 up, 1 down). Observation codes: ``kind << 21 | payload``.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from numba import njit
from numba.extending import overload

from spycfr.engine import protocol
from spycfr.engine.rng import combine_key, root_key
from spycfr.tree import CHANCE, TERMINAL

MAX_NAMES = 8
HAND = 0
PLAY = 16
DECK = 32
DISC = 40
GAP = 56
ACTIVE = 57
PHASE = 58
UP = 59
DOWN = 60
DLEFT = 61
TURN = 63
WINNER = 64
DECKSIZE = 65
HANDSIZE = 66
ENDED = 68
LASTTAKE = 70  # 1 + the last recruitment's choice (0 before the first): for the public model
LASTDISC = 71  # the name a swap discarded, until its draw (else 0): for the public model
STATE_SIZE = 72

PH_DEAL0 = 0
PH_DEAL1 = 1
PH_PLAY = 2
PH_SWAP_DRAW = 3
PH_REFILL = 4
PH_RECRUIT = 5
PH_OVER = 6

T_SWAP = 1
T_PLAY = 2
T_TAKE = 3
TAKE_UP = 0
TAKE_DOWN = 1

# Bits of ENDED: which conditions fired in the End step that ended the game.
END_P1_CATCH = 1  # P1 reached or passed P2's meeple
END_P2_CATCH = 2
END_P1_CB = 4  # three Codebreakers in play: a win
END_P2_CB = 8
END_P1_DD = 16  # three Daredevils in play: a loss
END_P2_DD = 32
END_DECK_OUT = 64  # the deck is empty and the next player holds fewer than 2 cards
END_TIE = 128  # a tie, won by the active player

# Observation kinds.
O_DEAL = 1
O_DEAL_HIDDEN = 2
O_SWAP = 3
O_DRAW = 4
O_PLAY = 5
O_TAKE = 6
HIDDEN = 15
BASE = 5  # a draw is at most 4 cards of a name: counts are base-5 digits

# A seat's slots, as bases to which the seat is added (to the hand and the discards: 8 *
# seat): hand, hand size, discards, discards left. The helpers below take them as ``slots``
# so that the team rules, whose layout has more seats, share them.
SEAT_SLOTS = (HAND, HANDSIZE, DISC, DLEFT)


class AgentAvenueParams(NamedTuple):
    """The numba parameters record of a variant (see variant.py)."""

    n: np.int64  # names in the deck
    copies: np.ndarray  # int64[n]: cards of each name
    moves: np.ndarray  # int64[n, 3]: spaces moved with 1, 2, 3+ of the name in play
    cb: np.int64  # local index of the Codebreaker (-1: not in the deck)
    dd: np.int64  # local index of the Daredevil (-1: not in the deck)
    hand: np.int64
    discards: np.int64
    board: np.int64
    # 1: the public model (public.py) forgets which cards a player discarded (a search
    # agent's abstraction of a game whose exact numbering is too big); the rules ignore it
    forget: np.int64 = np.int64(0)


# --- helpers ---------------------------------------------------------------------------


@njit(cache=True)
def _comb(n, k):
    if k < 0 or k > n:
        return 0.0
    out = 1.0
    for j in range(k):
        out = out * (n - j) / (j + 1)
    return out


@njit(cache=True)
def draw_code(x, n):
    """The chance code of drawing the multiset ``x[:n]`` (counts per name)."""
    code = 0
    w = 1
    for i in range(n):
        code += x[i] * w
        w *= BASE
    return code


@njit(cache=True)
def draw_count(state, params, p, slots=SEAT_SLOTS):
    """Cards player ``p`` draws back up to the hand size (fewer if the deck runs short)."""
    need = params.hand - state[slots[1] + p]
    if need <= 0:
        return 0
    return min(need, state[DECKSIZE])


@njit(cache=True)
def deck_draws(state, params, d, codes, probs):
    """Every multiset of ``d`` cards the deck can give, with its probability; returns the
    count. Enumerated in decreasing lexicographic order of the count vector."""
    n = params.n
    x = np.zeros(MAX_NAMES, dtype=np.int64)
    rem = d
    for i in range(n):
        x[i] = min(state[DECK + i], rem)
        rem -= x[i]
    total = _comb(state[DECKSIZE], d)
    m = 0
    while True:
        p = 1.0
        for i in range(n):
            p *= _comb(state[DECK + i], x[i])
        codes[m] = draw_code(x, n)
        probs[m] = p / total
        m += 1
        # Next: the rightmost j < n-1 whose unit can move right, then refill from j+1.
        found = -1
        right_x = 0
        right_cap = 0
        for j in range(n - 1, -1, -1):
            if x[j] > 0 and right_cap >= right_x + 1:
                found = j
                break
            right_x += x[j]
            right_cap += state[DECK + j]
        if found < 0:
            return m
        x[found] -= 1
        r = right_x + 1
        for k in range(found + 1, n):
            x[k] = min(state[DECK + k], r)
            r -= x[k]


@njit(cache=True)
def add_draw(out, params, p, code, slots=SEAT_SLOTS):
    """Move the multiset of chance code ``code`` from the deck to player ``p``'s hand."""
    k = 0
    for i in range(params.n):
        c = code % BASE
        code //= BASE
        out[DECK + i] -= c
        out[slots[0] + 8 * p + i] += c
        k += c
    out[DECKSIZE] -= k
    out[slots[1] + p] += k


@njit(cache=True)
def one_name(state, params, p, slots=SEAT_SLOTS):
    """The only name in ``p``'s hand, or -1 if it holds two names or more (or nothing)."""
    only = -1
    for i in range(params.n):
        if state[slots[0] + 8 * p + i] > 0:
            if only >= 0:
                return -1
            only = i
    return only


@njit(cache=True, inline="always")
def each_name(state, params, p, typ, out, n, slots=SEAT_SLOTS):
    """Append to ``out[n:]`` the action ``typ << 20 | i`` for every name i in ``p``'s hand;
    returns the new count."""
    for i in range(params.n):
        if state[slots[0] + 8 * p + i] > 0:
            out[n] = (typ << 20) | i
            n += 1
    return n


@njit(cache=True, inline="always")
def pair_plays(state, params, p, out, n, slots=SEAT_SLOTS):
    """Append to ``out[n:]`` the pair plays of ``p``'s hand (up/down of different names, or
    of the hand's only name when it holds two); returns the new count."""
    h = slots[0] + 8 * p
    only = one_name(state, params, p, slots)
    if only >= 0:
        if state[h + only] >= 2:
            out[n] = (T_PLAY << 20) | (only << 3) | only
            n += 1
        return n
    for up in range(params.n):
        if state[h + up] == 0:
            continue
        for down in range(params.n):
            if down != up and state[h + down] > 0:
                out[n] = (T_PLAY << 20) | (up << 3) | down
                n += 1
    return n


@njit(cache=True, inline="always")
def take_card(out, p, i, slots=SEAT_SLOTS):
    """Take a card of name ``i`` out of ``p``'s hand."""
    out[slots[0] + 8 * p + i] -= 1
    out[slots[1] + p] -= 1


@njit(cache=True, inline="always")
def discard(out, p, i, slots=SEAT_SLOTS):
    """``p`` discards a card of name ``i`` (a swap, before its draw), using a discard."""
    take_card(out, p, i, slots)
    out[slots[2] + 8 * p + i] += 1
    out[slots[3] + p] -= 1


@njit(cache=True, inline="always")
def play_pair(out, p, action, slots=SEAT_SLOTS):
    """``p`` plays the pair of ``action`` (up and down) from its hand onto the table."""
    up = (action >> 3) & 7
    down = action & 7
    take_card(out, p, up, slots)
    take_card(out, p, down, slots)
    out[UP] = up
    out[DOWN] = down


@njit(cache=True)
def new_state(params, size):
    """A state of ``size`` slots before the deal: every card in the deck, the meeples half
    the board apart, no card on the table, no winner."""
    s = np.zeros(size, dtype=np.int16)
    total = 0
    for i in range(params.n):
        s[DECK + i] = params.copies[i]
        total += params.copies[i]
    s[DECKSIZE] = total
    s[GAP] = params.board // 2
    s[UP] = -1
    s[DOWN] = -1
    s[WINNER] = -1
    return s


# --- the contract ----------------------------------------------------------------------


@njit(cache=True)
def initial_state(params):
    """Before the deal: every card in the deck, the meeples half the board apart."""
    s = new_state(params, STATE_SIZE)
    s[ACTIVE] = 0
    s[PHASE] = PH_DEAL0
    s[DLEFT] = params.discards
    s[DLEFT + 1] = params.discards
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
    return CHANCE


@njit(cache=True)
def legal_actions(state, params, out):
    """Swaps (one per name in hand, while discards and the deck last), then plays (ordered
    pairs up/down of different names, or of the hand's only name); or take up/down."""
    ph = state[PHASE]
    n = 0
    if ph == PH_RECRUIT:
        out[0] = (T_TAKE << 20) | TAKE_UP
        out[1] = (T_TAKE << 20) | TAKE_DOWN
        return 2
    if ph != PH_PLAY:
        return 0
    a = state[ACTIVE]
    if state[DLEFT + a] > 0 and state[DECKSIZE] > 0:
        n = each_name(state, params, a, T_SWAP, out, n)
    return pair_plays(state, params, a, out, n)


@njit(cache=True)
def chance_outcomes(state, params, codes, probs):
    ph = state[PHASE]
    if ph == PH_DEAL0 or ph == PH_DEAL1:
        return deck_draws(state, params, params.hand, codes, probs)
    if ph == PH_SWAP_DRAW:
        return deck_draws(state, params, 1, codes, probs)
    if ph == PH_REFILL:
        return deck_draws(state, params, draw_count(state, params, state[ACTIVE]), codes, probs)
    return 0


@njit(cache=True)
def _after_play_draws(out, params):
    """Go to the refill draw, or straight to the recruit when no card can be drawn."""
    if draw_count(out, params, out[ACTIVE]) > 0:
        out[PHASE] = PH_REFILL
    else:
        out[PHASE] = PH_RECRUIT


@njit(cache=True)
def apply_action(state, params, action, out):
    """Write the state after ``action`` (a legal action or chance outcome) into ``out``."""
    out[:] = state
    ph = state[PHASE]
    a = state[ACTIVE]
    if ph == PH_DEAL0 or ph == PH_DEAL1:
        add_draw(out, params, ph - PH_DEAL0, action)
        out[PHASE] = PH_DEAL1 if ph == PH_DEAL0 else PH_PLAY
        return
    if ph == PH_SWAP_DRAW:
        add_draw(out, params, a, action)
        out[PHASE] = PH_PLAY
        out[LASTDISC] = 0
        return
    if ph == PH_REFILL:
        add_draw(out, params, a, action)
        out[PHASE] = PH_RECRUIT
        return
    typ = action >> 20
    if typ == T_SWAP:
        discard(out, a, action & 7)
        out[PHASE] = PH_SWAP_DRAW
        # Recorded so that the public model that forgets discards knows, until the swap's
        # draw, which name left the hand (forget.py: the draw settles its weight).
        out[LASTDISC] = action & 7
        return
    if typ == T_PLAY:
        play_pair(out, a, action)
        _after_play_draws(out, params)
        return
    recruit(out, params, action & 1)
    # Recorded so that the public-state model (public.py) tells take up from take down
    # when both cards have one name (the rest of the state is then the same).
    out[LASTTAKE] = 1 + (action & 1)
    end_step(out, params)


@njit(cache=True)
def _move(out, params, p, name):
    """Recruit ``name`` for ``p`` and move p's meeple by the name's column for its count."""
    out[PLAY + 8 * p + name] += 1
    col = min(out[PLAY + 8 * p + name], 3) - 1
    m = params.moves[name, col]
    if p == 0:
        out[GAP] -= m
    else:
        out[GAP] += m


@njit(cache=True)
def recruit(out, params, take):
    """O recruits the card it took, A the other; both move (the End step follows)."""
    a = out[ACTIVE]
    o = 1 - a
    taken = out[UP] if take == TAKE_UP else out[DOWN]
    left = out[DOWN] if take == TAKE_UP else out[UP]
    _move(out, params, o, taken)
    _move(out, params, a, left)
    out[UP] = -1
    out[DOWN] = -1


@njit(cache=True)
def end_step(out, params):
    """Check every condition for both players; ties go to the active player (spec)."""
    if end_conditions(out, params):
        return
    o = 1 - out[ACTIVE]
    if out[DECKSIZE] == 0 and out[HANDSIZE + o] < 2:
        deck_out(out, params)
        return
    out[TURN] += 1
    out[ACTIVE] = o
    out[PHASE] = PH_PLAY


@njit(cache=True)
def deck_out(out, params):
    """End by the deck-out: the side closer to catching the other wins, a tie the active."""
    g = out[GAP]
    half = params.board // 2
    if g < half:
        end_game(out, 0, END_DECK_OUT)
    elif g > half:
        end_game(out, 1, END_DECK_OUT)
    else:
        end_game(out, out[ACTIVE], END_DECK_OUT | END_TIE)


@njit(cache=True)
def end_conditions(out, params):
    """The End step's win and lose conditions (catch, Codebreakers, Daredevils) of both
    sides, ties to the active side; ends the game and returns True if one fired."""
    a = out[ACTIVE]
    g = out[GAP]
    fired = 0
    if g <= 0:
        fired |= END_P1_CATCH
    if g >= params.board:
        fired |= END_P2_CATCH
    if params.cb >= 0:
        if out[PLAY + params.cb] >= 3:
            fired |= END_P1_CB
        if out[PLAY + 8 + params.cb] >= 3:
            fired |= END_P2_CB
    if params.dd >= 0:
        if out[PLAY + params.dd] >= 3:
            fired |= END_P1_DD
        if out[PLAY + 8 + params.dd] >= 3:
            fired |= END_P2_DD
    if fired:
        # A player wins by a win condition of its own or a lose condition of the other.
        p1 = (fired & (END_P1_CATCH | END_P1_CB | END_P2_DD)) != 0
        p2 = (fired & (END_P2_CATCH | END_P2_CB | END_P1_DD)) != 0
        if p1 and p2:
            end_game(out, a, fired | END_TIE)
        else:
            end_game(out, 0 if p1 else 1, fired)
        return True
    return False


@njit(cache=True)
def end_game(out, winner, fired):
    """The game ends this turn: ``winner`` wins, by the END_* conditions ``fired``."""
    out[TURN] += 1
    out[WINNER] = winner
    out[ENDED] = fired
    out[PHASE] = PH_OVER


@njit(cache=True)
def observation(state, params, action, seat):
    """What ``seat`` observes when ``action`` is applied (module docstring: the codes)."""
    ph = state[PHASE]
    a = state[ACTIVE]
    if ph == PH_DEAL0 or ph == PH_DEAL1:
        return draw_observation(params, action, True, seat == ph - PH_DEAL0)
    if ph == PH_SWAP_DRAW or ph == PH_REFILL:
        return draw_observation(params, action, False, seat == a)
    return move_observation(state, action, seat == a)


@njit(cache=True, inline="always")
def draw_observation(params, action, deal, sees):
    """A deal or a draw (chance code ``action``) as observed by a seat that ``sees`` the
    cards or not: the cards, or else nothing of a deal and the number of cards drawn."""
    if deal:
        return ((O_DEAL << 21) | action) if sees else O_DEAL_HIDDEN << 21
    if sees:
        return (O_DRAW << 21) | action
    k = 0
    code = action
    for _ in range(params.n):
        k += code % BASE
        code //= BASE
    return (O_DRAW << 21) | (1 << 20) | k


@njit(cache=True, inline="always")
def move_observation(state, action, sees):
    """A swap, a pair play or a take as observed by a seat that ``sees`` the mover's cards
    (the discarded card, the face-down card) or not."""
    typ = action >> 20
    if typ == T_SWAP:
        return (O_SWAP << 21) | ((action & 7) if sees else HIDDEN)
    if typ == T_PLAY:
        up = (action >> 3) & 7
        down = action & 7
        return (O_PLAY << 21) | (up << 4) | (down if sees else HIDDEN)
    # The recruitment turns the face-down card face up: both see it.
    return (O_TAKE << 21) | ((action & 1) << 4) | state[DOWN]


@njit(cache=True)
def returns_p1(state, params):
    return 1.0 if state[WINNER] == 0 else -1.0


@njit(cache=True)
def max_actions(params):
    # Swaps and plays: at most n + n(n-1); a draw of `hand` cards: multisets of that size.
    n = params.n
    return max(n + n * (n - 1), int(_comb(n + params.hand - 1, params.hand) + 0.5), 2)


@njit(cache=True)
def max_depth(params):
    # Each turn puts 2 cards in play: at most total/2 turns of play, refill and recruit,
    # plus the deal and each discard with its draw.
    total = 0
    for i in range(params.n):
        total += params.copies[i]
    return 2 + 3 * (total // 2 + 1) + 4 * params.discards


# --- a heuristic player (head-to-head measurements) ---------------------------------------

WIN_BONUS = 50.0  # a third Codebreaker; a third Daredevil costs as much


@njit(cache=True)
def _gain(state, params, p, name):
    """What recruiting ``name`` now is worth to ``p``: the spaces it moves p's meeple
    forward, plus a win or a loss it brings by Codebreakers or Daredevils."""
    count = state[PLAY + 8 * p + name] + 1
    g = float(params.moves[name, min(count, 3) - 1])
    if name == params.cb and count >= 3:
        g += WIN_BONUS
    if name == params.dd and count >= 3:
        g -= WIN_BONUS
    return g


# Heuristic styles (the rollouts' continuation players, rollout.py): the heuristic judges
# the face-down card of an offer by the mean gain of the cards it may be; the cautious and
# bold players judge it by the name worst or best for the recruiter, in their own
# recruitments and in what they expect of the opponent's. The swapper is the heuristic who
# also discards (simple mode's rollouts only; advanced_heuristic.swap_choice is the same
# rule, swap_choice_by, with advanced mode's gains, for its agent's needed_moves): before a
# play, while it
# has discards left and the deck is not empty, it discards the card whose draw raises its
# best play's score most on average, where that rise is at least SWAP_MARGIN spaces.
MEAN, CAUTIOUS, BOLD, SWAPPER = 0, 1, 2, 3
SWAP_MARGIN = 1.0


@njit(cache=True)
def unseen_copies(state, params, viewer, i):
    """The copies of card ``i`` that ``viewer`` cannot see: all but those in its hand and
    discards, in play, and a face-up card on the table (the advanced heuristic's too)."""
    k = (params.copies[i] - state[HAND + 8 * viewer + i] - state[DISC + 8 * viewer + i]
         - state[PLAY + i] - state[PLAY + 8 + i])
    return k - 1 if i == state[UP] else k


@njit(cache=True)
def _hidden_gain(state, params, viewer, who, style):
    """The gain to ``who`` of a card ``viewer`` cannot see (``unseen_copies``): the mean
    over those cards, or (``style`` CAUTIOUS / BOLD) the lowest / highest over their names
    (0 if none)."""
    total = 0.0
    weight = 0.0
    bound = 0.0
    for i in range(params.n):
        k = unseen_copies(state, params, viewer, i)
        if k > 0:
            g = _gain(state, params, who, i)
            if weight == 0.0 or (g < bound if style == CAUTIOUS else g > bound):
                bound = g
            total += k * g
            weight += k
    if weight == 0.0:
        return 0.0
    return total / weight if style == MEAN else bound


@njit(cache=True)
def _hidden_gains(state, params, o, a, viewer, style):
    """What recruiter ``o`` reckons the hidden card gives (to ``a`` if o takes the face-up
    card, to o if it takes the hidden one), judged (``style``) among the cards ``viewer``
    cannot see: by its mean, or as the name worst (CAUTIOUS) or best (BOLD) for ``o`` in
    each choice."""
    other = style if style == MEAN else CAUTIOUS + BOLD - style  # the opponent's side of it
    return (_hidden_gain(state, params, viewer, a, other),
            _hidden_gain(state, params, viewer, o, style))


@njit(cache=True)
def _takes_up(state, params, up, o, a, hidden_a, hidden_o):
    """Recruiter ``o``'s choice for face-up ``up``, the hidden card reckoned as
    ``_hidden_gains`` says."""
    return (_gain(state, params, o, up) - hidden_a
            >= hidden_o - _gain(state, params, a, up))


@njit(cache=True)
def _pair_score(state, params, a, o, up, down, hid_a, hid_o):
    """What playing ``up`` face up and ``down`` face down is worth to ``a`` if recruiter
    ``o`` recruits like the heuristic (the hidden card reckoned as ``_hidden_gains``
    says): a's gain from its card less o's from the other."""
    if _takes_up(state, params, up, o, a, hid_a, hid_o):
        return _gain(state, params, a, down) - _gain(state, params, o, up)
    return _gain(state, params, a, up) - _gain(state, params, o, down)


@njit(cache=True)
def _best_play_score(state, params, a):
    """The best ``_pair_score`` over the plays of ``a``'s hand in ``state`` (-1e300 if it
    has none), the hidden card reckoned by its mean among the cards ``a`` cannot see."""
    o = 1 - a
    hid_a, hid_o = _hidden_gains(state, params, o, a, a, MEAN)
    h = HAND + 8 * a
    only = one_name(state, params, a)
    best = -1e300
    for up in range(params.n):
        if state[h + up] == 0:
            continue
        for down in range(params.n):
            if state[h + down] == 0 or (down == up and (only < 0 or state[h + up] < 2)):
                continue
            best = max(best, _pair_score(state, params, a, o, up, down, hid_a, hid_o))
    return best


# The play scores swap_choice_by reckons with, by the class of its ``scores`` argument
# (numba picks the scorer when it compiles, as the engine protocol picks a game's rules: a
# scorer passed as a function would miss numba's on-disk cache): simple mode's here,
# advanced mode's registered by advanced_heuristic.
PLAY_SCORES: dict[type, Any] = {}


def best_play_score(scores, state, params, a):
    """The best score of ``a``'s plays in ``state`` by the scorer of ``scores``' class."""
    raise NotImplementedError("best_play_score runs inside numba code only")


@overload(best_play_score)
def _best_play_score_by(scores, state, params, a):
    f = PLAY_SCORES.get(getattr(scores, "instance_class", None))
    if f is not None:
        return lambda scores, state, params, a: f(state, params, a)


class SimpleScores(NamedTuple):
    """swap_choice_by's scores: simple mode's (``_best_play_score``), on any state."""

    unused: int


PLAY_SCORES[SimpleScores] = _best_play_score


@njit(cache=True)
def swap_choice(state, params, a, margin):
    """The name the swapper (``a`` about to play) discards, or -1 (``swap_choice_by``
    with simple mode's play scores)."""
    return swap_choice_by(SimpleScores(0), state, params, a, margin)


@njit(cache=True)
def swap_choice_by(scores, state, params, a, margin):
    """The name the swapper (``a`` about to play) discards, or -1: the card whose discard
    and replacement, a name drawn in proportion to the copies ``a`` cannot see, raises its
    best play's score (by ``scores``' class: PLAY_SCORES) most on average, where that rise
    is at least ``margin`` (spaces; SWAP_MARGIN); -1 without a discard left or a card in
    the deck. ``state`` is changed while it reckons and left as it was."""
    if state[DLEFT + a] <= 0 or state[DECKSIZE] <= 0:
        return -1
    h = HAND + 8 * a
    unseen = np.zeros(MAX_NAMES)
    for d in range(params.n):
        unseen[d] = max(unseen_copies(state, params, a, d), 0)
    total = unseen[:params.n].sum()
    if total == 0.0:
        return -1
    now = best_play_score(scores, state, params, a)
    best = -1
    best_rise = margin
    for c in range(params.n):
        if state[h + c] == 0:
            continue
        state[h + c] -= 1  # c discarded (put back below), each draw in its place
        state[DISC + 8 * a + c] += 1
        mean = 0.0
        for d in range(params.n):
            if unseen[d] > 0:
                state[h + d] += 1
                mean += unseen[d] * best_play_score(scores, state, params, a)
                state[h + d] -= 1
        state[h + c] += 1
        state[DISC + 8 * a + c] -= 1
        rise = mean / total - now
        if rise >= margin and (best < 0 or rise > best_rise):  # the first of equals
            best_rise = rise
            best = c
    return best


@njit(cache=True)
def styled_policy(state, params, style, actions, k, probs):
    """A simple player: it plays the pair (up, down) that is best for it if the opponent
    recruits like itself, and recruits the card whose gain for it, against what the other
    card gives the opponent, is best, the hidden card judged by ``style`` (MEAN: the
    heuristic; CAUTIOUS, BOLD); it never discards but as the SWAPPER (the heuristic who
    discards by ``swap_choice``)."""
    for j in range(k):
        probs[j] = 0.0
    a = state[ACTIVE]
    o = 1 - a
    judge = MEAN if style == SWAPPER else style
    if state[PHASE] == PH_RECRUIT:
        hid_a, hid_o = _hidden_gains(state, params, o, a, o, judge)
        probs[0 if _takes_up(state, params, state[UP], o, a, hid_a, hid_o) else 1] = 1.0
        return
    # what the recruiter is reckoned to make of the hidden card, the same for every offer
    hid_a, hid_o = _hidden_gains(state, params, o, a, a, judge)
    if style == SWAPPER:
        c = swap_choice(state, params, a, SWAP_MARGIN)
        if c >= 0:
            for j in range(k):
                if actions[j] == (T_SWAP << 20) | c:
                    probs[j] = 1.0
                    return
    best = -1
    best_score = -1e300
    for j in range(k):
        act = actions[j]
        if (act >> 20) != T_PLAY:
            continue
        score = _pair_score(state, params, a, o, (act >> 3) & 7, act & 7, hid_a, hid_o)
        if score > best_score:
            best_score = score
            best = j
    probs[best] = 1.0


@njit(cache=True)
def heuristic_policy(state, params, actions, k, probs):
    """The heuristic player (head-to-head measurements): ``styled_policy`` judging the
    hidden card by its mean (module notes)."""
    styled_policy(state, params, MEAN, actions, k, probs)


# --- the information abstraction (Monte-Carlo CFR on the full game) ---------------------


@njit(cache=True)
def abstraction_key(state, params, seat):
    """What ``seat`` knows that matters, history order forgotten: its hand and discards,
    every card in play, the gap, the hand and deck sizes, the discards left, whose turn and
    step it is and the face-up card on the table (all but the hand and discards public)."""
    h = root_key(seat)
    for i in range(params.n):
        h = combine_key(h, state[HAND + 8 * seat + i])
        h = combine_key(h, state[DISC + 8 * seat + i])
        h = combine_key(h, state[PLAY + i])
        h = combine_key(h, state[PLAY + 8 + i])
    for f in (GAP, DECKSIZE, HANDSIZE, HANDSIZE + 1, DLEFT, DLEFT + 1, ACTIVE, PHASE, UP):
        h = combine_key(h, state[f] + 64)  # the offset keeps -1 (no card) a small positive
    return h


protocol.register(
    AgentAvenueParams, initial_state=initial_state, current_player=current_player,
    legal_actions=legal_actions, chance_outcomes=chance_outcomes, apply_action=apply_action,
    observation=observation, returns_p1=returns_p1, max_actions=max_actions,
    max_depth=max_depth, heuristic_policy=heuristic_policy, abstraction_key=abstraction_key,
)
