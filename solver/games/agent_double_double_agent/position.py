"""Agent Double Double Agent positions as data and words: what ``spycfr record check`` and
``query`` show after a record (full, or one seat's view with what it cannot know left out)."""

from __future__ import annotations

import textwrap

import numpy as np

from spycfr.games.agent_double_double_agent import layout as L
from spycfr.games.agent_double_double_agent import rules as R
from spycfr.games.agent_double_double_agent.record import (
    PLAYER_NAMES,
    Replay,
    card_label,
    edge_token,
)
from spycfr.games.agent_double_double_agent.variant import Variant, card_words
from spycfr.games.agent_double_double_agent.view import replay, replay_view_tokens


def _agreed(values):
    """The common value of ``values``, or None when they differ (hidden information)."""
    first = values[0]
    return first if all(v == first for v in values) else None


def _hand(s: np.ndarray, p: int) -> list[str]:
    counts = s[L.HAND + p * L.NKINDS:L.HAND + (p + 1) * L.NKINDS]
    return [card_label(k) for k in range(L.NKINDS) for _ in range(int(counts[k]))]


def _awaiting(s: np.ndarray) -> str:
    ph, who = int(s[L.PHASE]), PLAYER_NAMES[int(s[L.MOVER])]
    if ph == L.PH_REVEAL:
        a = (int(s[L.PENDING]) & -int(s[L.PENDING])).bit_length() - 1
        return f"agent {a + 1} delivers (its tokens and cards are revealed)"
    return {L.PH_LOYAL: f"{who} assigns loyalty tokens", L.PH_DEAL: f"{who}'s first hand is dealt",
            L.PH_PLAY: f"{who} plays a card", L.PH_COUNTER: f"{who} activates a counter",
            L.PH_DRAW: f"{who} draws", L.PH_OVER: "game over"}[ph]


def position_summary(rep: Replay) -> dict:
    """The position after a replayed record, as plain data (JSON-ready); in a view, what the
    viewer cannot know is None (a token, a hand) or ``0/7=?`` / ``?=?`` (a card's face)."""
    v = rep.variant
    params = v.params
    s = rep.state
    cands = rep.candidates if rep.candidates is not None else s[None, :]
    viewer = rep.viewer
    ph = int(s[L.PHASE])
    terminal = ph == L.PH_OVER
    mover = int(s[L.MOVER])
    pending = int(s[L.PENDING])
    agents = []
    for a in range(v.agents):
        stat = int(s[L.STAT + a])
        revealed = stat != L.ST_PLAY and not (pending >> a) & 1
        pos = int(s[L.POS + a])
        bonus = "P1" if pos == 0 else "P2" if pos == v.track - 1 else None
        tokens = [int(s[L.LOY + p * L.A + a]) if (viewer in (None, p) or revealed)
                  and int(s[L.LOY + p * L.A + a]) >= 0 else None for p in (0, 1)]
        agents.append({
            "agent": a + 1,
            "status": "in play" if stat == L.ST_PLAY else (
                "delivering" if viewer is not None and not revealed else f"delivered to P{stat}"),
            "threshold": int(s[L.THR + a]),
            "plus_one": a in v.plus_agents,
            "counter": {"space": pos + 1, "side": PLAYER_NAMES[int(L.side_of(s, params, a))],
                        "activated": bool(s[L.ACT + a]), "bonus": bonus},
            "tokens": tokens,
            "cards": [[card_label(k) for k in rep.board[p * L.A + a]] for p in (0, 1)],
        })
    scores_known = viewer is None or pending == 0
    players = []
    for p in (0, 1):
        known = viewer in (None, p)
        players.append({
            "hand": _hand(s, p) if known else None,
            "hand_size": int(s[L.NHAND + p]),
            "pile": int(s[L.NPILE + p]),
            "score": int(s[L.SCORE + p]) if scores_known else None,
            "score_cards": int(s[L.SCARDS + p]) if scores_known else None,
            "turns": int(s[L.PTURN + p]),
        })
    payoff = None
    if terminal:
        u = _agreed([float(R.returns_p1(c, params)) for c in cands])
        payoff = None if u is None else [u + 0.0, 0.0 - u]
    legal = None
    if ph in (L.PH_LOYAL, L.PH_PLAY, L.PH_COUNTER) and viewer in (None, mover):
        legal = [edge_token(v, s, a, mover, rep.board) for a in R.legal_list(s, params)]
    return {
        "valid": True,
        "error": None,
        "record": rep.record,
        "view": None if viewer is None else PLAYER_NAMES[viewer],
        "tokens": len(rep.tokens),
        "turns": int(s[L.TURN]),
        "phase": L.PHASE_NAMES[ph],
        "terminal": terminal,
        "to_move": None if terminal else PLAYER_NAMES[mover],
        "awaiting": _awaiting(s),
        "payoff": payoff,
        "legal_moves": legal,
        "agents": agents,
        "players": players,
        "consistent_positions": None if rep.candidates is None else int(cands.shape[0]),
        "variant": v.as_dict(),
    }


