"""Agent Hunter game records (spec, "Notation of a game record"): parse, format, views.

A record is moves separated by spaces; every move token is the formatting of one
player's observation code(s) (rules.observation): the full record uses the mover's,
a player's view uses that player's (``?`` where hidden). A house attack and its refill
are two tree edges but one token (``house:2=6>3:eq>5``). Legality is decided by the
numba rules only; the Python here parses, formats and words the errors.

Moves as spycfr lists them are accepted too: a refill as a token of its own (``refill:5``,
merged into the attack's token), and, as the last token only, an attack without its result
(``hand:5>2``, ``house:2=6>3``) where the record decides the result; where it does not (the
attacker's own view), the error lists the results to choose from.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from spycfr.engine.playout import expand_consistent
from spycfr.errors import RecordError
from spycfr.games.agent_hunter import rules as R
from spycfr.games.agent_hunter.variant import Variant

ANSWERS = {R.ANS_LO: "lo", R.ANS_EQ: "eq", R.ANS_HI: "hi"}
ANSWER_CODES = {v: k for k, v in ANSWERS.items()}
PLAYER_NAMES = ("P1", "P2")

_NUM = r"(\d+|\?)"
_RE = {
    "place": re.compile(r"place:(\?|\d+(?:-\d+)*)"),
    "hand": re.compile(r"hand:(\d+)>(\d+):(hi|lo|eq)"),
    "switch": re.compile(rf"switch:(\d+)=(\d+)>{_NUM}@(\d+)"),
    "house": re.compile(rf"house:(\d+)=(\d+)>(\d+):(hi|lo|eq)(?:\+(hand|h\d+))?(?:>{_NUM})?"),
}
_SHAPES = "place:A-B-C, hand:C>T:ANS, switch:H=V>W@D, house:A=X>T:ANS[+hand|+hG][>F]"
# A move written without its result (the answer, where the defender's card came from): only
# as the last token, completed where the record decides it (spycfr lists moves this way).
_PENDING = {
    "hand": re.compile(r"hand:(\d+)>(\d+)"),
    "house": re.compile(r"house:(\d+)=(\d+)>(\d+)"),
}
# A refill written as a token of its own (the move label): merged into the attack's token.
_REFILL_TOKEN = re.compile(r"refill:(\d+|\?)")


# --- formatting ------------------------------------------------------------------------


def format_obs_token(code: int, houses: int) -> str:
    """The record token of one observation code (not a refill: see ``refill_suffix``)."""
    typ, f1, f2, f3, f4, f5 = R.unpack_obs(code)
    if typ == R.T_PLACE:
        if f1 == R.HIDDEN:
            return "place:?"
        return "place:" + "-".join(str(c) for c in (f1, f2, f3)[:houses])
    if typ == R.T_HAND:
        return f"hand:{f1}>{f2 + 1}:{ANSWERS[f3]}"
    if typ == R.T_SWITCH:
        w = "?" if f3 == R.HIDDEN else str(f3)
        return f"switch:{f1 + 1}={f2}>{w}@{f4 + 1}"
    if typ == R.T_HOUSE:
        tok = f"house:{f1 + 1}={f2}>{f3 + 1}:{ANSWERS[f4]}"
        if f5 == R.SRC_HAND:
            tok += "+hand"
        elif f5 >= R.SRC_HOUSE0:
            tok += f"+h{f5 - R.SRC_HOUSE0 + 1}"
        return tok
    raise ValueError(f"refill observation {code} has no token of its own")


def refill_suffix(code: int) -> str:
    _, f1, *_ = R.unpack_obs(code)
    return ">?" if f1 == R.HIDDEN else f">{f1}"


def extend_view(tokens: tuple[str, ...], state: np.ndarray, params: R.AgentHunterParams,
                action: int,
                player: int) -> tuple[str, ...]:
    """``player``'s record tokens after ``action`` is played at ``state``."""
    code = int(R.observation(state, params, np.int32(action), player))
    if code & 7 == R.T_REFILL:
        return tokens[:-1] + (tokens[-1] + refill_suffix(code),)
    return tokens + (format_obs_token(code, int(params[R.P_HOUSES])),)


