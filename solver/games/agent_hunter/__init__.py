"""Agent Hunter (AEG 2013): variants, numba rules, game protocol and game records."""

from __future__ import annotations

from solver.games.agent_hunter.game import AgentHunterGame, AgentHunterState
from solver.games.agent_hunter.variant import PARAMETERS, PRESETS, Variant, make_variant


def make_game(preset: str | None = None, params: dict | None = None) -> AgentHunterGame:
    """An Agent Hunter game from a preset and/or parameters (bad ones raise VariantError)."""
    return AgentHunterGame(make_variant(preset, params))


__all__ = [
    "PARAMETERS", "PRESETS", "Variant", "AgentHunterGame", "AgentHunterState", "make_game",
    "make_variant",
]
