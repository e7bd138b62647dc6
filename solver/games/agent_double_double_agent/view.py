"""Replay of one seat's view of an Agent Double Double Agent record: every full history
consistent with it is followed (the numba rules decide each step), so a view is accepted
exactly when some game produces it.

The opponent's loyalty tokens are the one exception to following everything: nothing a
seat sees depends on a hidden token until its agent delivers and reveals it, so the
replay fixes the opponent's assignment up front (the tokens the view reveals, the others
in any order) instead of following all of them.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from spycfr.engine.playout import expand_consistent
from spycfr.errors import SpycfrError
from spycfr.games.agent_double_double_agent import layout as L
from spycfr.games.agent_double_double_agent import rules as R
from spycfr.games.agent_double_double_agent.record import (
    _RE,
    HIDDEN_Q,
    HIDDEN_ZS,
    PLAYER_NAMES,
    Replay,
    Token,
    _err,
    _replay_full,
    _tokens,
    action_of,
    card_label,
    cards_text,
    check_kind,
    deliver_token,
    digits,
    empty_board,
    explain_illegal,
    parse_token,
    seen_kind,
    viewer_of,
)
from spycfr.games.agent_double_double_agent.variant import Variant

MAX_CANDIDATES = 500_000


def _back_kind(variant: Variant, back: int) -> int:
    """The kind (or hidden marker) an opponent's card is known as from its back."""
    if back == L.BACK_ZS:
        return HIDDEN_ZS
    if back == L.BACK_Q:
        return HIDDEN_Q
    if back == 0 and variant.deck_counts[L.K_P]:
        return L.K_P
    return back


def revealed_side(side, z7: int, q: int) -> list[int]:
    """An opponent's side of an agent with its hidden faces revealed (z7 of its 0/7 cards are
    worth 7; q: its ? card's value + 1, or 0)."""
    out = []
    for k in side:
        if k == HIDDEN_ZS:
            out.append(L.K_Z7 if z7 > 0 else L.K_Z0)
            z7 -= 1
        elif k == HIDDEN_Q:
            out.append(L.K_Q0 + q - 1)
        else:
            out.append(k)
    return out


def obs_text(variant: Variant, s: np.ndarray, obs: int, viewer: int, board) -> str:
    """The viewer's token of an observation code (``s``: a state at or after the step, for
    the public facts of a delivery; ``board``: the sides as the viewer knew them)."""
    typ, pay = int(obs) >> L.SHIFT, int(obs) & L.PAYLOAD
    if typ == L.T_LOYAL:
        return "loyal:" + "-".join(map(str, digits(pay, variant.agents)))
    if typ == L.T_DEAL:
        row = variant.deal_sets[0][pay]
        return "deal:" + cards_text([k for k in range(L.NKINDS) for _ in range(row[k])])
    if typ == L.T_FILE:
        return f"file:{card_label(pay & 31)}>{(pay >> 5) + 1}"
    if typ == L.O_FILE_BACK:
        return f"file:{card_label(_back_kind(variant, pay & 31))}>{(pay >> 5) + 1}"
    if typ == L.T_UP:
        return f"up:{card_label(pay)}"
    if typ == L.T_COUNTER:
        return f"counter:{pay + 1}"
    if typ == L.T_DRAW:
        return f"draw:{card_label(pay)}"
    if typ == L.T_REVEAL:
        a, other = pay & 7, 1 - viewer
        sides = [list(board[p * L.A + a]) for p in (0, 1)]
        sides[other] = revealed_side(sides[other], (pay >> 7) & 15, (pay >> 11) & 15)
        tokens = [0, 0]
        tokens[viewer] = int(s[L.LOY + viewer * L.A + a])
        tokens[other] = (pay >> 3) & 15
        return deliver_token(a, tokens[0], tokens[1], sides[0], sides[1],
                             int(s[L.STAT + a]) - L.ST_P1)
    return {L.O_LOYAL_HIDDEN: "loyal:?", L.O_DEAL_HIDDEN: "deal:?",
            L.O_DRAW_HIDDEN: "draw:?"}[typ]


