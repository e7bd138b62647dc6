"""Kuhn poker (OpenSpiel's ``kuhn_poker``): a validation game with a known value, -1/18."""

from __future__ import annotations

import numpy as np

from spycfr.games.kuhn import public  # noqa: F401  (registers the public-state model)
from spycfr.games.kuhn.game import BET, PASS, KuhnGame, KuhnState
from spycfr.games.kuhn.rules import KuhnParams
from spycfr.games.plugin import GamePlugin, no_parameters

PLUGIN = GamePlugin(
    name="kuhn",
    title="Kuhn poker",
    summary="validation game: three cards, one betting round (value -1/18 for P1)",
    make_variant=no_parameters("kuhn"),
    python_game=lambda variant: KuhnGame(),
    numba_params=lambda variant: KuhnParams(np.int64(3)),
    words=lambda variant: "three cards (J, Q, K), one dealt to each player, ante 1, one "
                          "betting round (pass or bet 1)",
    payoff_unit=lambda variant: "chips",
    payoff_bound=lambda variant: 2.0,  # the most a player can put in the pot
)

__all__ = ["BET", "PASS", "PLUGIN", "KuhnGame", "KuhnState"]
