"""Agent Avenue game records (spec, "Record notation"): format, parse, views, replay.

Tokens in the order things happen: ``deal:EN.CB.DD.SE|DA.EN.CB.CB`` (P1's hand, P2's hand,
each sorted in table order), ``swap:DD>CB`` (discarded DD, drew CB), ``play:EN/CB`` (EN face
up, CB face down), ``draw:DA.SE`` (left out when nothing is drawn), ``take:up=CB`` or
``take:down=CB`` (the opponent's choice; ``=CB`` names the face-down card, revealed by the
recruitment). A player's view writes ``?`` for what that player cannot see
(``deal:EN.CB.DD.SE|?``, ``swap:?>?``, ``play:EN/?``, ``draw:?.?``).

In advanced mode the black market's tokens (market.py: ``market:``, ``bm:P1=X>Y``, the
abilities' ``mind:CB`` ...) come in too, and ``draw:`` also refills a hand after a player's
abilities (seen by that player only).

Every token is the formatting of the observation codes (rules.observation) of its tree
edges: the full record uses the codes of the seat that sees the edge (the mover, the
drawer), a view uses the viewer's. Replaying follows every hidden history consistent with
the codes, so the numba rules alone decide legality; the Python here parses, formats and
words the errors. Pending tokens end a game in progress: ``swap:DD`` (its draw not made
yet); legal moves are labelled ``swap:DD``, ``play:EN/CB``, ``take:up``, ready to paste.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from spycfr.engine.playout import expand_consistent
from spycfr.errors import RecordError
from spycfr.games.agent_avenue import advanced as A
from spycfr.games.agent_avenue import market as M
from spycfr.games.agent_avenue import rules as R
from spycfr.games.agent_avenue.variant import CODES, Variant

PLAYER_NAMES = ("P1", "P2")
# cards (``EN.CB``, ``?.?``) and one card, shared with the team records
CARDS_RE = r"((?:[A-Za-z]{2}|\?)(?:\.(?:[A-Za-z]{2}|\?))*)"
CARD_RE = r"([A-Za-z]{2}|\?)"
_RE = {
    "deal": re.compile(rf"deal:{CARDS_RE}\|{CARDS_RE}"),
    "swap": re.compile(rf"swap:{CARD_RE}(?:>{CARD_RE})?"),
    "play": re.compile(rf"play:{CARD_RE}/{CARD_RE}"),
    "draw": re.compile(rf"draw:{CARDS_RE}"),
    "take": re.compile(rf"take:(up|down)(?:={CARD_RE})?"),
    **M.RE,
}
SHAPES = "deal:A.B|C.D, swap:X>Y, play:UP/DOWN, draw:A.B, take:up=X or take:down=X"
EXPECTED = {R.PH_DEAL0: "deal", R.PH_PLAY: "swap or play", R.PH_REFILL: "draw",
            R.PH_RECRUIT: "take", R.PH_SWAP_DRAW: "the draw of the swap", A.PH_MARKET: "market",
            A.PH_BM_TAKE: "bm", A.PH_HAND_DRAW: "draw",
            A.PH_BM_SUPPLY: "the card that refills the black market supply"}


# --- formatting ------------------------------------------------------------------------


def _sorted_cards(variant: Variant, code: int) -> list[str]:
    out = []
    for name in variant.names:
        c = code % R.BASE
        code //= R.BASE
        out.extend([name] * c)
    return sorted(out, key=CODES.index)


def draw_text(variant: Variant, code: int) -> str:
    """``EN.CB.CB`` for the chance code of a draw."""
    return ".".join(_sorted_cards(variant, code))


def edge_text(variant: Variant, state: np.ndarray, obs: int, part: str) -> str:
    """The text an observation code adds to the record: a new token, or ``part`` of one."""
    kind, pay = obs >> 21, obs & ((1 << 21) - 1)
    name = variant.names
    if kind == R.O_DEAL:
        return draw_text(variant, pay)
    if kind == R.O_DEAL_HIDDEN:
        return "?"
    if kind == R.O_DRAW:
        if pay >> 20:
            return ".".join(["?"] * (pay & 0xFFFF))
        return draw_text(variant, pay)
    if kind == R.O_SWAP:
        return "?" if pay == R.HIDDEN else name[pay]
    if kind == R.O_PLAY:
        up, down = pay >> 4, pay & 15
        return f"play:{name[up]}/{'?' if down == R.HIDDEN else name[down]}"
    if kind == R.O_TAKE:
        return f"take:{'down' if (pay >> 4) & 1 else 'up'}={name[pay & 15]}"
    if kind == A.O_MARKET and variant.mode == "advanced":
        return M.observation_text(name, int(state[A.BMP]), obs)[1]
    raise ValueError(f"not an Agent Avenue observation code: {obs}")


def extend_view(tokens: tuple[str, ...], variant: Variant, state: np.ndarray, params,
                action: int, seat: int) -> tuple[str, ...]:
    """``seat``'s record tokens after ``action`` (or chance outcome) is applied at ``state``."""
    ph = int(state[R.PHASE])
    obs = int(variant.rules.observation(state, params, np.int32(action), seat))
    text = edge_text(variant, state, obs, "")
    if ph == A.PH_HAND_DRAW:
        return tokens + (f"draw:{text}",)
    if ph >= A.PH_MARKET:  # the black market: a new token, or the refill of the supply
        return tokens[:-1] + (tokens[-1] + text,) if ph == A.PH_BM_SUPPLY else tokens + (text,)
    if ph == R.PH_DEAL0:
        return tokens + (f"deal:{text}|",)
    if ph == R.PH_DEAL1:
        return tokens[:-1] + (tokens[-1] + text,)
    if ph == R.PH_SWAP_DRAW:
        return tokens[:-1] + (tokens[-1] + ">" + text,)
    if ph == R.PH_REFILL:
        return tokens + (f"draw:{text}",)
    if (int(action) >> 20) == R.T_SWAP:
        return tokens + (f"swap:{text}",)
    return tokens + (text,)