def _opponent_assignment(variant: Variant, toks: list[str], viewer: int) -> list[int]:
    """The opponent's tokens to follow: those the view's deliveries reveal, the rest in order."""
    other = 1 - viewer
    remaining = Counter(variant.tokens)
    assigned: dict[int, int] = {}
    for t in toks:
        m = _RE["deliver"].fullmatch(t)
        if m is None:
            continue
        a, v = int(m.group(1)) - 1, int(m.group(2 + other))
        if 0 <= a < variant.agents and a not in assigned and remaining[v] > 0:
            assigned[a] = v
            remaining[v] -= 1
    rest = iter(sorted(remaining.elements()))
    return [assigned[a] if a in assigned else next(rest) for a in range(variant.agents)]


def _expand(variant: Variant, cands: np.ndarray, viewer: int, obs: int, fixed: int) -> np.ndarray:
    """The children of every candidate that the viewer would observe as ``obs``, deduplicated."""
    found, _ = expand_consistent(variant.params, cands, np.int64(viewer), np.int64(obs),
                                 np.int64(fixed))
    if found.shape[0] > MAX_CANDIDATES:
        raise SpycfrError(f"this view leaves more than {MAX_CANDIDATES:,} hidden positions to "
                          "follow; check it on a smaller variant")
    return found


def _claimed(variant: Variant, viewer: int, own: bool, tok: Token, opp_tokens: list[int]):
    """(the action to follow, or -1 for any, and the observation the token claims)."""
    if tok.kind == "file" and not own:
        k, a = tok.data
        back = int(L.KIND_BACK[k]) if k >= 0 else -k
        return -1, int(L.code(L.O_FILE_BACK, (a << 5) | back))
    if tok.kind == "deliver":
        a, l0, l1, side0, side1, _ = tok.data
        other = 1 - viewer
        side = (side0, side1)[other]
        qs = [k for k in side if L.KIND_BACK[k] == L.BACK_Q]
        q = qs[0] - L.K_Q0 + 1 if qs else 0
        payload = a | ((l0, l1)[other] << 3) | (side.count(L.K_Z7) << 7) | (q << 11)
        return int(L.code(L.T_REVEAL, a)), int(L.code(L.T_REVEAL, payload))
    if not tok.hidden:
        action = action_of(variant, tok)
        return action, action
    if tok.kind == "loyal":
        return int(L.code(L.T_LOYAL, sum(t * 10**a for a, t in enumerate(opp_tokens)))), \
            int(L.code(L.O_LOYAL_HIDDEN, 0))
    if tok.kind == "deal":
        return -1, int(L.code(L.O_DEAL_HIDDEN, 0))
    return -1, int(L.code(L.O_DRAW_HIDDEN, 0))


def _possible(variant: Variant, cands: np.ndarray, viewer: int, fixed: int, board) -> list[str]:
    """The tokens the viewer could have written at this step (for errors)."""
    params = variant.params
    seen = set()
    for s in cands[:200]:
        acts = R.legal_list(s, params) if fixed < 0 else [fixed]
        for a in acts:
            obs = int(R.observation(s, params, np.int32(a), viewer))
            seen.add(obs_text(variant, R.step(s, params, a), obs, viewer, board))
    return sorted(seen)


