"""Registry of the built-in games.

Each game module exposes ``make_game(preset: str | None, params: dict) -> Game``,
``PRESETS`` (name -> parameter dict) and ``PARAMETERS`` (name -> description of
the allowed values). Parameters not given keep the preset's (or the default)
value; bad ones raise VariantError.
"""

from __future__ import annotations

import importlib

from solver.errors import SpycfrError

_MODULES = {
    "agent-hunter": "solver.games.agent_hunter",
    "kuhn": "solver.games.kuhn",
    "leduc": "solver.games.leduc",
    "liars-dice": "solver.games.liars_dice",
}


def game_names() -> list[str]:
    return list(_MODULES)


def game_module(name: str):
    """The module implementing game ``name``; unknown names raise SpycfrError."""
    if name not in _MODULES:
        raise SpycfrError(f"unknown game {name!r}; known games: {', '.join(_MODULES)}")
    return importlib.import_module(_MODULES[name])


def make_game(name: str, preset: str | None = None, params: dict | None = None):
    """Instantiate game ``name`` from a preset and/or explicit parameters."""
    return game_module(name).make_game(preset, dict(params or {}))