def action_label(variant: Variant, state: np.ndarray, action: int) -> str:
    """Label of a legal action or chance outcome at ``state``, in record notation."""
    ph = int(state[R.PHASE])
    if ph in (R.PH_DEAL0, R.PH_DEAL1, R.PH_SWAP_DRAW, R.PH_REFILL, A.PH_HAND_DRAW):
        return f"draw:{draw_text(variant, int(action))}"
    if ph == A.PH_MARKET:
        return M.market_text(int(action))
    if ph == A.PH_BM_TAKE:
        return M.take_text(int(state[A.BMP]), int(action) & 31)
    if ph == A.PH_BM_SUPPLY:
        return f"supply:{M.KEYS[int(action)]}"
    if ph in (A.PH_CHOOSE, A.PH_EFFECT):
        return M.ability_text(variant.names, int(state[A.CARD]), int(action) & 31)
    typ, pay = int(action) >> 20, int(action) & 0xFFFFF
    if typ == R.T_SWAP:
        return f"swap:{variant.names[pay & 7]}"
    if typ == R.T_PLAY:
        return f"play:{variant.names[(pay >> 3) & 7]}/{variant.names[pay & 7]}"
    return f"take:{'down' if pay & 1 else 'up'}"


# --- replay ----------------------------------------------------------------------------


@dataclass
class Replay:
    """The outcome of replaying a record (full, or one player's view)."""

    variant: Variant
    tokens: list[str]  # canonical tokens (a pending swap without its draw)
    actions: list[int] | None  # tree action and chance codes (full records)
    state: np.ndarray  # final state (for a view: one state consistent with it)
    viewer: int | None  # None for a full record
    candidates: np.ndarray  # every state consistent with the record (one for a full record)

    @property
    def record(self) -> str:
        return " ".join(self.tokens)


