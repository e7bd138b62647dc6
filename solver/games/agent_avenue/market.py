"""Agent Avenue's black market cards (advanced mode) in records: their keys, names and
kinds, and the record tokens of setting up, taking and resolving them.

Tokens (all public: a player's view writes them as the full record does):
``market:OUTPOST.SMOKE.SPYCATION`` (the supply of 3 dealt at setup, in card order);
``bm:P1=SUPERCOMPUTER>OUTPOST`` (P1 takes Supercomputer, Outpost refills the supply; no
``>`` part when the black market deck is empty, nor while the refill is pending at the end
of a game in progress); an instant card's resolution right after it: ``outpost:SE``,
``smoke:DA``, ``mind:CB``, ``double:EN``, ``truck:+1``, ``secret:SE``, ``spycation:EN`` or
``spycation:EN+recruit``; ``-`` for an ability that cannot be performed (``mind:-``).
A card is written by its key; its number (1..15, the spec's table) or its English name
(any case, spaces, ``-`` or ``_``) is accepted on input.
"""

from __future__ import annotations

import re

from spycfr.games.agent_avenue import advanced as A

CARDS = (  # (key, English name, kind), numbered 1..15 as in the spec's table
    ("DEVICE", "Distraction Device", "ongoing"),
    ("WATCHTOWER", "Watchtower", "ongoing"),
    ("TWIN", "Sinister Twin", "ongoing"),
    ("SUPERCOMPUTER", "Supercomputer", "ongoing"),
    ("LEADER", "Leader of the Pack", "ongoing"),
    ("GETAWAY", "Getaway Car", "ongoing"),
    ("MASTERPLAN", "Masterplan", "ongoing"),
    ("SECURITY", "Security System", "ongoing"),
    ("OUTPOST", "Outpost", "instant"),
    ("SMOKE", "Smoke Screen", "instant"),
    ("MIND", "Mind Control", "instant"),
    ("DOUBLE", "Double Trouble", "instant"),
    ("TRUCK", "Surveillance Truck", "instant"),
    ("SECRET", "Secret Recruit", "instant"),
    ("SPYCATION", "Spycation", "instant"),
)
KEYS = tuple(key for key, _, _ in CARDS)
ABILITIES = {KEYS[c].lower(): c for c in range(A.N_ONGOING, A.N_BM)}  # token kind -> card
_CARD = r"[A-Za-z0-9_-]+"
RE = {
    "market": re.compile(rf"market:({_CARD}(?:\.{_CARD})*)"),
    "bm": re.compile(rf"bm:(?:(P[12])=)?({_CARD})(?:>({_CARD}))?"),
    **{kind: re.compile(rf"{kind}:(-|[A-Za-z]{{2}}|\+1)(\+recruit)?") for kind in ABILITIES},
}
SHAPES = ("market:A.B.C, bm:P1=CARD>CARD, outpost:SE, smoke:DA, mind:CB, double:EN, "
          "truck:+1, secret:SE, spycation:EN+recruit (or -)")


def _squash(text: str) -> str:
    return re.sub(r"[\s_-]", "", text).upper()


def card_index(text: str) -> int | None:
    """The card of a key, a number 1..15 or an English name; None if none."""
    t = _squash(text)
    if t.isdigit():
        return int(t) - 1 if 1 <= int(t) <= A.N_BM else None
    for c, (key, name, _) in enumerate(CARDS):
        if t in (key, _squash(name)):
            return c
    return None


def market_text(mask: int) -> str:
    return "market:" + ".".join(KEYS[c] for c in range(A.N_BM) if (mask >> c) & 1)


def take_text(player: int, card: int) -> str:
    return f"bm:P{player + 1}={KEYS[card]}"


def ability_text(names: tuple[str, ...], card: int, payload: int) -> str:
    """The token of an ability's resolution: its card and the choice or effect code."""
    x = payload & 15
    if x == A.EFF_NONE:
        what = "-"
    elif x == A.EFF_MOVED:
        what = "+1"
    else:
        what = names[x] + ("+recruit" if (payload >> 4) & 1 else "")
    return f"{KEYS[card].lower()}:{what}"


def observation_text(names: tuple[str, ...], player: int, obs: int) -> tuple[str, str]:
    """(how, text) of a black market observation code: how "new" starts a token, "append"
    adds to the last one (the supply refilled after a take)."""
    sub = (obs >> 18) & 7
    data = obs & ((1 << 18) - 1)
    if sub == A.SUB_MARKET:
        return "new", market_text(data)
    if sub == A.SUB_TAKE:
        return "new", take_text(player, data)
    if sub == A.SUB_SUPPLY:
        return "append", ">" + KEYS[data]
    return "new", ability_text(names, data >> 5, data & 31)


def card_list(state, where: int) -> list[str]:
    """The keys of the cards at ``where`` (a LOC value), in card order."""
    return [KEYS[c] for c in range(A.N_BM) if int(state[A.LOC + c]) == where]