def action_label(state: np.ndarray, params: R.AgentHunterParams, action: int) -> str:
    """Label of a legal action at ``state``: place:3-7-1, hand:5>2, switch:1=4>6@2, house:2=6>3,
    refill:5 (houses 1-based; the mover's own revealed card shown)."""
    kind, f = R.decode_action(action, int(params[R.P_CARDS]), int(params[R.P_HOUSES]))
    base = int(state[R.TO_MOVE]) * R.PSTRIDE
    if kind == "place":
        return "place:" + "-".join(str(c) for c in f)
    if kind == "hand":
        return f"hand:{f[0]}>{f[1] + 1}"
    if kind == "switch":
        v = int(state[base + R.O_HOUSE + f[0]])
        return f"switch:{f[0] + 1}={v}>{f[1]}@{f[2] + 1}"
    if kind == "house":
        x = int(state[base + R.O_HOUSE + f[0]])
        return f"house:{f[0] + 1}={x}>{f[1] + 1}"
    return f"refill:{f[0]}"


def _walk(variant: Variant, actions, viewer: int | None) -> list[str]:
    params = variant.to_params()
    s = R.initial_state(params)
    out = np.empty_like(s)
    tokens: tuple[str, ...] = ()
    for a in actions:
        who = int(s[R.TO_MOVE]) if viewer is None else viewer
        tokens = extend_view(tokens, s, params, a, who)
        R.apply_action(s, params, np.int32(a), out)
        s, out = out, s
    return list(tokens)


def format_record(variant: Variant, actions) -> str:
    """The full record of a list of (legal) tree action codes."""
    return " ".join(_walk(variant, actions, None))


def view_of(variant: Variant, record, player: int) -> str:
    """``player``'s view (``?`` for what it cannot see) of a full record (text or action codes)."""
    actions = record_to_actions(variant, record) if isinstance(record, str) else record
    return " ".join(_walk(variant, actions, player))


# --- parsing ---------------------------------------------------------------------------


@dataclass
class ParsedToken:
    kind: str
    action: int  # tree code of the main action (-1 if hidden: opponent's placement)
    claimed: tuple  # the observation fields as written (HIDDEN for ?)
    refill: int | None  # card written after '>' for a refill; R.HIDDEN for '?'; None if absent
    hidden: bool  # does the token contain '?'


@dataclass
class Replay:
    """The outcome of replaying a record (full, or one player's view)."""

    variant: Variant
    tokens: list[str]  # canonical tokens
    actions: list[int] | None  # tree action codes (full records)
    state: np.ndarray  # final state (for a view: one state consistent with it)
    viewer: int | None  # None for a full record
    candidates: np.ndarray | None  # for a view: every state consistent with it

    @property
    def record(self) -> str:
        return " ".join(self.tokens)


class _Ctx:
    """Per-record parsing context for error messages."""

    def __init__(self, variant: Variant) -> None:
        self.v = variant
        self.n = variant.cards
        self.k = variant.houses

    def err(self, move: int, token: str, reason: str) -> RecordError:
        return RecordError(f"move {move} `{token}`: {reason}")

    def card(self, move, token, text) -> int:
        c = int(text)
        if not 0 <= c < self.n:
            raise self.err(move, token, f"card {c} does not exist (cards 0..{self.n - 1})")
        return c

    def house(self, move, token, text) -> int:
        h = int(text)
        if not 1 <= h <= self.k:
            raise self.err(move, token, f"house {h} does not exist (houses 1..{self.k})")
        return h - 1


