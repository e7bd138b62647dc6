"""Agent Double Double Agent game records: the notation, formatting, views and the replay of
full records (a seat's view is replayed by :mod:`.view`, which builds on this module).

A record is tokens separated by spaces, one per step of the game (one tree edge):
``loyal:3-1-2-2-5-4`` (tokens under agents 1..n), ``deal:1,1,5,P,?=3`` (a first hand),
``file:0/7=7>3`` (a card face down on agent 3), ``up:?=2`` (a ? card face up),
``deliver:3:4-3:5,0/7=7|?=2,3>P1`` (agent 3 delivers: P1's and P2's tokens, the cards on
P1's and P2's sides, who takes them), ``counter:3`` (activate agent 3's counter towards the
mover), ``draw:6`` (a refill). A player's view writes what it cannot see as ``?``:
``loyal:?``, ``deal:?``, ``draw:?``, and an opponent's face-down card by its back
(``file:0/7=?>3``, ``file:?=?>3``; simple files show their value on the back). Legality is
decided by the numba rules only; the Python here parses, formats and words the errors.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Any

import numpy as np

from spycfr.errors import RecordError
from spycfr.games.agent_double_double_agent import layout as L
from spycfr.games.agent_double_double_agent import rules as R
from spycfr.games.agent_double_double_agent.variant import Variant

PLAYER_NAMES = ("P1", "P2")
HIDDEN_ZS = -L.BACK_ZS  # an opponent's face-down card whose face is not known (yet)
HIDDEN_Q = -L.BACK_Q

_CARD = r"(?:[0-7P]|0/7=[07?]|\?=[0-7?])"
_CARDS = rf"(?:{_CARD}(?:,{_CARD})*)?"
_RE = {
    "loyal": re.compile(r"loyal:(\?|\d(?:-\d)*)"),
    "deal": re.compile(rf"deal:(\?|{_CARD}(?:,{_CARD})*)"),
    "file": re.compile(rf"file:({_CARD})>(\d+)"),
    "up": re.compile(rf"up:({_CARD})"),
    "deliver": re.compile(rf"deliver:(\d+):(\d)-(\d):({_CARDS})\|({_CARDS})>(P[12])"),
    "counter": re.compile(r"counter:(\d+)"),
    "draw": re.compile(rf"draw:(\?|{_CARD})"),
}
_SHAPES = ("loyal:T-T-.., deal:C,C,.., file:C>A, up:C, deliver:A:T1-T2:C,..|C,..>P1, "
           "counter:A, draw:C")
PHASE_KINDS = {L.PH_LOYAL: ("loyal",), L.PH_DEAL: ("deal",), L.PH_PLAY: ("file", "up"),
               L.PH_REVEAL: ("deliver",), L.PH_COUNTER: ("counter",), L.PH_DRAW: ("draw",)}
CARD_INDEX = {label: k for k, label in enumerate(L.KIND_LABELS)}


# --- formatting ----------------------------------------------------------------------------


def card_label(k: int) -> str:
    """A card's face (``5``, ``P``, ``0/7=7``, ``?=2``), or its back for a hidden marker."""
    if k == HIDDEN_ZS:
        return "0/7=?"
    if k == HIDDEN_Q:
        return "?=?"
    return L.KIND_LABELS[k]


def seen_kind(k: int) -> int:
    """What the opponent sees of kind k: the kind itself when its back tells it (simple
    files, Personal Files), else the hidden marker of its back."""
    back = int(L.KIND_BACK[k])
    return HIDDEN_ZS if back == L.BACK_ZS else HIDDEN_Q if back == L.BACK_Q else k


def cards_text(kinds) -> str:
    """Cards in kind order (hidden markers last), comma-separated."""
    return ",".join(card_label(k) for k in sorted(kinds, key=lambda k: (k < 0, abs(k))))


def deliver_token(a: int, l0: int, l1: int, side0, side1, w: int) -> str:
    return (f"deliver:{a + 1}:{l0}-{l1}:{cards_text(side0)}|{cards_text(side1)}>"
            f"{PLAYER_NAMES[w]}")


