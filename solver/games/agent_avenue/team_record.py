"""Records of the team variant: every token names the seat that moved (``S1`` .. ``S4``;
team 0 holds S1 and S2), and a seat's view shows only what it observes (``?`` for hidden
cards). Tokens: ``S2:deal:EN.CB``, ``S1:lead:S2`` (the captain names the face-up seat),
``S2:discard:DD``, ``S2:draw:CB``, ``S2:up:EN``, ``S1:down:CB``, ``S3:play:EN/CB`` (a lone
player's pair), ``S3:take:up=CB`` (the face-down card, revealed); hidden: ``S2:deal:?``,
``S2:discard:?``, ``S2:draw:?.?``, ``S1:down:?``.

Parsing works as for the plain game (record.py): each token is the observation code of one
tree edge, written from the seat that sees it (the mover or the drawer; a view: the viewer),
and the replay follows every hidden history consistent with the codes, so the numba rules
alone decide legality. A record may end after a discard whose draw is not made yet; legal
moves are labelled as tokens ready to paste (``S3:take:up``: the revealed card may be left
out where it follows from the record).
"""

from __future__ import annotations

import re

import numpy as np

from spycfr.engine.playout import expand_consistent
from spycfr.errors import RecordError
from spycfr.games.agent_avenue import rules as R
from spycfr.games.agent_avenue import team_rules as T
from spycfr.games.agent_avenue.record import CARD_RE, CARDS_RE, RecordContext, Replay, draw_text
from spycfr.games.agent_avenue.variant import Variant

_TOKEN = re.compile(r"[Ss](\d):([A-Za-z]+):(.*)")
_PAYLOAD = {
    "deal": re.compile(CARDS_RE), "draw": re.compile(CARDS_RE), "lead": re.compile(r"[Ss](\d)"),
    "discard": re.compile(CARD_RE), "up": re.compile(CARD_RE), "down": re.compile(CARD_RE),
    "play": re.compile(rf"{CARD_RE}/{CARD_RE}"), "take": re.compile(rf"(up|down)(?:={CARD_RE})?"),
}
SHAPES = ("S1:deal:EN.CB, S1:lead:S2, S2:discard:DD, S2:draw:CB, S2:up:EN, S1:down:CB, "
          "S3:play:EN/CB, S3:take:up=CB")
EXPECTED = {T.PH_DEAL: ("deal",), T.PH_LEAD: ("lead",), T.PH_UP: ("discard", "up"),
            T.PH_DOWN: ("discard", "down"), T.PH_PAIR: ("discard", "play"),
            T.PH_SWAP_DRAW: ("draw",), T.PH_REFILL: ("draw",), T.PH_RECRUIT: ("take",)}


def seat_name(seat: int) -> str:
    return f"S{seat + 1}"


def actor(state: np.ndarray, params) -> int:
    """The seat that moves or draws at ``state``."""
    if int(state[T.PHASE]) == T.PH_RECRUIT:
        return int(T.current_seat(state, params))
    if int(state[T.PHASE]) == T.PH_LEAD:
        return int(T.captain(params, int(state[T.ACTIVE])))
    return int(state[T.SEAT])


# --- formatting ------------------------------------------------------------------------


def obs_token(variant: Variant, state: np.ndarray, params, obs: int) -> str:
    """The record token of observation code ``obs`` of an edge from ``state``."""
    kind, pay = obs >> 21, obs & ((1 << 21) - 1)
    names = variant.names
    who = seat_name(actor(state, params))
    if kind == R.O_DEAL:
        return f"{who}:deal:{draw_text(variant, pay)}"
    if kind == R.O_DEAL_HIDDEN:
        return f"{who}:deal:?"
    if kind == R.O_DRAW:
        text = ".".join(["?"] * (pay & 0xFFFF)) if pay >> 20 else draw_text(variant, pay)
        return f"{who}:draw:{text}"
    if kind == T.O_LEAD:
        lead = int(T.captain(params, int(state[T.ACTIVE]))) + (pay & 1)
        return f"{who}:lead:{seat_name(lead)}"
    if kind == R.O_SWAP:
        return f"{who}:discard:{'?' if pay == R.HIDDEN else names[pay]}"
    if kind == R.O_PLAY:
        card = pay & 15
        shown = "?" if card == R.HIDDEN else names[card]
        if pay & T.O_UP:
            return f"{who}:up:{shown}"
        if pay & T.O_DOWN:
            return f"{who}:down:{shown}"
        return f"{who}:play:{names[(pay >> 4) & 15]}/{shown}"
    if kind == R.O_TAKE:
        return f"{who}:take:{'down' if (pay >> 4) & 1 else 'up'}={names[pay & 15]}"
    raise ValueError(f"not an Agent Avenue team observation code: {obs}")


