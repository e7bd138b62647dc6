"""Agent Avenue variants: the spec's parameters, their validation and the named presets."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from spycfr.errors import VariantError
from spycfr.games.agent_avenue import advanced, rules, team_rules
from spycfr.games.agent_avenue.advanced import AgentAvenueAdvancedParams
from spycfr.games.agent_avenue.rules import AgentAvenueParams
from spycfr.games.agent_avenue.team_rules import AgentAvenueTeamParams

# The agents in the spec's table order, with their two-letter codes.
CODES = ("DA", "EN", "CB", "SA", "DD", "SE", "SK", "MO")
NAMES = {"DA": "Double Agent", "EN": "Enforcer", "CB": "Codebreaker", "SA": "Saboteur",
         "DD": "Daredevil", "SE": "Sentinel", "SK": "Sidekick", "MO": "Mole"}
# Spaces moved with 1, 2, 3 or more of the name in play (spec, "Agent cards").
MOVES = {"DA": (-1, 6, -1), "EN": (1, 2, 3), "CB": (0, 0, 0), "SA": (-1, -1, -2),
         "DD": (2, 3, 0), "SE": (0, 2, 6), "SK": (4, 4, 4), "MO": (-3, -3, -3)}
SINGLE = ("SK", "MO")  # always one copy
MODES = ("simple", "advanced")
TEAMS = {"1v1": (1, 1), "2v1": (2, 1), "2v2": (2, 2)}  # seats of team 0 (it starts), team 1

# Presets sized by measuring the enumerated trees (spycfr info agent-avenue --preset NAME):
# tiny 1,324 nodes (an LP solves it), mini 288,513 (CFR+ to 1e-4 in seconds), small
# 11,344,867 (CFR+ to 1e-4 in about 10 minutes); standard is the full simple game (~1e44
# nodes), solved by Monte-Carlo CFR; advanced is the full advanced game (black market
# cards), also sampled.
PRESETS: dict[str, dict] = {
    "tiny": {"names": "EN,CB,DD", "copies": 2, "hand": 2, "discards": 0, "board": 6},
    "mini": {"names": "DA,EN,CB,DD", "copies": 2, "hand": 3, "discards": 2, "board": 10},
    "small": {"names": "DA,EN,CB,SA,DD", "copies": 2, "hand": 3, "discards": 0, "board": 10},
    "standard": {"names": ",".join(CODES), "copies": 6, "hand": 4, "discards": 4, "board": 14,
                 "mode": "simple"},
    "advanced": {"names": ",".join(CODES), "copies": 6, "hand": 4, "discards": 4, "board": 14,
                 "mode": "advanced"},
}

# Team variants (rulebook "Team Variant"), sized by measuring their trees; kept apart from
# PRESETS (whose trees are all two-seat games checked against the plain-Python reference):
# team-tiny 2v1 5,510 nodes, team-duo 2v2 14,871 nodes, team-price 2v1 4,742 nodes (the
# smallest 2v1 found where not communicating costs the team: a deck of Double Agents and
# Enforcers).
TEAM_PRESETS: dict[str, dict] = {
    "team-tiny": {"names": "EN,CB", "copies": 4, "hand": 2, "discards": 0, "board": 6,
                  "teams": "2v1"},
    "team-duo": {"names": "DA,EN", "copies": 5, "hand": 2, "discards": 0, "board": 4,
                 "teams": "2v2"},
    "team-price": {"names": "DA,EN", "copies": 4, "hand": 2, "discards": 0, "board": 6,
                   "teams": "2v1"},
}

PARAMETERS: dict[str, str] = {
    "names": "which agents are in the deck: 2..8 distinct codes, comma-separated, among "
             "DA,EN,CB,SA,DD,SE,SK,MO (full game: all eight)",
    "copies": "copies of each six-copy agent, integer 1..6 (full game 6; SK and MO always 1)",
    "hand": "hand size, integer 2..4 (full game 4)",
    "discards": "discard-and-draw allowance per player per game, integer 0..4 (full game 4)",
    "board": "spaces of the loop, even integer 4..14 (full game 14); the meeples start "
             "half the board apart",
    "mode": "simple (default) or advanced (the black market cards; only with the full deck: "
            "all eight names, copies 6, board 14)",
    "teams": "1v1 (default: the plain game), 2v1 (a team of two, which starts, against a "
             "lone player) or 2v2 (the rulebook's team variant; simple mode; discards is "
             "then per teammate and a lone player has twice as many)",
    "open_hands": "0 (default, the rulebook) or 1: teammates see each other's cards (not "
                  "the rulebook: the value of a team that could talk); team variants only",
}


@dataclass(frozen=True)
class Variant:
    """One Agent Avenue variant; construction validates every parameter."""

    names: tuple[str, ...] = CODES
    copies: int = 6
    hand: int = 4
    discards: int = 4
    board: int = 14
    mode: str = "simple"
    teams: str = "1v1"
    open_hands: int = 0

    def __post_init__(self) -> None:
        bad = [c for c in self.names if c not in CODES]
        if bad or len(set(self.names)) != len(self.names) or not 2 <= len(self.names) <= 8:
            raise VariantError(
                f"names={','.join(self.names)!r} is not allowed: 2..8 distinct codes among "
                f"{','.join(CODES)}")
        if tuple(sorted(self.names, key=CODES.index)) != self.names:
            raise VariantError("names must be in the table order (make_variant sorts them)")
        _check_int("copies", self.copies, 1, 6)
        _check_int("hand", self.hand, 2, 4)
        _check_int("discards", self.discards, 0, 4)
        _check_int("board", self.board, 4, 14)
        if self.board % 2:
            raise VariantError(f"board={self.board} is not allowed: an even integer 4..14")
        if self.mode not in MODES:
            raise VariantError(f"mode={self.mode!r} is not allowed: one of {', '.join(MODES)}")
        if self.mode == "advanced" and (self.names != CODES or self.copies != 6
                                        or self.board != 14):
            raise VariantError(
                f"mode=advanced is only played with the full deck and board (names="
                f"{','.join(CODES)}, copies=6, board=14), not names={','.join(self.names)} "
                f"copies={self.copies} board={self.board}")
        if self.teams not in TEAMS:
            raise VariantError(f"teams={self.teams!r} is not allowed: one of "
                               f"{', '.join(TEAMS)}")
        _check_int("open_hands", self.open_hands, 0, 1)
        if self.teams != "1v1" and self.mode != "simple":
            raise VariantError(f"teams={self.teams} is played in simple mode only, not "
                               f"mode={self.mode}")
        if self.teams == "1v1" and self.open_hands:
            raise VariantError("open_hands=1 is not allowed with teams=1v1: it opens "
                               "teammates' hands to each other (teams 2v1 or 2v2)")
        seats = self.num_seats
        if self.deck_size < seats * self.hand + 2:
            raise VariantError(
                f"the deck of {','.join(self.names)} x{self.copies} holds {self.deck_size} "
                f"cards: a variant of {seats} seats needs at least {seats}*hand+2 = "
                f"{seats * self.hand + 2}")

    @property
    def num_seats(self) -> int:
        return sum(TEAMS[self.teams])

    @property
    def copies_of(self) -> tuple[int, ...]:
        return tuple(1 if c in SINGLE else self.copies for c in self.names)

    @property
    def deck_size(self) -> int:
        return sum(self.copies_of)

    def as_dict(self) -> dict:
        d = {"names": ",".join(self.names), "copies": self.copies, "hand": self.hand,
             "discards": self.discards, "board": self.board, "mode": self.mode}
        if self.teams != "1v1":  # the plain game's records keep their old variant dicts
            d.update(teams=self.teams, open_hands=self.open_hands)
        return d

    @property
    def rules(self):
        """The numba rules module of this variant (rules.py, advanced.py or team_rules.py)."""
        if self.teams != "1v1":
            return team_rules
        return advanced if self.mode == "advanced" else rules

    def to_params(self) -> AgentAvenueParams | AgentAvenueAdvancedParams | AgentAvenueTeamParams:
        """The params record of the variant's numba rules (see :attr:`rules`)."""
        n = len(self.names)
        local = {c: i for i, c in enumerate(self.names)}
        common = (np.int64(n), np.array(self.copies_of, dtype=np.int64),
                  np.array([MOVES[c] for c in self.names], dtype=np.int64).reshape(n, 3),
                  np.int64(local.get("CB", -1)), np.int64(local.get("DD", -1)),
                  np.int64(self.hand), np.int64(self.discards))
        if self.teams != "1v1":
            size0, size1 = TEAMS[self.teams]
            return AgentAvenueTeamParams(
                *common, np.int64(2 * self.discards), np.int64(self.board), np.int64(size0),
                np.int64(size1), np.int64(self.open_hands))
        cls = AgentAvenueAdvancedParams if self.mode == "advanced" else AgentAvenueParams
        return cls(*common, np.int64(self.board))

    def describe(self) -> str:
        # imported here: a top-level import would make spycfr.words a numba kernel source
        from spycfr.words import params_text

        return params_text(self.as_dict())


