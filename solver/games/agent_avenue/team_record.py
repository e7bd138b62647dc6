"""Records of the team variant: every token names the seat that moved (``S1`` .. ``S4``;
team 0 holds S1 and S2), and a seat's view shows only what it observes (``?`` for hidden
cards). Tokens: ``S2:deal:EN.CB``, ``S1:lead:S2`` (the captain names the face-up seat),
``S2:discard:DD``, ``S2:draw:CB``, ``S2:up:EN``, ``S1:down:CB``, ``S3:play:EN/CB`` (a lone
player's pair), ``S3:take:up=CB`` (the face-down card, revealed); hidden: ``S2:deal:?``,
``S2:discard:?``, ``S2:draw:?.?``, ``S1:down:?``."""

from __future__ import annotations

import numpy as np

from solver.games.agent_avenue import rules as R
from solver.games.agent_avenue import team_rules as T
from solver.games.agent_avenue.record import draw_text
from solver.games.agent_avenue.variant import Variant


def seat_name(seat: int) -> str:
    return f"S{seat + 1}"


def _actor(state: np.ndarray, params) -> int:
    """The seat that moves or draws at ``state``."""
    if int(state[T.PHASE]) == T.PH_RECRUIT:
        return int(T.current_seat(state, params))
    if int(state[T.PHASE]) == T.PH_LEAD:
        return int(T.captain(params, int(state[T.ACTIVE])))
    return int(state[T.SEAT])


def token(variant: Variant, state: np.ndarray, params, action: int, viewer: int) -> str:
    """``viewer``'s record token for ``action`` (or chance outcome) applied at ``state``."""
    obs = int(T.observation(state, params, np.int32(action), viewer))
    kind, pay = obs >> 21, obs & ((1 << 21) - 1)
    names = variant.names
    who = seat_name(_actor(state, params))
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


def action_label(variant: Variant, state: np.ndarray, params, action: int) -> str:
    """Label of a legal action or chance outcome at ``state``: the full token, no seat."""
    seat = _actor(state, params)
    return token(variant, state, params, action, seat).split(":", 1)[1]