class RecordContext:
    """A replay's variant, numba params and viewer, with the card parsers and the error
    wording shared by the plain and the team records."""

    def __init__(self, variant: Variant, viewer: int | None) -> None:
        self.v = variant
        self.params = variant.to_params()
        self.rules = variant.rules
        self.viewer = viewer

    def err(self, number: int, token: str, reason: str) -> RecordError:
        return RecordError(f"token {number} `{token}`: {reason}")

    def name(self, number: int, token: str, text: str) -> int:
        """Local index of a card code, or R.HIDDEN for ``?``."""
        if text == "?":
            return R.HIDDEN
        code = text.upper()
        if code not in self.v.names:  # the variant's codes, not the game's eight
            what = "in this variant's deck" if code in CODES else "an agent code"
            raise self.err(number, token, f"{text} is not {what} (this variant's cards: "
                                          f"{','.join(self.v.names)})")
        return self.v.names.index(code)

    def cards(self, number: int, token: str, text: str) -> int | tuple[str, int]:
        """The chance code of a list of cards, or ("hidden", count) for ``?.?``."""
        parts = text.split(".")
        hidden = [p == "?" for p in parts]
        if all(hidden):
            return ("hidden", len(parts))
        if any(hidden):
            raise self.err(number, token, "cards are all shown or all hidden (?)")
        counts = np.zeros(R.MAX_NAMES, dtype=np.int64)
        for p in parts:
            counts[self.name(number, token, p)] += 1
        if counts.max() >= R.BASE:
            raise self.err(number, token, "more cards of one name than any draw holds")
        return int(R.draw_code(counts, len(self.v.names)))


def _tokens(text: str) -> list[str]:
    if not isinstance(text, str):
        raise RecordError("a record is a string of tokens separated by spaces")
    return text.split()


def replay(variant: Variant, text: str) -> Replay:
    """Replay a full record, or a player's view when it contains ``?``; RecordError if
    illegal (naming the token number, the token and why)."""
    toks = _tokens(text)
    viewer = None
    if "?" in text:
        first = toks[0] if toks else ""
        viewer = 1 if first.startswith("deal:?|") else 0
    return _replay(variant, toks, viewer)


def replay_view(variant: Variant, text: str, player: int) -> Replay:
    """Replay ``player``'s view of a record (``?`` for what the player cannot see)."""
    return _replay(variant, _tokens(text), player)


def record_to_actions(variant: Variant, text: str) -> list[int]:
    """The tree codes of a full record (games in progress allowed)."""
    actions = _replay(variant, _tokens(text), None).actions
    assert actions is not None  # a full record's replay has them
    return actions