def _check_int(name: str, value, lo: int, hi: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or not (
            lo <= value <= hi):
        raise VariantError(f"{name}={value!r} is not allowed: an integer {lo}..{hi}")


def _coerce(name: str, value):
    """Accept CLI strings: codes for names, integers for counts."""
    if name == "names":
        if isinstance(value, str):
            value = [v for v in value.replace(" ", "").split(",") if v]
        codes = [str(v).upper() for v in value]
        bad = [c for c in codes if c not in CODES]
        if bad:
            raise VariantError(f"names: {','.join(bad)} is not an agent code; codes: "
                               f"{','.join(CODES)}")
        return tuple(sorted(codes, key=CODES.index))
    if name in ("mode", "teams"):
        return str(value).strip().lower()
    if isinstance(value, str):
        try:
            return int(value.strip())
        except ValueError:
            raise VariantError(f"{name}={value!r} is not allowed: an integer") from None
    return value


def make_variant(preset: str | None = None, params: dict | None = None) -> Variant:
    """The variant of ``preset`` (or the full simple game) with ``params`` overriding it."""
    values: dict = {}
    if preset is not None:
        presets = PRESETS | TEAM_PRESETS
        if preset not in presets:
            raise VariantError(
                f"unknown preset {preset!r} for agent-avenue; presets: {', '.join(presets)}")
        values.update(presets[preset])
    for name, value in (params or {}).items():
        if name not in PARAMETERS:
            raise VariantError(f"unknown parameter {name!r} for agent-avenue; parameters: "
                               f"{', '.join(PARAMETERS)}")
        values[name] = value
    return Variant(**{k: _coerce(k, v) for k, v in values.items()})


def variant_words(v: dict) -> str:
    """A variant (as a dict) in plain words, for reports."""
    names = v["names"].split(",")
    deck = ", ".join(f"{NAMES[c]} ({c}) x{1 if c in SINGLE else v['copies']}" for c in names)
    disc = (f"{v['discards']} discard-and-draw{'s' if v['discards'] != 1 else ''} per player"
            if v["discards"] else "no discards")
    return (f"a deck of {deck}; hands of {v['hand']}; {disc}; a loop of {v['board']} spaces, "
            f"the meeples starting {v['board'] // 2} apart; {v['mode']} mode; payoff +1 for a "
            "win, −1 for a loss (no draws: ties go to the active player).")