def _parse_token(ctx: _Ctx, move: int, token: str) -> ParsedToken:
    kind = token.split(":", 1)[0]
    rx = _RE.get(kind)
    m = rx.fullmatch(token) if rx else None
    if m is None:
        raise ctx.err(move, token, f"not a move (expected {_SHAPES})")
    H = R.HIDDEN
    if kind == "place":
        if m.group(1) == "?":
            return ParsedToken(kind, -1, (H, H, H), None, True)
        parts = m.group(1).split("-")
        if len(parts) != ctx.k:
            raise ctx.err(move, token, f"a placement names {ctx.k} card(s), one per house")
        cards = [ctx.card(move, token, p) for p in parts]
        if len(set(cards)) != len(cards):
            raise ctx.err(move, token, "the cards of a placement must be distinct")
        return ParsedToken(kind, R.encode_place(cards, ctx.n), tuple(cards), None, False)
    if kind == "hand":
        c = ctx.card(move, token, m.group(1))
        t = ctx.house(move, token, m.group(2))
        return ParsedToken(kind, R.encode_hand(c, t), (c, t, ANSWER_CODES[m.group(3)]), None,
                           False)
    if kind == "switch":
        h = ctx.house(move, token, m.group(1))
        v = ctx.card(move, token, m.group(2))
        w = H if m.group(3) == "?" else ctx.card(move, token, m.group(3))
        d = ctx.house(move, token, m.group(4))
        act = -1 if w == H else R.encode_switch(h, w, d)
        return ParsedToken(kind, act, (h, v, w, d), None, w == H)
    a = ctx.house(move, token, m.group(1))
    x = ctx.card(move, token, m.group(2))
    t = ctx.house(move, token, m.group(3))
    ans = ANSWER_CODES[m.group(4)]
    src_text = m.group(5)
    if ans == R.ANS_EQ and src_text is not None:
        raise ctx.err(move, token, "after `eq` no card of the defender moves: drop `+...`")
    if ans != R.ANS_EQ and src_text is None:
        raise ctx.err(move, token, "a missed house attack says where the defender's card came "
                                   "from: `+hand` or `+hG`")
    if src_text is None:
        src = R.SRC_NONE
    elif src_text == "hand":
        src = R.SRC_HAND
    else:
        src = R.SRC_HOUSE0 + ctx.house(move, token, src_text[1:])
    if src == R.SRC_HAND and m.group(6) is not None:
        raise ctx.err(move, token, "no refill when the defender's card came from hand")
    f = m.group(6)
    refill = None if f is None else (H if f == "?" else ctx.card(move, token, f))
    return ParsedToken(kind, R.encode_house(a, t), (a, x, t, ans, src), refill, f == "?")


def _claimed_obs(kind: str, claimed: tuple) -> int:
    typ = R.ACTION_TYPES.index(kind)
    fields = list(claimed) + [0] * (5 - len(claimed))
    return int(R.pack_obs(typ, *fields))


def _explain_illegal(ctx: _Ctx, s: np.ndarray, kind: str, action: int) -> str:
    """Why a well-formed action is not legal at ``s`` (words only; legality is rules.py's)."""
    p = int(s[R.TO_MOVE])
    me, opp = PLAYER_NAMES[p], PLAYER_NAMES[1 - p]
    base, obase = p * R.PSTRIDE, (1 - p) * R.PSTRIDE
    hand = int(s[base + R.O_HAND])
    _, f = R.decode_action(action, ctx.n, ctx.k)

    def own(h):
        return int(s[base + R.O_HOUSE + h])

    def theirs(h):
        return int(s[obase + R.O_HOUSE + h])

    def in_hand(c):
        return (hand >> c) & 1

    if kind == "hand":
        c, t = f
        if not in_hand(c):
            return f"card {c} is not in {me}'s hand"
        if theirs(t) == R.ELIM:
            return f"{opp}'s house {t + 1} is eliminated"
    elif kind == "switch":
        h, w, d = f
        if s[base + R.O_SUPPLY] <= 0:
            return f"{me} has no decoy left in supply"
        if own(h) < 0:
            return f"{me}'s house {h + 1} is eliminated"
        if not in_hand(w) and w != own(h):
            return f"card {w} is not in {me}'s hand"
        if ctx.v.decoy_rule == "switched" and d != h:
            return f"with decoy_rule=switched the decoy goes beside the switched house {h + 1}"
        if own(d) < 0:
            return f"{me}'s house {d + 1} is eliminated (no decoy beside it)"
    elif kind == "house":
        a, t = f
        if own(a) < 0:
            return f"{me}'s house {a + 1} is eliminated"
        if theirs(t) == R.ELIM:
            return f"{opp}'s house {t + 1} is eliminated"
    elif kind == "refill":
        if not in_hand(f[0]):
            return f"card {f[0]} is not in {me}'s hand"
    return "not a legal move here"