def _edges(ctx: RecordContext, number: int, token: str, state: np.ndarray, last: bool, down: int):
    """(seat, observation code) of each tree edge of ``token`` from ``state``'s phase;
    ``down`` is the face-down card on the table where every history agrees on it, else -1."""
    kind = token.split(":", 1)[0].lower()
    rx = _RE.get(kind)
    m = rx.fullmatch(token) if rx else None
    if m is None:
        raise ctx.err(number, token, f"not a token (shapes: {SHAPES})")
    ph = int(state[R.PHASE])
    a = int(state[R.ACTIVE])
    viewer = ctx.viewer
    expected = EXPECTED.get(ph, "nothing")
    if ph in (A.PH_CHOOSE, A.PH_EFFECT):
        expected = M.KEYS[int(state[A.CARD])].lower()
    if ph == R.PH_OVER:
        raise ctx.err(number, token, "the game is already over")
    if kind not in expected if ph < A.PH_MARKET else kind != expected.split()[-1]:
        if ph >= A.PH_MARKET:
            raise ctx.err(number, token, f"expected {expected} here ({_bm_who(state)})")
        who = PLAYER_NAMES[a if ph != R.PH_RECRUIT else 1 - a]
        raise ctx.err(number, token, f"expected {expected} here ({who} to move)")
    if kind == "deal":
        out = []
        for p, text in enumerate(m.groups()):
            seat = p if viewer is None else viewer
            code = ctx.cards(number, token, text)
            if isinstance(code, tuple):
                if seat == p:
                    raise ctx.err(number, token, f"{PLAYER_NAMES[p]} sees its own hand")
                if code[1] != 1:
                    raise ctx.err(number, token, "the other player's hand is written `?`")
                out.append((seat, R.O_DEAL_HIDDEN << 21))
            else:
                if seat != p:
                    raise ctx.err(number, token, f"{PLAYER_NAMES[seat]} cannot see "
                                                 f"{PLAYER_NAMES[p]}'s hand: write ?")
                out.append((seat, (R.O_DEAL << 21) | code))
        return out
    seat_a = a if viewer is None else viewer
    if ph >= A.PH_MARKET and kind != "draw":
        return _bm_edges(ctx, number, token, kind, m, state, last, seat_a)
    if kind == "swap":
        first, drawn = m.groups()
        i = ctx.name(number, token, first)
        if (i == R.HIDDEN) != (seat_a != a):
            raise ctx.err(number, token, "only the swapper sees its card (the other "
                                         "player writes swap:?>?)")
        out = [(seat_a, (R.O_SWAP << 21) | i)]
        if drawn is None:
            if not last:
                raise ctx.err(number, token, "a swap is followed by its draw: swap:X>Y")
            return out
        d = R.HIDDEN if drawn == "?" else ctx.name(number, token, drawn)
        if (d == R.HIDDEN) != (seat_a != a):
            raise ctx.err(number, token, "only the swapper sees the card it draws")
        code = (R.O_DRAW << 21) | ((1 << 20) | 1 if d == R.HIDDEN else int(
            R.draw_code(_unit(d), len(ctx.v.names))))
        return out + [(seat_a, code)]
    if kind == "play":
        up = ctx.name(number, token, m.group(1))
        down = ctx.name(number, token, m.group(2))
        if up == R.HIDDEN:
            raise ctx.err(number, token, "the face-up card is seen by both players")
        if (down == R.HIDDEN) != (seat_a != a):
            raise ctx.err(number, token, "only the player who plays sees the face-down card "
                                         "(the other writes play:X/?)")
        return [(seat_a, (R.O_PLAY << 21) | (up << 4) | down)]
    if kind == "draw":
        if ph == A.PH_HAND_DRAW:  # a hand refilled after a player's abilities
            a = int(state[A.BMP])
            seat_a = a if viewer is None else viewer
        code = ctx.cards(number, token, m.group(1))
        if isinstance(code, tuple):
            if seat_a == a:
                raise ctx.err(number, token, "the drawer sees its cards")
            return [(seat_a, (R.O_DRAW << 21) | (1 << 20) | code[1])]
        if seat_a != a:
            raise ctx.err(number, token, f"{PLAYER_NAMES[seat_a]} cannot see "
                                         f"{PLAYER_NAMES[a]}'s draw: write ?")
        return [(seat_a, (R.O_DRAW << 21) | code)]
    # take: the down card may be left out in a full record (it follows from the play).
    side = 1 if m.group(1) == "down" else 0
    seat = seat_a
    if m.group(2) is None:
        if down < 0:
            raise ctx.err(number, token, "write the face-down card the recruitment reveals: "
                                         f"take:{m.group(1)}=X")
    else:
        down = ctx.name(number, token, m.group(2))
        if down == R.HIDDEN:
            raise ctx.err(number, token, "the recruitment reveals the face-down card: name it")
    return [(seat, (R.O_TAKE << 21) | (side << 4) | down)]


def _bm_who(state: np.ndarray) -> str:
    p = int(state[A.BMP])
    ph = int(state[R.PHASE])
    if ph == A.PH_MARKET:
        return "the black market supply is dealt"
    if ph in (A.PH_CHOOSE, A.PH_EFFECT):
        return f"{PLAYER_NAMES[p]} resolves {M.CARDS[int(state[A.CARD])][1]}"
    if ph == A.PH_BM_TAKE:
        return f"{PLAYER_NAMES[p]} takes a black market card"
    return f"{PLAYER_NAMES[p]} to move"


def _bm_card(ctx: RecordContext, number: int, token: str, text: str) -> int:
    c = M.card_index(text)
    if c is None:
        raise ctx.err(number, token, f"{text} is not a black market card (keys: "
                                     f"{','.join(M.KEYS)}, or numbers 1..15)")
    return c