def token(variant: Variant, state: np.ndarray, params, action: int, viewer: int) -> str:
    """``viewer``'s record token for ``action`` (or chance outcome) applied at ``state``."""
    return obs_token(variant, state, params,
                     int(T.observation(state, params, np.int32(action), viewer)))


def action_label(variant: Variant, state: np.ndarray, params, action: int) -> str:
    """Label of a legal action or chance outcome at ``state``: the mover's token without
    the seat; a recruitment is ``take:up`` or ``take:down`` (the recruiter does not know the
    face-down card before it chooses)."""
    if int(state[T.PHASE]) == T.PH_RECRUIT:
        return f"take:{'down' if action & 1 else 'up'}"
    return token(variant, state, params, action, actor(state, params)).split(":", 1)[1]


def format_record(variant: Variant, actions, viewer: int | None = None) -> str:
    """The full record of tree codes (each token from the seat that sees it), or
    ``viewer``'s view of it."""
    params = variant.to_params()
    s = T.initial_state(params)
    out = np.empty_like(s)
    tokens = []
    for a in actions:
        tokens.append(token(variant, s, params, a, actor(s, params) if viewer is None
                            else viewer))
        T.apply_action(s, params, np.int32(a), out)
        s, out = out, s
    return " ".join(tokens)


# --- replay ----------------------------------------------------------------------------


def replay(variant: Variant, text: str) -> Replay:
    """Replay a full record, or a seat's view when it contains ``?`` (the viewer is the
    first seat whose deal it shows); RecordError naming the token and why if illegal."""
    toks = text.split()
    viewer = None
    if "?" in text:
        shown = [m for m in map(_TOKEN.fullmatch, toks) if m and m.group(2).lower() == "deal"
                 and "?" not in m.group(3)]
        if not shown:
            raise RecordError("a seat's view (it writes ? for hidden cards) shows the "
                              "viewer's own deal, e.g. S2:deal:EN.CB")
        viewer = int(shown[0].group(1)) - 1
        if not 0 <= viewer < variant.num_seats:
            raise RecordError(f"{seat_name(viewer)} is not a seat of this variant "
                              f"(S1..S{variant.num_seats})")
    return _replay(variant, toks, viewer)


def replay_view(variant: Variant, text: str, seat: int) -> Replay:
    """Replay seat ``seat``'s view of a record (``?`` for what the seat cannot see)."""
    return _replay(variant, text.split(), seat)


def _replay(variant: Variant, toks: list[str], viewer: int | None) -> Replay:
    ctx = RecordContext(variant, viewer)
    states = T.initial_state(ctx.params)[None, :]
    actions: list[int] = []
    canon: list[str] = []
    for number, tok in enumerate(toks, 1):
        seat, code = _edge(ctx, number, tok, states)
        nxt, acts = expand_consistent(ctx.params, states, np.int64(seat), np.int64(code))
        if not len(nxt):
            why = _why(ctx, states[0], tok)
            if len(states) > 1:
                why = f"no position consistent with this view allows it (e.g. {why})"
            raise ctx.err(number, tok, why)
        canon.append(obs_token(variant, states[0], ctx.params, code))
        states = nxt
        if viewer is None:
            actions.append(int(acts[0]))
    return Replay(variant, canon, actions if viewer is None else None, states[0], viewer,
                  states)