def _explain_mismatch(ctx: _Ctx, s: np.ndarray, kind: str, claimed: tuple, actual: tuple) -> str:
    """Why the results written in a token differ from the true ones."""
    p = int(s[R.TO_MOVE])
    me, opp = PLAYER_NAMES[p], PLAYER_NAMES[1 - p]
    if kind == "hand":
        return f"the answer is {ANSWERS[actual[2]]}, not {ANSWERS[claimed[2]]}"
    if kind == "switch":
        return f"{me}'s house {actual[0] + 1} holds {actual[1]}, not {claimed[1]}"
    if kind == "house":
        if claimed[1] != actual[1]:
            return f"{me}'s house {actual[0] + 1} holds {actual[1]}, not {claimed[1]}"
        if claimed[3] != actual[3]:
            return f"the answer is {ANSWERS[actual[3]]}, not {ANSWERS[claimed[3]]}"
        where = "hand" if actual[4] == R.SRC_HAND else f"house {actual[4] - R.SRC_HOUSE0 + 1}"
        return f"{opp}'s card {actual[1]} is in {where}"
    return "the written results are wrong"


def _tokens(text: str) -> list[str]:
    if not isinstance(text, str):
        raise RecordError("a record is a string of moves separated by spaces")
    return text.split()


def _pending(ctx: _Ctx, move: int, token: str, last: int) -> tuple | None:
    """(kind, canonical token up to the result, tree action, fields written) of a hand or
    house attack written without its result, or None; only move ``last`` may be one."""
    kind = token.split(":", 1)[0]
    m = _PENDING[kind].fullmatch(token) if kind in _PENDING else None
    if m is None:
        return None
    if kind == "hand":
        c, t = ctx.card(move, token, m.group(1)), ctx.house(move, token, m.group(2))
        pend: tuple[str, str, int, tuple[int, ...]] = (kind, f"hand:{c}>{t + 1}",
                                                         R.encode_hand(c, t), (c, t))
    else:
        a, x = ctx.house(move, token, m.group(1)), ctx.card(move, token, m.group(2))
        t = ctx.house(move, token, m.group(3))
        pend = (kind, f"house:{a + 1}={x}>{t + 1}", R.encode_house(a, t), (a, x, t))
    if pend[1] != token:
        raise ctx.err(move, token, f"should be written `{pend[1]}`")
    if move != last:
        raise ctx.err(move, token, "the result is missing (e.g. `:lo`, `:eq>F`, `:hi+hand`): "
                                   "only the last move of a record may leave it out")
    return pend


def _complete(ctx: _Ctx, cands: np.ndarray, params: R.AgentHunterParams, viewer: int | None,
              move: int,
              token: str, pend: tuple) -> str:
    """The token of a pending move with its result, where the record (a full record, or
    what ``viewer`` knows) decides it; RecordError listing the possible results otherwise."""
    kind, prefix, action, claimed = pend
    s0 = cands[0]
    mover = int(s0[R.TO_MOVE])
    if int(s0[R.PHASE]) in (R.PH_PLACE1, R.PH_PLACE2):
        raise ctx.err(move, token, f"expected {PLAYER_NAMES[mover]}'s placement")
    own = viewer is None or viewer == mover
    buf = np.empty(R.max_actions(ctx.v), dtype=np.int32)

    def legal(s) -> bool:
        return bool((buf[:R.legal_actions(s, params, buf)] == action).any())

    if own and not legal(s0):
        raise ctx.err(move, token, _explain_illegal(ctx, s0, kind, action))
    who = mover if viewer is None else viewer
    seen = {format_obs_token(int(R.observation(s, params, np.int32(action), who)), ctx.k)
            for s in cands if own or legal(s)}
    fits = sorted(t for t in seen if t.startswith(prefix + ":"))
    if len(fits) == 1:
        return fits[0]
    if not fits:
        actual = R.unpack_obs(int(R.observation(s0, params, np.int32(action), mover)))
        if own and kind == "house" and actual[2] != claimed[1]:
            raise ctx.err(move, token, _explain_mismatch(ctx, s0, kind, claimed, actual[1:6]))
        raise ctx.err(move, token, "impossible after the earlier moves")
    raise ctx.err(move, token, f"the {'answer' if kind == 'hand' else 'result'} is not written, "
                               f"and {PLAYER_NAMES[who]} cannot know it before "
                               f"{PLAYER_NAMES[1 - mover]} answers: write one of "
                  + ", ".join(f"`{t}`" for t in fits))