def digits(payload: int, n: int) -> list[int]:
    return [(payload // 10**a) % 10 for a in range(n)]


def empty_board() -> tuple:
    """Cards on each (player, agent) side: index p * MAX_AGENTS + a."""
    return ((),) * (2 * L.MAX_AGENTS)


def edge_token(variant: Variant, state: np.ndarray, action: int, seat: int, board) -> str:
    """``seat``'s record token for ``action`` at ``state`` (``board``: the true cards)."""
    typ, pay = int(action) >> L.SHIFT, int(action) & L.PAYLOAD
    own = seat == int(state[L.MOVER])
    if typ == L.T_LOYAL:
        return "loyal:" + "-".join(map(str, digits(pay, variant.agents))) if own else "loyal:?"
    if typ == L.T_DEAL:
        row = variant.deal_sets[0][pay]
        return "deal:" + cards_text([k for k in range(L.NKINDS) for _ in range(row[k])]) \
            if own else "deal:?"
    if typ == L.T_FILE:
        a, k = pay >> 5, pay & 31
        return f"file:{card_label(k if own else seen_kind(k))}>{a + 1}"
    if typ == L.T_UP:
        return f"up:{card_label(pay)}"
    if typ == L.T_REVEAL:
        w = int(state[L.STAT + pay]) - L.ST_P1
        return deliver_token(pay, int(state[L.LOY + pay]), int(state[L.LOY + L.A + pay]),
                             board[pay], board[L.A + pay], w)
    if typ == L.T_COUNTER:
        return f"counter:{pay + 1}"
    return f"draw:{card_label(pay)}" if own else "draw:?"


def board_after(board: tuple, state: np.ndarray, action: int, seen_by: int | None) -> tuple:
    """The cards on the sides after ``action``: the true kinds (``seen_by`` None) or what
    seat ``seen_by`` knows (hidden markers for the opponent's ?, 0/7 cards)."""
    if int(action) >> L.SHIFT != L.T_FILE:
        return board
    pay = int(action) & L.PAYLOAD
    a, k = pay >> 5, pay & 31
    p = int(state[L.MOVER])
    if seen_by is not None and seen_by != p:
        k = seen_kind(k)
    i = p * L.A + a
    return board[:i] + (board[i] + (k,),) + board[i + 1:]


def play_actions(variant: Variant, actions, viewer: int | None) -> list[str]:
    """The tokens of an action path, as the full record (viewer None) or a seat's view."""
    params = variant.params
    s = R.initial_state(params)
    board = empty_board()
    tokens = []
    for a in actions:
        seat = int(s[L.MOVER]) if viewer is None else viewer
        tokens.append(edge_token(variant, s, a, seat, board))
        board = board_after(board, s, a, None)
        s = R.step(s, params, a)
    return tokens


def format_record(variant: Variant, actions) -> str:
    """The full record of a list of (legal) action and chance-outcome codes."""
    return " ".join(play_actions(variant, actions, None))


def view_of(variant: Variant, record, seat: int) -> str:
    """``seat``'s view of a full record (text or codes)."""
    actions = record_to_actions(variant, record) if isinstance(record, str) else record
    return " ".join(play_actions(variant, actions, seat))


# --- parsing -------------------------------------------------------------------------------


@dataclass
class Token:
    kind: str
    data: Any  # per kind: digits | kinds | (kind, agent) | kind | delivery tuple | agent
    hidden: bool  # written with `?` where a card or token is not shown


@dataclass
class Replay:
    """The outcome of replaying a record (full, or one seat's view)."""

    variant: Variant
    tokens: list[str]  # canonical tokens
    actions: list[int] | None  # tree codes (full records)
    state: np.ndarray  # the final state (a view: one state consistent with it)
    viewer: int | None
    candidates: np.ndarray | None  # a view: every state consistent with it
    board: tuple  # cards on each side, as the viewer knows them

    @property
    def record(self) -> str:
        return " ".join(self.tokens)


def _err(n: int, token: str, reason: str) -> RecordError:
    return RecordError(f"token {n} `{token}`: {reason}")


def _kinds(texts) -> list[int]:
    out = []
    for t in texts:
        out.append(HIDDEN_ZS if t == "0/7=?" else HIDDEN_Q if t == "?=?" else CARD_INDEX[t])
    return out


def parse_token(variant: Variant, n: int, token: str) -> Token:
    """The syntax of one token (its legality is the replay's)."""
    kind = token.split(":", 1)[0]
    m = _RE[kind].fullmatch(token) if kind in _RE else None
    if m is None:
        raise _err(n, token, f"not a token (expected {_SHAPES})")
    agents = variant.agents

    def agent(text: str) -> int:
        a = int(text)
        if not 1 <= a <= agents:
            raise _err(n, token, f"agent {a} does not exist (agents 1..{agents})")
        return a - 1

    def cards(texts) -> list[int]:
        kinds = _kinds(texts)
        for k in kinds:
            if k >= 0 and not variant.deck_counts[k]:
                raise _err(n, token, f"there is no `{card_label(k)}` in the deck ({variant.deck})")
        return kinds

    g = m.groups()
    if kind == "loyal":
        if g[0] == "?":
            return Token(kind, None, True)
        tokens = [int(d) for d in g[0].split("-")]
        if len(tokens) != agents:
            raise _err(n, token, f"a loyalty assignment names {agents} tokens, one per agent")
        if sorted(tokens) != sorted(variant.tokens):
            raise _err(n, token, f"the tokens are {variant.loyalty}, each used once")
        return Token(kind, tokens, False)
    if kind == "deal":
        if g[0] == "?":
            return Token(kind, None, True)
        kinds = cards(g[0].split(","))
        if min(kinds) < 0:
            raise _err(n, token, "a hand shows its cards (write `deal:?` for a hidden hand)")
        if len(kinds) != variant.hand:
            raise _err(n, token, f"a first hand has {variant.hand} card"
                       + ("s" if variant.hand != 1 else ""))
        for k, c in Counter(kinds).items():
            if c > variant.deck_counts[k]:
                raise _err(n, token, f"the deck holds {variant.deck_counts[k]} `{card_label(k)}`")
        return Token(kind, kinds, False)
    if kind == "file":
        k = cards([g[0]])[0]
        return Token(kind, (k, agent(g[1])), k < 0)
    if kind == "up":
        k = cards([g[0]])[0]
        if k < 0:
            raise _err(n, token, "a card played face up shows its face")
        return Token(kind, k, False)
    if kind == "deliver":
        sides = [cards(t.split(",")) if t else [] for t in (g[3], g[4])]
        if any(k < 0 for side in sides for k in side):
            raise _err(n, token, "a delivery reveals every card: write their faces")
        return Token(kind, (agent(g[0]), int(g[1]), int(g[2]), sides[0], sides[1],
                            PLAYER_NAMES.index(g[5])), False)
    if kind == "counter":
        return Token(kind, agent(g[0]), False)
    if g[0] == "?":
        return Token(kind, None, True)
    return Token(kind, cards([g[0]])[0], False)


def action_of(variant: Variant, tok: Token) -> int:
    """The tree code of a fully written token."""
    d = tok.data
    if tok.kind == "loyal":
        return int(L.code(L.T_LOYAL, sum(t * 10**a for a, t in enumerate(d))))
    if tok.kind == "deal":
        row = tuple(Counter(d).get(k, 0) for k in range(L.NKINDS))
        return int(L.code(L.T_DEAL, variant.deal_index[row]))
    if tok.kind == "file":
        return int(L.code(L.T_FILE, (d[1] << 5) | d[0]))
    if tok.kind == "up":
        return int(L.code(L.T_UP, d))
    if tok.kind == "deliver":
        return int(L.code(L.T_REVEAL, d[0]))
    if tok.kind == "counter":
        return int(L.code(L.T_COUNTER, d))
    return int(L.code(L.T_DRAW, d))


def expected_text(variant: Variant, s: np.ndarray, board) -> str:
    """What the record must say next at ``s`` (for errors)."""
    ph, p = int(s[L.PHASE]), int(s[L.MOVER])
    who = PLAYER_NAMES[p]
    if ph == L.PH_LOYAL:
        return f"{who}'s loyalty assignment (`loyal:T-T-..`, tokens {variant.loyalty})"
    if ph == L.PH_DEAL:
        return f"{who}'s first hand (`deal:C,C,..`, {variant.hand} cards)"
    if ph == L.PH_PLAY:
        return f"{who}'s play (`file:C>A` or `up:C`)"
    if ph == L.PH_REVEAL:
        a = (int(s[L.PENDING]) & -int(s[L.PENDING])).bit_length() - 1
        if board is None:
            return f"the delivery of agent {a + 1} (`deliver:{a + 1}:..`)"
        want = edge_token(variant, s, L.code(L.T_REVEAL, a), 0, board)
        return f"the delivery of agent {a + 1}: `{want}`"
    if ph == L.PH_COUNTER:
        agents = [str(a + 1) for a in range(variant.agents)
                  if L.counter_movable(s, variant.params, p, a)]
        return f"{who}'s counter move (`counter:A`, A one of {', '.join(agents)})"
    return f"{who}'s draw (`draw:C`)"


def explain_illegal(variant: Variant, s: np.ndarray, tok: Token) -> str:
    """Why a well-formed move of the mover is not legal at ``s`` (words only)."""
    p = int(s[L.MOVER])
    who = PLAYER_NAMES[p]
    params = variant.params

    def in_hand(k):
        return int(s[L.HAND + p * L.NKINDS + k]) > 0

    if tok.kind == "file":
        k, a = tok.data
        if int(s[L.STAT + a]) != L.ST_PLAY:
            return f"agent {a + 1} has already delivered"
        if not in_hand(k):
            return f"{who} has no `{card_label(k)}` in hand"
        if L.KIND_BACK[k] == L.BACK_Q and L.has_question(s, a):
            return f"agent {a + 1} already holds a ? card (one per agent, both sides together)"
    elif tok.kind == "up":
        k = tok.data
        if L.KIND_BACK[k] != L.BACK_Q:
            return "only a ? card can be played face up"
        if not in_hand(k):
            return f"{who} has no `{card_label(k)}` in hand"
        return ("with faceup=stuck a ? card goes face up only when no card can go face down")
    elif tok.kind == "counter":
        a = tok.data
        if int(s[L.STAT + a]) != L.ST_PLAY:
            return f"agent {a + 1} has already delivered"
        if int(s[L.ACT + a]):
            return f"agent {a + 1}'s counter is already activated"
        if int(s[L.POS + a]) == L.nearest(p, params):
            return f"agent {a + 1}'s counter is already at {who}'s end of the track"
    elif tok.kind == "draw":
        return f"{who}'s draw pile holds no `{card_label(tok.data)}`"
    return "not a legal move here"


def _tokens(text) -> list[str]:
    if not isinstance(text, str):
        raise RecordError("a record is a string of tokens separated by spaces")
    return text.split()


def viewer_of(toks: list[str]) -> int | None:
    """The seat whose view a record is (from the opponent's `loyal:?`), None if full."""
    if toks and toks[0] == "loyal:?":
        return 1
    if len(toks) > 1 and toks[1] == "loyal:?":
        return 0
    return None


def record_to_actions(variant: Variant, text: str) -> list[int]:
    """The tree codes of a full record (partial records allowed)."""
    actions = _replay_full(variant, _tokens(text)).actions
    assert actions is not None  # a full record's replay has them
    return actions


def check_kind(variant: Variant, s: np.ndarray, n: int, token: str, tok: Token, board) -> None:
    """Refuse a token of the wrong kind for the phase, or one after the end."""
    ph = int(s[L.PHASE])
    if ph == L.PH_OVER:
        raise _err(n, token, f"the game is over after token {n - 1}")
    if tok.kind not in PHASE_KINDS[ph]:
        raise _err(n, token, f"expected {expected_text(variant, s, board)}")


def _replay_full(variant: Variant, toks: list[str]) -> Replay:
    params = variant.params
    s = R.initial_state(params)
    board = empty_board()
    actions: list[int] = []
    canon: list[str] = []
    for i, token in enumerate(toks):
        n = i + 1
        if int(s[L.PHASE]) == L.PH_OVER:
            raise _err(n, token, f"the game is over after token {n - 1}")
        tok = parse_token(variant, n, token)
        check_kind(variant, s, n, token, tok, board)
        if tok.hidden:
            raise _err(n, token, "`?` hides a card or token only in a player's view; a full "
                                 "record shows everything")
        action = action_of(variant, tok)
        if tok.kind == "deliver":
            want = edge_token(variant, s, R.legal_list(s, params)[0], 0, board)
            if want != token:
                raise _err(n, token, f"the delivery is `{want}` (tokens, cards and winner "
                                     "follow from the record)")
        elif action not in R.legal_list(s, params):
            raise _err(n, token, explain_illegal(variant, s, tok))
        canonical = edge_token(variant, s, action, int(s[L.MOVER]), board)
        if canonical != token and tok.kind != "deal":  # a hand may be written in any order
            raise _err(n, token, f"should be written `{canonical}`")
        canon.append(canonical)
        actions.append(action)
        board = board_after(board, s, action, None)
        s = R.step(s, params, action)
    return Replay(variant, canon, actions, s, None, None, board)


# --- random records ------------------------------------------------------------------------


def random_playout(variant: Variant, rng, max_steps: int | None = None) -> list[int]:
    """Uniformly random legal actions, chance outcomes drawn with their probabilities,
    until the end of the game or ``max_steps`` steps."""
    rng = np.random.default_rng(rng)
    params = variant.params
    width = int(R.max_actions(params))
    buf = np.empty(width, dtype=np.int32)
    probs = np.empty(width)
    s = R.initial_state(params)
    actions: list[int] = []
    while not R.is_terminal(s, params) and (max_steps is None or len(actions) < max_steps):
        if R.current_player(s, params) == R.CHANCE:
            n = R.chance_outcomes(s, params, buf, probs)
            a = int(buf[rng.choice(n, p=probs[:n] / probs[:n].sum())])
        else:
            n = R.legal_actions(s, params, buf)
            a = int(buf[rng.integers(n)])
        actions.append(a)
        s = R.step(s, params, a)
    return actions


def random_record(variant: Variant, rng, max_steps: int | None = None) -> str:
    return format_record(variant, random_playout(variant, rng, max_steps))

