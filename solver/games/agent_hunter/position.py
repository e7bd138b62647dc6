"""Agent Hunter positions as data and words: what ``spycfr record check`` and ``query``
show after a record (full, or one player's view with what it cannot know left out)."""

from __future__ import annotations

import numpy as np

from spycfr.games.agent_hunter import rules as R
from spycfr.games.agent_hunter.record import (
    PLAYER_NAMES,
    Replay,
    ViewSteps,
    action_label,
    replay,
    replay_view,
)
from spycfr.games.agent_hunter.variant import Variant

PHASE_NAMES = {R.PH_PLACE1: "placement", R.PH_PLACE2: "placement", R.PH_TURN: "turn",
               R.PH_REFILL_ATT: "refill", R.PH_REFILL_DEF: "refill", R.PH_OVER: "over"}


def _cards(mask: int) -> list[int]:
    return [c for c in range(16) if (mask >> c) & 1]


def _agreed(values):
    """The common value of ``values``, or None when they differ (hidden information)."""
    first = values[0]
    return first if all(v == first for v in values) else None


def _hand_facts(cands: np.ndarray, player: int) -> tuple[list[int] | None, int | None,
                                                          int | None]:
    """``player``'s hand, hand size and hand sum where every candidate position agrees on
    it (else None), from the distinct hands of the candidates' hand column: one pass over
    the candidates, where each of the three read every candidate (the sum a rules call a
    candidate)."""
    column = cands[:, player * R.PSTRIDE + R.O_HAND]
    _, first = np.unique(column, return_index=True)
    hands = [int(column[i]) for i in first]
    known = hands[0] if len(hands) == 1 else None
    return (None if known is None else _cards(known), _agreed([h.bit_count() for h in hands]),
            _agreed([int(R.hand_sum(cands[i], player)) for i in first]))


def position_summary(rep: Replay) -> dict:
    """The position after a replayed record, as plain data (JSON-ready).

    For a view, what the viewer cannot know (the opponent's house cards and, when hidden
    cards decide them, its hand, hand sum and payoff) is ``"?"``/None. The opponent's hand
    is shown where every position consistent with the view agrees on it: before it places
    it holds all its cards (the spec's set-up), and later answers can pin it down.
    ``hand_size`` is how many cards a hand holds, public even where the hand is hidden.
    """
    v = rep.variant
    params = v.to_params()
    s = rep.state
    cands = rep.candidates if rep.candidates is not None else s[None, :]
    phase = int(s[R.PHASE])
    terminal = phase == R.PH_OVER
    to_move = int(s[R.TO_MOVE])
    players = []
    facts = [_hand_facts(cands, p) for p in range(2)]
    for p in range(2):
        base = p * R.PSTRIDE
        known = rep.viewer is None or rep.viewer == p
        houses = []
        for i in range(v.houses):
            c = int(s[base + R.O_HOUSE + i])
            status = {R.ELIM: "eliminated", R.EMPTY: "empty"}.get(c, "in play")
            card = c if c >= 0 and known else ("?" if c >= 0 else None)
            houses.append({"house": i + 1, "status": status, "card": card,
                           "decoys": int(s[base + R.O_DECOYS + i])})
        players.append({
            "houses": houses,
            "hand": _cards(int(s[base + R.O_HAND])) if known else facts[p][0],
            # how many cards it holds is public (placements, switches and answers say it):
            # a hidden hand is drawn and written with its size ("?" where views disagree)
            "hand_size": facts[p][1],
            "out": _cards(int(s[base + R.O_OUT])),
            "supply": int(s[base + R.O_SUPPLY]),
        })
    hand_sum = [facts[p][2] for p in range(2)]
    payoff = None
    if terminal:
        u = _agreed([float(R.returns_p1(c, params)) for c in cands])
        payoff = None if u is None else [u + 0.0, 0.0 - u]  # no -0.0 in the output
    legal = None
    if not terminal and (rep.viewer is None or rep.viewer == to_move):
        buf = np.empty(R.max_actions(v), dtype=np.int32)
        n = R.legal_actions(s, params, buf)
        legal = [action_label(s, params, int(a)) for a in buf[:n]]
    refill = None
    if phase in (R.PH_REFILL_ATT, R.PH_REFILL_DEF):
        refill = {"player": PLAYER_NAMES[to_move], "house": int(s[R.REFILL]) + 1}
    return {
        "valid": True,
        "error": None,
        "record": rep.record,
        "view": None if rep.viewer is None else PLAYER_NAMES[rep.viewer],
        "moves": len(rep.tokens),
        "turns": int(s[R.TURN]),
        "phase": PHASE_NAMES[phase],
        "terminal": terminal,
        "to_move": None if terminal else PLAYER_NAMES[to_move],
        "pending_refill": refill,
        "vp": [int(R.vp(s, 0)), int(R.vp(s, 1))],
        "hand_sum": hand_sum,
        "payoff": payoff,
        "legal_moves": legal,
        "players": players,
        "consistent_positions": None if rep.candidates is None else int(cands.shape[0]),
        "variant": v.as_dict(),
    }