def replay(variant: Variant, text: str) -> Replay:
    """Replay a full record, or a player's view when it contains ``?``; RecordError if illegal."""
    if "?" in text:
        toks = _tokens(text)
        viewer = 1 if toks and toks[0] == "place:?" else 0
        return _replay_view(variant, toks, viewer)
    return _replay_full(variant, _tokens(text))


def record_to_actions(variant: Variant, text: str) -> list[int]:
    """The tree action codes of a full record (partial records allowed)."""
    actions = _replay_full(variant, _tokens(text)).actions
    assert actions is not None  # a full record's replay has them
    return actions


parse_record = record_to_actions


def _replay_full(variant: Variant, toks: list[str]) -> Replay:
    ctx = _Ctx(variant)
    params = variant.to_params()
    buf = np.empty(R.max_actions(variant), dtype=np.int32)
    s = R.initial_state(params)
    nxt = np.empty_like(s)
    actions: list[int] = []
    canon: list[str] = []

    def legal(a: int) -> bool:
        n = R.legal_actions(s, params, buf)
        return bool((buf[:n] == a).any())

    for i, token in enumerate(toks):
        move = i + 1
        phase = int(s[R.PHASE])
        if phase == R.PH_OVER:
            raise ctx.err(move, token, f"the game is over after move {move - 1}")
        if phase in (R.PH_REFILL_ATT, R.PH_REFILL_DEF):
            f = _refill_token(ctx, move, token)
            if f is None:
                who = PLAYER_NAMES[int(s[R.TO_MOVE])]
                raise ctx.err(move - 1, toks[i - 1],
                              f"the refill is missing ({who} refills house "
                              f"{int(s[R.REFILL]) + 1}, written `>F` at the end of the move)")
            if f == R.HIDDEN:
                raise ctx.err(move, token, "`?` (hidden) is only allowed in a player's view; "
                                           "a full record shows every card")
            act = R.encode_refill(f)
            if not legal(act):
                raise ctx.err(move, token, _explain_illegal(ctx, s, "refill", act))
            R.apply_action(s, params, np.int32(act), nxt)
            s, nxt = nxt, s
            actions.append(act)
            canon[-1] += f">{f}"
            continue
        _no_refill_pending(ctx, move, token)
        pend = _pending(ctx, move, token, len(toks))
        if pend is not None:
            token = _complete(ctx, s[None, :], params, None, move, token, pend)
        pt = _parse_token(ctx, move, token)
        if pt.hidden:
            raise ctx.err(move, token, "`?` (hidden) is only allowed in a player's view; "
                                       "a full record shows every card")
        mover = PLAYER_NAMES[int(s[R.TO_MOVE])]
        if (pt.kind == "place") != (phase in (R.PH_PLACE1, R.PH_PLACE2)):
            expected = f"{mover}'s placement" if pt.kind != "place" else f"a turn of {mover}"
            raise ctx.err(move, token, f"expected {expected}")
        if not legal(pt.action):
            raise ctx.err(move, token, _explain_illegal(ctx, s, pt.kind, pt.action))
        code = int(R.observation(s, params, np.int32(pt.action), int(s[R.TO_MOVE])))
        actual = R.unpack_obs(code)[1:1 + len(pt.claimed)]
        if tuple(actual) != tuple(pt.claimed):
            raise ctx.err(move, token, _explain_mismatch(ctx, s, pt.kind, pt.claimed, actual))
        tok = format_obs_token(code, ctx.k)
        R.apply_action(s, params, np.int32(pt.action), nxt)
        s, nxt = nxt, s
        actions.append(pt.action)
        phase = int(s[R.PHASE])
        pending = phase in (R.PH_REFILL_ATT, R.PH_REFILL_DEF)
        if pt.refill is not None:
            if not pending:
                raise ctx.err(move, token, f"no refill: the game is over (all of "
                                           f"{_loser(s, ctx.k)}'s houses are eliminated)")
            act = R.encode_refill(pt.refill)
            if not legal(act):
                raise ctx.err(move, token, _explain_illegal(ctx, s, "refill", act))
            tok += f">{pt.refill}"
            R.apply_action(s, params, np.int32(act), nxt)
            s, nxt = nxt, s
            actions.append(act)
        if tok != token:
            raise ctx.err(move, token, f"should be written `{tok}`")
        canon.append(tok)
    return Replay(variant, canon, actions, s, None, None)


