"""Agent Avenue's openings in advanced mode: the simple mode's first decisions (P1's first
turn for each starting hand, P2's first recruit for each hand and face-up card), reached
through one fixed black market supply, since the supply dealt at setup is public and each
one gives other information states."""

from __future__ import annotations

from dataclasses import replace

from spycfr.games.agent_avenue import market as M
from spycfr.games.agent_avenue.openings import opening_paths as simple_paths
from spycfr.games.agent_avenue.variant import Variant

# The supply of the tabulated openings: the first three cards (ongoing ones that only speed
# up later recruits: no first-turn landing is worth more or less for them than for others).
SUPPLY = ("DEVICE", "WATCHTOWER", "TWIN")


def opening_paths(variant: Variant) -> list[tuple[int, list[int], str]]:
    """(player, path, context) of the opening decisions: the simple mode's paths (the same
    codes for the deal, plays and draws) with the supply dealt after the deal."""
    mask = sum(1 << M.KEYS.index(k) for k in SUPPLY)
    note = f" (supply {'.'.join(SUPPLY)})"
    return [(player, path[:2] + [mask] + path[2:], context + note)
            for player, path, context in simple_paths(replace(variant, mode="simple"))]