NULL_SUMMARY = {
    "valid": False, "error": None, "record": None, "view": None, "moves": None, "turns": None,
    "phase": None, "terminal": None, "to_move": None, "pending_refill": None, "vp": None,
    "hand_sum": None, "payoff": None, "legal_moves": None, "players": None,
    "consistent_positions": None, "variant": None,
}


def summary(variant: Variant, text: str) -> dict:
    """The position after a full record or a view (RecordError if illegal)."""
    return position_summary(replay(variant, text))


def view_key(variant: Variant, text: str, player: int) -> tuple[str, dict]:
    """(``player``'s information-state key, position summary) of the view ``text``."""
    rep = replay_view(variant, text, player)
    return " ".join(rep.tokens), position_summary(rep)


def view_state(variant: Variant, text: str, player: int) -> np.ndarray:
    """One full state consistent with ``player``'s view ``text``."""
    return replay_view(variant, text, player).state


def view_steps(variant: Variant, player: int) -> ViewSteps:
    """``player``'s view replayed a token at a time: ``push(token)`` gives the state that
    :func:`view_state` gives for the tokens pushed so far, at the cost of one token (a house
    attack and its refill one token, as the notation writes them)."""
    return ViewSteps(variant, player)


def _decided(info: dict, variant: Variant) -> str:
    """What decided an ended game, with a space after it ('' where nothing says): the VP,
    or equal VP and the hand sums (``payoff=win``'s tie-break). The end said only "P2 wins"
    where both seats had 0 VP and the hand sums (42 to 39) decided it."""
    vp, sums = info["vp"], info["hand_sum"]
    if vp[0] != vp[1]:
        return f"on VP, {vp[0]} to {vp[1]} "
    if variant.payoff != "win" or None in sums:
        return f"with the VP equal at {vp[0]} "
    if sums[0] == sums[1]:
        return f"with the VP equal at {vp[0]} and the hand sums at {sums[0]} "
    return f"on hand sums, {sums[0]} to {sums[1]}, the VP equal at {vp[0]} "


def position_lines(info: dict, variant: Variant) -> list[str]:
    """The position of a summary in words, for the terminal."""
    lines = [f"agent-hunter  {variant.describe()}"]
    view = f"  (view of {info['view']})" if info["view"] else ""
    lines.append(f"record: {info['record'] or '(empty)'}{view}")
    lines.append(f"moves: {info['moves']}   turns played: {info['turns']}")
    for p, pl in enumerate(info["players"]):
        houses = []
        for h in pl["houses"]:
            if h["status"] == "eliminated":
                inner = "eliminated"
            elif h["status"] == "empty":
                inner = "empty"
            else:
                inner = str(h["card"])
            dec = f" +{h['decoys']} decoy{'s' if h['decoys'] != 1 else ''}" if h["decoys"] else ""
            houses.append(f"{h['house']}:[{inner}]{dec}")
        hand = " ".join(map(str, pl["hand"])) if pl["hand"] is not None else "?"
        if pl["hand"] is None and pl.get("hand_size") is not None:
            hand += f" ({pl['hand_size']} card{'s' if pl['hand_size'] != 1 else ''})"
        out = " ".join(map(str, pl["out"])) or "-"
        hs = info["hand_sum"][p]
        lines.append(f"P{p + 1}  houses {'  '.join(houses)}")
        lines.append(f"    hand: {hand or '-'}   out: {out}   decoys in supply: {pl['supply']}   "
                     f"VP: {info['vp'][p]}   hand sum: {'?' if hs is None else hs}")
    if info["terminal"]:
        if info["payoff"] is None:
            lines.append("game over: the result depends on cards hidden from this view")
        else:
            u = info["payoff"][0]
            who = "P1 wins" if u > 0 else "P2 wins" if u < 0 else "draw"
            lines.append(f"game over: {who} {_decided(info, variant)}(payoff P1 {u:+g}, "
                         f"P2 {info['payoff'][1]:+g})")
        return lines
    what = "to move"
    if info["pending_refill"]:
        what = f"to refill house {info['pending_refill']['house']}"
    lines.append(f"{info['to_move']} {what}")
    legal = info["legal_moves"]
    if legal is None:
        lines.append("legal moves: hidden from this view")
    elif len(legal) > 60:
        lines.append(f"legal moves ({len(legal)}): {' '.join(legal[:60])} ... (--json lists all)")
    else:
        lines.append(f"legal moves ({len(legal)}): {' '.join(legal)}")
    return lines