def _refill_token(ctx: _Ctx, move: int, token: str) -> int | None:
    """The card of a refill written as its own token (``refill:5``; ``refill:?`` in a view
    for the opponent's), or None when ``token`` is not one."""
    m = _REFILL_TOKEN.fullmatch(token)
    if m is None:
        return None
    if m.group(1) == "?":
        return R.HIDDEN
    f = ctx.card(move, token, m.group(1))
    if token != f"refill:{f}":
        raise ctx.err(move, token, f"should be written `refill:{f}`")
    return f


def _no_refill_pending(ctx: _Ctx, move: int, token: str) -> None:
    if _REFILL_TOKEN.fullmatch(token):
        raise ctx.err(move, token, "no refill is pending here (a refill follows a house attack "
                                   "that eliminated a house, or a missed one answered `+hG`)")


def _loser(s: np.ndarray, k: int) -> str:
    for p in range(2):
        if all(int(s[p * R.PSTRIDE + R.O_HOUSE + i]) == R.ELIM for i in range(k)):
            return PLAYER_NAMES[p]
    return "?"


# --- a player's view -------------------------------------------------------------------


def parse_view(variant: Variant, text: str, player: int) -> str:
    """``player``'s information state (``information_state(player)``) from its view record.

    The view must be consistent with at least one full game; RecordError otherwise.
    """
    return " ".join(_replay_view(variant, _tokens(text), player).tokens)


def replay_view(variant: Variant, text: str, player: int) -> Replay:
    """Replay ``player``'s view record over every full history consistent with it."""
    return _replay_view(variant, _tokens(text), player)


def _replay_view(variant: Variant, toks: list[str], viewer: int) -> Replay:
    """Follow every full history consistent with ``viewer``'s view (at most the ways of
    filling the opponent's houses), with the numba rules deciding each step."""
    steps = ViewSteps(variant, viewer)
    for move, token in enumerate(toks, 1):
        steps.push(token, last=move == len(toks))
    return steps.replay()


