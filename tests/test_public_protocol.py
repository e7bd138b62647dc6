"""The public-state protocol: a game's public model agrees with its history rules."""

from __future__ import annotations

import numpy as np
import pytest

from public_reference import uniform, values
from spycfr.exact.best_response import expected_value, nash_conv
from spycfr.games import get_plugin, make_variant
from spycfr.public import protocol as pp


def _params(game):
    return get_plugin(game).numba_params(make_variant(game, None))


def test_kuhn_registers_a_public_model():
    params = _params("kuhn")
    assert pp.has_public(params)
    assert not pp.has_hook(params, "terminal_values")


def test_kuhn_uniform_profile_value_and_nash_conv(kuhn):
    params = _params("kuhn")
    uni = kuhn.uniform_strategy()
    assert values(params, uniform, 0) == pytest.approx(expected_value(kuhn, uni), abs=1e-12)
    assert values(params, uniform, 1) == pytest.approx(-expected_value(kuhn, uni), abs=1e-12)
    conv = values(params, uniform, 0, True) + values(params, uniform, 1, True)
    assert conv == pytest.approx(nash_conv(kuhn, uni), abs=1e-12)
    assert conv == pytest.approx(11 / 12, abs=1e-12)


def test_kuhn_bridge_maps_the_history_root_to_the_public_root():
    from spycfr.engine import protocol as hp  # noqa: F401  (registers nothing new)
    from spycfr.games.kuhn import rules

    params = _params("kuhn")
    h = rules.initial_state(params)
    out = np.zeros(2, np.int16)
    pp.python_impl(params, "public_of_history")(h, params, out)
    assert (out == pp.python_impl(params, "initial_state")(params)).all()
    assert pp.python_impl(params, "private_of_history")(h, params, 0) == -1