def _bm_edges(ctx: RecordContext, number: int, token: str, kind: str, m, state: np.ndarray,
              last: bool, seat: int) -> list[tuple[int, int]]:
    """The edges of a black market token (public: every seat sees the same codes)."""
    base = A.O_MARKET << 21
    if kind == "market":
        cards = [_bm_card(ctx, number, token, t) for t in m.group(1).split(".")]
        if len(set(cards)) != len(cards) or len(cards) != A.SUPPLY_SIZE:
            raise ctx.err(number, token, f"the supply is {A.SUPPLY_SIZE} different cards")
        return [(seat, base | (A.SUB_MARKET << 18) | sum(1 << c for c in cards))]
    if kind == "bm":
        who, took, refill = m.groups()
        taker = PLAYER_NAMES[int(state[A.BMP])]
        if who is not None and who != taker:
            raise ctx.err(number, token, f"{taker} takes a card here, not {who}")
        out = [(seat, base | (A.SUB_TAKE << 18) | _bm_card(ctx, number, token, took))]
        if refill is None:
            if int(state[A.BMDECK]) > 0 and not last:
                raise ctx.err(number, token, "the supply is refilled before the ability "
                                             f"resolves: write bm:{taker}={took}>CARD")
            return out
        if int(state[A.BMDECK]) == 0:
            raise ctx.err(number, token, "the black market deck is empty: nothing refills "
                                         f"the supply (write bm:{taker}={took})")
        return out + [(seat, base | (A.SUB_SUPPLY << 18) | _bm_card(ctx, number, token, refill))]
    what, again = m.groups()
    card = M.ABILITIES[kind]
    if again and (card != A.SPYCATION or what in ("-", "+1")):
        raise ctx.err(number, token, "+recruit follows Spycation's agent only")
    x = {"-": A.EFF_NONE, "+1": A.EFF_MOVED}.get(what)
    if x is None:
        x = ctx.name(number, token, what)
    return [(seat, base | (A.SUB_ABILITY << 18) | (card << 5) | (bool(again) << 4) | x)]


def _unit(i: int) -> np.ndarray:
    x = np.zeros(R.MAX_NAMES, dtype=np.int64)
    x[i] = 1
    return x


def _expand(ctx: RecordContext, states: np.ndarray, seat: int, code: int
            ) -> tuple[np.ndarray, np.ndarray]:
    """The distinct children of ``states`` whose observation for ``seat`` is ``code``, and
    the action taken to each (for a full record, where one child is found)."""
    return expand_consistent(ctx.params, states, np.int64(seat), np.int64(code))


def _replay(variant: Variant, toks: list[str], viewer: int | None) -> Replay:
    steps = ReplaySteps(variant, viewer)
    for number, token in enumerate(toks, 1):
        steps.push(token, last=number == len(toks))
    return steps.replay()


class ReplaySteps:
    """A record (``viewer`` None) or a seat's view replayed one token at a time: after
    :meth:`push` of the first k tokens the candidates, the state and the canonical tokens are
    those of the replay of those k tokens (:func:`replay_view`), at the cost of one token,
    where replaying each prefix from the start costs the square of the record's length (a
    search agent's walk along a view, `spycfr query` and reviews: ``view_steps``)."""

    def __init__(self, variant: Variant, viewer: int | None) -> None:
        self.ctx = RecordContext(variant, viewer)
        self.states = self.ctx.rules.initial_state(self.ctx.params)[None, :]
        self.actions: list[int] = []
        self.canon: list[str] = []
        # the last token pushed as the record's last (number, token, state before, down):
        # checked again as not the last once another follows (a swap without its draw)
        self._open: tuple[int, str, np.ndarray, int] | None = None

    def push(self, token: str, last: bool = True) -> np.ndarray:
        """Replay one more token (``last``: read as the record's last, as the replay of the
        tokens so far reads it); the state after it (for a view, one consistent with it).
        RecordError naming the token (its number in the record) if it cannot follow."""
        ctx, states = self.ctx, self.states
        if self._open is not None:  # the prefix's last token is not the last any more
            number, before, down = self._open[0], self._open[2], self._open[3]
            _edges(ctx, number, self._open[1], before, False, down)
            self._open = None
        number = len(self.canon) + 1
        if ctx.viewer is None and "?" in token:  # a full record (a review's, a game's actions)
            raise ctx.err(number, token, "`?` (hidden) is only allowed in a player's view; a "
                                         "full record shows every card")
        downs = set(np.unique(states[:, R.DOWN]).tolist())
        before = states[0]
        down = downs.pop() if len(downs) == 1 else -1
        edges = _edges(ctx, number, token, before, last, down)
        for seat, code in edges:
            nxt, acts = _expand(ctx, states, seat, code)
            if not len(nxt):
                why = _why(ctx, states[0], token)
                if len(states) > 1:
                    why = f"no position consistent with this view allows it (e.g. {why})"
                raise ctx.err(number, token, why)
            states = nxt
            if ctx.viewer is None:
                self.actions.append(int(acts[0]))
        self.canon.append(_canonical(ctx, token, edges, before))
        self.states = states
        if last:
            self._open = (number, token, before, down)
        return states[0]

    def replay(self) -> Replay:
        """The replay of the tokens pushed so far."""
        return Replay(self.ctx.v, self.canon, self.actions if self.ctx.viewer is None else None,
                      self.states[0], self.ctx.viewer, self.states)