def replay_view_tokens(variant: Variant, toks: list[str], viewer: int) -> Replay:
    """Replay ``viewer``'s view (tokens) over every full history consistent with it."""
    params = variant.params
    me, opp = PLAYER_NAMES[viewer], PLAYER_NAMES[1 - viewer]
    opp_tokens = _opponent_assignment(variant, toks, viewer)
    cands = R.initial_state(params)[None, :].copy()
    board = empty_board()
    canon: list[str] = []
    for i, token in enumerate(toks):
        n = i + 1
        s0 = cands[0]
        if int(s0[L.PHASE]) == L.PH_OVER:
            raise _err(n, token, f"the game is over after token {n - 1}")
        tok = parse_token(variant, n, token)
        check_kind(variant, s0, n, token, tok, None)
        own = int(s0[L.MOVER]) == viewer
        words = {"loyal": "loyalty tokens", "deal": "first hand", "draw": "draw",
                 "file": "card"}.get(tok.kind)
        if tok.kind in ("loyal", "deal", "draw", "file") and own and tok.hidden:
            verb = "are" if tok.kind == "loyal" else "is"
            raise _err(n, token, f"in {me}'s view {me}'s own {words} {verb} written out")
        if tok.kind in ("loyal", "deal", "draw") and not own and not tok.hidden:
            raise _err(n, token, f"{me} cannot see {opp}'s {words}: write `{tok.kind}:?`")
        if tok.kind == "file" and not own and tok.data[0] >= 0 \
                and seen_kind(tok.data[0]) != tok.data[0]:
            k, a = tok.data
            raise _err(n, token, f"{me} cannot see the face of {opp}'s card: write "
                                 f"`file:{card_label(seen_kind(k))}>{a + 1}`")
        if tok.kind == "deliver":
            want = (int(s0[L.PENDING]) & -int(s0[L.PENDING])).bit_length() - 1
            if tok.data[0] != want:
                raise _err(n, token, f"agent {want + 1} delivers here (`deliver:{want + 1}:..`)")
            theirs = tok.data[1 + (1 - viewer)]
            if theirs != opp_tokens[want]:
                raise _err(n, token, f"{opp}'s token under agent {want + 1} cannot be {theirs}: "
                                     f"{opp}'s tokens are {variant.loyalty}, each under one "
                                     "agent")
        fixed, obs = _claimed(variant, viewer, own, tok, opp_tokens)
        if own and tok.kind in ("loyal", "deal", "file", "up", "counter", "draw") \
                and fixed not in R.legal_list(s0, params):
            raise _err(n, token, explain_illegal(variant, s0, tok))
        nxt = _expand(variant, cands, viewer, obs, fixed)
        if nxt.shape[0] == 0:
            alts = _possible(variant, cands, viewer, fixed if own else -1, board)
            shown = ", ".join(f"`{a}`" for a in alts[:8]) + (", ..." if len(alts) > 8 else "")
            raise _err(n, token, f"impossible after the earlier tokens (possible: {shown})")
        canonical = obs_text(variant, nxt[0], obs, viewer, board)
        if canonical != token and tok.kind != "deal":
            raise _err(n, token, f"should be written `{canonical}`")
        board = _board_after(board, s0, tok, obs, viewer)
        canon.append(canonical)
        cands = nxt
    return Replay(variant, canon, None, cands[0], viewer, cands, board)


def _board_after(board: tuple, s0: np.ndarray, tok: Token, obs: int, viewer: int) -> tuple:
    """The sides as the viewer knows them after a token (a delivery reveals its faces)."""
    pay = int(obs) & L.PAYLOAD
    if tok.kind == "file":
        p, (k, a) = int(s0[L.MOVER]), tok.data
        i = p * L.A + a
        return board[:i] + (board[i] + (k,),) + board[i + 1:]
    if tok.kind == "deliver":
        a, other = pay & 7, 1 - viewer
        i = other * L.A + a
        side = tuple(revealed_side(board[i], (pay >> 7) & 15, (pay >> 11) & 15))
        return board[:i] + (side,) + board[i + 1:]
    return board


def replay(variant: Variant, text: str) -> Replay:
    """Replay a full record, or a seat's view (one with the opponent's `loyal:?`)."""
    toks = _tokens(text)
    viewer = viewer_of(toks)
    if viewer is not None:
        return replay_view_tokens(variant, toks, viewer)
    return _replay_full(variant, toks)