class ViewSteps:
    """``viewer``'s view replayed one token at a time: after :meth:`push` of the first k
    tokens, the candidates, the state and the canonical tokens are those of the replay of
    those k tokens (:func:`replay_view`), at the cost of one token, where replaying each
    prefix from the start costs the square of the view's length (a search agent's walk
    along a view, `spycfr query` and reviews: the records' ``view_steps``).

    A step is a token as the notation writes it: a house attack with its refill is one
    (``house:2=6>3:eq>5``), the state after it the refill's. A refill written as a token of
    its own (``refill:5``) is a step too, and amends the canonical token before it, as the
    replay merges it. The view's last token may be an attack without its result, completed
    from the candidates where they decide it; pushed as the last, the next push finds it
    (the replay of the longer view names it: only the last move may leave its result out)."""

    def __init__(self, variant: Variant, viewer: int) -> None:
        self.ctx = _Ctx(variant)
        self.viewer = viewer
        self.params = variant.to_params()
        self.buf = np.empty(R.max_actions(variant), dtype=np.int32)
        self.cands = R.initial_state(self.params)[None, :].copy()
        self.canon: list[str] = []
        self.moves = 0  # tokens pushed, a refill's own token counted (the errors' numbers)
        self._last = ""  # the last token pushed, as written
        # (number, token) of the last token pushed as the view's last and written without
        # its result: an error once another token follows
        self._open: tuple[int, str] | None = None

    def push(self, token: str, last: bool = True) -> np.ndarray:
        """Replay one more token (``last``: read as the view's last, as the replay of the
        tokens so far reads it); one state consistent with the view so far. RecordError
        naming the token (its number in the view) if it cannot follow; the steps are then
        as before the push."""
        ctx, cands = self.ctx, self.cands
        if self._open is not None:  # the prefix's last token is not the last any more
            _pending(ctx, *self._open, -1)  # raises: the result is missing
        move = self.moves + 1
        canon = list(self.canon)
        s0 = cands[0]
        phase = int(s0[R.PHASE])
        if phase == R.PH_OVER:
            raise ctx.err(move, token, f"the game is over after move {move - 1}")
        if phase in (R.PH_REFILL_ATT, R.PH_REFILL_DEF):
            f = _refill_token(ctx, move, token)
            if f is None:
                who = PLAYER_NAMES[int(s0[R.TO_MOVE])]
                raise ctx.err(move - 1, self._last, f"the refill is missing ({who} refills "
                                                    f"house {int(s0[R.REFILL]) + 1})")
            cands = self._refill(cands, f, move, token)
            canon[-1] += ">?" if f == R.HIDDEN else f">{f}"
            return self._commit(cands, canon, token, None)
        _no_refill_pending(ctx, move, token)
        written = token
        pend = _pending(ctx, move, token, move if last else -1)
        if pend is not None:
            token = _complete(ctx, cands, self.params, self.viewer, move, token, pend)
        pt = _parse_token(ctx, move, token)
        mover = int(s0[R.TO_MOVE])
        if (pt.kind == "place") != (phase in (R.PH_PLACE1, R.PH_PLACE2)):
            expected = (f"{PLAYER_NAMES[mover]}'s placement" if pt.kind != "place"
                        else f"a turn of {PLAYER_NAMES[mover]}")
            raise ctx.err(move, token, f"expected {expected}")
        own = mover == self.viewer
        me = PLAYER_NAMES[self.viewer]
        if own and pt.hidden and pt.refill != R.HIDDEN:
            raise ctx.err(move, token, f"in {me}'s view, {me}'s own move shows every card")
        if not own and pt.kind in ("place", "switch") and not pt.hidden:
            raise ctx.err(move, token, f"{me} cannot see {PLAYER_NAMES[mover]}'s hidden card: "
                                       "write `?`")
        fixed = pt.action if own else -1
        buf, params = self.buf, self.params
        if own and not bool((buf[:R.legal_actions(s0, params, buf)] == fixed).any()):
            raise ctx.err(move, token, _explain_illegal(ctx, s0, pt.kind, fixed))
        obs = _claimed_obs(pt.kind, pt.claimed)
        nxt = self._step(cands, obs, fixed)
        if nxt.shape[0] == 0:
            alts = sorted(format_obs_token(c, ctx.k) for c in self._possible(cands, fixed))
            shown = ", ".join(f"`{a}`" for a in alts[:8]) + (", ..." if len(alts) > 8 else "")
            raise ctx.err(move, token, f"impossible after the earlier moves (possible: {shown})")
        cands = nxt
        tok = format_obs_token(obs, ctx.k)
        s0 = cands[0]
        pending = int(s0[R.PHASE]) in (R.PH_REFILL_ATT, R.PH_REFILL_DEF)
        if pt.refill is not None:
            if not pending:
                raise ctx.err(move, token, f"no refill: the game is over (all of "
                                           f"{_loser(s0, ctx.k)}'s houses are eliminated)")
            cands = self._refill(cands, pt.refill, move, token)
            tok += ">?" if pt.refill == R.HIDDEN else f">{pt.refill}"
        if tok != token:
            raise ctx.err(move, token, f"should be written `{tok}`")
        canon.append(tok)
        return self._commit(cands, canon, written, None if pend is None else (move, written))

    def amend(self, token: str, last: bool = True) -> np.ndarray | None:
        """The last token pushed completed by ``token`` (the same token with its refill,
        ``house:1=0>1:eq`` then ``house:1=0>1:eq>8``: a view that stopped at the refill's
        decision, and the next view of that game, which writes the refill in the attack's
        token) as a step of its own (``refill:8``, the replay's merge); the state after it,
        the same as the replay of the view that ends with ``token``. None, the steps as
        they were, where ``token`` is not such a completion or its refill cannot follow."""
        m = _REFILL_TOKEN.fullmatch("refill:" + token[len(self._last) + 1:])
        if (not self.canon or not token.startswith(self._last + ">") or m is None
                or self._last != self.canon[-1]):
            return None
        before = (self.cands, self.canon, self._last, self._open, self.moves)
        try:
            state = self.push(m.group(0), last)
        except RecordError:
            return None
        if self.canon[-1] != token:  # not as the notation writes it: the replay would say
            self.cands, self.canon, self._last, self._open, self.moves = before
            return None
        self._last, self.moves = token, before[4]  # one move, as the replay counts it
        return state

    def replay(self) -> Replay:
        """The replay of the tokens pushed so far."""
        return Replay(self.ctx.v, list(self.canon), None, self.cands[0], self.viewer, self.cands)

    def _commit(self, cands: np.ndarray, canon: list[str], token: str,
                open_: tuple[int, str] | None) -> np.ndarray:
        self.cands, self.canon, self._last, self._open = cands, canon, token, open_
        self.moves += 1
        return cands[0]

    def _step(self, cands: np.ndarray, obs: int, fixed: int) -> np.ndarray:
        out, _ = expand_consistent(self.params, cands, np.int64(self.viewer), np.int64(obs),
                                   np.int64(fixed))
        return np.unique(out, axis=0) if out.shape[0] > 1 else out

    def _possible(self, cands: np.ndarray, fixed: int) -> set[int]:
        """Observation codes the viewer could have seen at this step (for errors)."""
        buf, params, seen = self.buf, self.params, set()
        for s in cands[:200]:
            n = R.legal_actions(s, params, buf)
            for a in (buf[:n] if fixed < 0 else [fixed]):
                seen.add(int(R.observation(s, params, np.int32(a), self.viewer)))
        return seen

    def _refill(self, cands: np.ndarray, card: int, move: int, token: str) -> np.ndarray:
        """The candidates after the pending refill with ``card`` (HIDDEN: the opponent's)."""
        ctx, buf, params, viewer = self.ctx, self.buf, self.params, self.viewer
        s0 = cands[0]
        refiller = int(s0[R.TO_MOVE])
        if (refiller == viewer) == (card == R.HIDDEN):
            raise ctx.err(move, token, f"in {PLAYER_NAMES[viewer]}'s view the refill by "
                          f"{PLAYER_NAMES[refiller]} is written "
                          + ("with its card" if refiller == viewer else "`>?`"))
        fixed = R.encode_refill(card) if refiller == viewer else -1
        if fixed >= 0 and not bool((buf[:R.legal_actions(s0, params, buf)] == fixed).any()):
            raise ctx.err(move, token, _explain_illegal(ctx, s0, "refill", fixed))
        obs = int(R.pack_obs(R.T_REFILL, card, int(s0[R.REFILL]), 0, 0, 0))
        return self._step(cands, obs, fixed)


# --- random records --------------------------------------------------------------------


def random_playout(variant: Variant, rng, max_moves: int | None = None) -> list[int]:
    """Uniformly random legal action codes from the start, stopping at the end of the game
    or after ``max_moves`` record moves (sometimes just before a pending refill)."""
    rng = np.random.default_rng(rng)
    params = variant.to_params()
    buf = np.empty(R.max_actions(variant), dtype=np.int32)
    s = R.initial_state(params)
    nxt = np.empty_like(s)
    actions: list[int] = []
    moves = 0
    while not R.is_terminal(s, params):
        n = R.legal_actions(s, params, buf)
        is_refill = int(s[R.PHASE]) in (R.PH_REFILL_ATT, R.PH_REFILL_DEF)
        if max_moves is not None and moves >= max_moves and (not is_refill or rng.random() < 0.5):
            break
        a = int(buf[rng.integers(n)])
        R.apply_action(s, params, np.int32(a), nxt)
        s, nxt = nxt, s
        actions.append(a)
        moves += not is_refill
    return actions


def random_record(variant: Variant, rng, max_moves: int | None = None) -> str:
    """A random legal full record (complete unless ``max_moves`` cuts it)."""
    return format_record(variant, random_playout(variant, rng, max_moves))