NULL_SUMMARY = {
    "valid": False, "error": None, "record": None, "view": None, "tokens": None, "turns": None,
    "phase": None, "terminal": None, "to_move": None, "awaiting": None, "payoff": None,
    "legal_moves": None, "agents": None, "players": None, "consistent_positions": None,
    "variant": None,
}


def summary(variant: Variant, text: str) -> dict:
    """The position after a full record or a view (RecordError if illegal)."""
    return position_summary(replay(variant, text))


def view_key(variant: Variant, text: str, player: int) -> tuple[str, dict]:
    """(``player``'s information-state key, position summary) of the view ``text``."""
    if not isinstance(text, str):
        text = ""
    rep = replay_view_tokens(variant, text.split(), player)
    return rep.record, position_summary(rep)


def position_lines(info: dict, variant: Variant) -> list[str]:
    """The position of a summary in words, for the terminal."""
    # the variant in words and its cards explained, where the --deck parameters were shown
    # as typed (deck=1,P,?=2 start=121) and the cards' notation nowhere
    deck = (f"deck {variant.deck}" if variant.deck.count(",") < 6 else
            f"deck of {variant.deck_size} cards")
    lines = textwrap.wrap(
        f"Agent Double Double Agent: {variant.agents} agents (loyalty tokens {variant.loyalty})"
        f", {deck} per player, hand {variant.hand}; an agent delivers at {variant.threshold} "
        f"cards ({variant.neighbour_threshold} once a neighbour has delivered)", 100,
        subsequent_indent="  ")
    lines += textwrap.wrap(f"cards: {card_words(variant.deck)}", 100, subsequent_indent="  ")
    view = f"  (view of {info['view']})" if info["view"] else ""
    lines.append(f"record: {info['record'] or '(empty)'}{view}")
    lines.append(f"tokens: {info['tokens']}   turns played: {info['turns']}")
    for ag in info["agents"]:
        c = ag["counter"]
        toks = "/".join("?" if t is None else str(t) for t in ag["tokens"])
        counter = (f"counter on space {c['space']} ({c['side']}'s side"
                   + (f", +1 for {c['bonus']}" if c["bonus"] else "")
                   + (", activated)" if c["activated"] else ")"))
        plus = " +1 file" if ag["plus_one"] else ""
        cards = " | ".join(",".join(side) or "-" for side in ag["cards"])
        lines.append(f"agent {ag['agent']}: {ag['status']:<16} tokens P1/P2 {toks:<5} "
                     f"cards P1|P2 {cards:<18} threshold {ag['threshold']}{plus}; {counter}")
    for p, pl in enumerate(info["players"]):
        n = pl["hand_size"]
        hand = (" ".join(pl["hand"]) if pl["hand"] is not None
                else f"{n} hidden card{'s' if n != 1 else ''}" if n else "")
        c = pl["score_cards"]
        score = "?" if pl["score"] is None else f"{pl['score']} ({c} card{'s' if c != 1 else ''})"
        lines.append(f"P{p + 1}  hand: {hand or '-'}   pile: {pl['pile']}   score: {score}   "
                     f"turns: {pl['turns']}")
    if info["terminal"]:
        if info["payoff"] is None:
            lines.append("game over: the result depends on what this view hides")
        else:
            u = info["payoff"][0]
            who = "P1 wins" if u > 0 else "P2 wins" if u < 0 else "draw"
            lines.append(f"game over: {who} (payoff P1 {u:+g}, P2 {info['payoff'][1]:+g})")
        return lines
    lines.append(f"next: {info['awaiting']}")
    legal = info["legal_moves"]
    if legal is not None:
        shown = " ".join(legal[:60]) + (" ... (--json lists all)" if len(legal) > 60 else "")
        lines.append(f"legal moves ({len(legal)}): {shown}")
    elif info["phase"] in ("loyalty", "play", "counter"):
        lines.append("legal moves: hidden from this view")
    return lines
