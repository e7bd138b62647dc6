"""Options shared by every command that takes a game variant."""

from __future__ import annotations

import functools

import click

from solver.games import make_game

# The spec's parameter names; every command that takes a variant uses these.
VARIANT_OPTIONS = [
    ("--cards", "cards", int, "N: each player owns cards 0..N-1."),
    ("--houses", "houses", int, "K: safe houses per player."),
    ("--decoys", "decoys", int, "D: decoy tokens per player."),
    (
        "--max-turns", "max_turns", str,
        "T: turns before the game is scored as it stands (integer >= 1, or inf).",
    ),
    ("--decoy-rule", "decoy_rule", str, "Switch decoy goes: any (English) or switched (French)."),
    ("--payoff", "payoff", str, "win (+1/0/-1) or margin (VP difference)."),
]


def variant_options(f):
    """Add ``--preset`` and the variant parameters; the command receives ``variant_params``."""

    @functools.wraps(f)
    def wrapper(*args, **kwargs):
        params = {key: kwargs.pop(key) for _, key, _, _ in VARIANT_OPTIONS}
        kwargs["variant_params"] = {k: v for k, v in params.items() if v is not None}
        return f(*args, **kwargs)

    for flag, key, typ, help_text in reversed(VARIANT_OPTIONS):
        wrapper = click.option(flag, key, type=typ, default=None, help=help_text)(wrapper)
    wrapper = click.option(
        "--preset", default=None, help="A named variant (see `spycfr games`)."
    )(wrapper)
    return wrapper


def build_game(game_name: str, preset: str | None, variant_params: dict):
    """Resolve a game from CLI options; errors surface as SpycfrError (one line, exit 2)."""
    return make_game(game_name, preset, variant_params)