def _canonical(ctx: RecordContext, token: str, edges, before: np.ndarray) -> str:
    """The token as spycfr writes it (codes upper case, cards sorted, take's card named)."""
    kind = token.split(":", 1)[0].lower()
    texts = [edge_text(ctx.v, before, code, "") for _, code in edges]
    if kind == "bm":
        return "".join(texts)
    if kind == "deal":
        return f"deal:{texts[0]}|{texts[1]}"
    if kind == "swap":
        return "swap:" + texts[0] + (f">{texts[1]}" if len(texts) > 1 else "")
    if kind == "draw":
        return f"draw:{texts[0]}"
    return texts[0]


def _why(ctx: RecordContext, s: np.ndarray, token: str) -> str:
    """Why no history continues with ``token`` (for a full record: the exact reason)."""
    kind = token.split(":", 1)[0].lower()
    a = int(s[R.ACTIVE])
    if int(s[R.PHASE]) >= A.PH_MARKET:
        if kind != "draw":
            return _bm_why(ctx, s)
        a = int(s[A.BMP])  # a hand refilled after a player's abilities
    me = PLAYER_NAMES[a]
    names = ctx.v.names
    hand = {names[i]: int(s[R.HAND + 8 * a + i]) for i in range(len(names))}
    held = ", ".join(f"{c}x{k}" for c, k in hand.items() if k) or "nothing"
    if kind == "swap":
        if int(s[R.DLEFT + a]) == 0:
            return f"{me} has no discards left"
        if int(s[R.DECKSIZE]) == 0:
            return "the deck is empty: no discard-and-draw"
        return f"{me} cannot swap that card (hand: {held}) or cannot draw that card"
    if kind == "play":
        if len([c for c, k in hand.items() if k]) > 1 and token.split(":")[1].split("/")[0] \
                .upper() == token.split("/")[-1].upper():
            return ("the two cards must have different names (the same name only when the "
                    "whole hand is one name)")
        return f"{me} cannot play that (hand: {held})"
    if kind in ("draw", "deal"):
        deck = {names[i]: int(s[R.DECK + i]) for i in range(len(names))}
        need = int(A.hand_need(s, ctx.params, a) if int(s[R.PHASE]) == A.PH_HAND_DRAW else
                   R.draw_count(s, ctx.params, a)) if kind == "draw" else int(ctx.v.hand)
        given = len(token.split(":", 1)[1].split(".")) if ":" in token else 0
        if kind == "deal":  # a hand too many or too few, on either side
            sides = token.split(":", 1)[1].split("|") if ":" in token else []
            for who, side in zip(PLAYER_NAMES, sides, strict=False):
                if side != "?" and len(side.split(".")) != need:
                    return (f"a hand is {need} cards here, the token gives {who} "
                            f"{len(side.split('.'))}: write {need} cards a side (deal:P1's|"
                            "P2's, ? for the hand the player cannot see)")
        if kind == "draw" and given != need:  # the usual slip: a card too many or too few
            cards = f"{need} card{'s' if need != 1 else ''}"
            return (f"{me} draws {cards} here, the token names {given}: write {cards} "
                    f"(draw:{'.'.join('?' * need)} where they are hidden)")
        return (f"the deck cannot give that: {need} card(s) are drawn from "
                + (", ".join(f"{c}x{k}" for c, k in deck.items() if k) or "an empty deck"))
    if kind == "take":
        return "the face-down card was not that one"
    return "illegal here"


