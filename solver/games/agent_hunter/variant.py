"""Agent Hunter variants: the parameters of the spec, their validation and the named presets."""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from spycfr.errors import VariantError
from spycfr.games.agent_hunter.rules import AgentHunterParams

DECOY_RULES = ("any", "switched")
PAYOFFS = ("win", "margin")
UNBOUNDED_WORDS = ("inf", "none", "unbounded")

# Default max_turns of the `standard` preset: the rulesheet game is unbounded, a solver
# needs a horizon (spec, Readings 3); 12 turns = 6 per player.
STANDARD_MAX_TURNS = 12

# One dict of presets, sized by measuring the enumerated trees (spycfr info):
# tiny 7,339 nodes (an LP solves it), mini 205,723, small 5,633,245 (CFR+ to 1e-4 in minutes);
# standard is the rulesheet game with a 12-turn horizon: far too big to enumerate (~1e29
# nodes), solved by Monte-Carlo CFR.
PRESETS: dict[str, dict] = {
    "tiny": {"cards": 3, "houses": 2, "decoys": 1, "max_turns": 2},
    "mini": {"cards": 3, "houses": 2, "decoys": 1, "max_turns": 4},
    "small": {"cards": 4, "houses": 2, "decoys": 1, "max_turns": 4},
    "standard": {"cards": 10, "houses": 3, "decoys": 5, "max_turns": STANDARD_MAX_TURNS,
                 "decoy_rule": "any", "payoff": "win"},
}

PARAMETERS: dict[str, str] = {
    "cards": "N, integer 2..10 (rulesheet 10): each player owns cards 0..N-1",
    "houses": "K, integer 1..3 (rulesheet 3): safe houses per player; needs N >= 2K-1",
    "decoys": "D, integer 0..5 (rulesheet 5): decoy tokens per player",
    "max_turns": "T, positive integer or inf (rulesheet inf): turns after which the game is scored",
    "decoy_rule": "any (English rulesheet, default) or switched (French): where a decoy goes",
    "payoff": "win (+1/0/-1, hand-sum tie-break; default) or margin (VP difference)",
}


@dataclass(frozen=True)
class Variant:
    """One Agent Hunter variant; construction validates every parameter."""

    cards: int = 10
    houses: int = 3
    decoys: int = 5
    max_turns: int | None = None
    decoy_rule: str = "any"
    payoff: str = "win"

    def __post_init__(self) -> None:
        _check_int("cards", self.cards, 2, 10)
        _check_int("houses", self.houses, 1, 3)
        _check_int("decoys", self.decoys, 0, 5)
        if self.max_turns is not None and (
            not _is_int(self.max_turns) or self.max_turns < 1
        ):
            raise VariantError(
                f"max_turns={self.max_turns!r} is not allowed: a positive integer or inf"
            )
        if self.decoy_rule not in DECOY_RULES:
            raise VariantError(
                f"decoy_rule={self.decoy_rule!r} is not allowed: one of {', '.join(DECOY_RULES)}"
            )
        if self.payoff not in PAYOFFS:
            raise VariantError(
                f"payoff={self.payoff!r} is not allowed: one of {', '.join(PAYOFFS)}"
            )
        if self.cards < 2 * self.houses - 1:
            raise VariantError(
                f"cards={self.cards} is too small for houses={self.houses}: "
                f"cards must be >= 2*houses-1 = {2 * self.houses - 1}"
            )

    def as_dict(self) -> dict:
        return asdict(self)

    def to_params(self) -> AgentHunterParams:
        """The params record of the numba rules (see rules.py)."""
        return AgentHunterParams(*(np.int64(x) for x in (
            self.cards, self.houses, self.decoys, self.max_turns or 0,
            DECOY_RULES.index(self.decoy_rule), PAYOFFS.index(self.payoff))))

    def describe(self) -> str:
        t = "inf" if self.max_turns is None else self.max_turns
        return (f"cards={self.cards} houses={self.houses} decoys={self.decoys} max_turns={t} "
                f"decoy_rule={self.decoy_rule} payoff={self.payoff}")


def _is_int(value) -> bool:
    return isinstance(value, int | np.integer) and not isinstance(value, bool)


def _check_int(name: str, value, lo: int, hi: int) -> None:
    if not _is_int(value) or not lo <= value <= hi:
        raise VariantError(f"{name}={value!r} is not allowed: an integer {lo}..{hi}")


def _coerce(name: str, value):
    """Accept CLI strings: integers for counts, inf/none/unbounded or an integer for max_turns."""
    if name in ("cards", "houses", "decoys", "max_turns") and isinstance(value, str):
        text = value.strip().lower()
        if name == "max_turns" and text in UNBOUNDED_WORDS:
            return None
        try:
            return int(text)
        except ValueError:
            allowed = "a positive integer or inf" if name == "max_turns" else "an integer"
            raise VariantError(f"{name}={value!r} is not allowed: {allowed}") from None
    if name in ("decoy_rule", "payoff") and isinstance(value, str):
        return value.strip().lower()
    return value


def make_variant(preset: str | None = None, params: dict | None = None) -> Variant:
    """The variant of ``preset`` (or the rulesheet defaults) with ``params`` overriding it."""
    values: dict = {}
    if preset is not None:
        if preset not in PRESETS:
            raise VariantError(
                f"unknown preset {preset!r} for agent-hunter; presets: {', '.join(PRESETS)}"
            )
        values.update(PRESETS[preset])
    for name, value in (params or {}).items():
        if name not in PARAMETERS:
            raise VariantError(
                f"unknown parameter {name!r} for agent-hunter; parameters: {', '.join(PARAMETERS)}"
            )
        values[name] = _coerce(name, value)
    return Variant(**values)


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}" + ("" if n == 1 else "s")


def variant_words(v: dict) -> str:
    """A variant (as a dict) in plain words, for reports."""
    n, k, d, t = v["cards"], v["houses"], v["decoys"], v["max_turns"]
    parts = [f"each player owns {n} cards (0–{n - 1}) and hides {k} of them in "
             f"{_plural(k, 'safe house')}"]
    parts.append(f"{_plural(d, 'decoy')} each" if d else "no decoys (so no switches)")
    if t is None:
        parts.append("no turn limit")
    else:
        parts.append(f"the game is scored after {_plural(t, 'turn')} "
                     f"({(t + 1) // 2} for P1, {t // 2} for P2) unless a player loses every house")
    if d:
        parts.append("a switch's decoy goes beside any own house (English rule)"
                     if v["decoy_rule"] == "any"
                     else "a switch's decoy goes beside the switched house (French rule)")
    parts.append("payoff: win +1 / draw 0 / loss −1, equal VP decided by the higher hand sum"
                 if v["payoff"] == "win" else "payoff: the VP margin (P1's VP − P2's VP)")
    return "; ".join(parts) + "."


def payoff_unit(v: dict) -> str:
    return "VP" if v.get("payoff") == "margin" else "points"
