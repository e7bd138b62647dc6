"""Liar's dice, 2 players x 1 die (OpenSpiel's ``liars_dice``): a validation game."""

from __future__ import annotations

import numpy as np

from spycfr.games.liars_dice import public  # noqa: F401  (registers the public-state model)
from spycfr.games.liars_dice.game import LIAR, LiarsDiceGame, LiarsDiceState, unrank_bid
from spycfr.games.liars_dice.rules import LiarsDiceParams
from spycfr.games.plugin import GamePlugin, no_parameters

PLUGIN = GamePlugin(
    name="liars-dice",
    title="Liar's dice",
    summary="validation game: one six-sided die each, bids with 6 wild, call Liar",
    make_variant=no_parameters("liars-dice"),
    python_game=lambda variant: LiarsDiceGame(),
    numba_params=lambda variant: LiarsDiceParams(np.int64(6)),
)

__all__ = ["LIAR", "PLUGIN", "LiarsDiceGame", "LiarsDiceState", "unrank_bid"]