def _bm_why(ctx: RecordContext, s: np.ndarray) -> str:
    """Why a black market token cannot follow (the supply, the deck, the possible choices)."""
    ph = int(s[R.PHASE])
    if ph == A.PH_BM_TAKE:
        return f"that card is not in the supply ({', '.join(M.card_list(s, A.L_SUPPLY))})"
    if ph == A.PH_BM_SUPPLY:
        return "that card is not in the black market deck (it is in the supply, in play or " \
               "discarded)"
    if ph in (A.PH_CHOOSE, A.PH_EFFECT):
        buf = np.empty(int(A.max_actions(ctx.params)), dtype=np.int32)
        probs = np.empty(buf.shape[0])
        k = A.legal_actions(s, ctx.params, buf) if ph == A.PH_CHOOSE else \
            A.chance_outcomes(s, ctx.params, buf, probs)
        labels = [action_label(ctx.v, s, int(x)) for x in buf[:k]]
        return f"{M.CARDS[int(s[A.CARD])][1]} allows only {', '.join(labels)} here"
    return "illegal here"


# --- random records (tests, benchmarks) --------------------------------------------------


def random_playout(variant: Variant, rng, max_tokens: int | None = None) -> list[int]:
    """Tree codes of a random game: legal actions uniformly, chance by its probabilities;
    cut after about ``max_tokens`` decisions when given (a game in progress)."""
    rng = np.random.default_rng(rng)
    params = variant.to_params()
    rules = variant.rules
    s = rules.initial_state(params)
    out = np.empty_like(s)
    buf = np.empty(max(int(rules.max_actions(params)), 2), dtype=np.int32)
    probs = np.empty(buf.shape[0])
    actions: list[int] = []
    decisions = 0
    while int(s[R.PHASE]) != R.PH_OVER:
        if rules.current_player(s, params) == R.CHANCE:
            k = rules.chance_outcomes(s, params, buf, probs)
            a = int(buf[rng.choice(k, p=probs[:k] / probs[:k].sum())])
        else:
            if max_tokens is not None and decisions >= max_tokens:
                break
            k = rules.legal_actions(s, params, buf)
            a = int(buf[rng.integers(k)])
            decisions += 1
        rules.apply_action(s, params, np.int32(a), out)
        s, out = out, s
        actions.append(a)
    return actions


def format_record(variant: Variant, actions, viewer: int | None = None) -> str:
    """The full record of tree codes (or ``viewer``'s view of it)."""
    params = variant.to_params()
    rules = variant.rules
    s = rules.initial_state(params)
    out = np.empty_like(s)
    tokens: tuple[str, ...] = ()
    for a in actions:
        seat = viewer
        if seat is None:  # the seat that sees the edge: the dealt player or the drawer, else
            ph = int(s[R.PHASE])  # the active player (the black market is public)
            seat = ph - R.PH_DEAL0 if ph in (R.PH_DEAL0, R.PH_DEAL1) else int(
                s[A.BMP] if ph == A.PH_HAND_DRAW else s[R.ACTIVE])
        tokens = extend_view(tokens, variant, s, params, a, seat)
        rules.apply_action(s, params, np.int32(a), out)
        s, out = out, s
    if tokens and tokens[-1].startswith("swap:") and tokens[-1].endswith(">"):
        tokens = tokens[:-1] + (tokens[-1][:-1],)  # a pending swap: its draw is not made yet
    return " ".join(tokens)