def _edge(ctx: RecordContext, number: int, tok: str, states: np.ndarray) -> tuple[int, int]:
    """(observing seat, observation code) of the tree edge that ``tok`` records."""
    m = _TOKEN.fullmatch(tok)
    kind = m.group(2).lower() if m else ""
    pm = _PAYLOAD[kind].fullmatch(m.group(3)) if m is not None and kind in _PAYLOAD else None
    if m is None or pm is None:
        raise ctx.err(number, tok, f"not a token (shapes: {SHAPES}; ? for hidden cards)")
    params, seats = ctx.params, ctx.v.num_seats
    who = int(m.group(1)) - 1
    if not 0 <= who < seats:
        raise ctx.err(number, tok, f"{seat_name(who)} is not a seat of this variant "
                                   f"(S1..S{seats})")
    s = states[0]  # every consistent state agrees on the public phase and the mover
    ph = int(s[T.PHASE])
    if ph == T.PH_OVER:
        raise ctx.err(number, tok, "the game is already over")
    mover = actor(s, params)
    if kind not in EXPECTED[ph] or who != mover:
        raise ctx.err(number, tok, "expected " + " or ".join(
            f"{seat_name(mover)}:{k}" for k in EXPECTED[ph]) + " here")
    obs = mover if ctx.viewer is None else ctx.viewer
    sees = bool(T.sees(params, obs, mover))

    def check(hidden: bool, what: str) -> None:
        if hidden and sees:
            raise ctx.err(number, tok, f"{seat_name(obs)} sees {seat_name(mover)}'s {what}: "
                                       "name the card(s)")
        if not hidden and not sees:
            raise ctx.err(number, tok, f"{seat_name(obs)} cannot see {seat_name(mover)}'s "
                                       f"{what}: write ?")

    if kind in ("deal", "draw"):
        code = ctx.cards(number, tok, pm.group(1))
        hidden = isinstance(code, tuple)
        check(hidden, "hand" if kind == "deal" else "draw")
        if kind == "deal":
            if isinstance(code, tuple) and code[1] != 1:
                raise ctx.err(number, tok, "a hidden hand is written with one ?")
            if isinstance(code, tuple):
                return obs, R.O_DEAL_HIDDEN << 21
            return obs, (R.O_DEAL << 21) | code
        return obs, (R.O_DRAW << 21) | ((1 << 20) | code[1] if isinstance(code, tuple)
                                        else code)
    if kind == "lead":
        cap = int(T.captain(params, int(s[T.ACTIVE])))
        lead = int(pm.group(1)) - 1
        if lead not in (cap, cap + 1):
            raise ctx.err(number, tok, f"the face-up seat is {seat_name(cap)} or "
                                       f"{seat_name(cap + 1)} (the team on turn)")
        return obs, (T.O_LEAD << 21) | (lead - cap)
    if kind == "take":
        side = 1 if pm.group(1).lower() == "down" else 0
        if pm.group(2) is None:
            downs = np.unique(states[:, T.DOWN])
            if len(downs) != 1:
                raise ctx.err(number, tok, "write the face-down card the recruitment "
                                           f"reveals: S{who + 1}:take:{pm.group(1)}=X")
            down = int(downs[0])
        else:
            down = ctx.name(number, tok, pm.group(2))
            if down == R.HIDDEN:
                raise ctx.err(number, tok, "the recruitment reveals the face-down card: "
                                           "name it")
        return obs, (R.O_TAKE << 21) | (side << 4) | down
    cards = [ctx.name(number, tok, g) for g in pm.groups()]
    if kind == "up" or kind == "play":
        if cards[0] == R.HIDDEN:
            raise ctx.err(number, tok, "the face-up card is seen by every seat")
        if kind == "up":
            return obs, (R.O_PLAY << 21) | T.O_UP | cards[0]
    check(cards[-1] == R.HIDDEN, {"discard": "discard", "down": "face-down card",
                                  "play": "face-down card"}[kind])
    if kind == "discard":
        return obs, (R.O_SWAP << 21) | cards[0]
    if kind == "down":
        return obs, (R.O_PLAY << 21) | T.O_DOWN | cards[0]
    return obs, (R.O_PLAY << 21) | (cards[0] << 4) | cards[1]


def _why(ctx: RecordContext, s: np.ndarray, tok: str) -> str:
    """Why no history continues with ``tok`` (for a full record: the exact reason)."""
    kind = tok.split(":")[1].lower()
    params, names = ctx.params, ctx.v.names
    seat = actor(s, params)
    me = seat_name(seat)
    held = ", ".join(f"{c}x{int(s[T.HAND + 8 * seat + i])}" for i, c in enumerate(names)
                     if s[T.HAND + 8 * seat + i]) or "nothing"
    if kind == "discard":
        if int(s[T.DLEFT + seat]) == 0:
            return f"{me} has no discards left"
        if int(s[T.DECKSIZE]) == 0:
            return "the deck is empty: no discard-and-draw"
        return f"{me} holds no such card (hand: {held})"
    if kind == "down" and tok.rsplit(":", 1)[1].upper() == names[int(s[T.UP])]:
        face_up = int(s[T.UP])
        if any(s[T.HAND + 8 * seat + i] for i in range(len(names)) if i != face_up):
            return (f"the face-down card must differ from the face-up {names[face_up]} (the "
                    f"same name only when every card of the hand is {names[face_up]}; hand: "
                    f"{held})")
    if kind == "play" and held.count("x") > 1:
        up, down = tok.rsplit(":", 1)[1].upper().split("/")
        if up == down:
            return ("the two cards must have different names (the same name only when the "
                    "whole hand is one name)")
    if kind in ("up", "down", "play"):
        return f"{me} cannot play that (hand: {held})"
    if kind in ("deal", "draw"):
        deck = ", ".join(f"{c}x{int(s[T.DECK + i])}" for i, c in enumerate(names)
                         if s[T.DECK + i]) or "an empty deck"
        ph = int(s[T.PHASE])
        need = ctx.v.hand if ph == T.PH_DEAL else 1 if ph == T.PH_SWAP_DRAW else int(
            T.draw_count(s, params, seat))
        return f"the deck cannot give that: {need} card(s) are drawn from {deck}"
    if kind == "take":
        return "the face-down card was not that one"
    return "illegal here"
