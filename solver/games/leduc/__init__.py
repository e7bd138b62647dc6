"""Leduc poker (OpenSpiel's ``leduc_poker``): a validation game, value about -0.0856."""

from __future__ import annotations

import numpy as np

from spycfr.games.leduc.game import CALL, FOLD, RAISE, LeducGame, LeducState
from spycfr.games.leduc.public import LeducRankParams  # (registers the public-state models)
from spycfr.games.leduc.rules import LeducParams
from spycfr.games.plugin import GamePlugin, no_parameters

PLUGIN = GamePlugin(
    name="leduc",
    title="Leduc poker",
    summary="validation game: six cards, a public card, two betting rounds (value -0.0856)",
    make_variant=no_parameters("leduc"),
    python_game=lambda variant: LeducGame(),
    numba_params=lambda variant: LeducParams(np.int64(6)),
    public_params=lambda variant: LeducRankParams(np.int64(6)),  # suits merged: exact
    words=lambda variant: "six cards (two suits of J, Q, K), one private card each and one "
                          "public card, two betting rounds with raises of 2 then 4",
    payoff_unit=lambda variant: "chips",
    payoff_bound=lambda variant: 13.0,  # the most a player can put in the pot
)

__all__ = ["CALL", "FOLD", "PLUGIN", "RAISE", "LeducGame", "LeducState"]
