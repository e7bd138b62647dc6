"""spycfr.ticking.Ticker: the one "still working" thread behind SearchAgent.beating, the LBR
games' wait for a first game, `spycfr solve`'s exact LP lines and the CLI's heartbeat."""

from __future__ import annotations

import itertools
import threading
import time

from spycfr.ticking import Ticker


def test_a_ticker_tells_the_seconds_after_its_first_wait_then_every_period():
    told: list[float] = []
    with Ticker(told.append, 0.05, first=0.2):
        time.sleep(0.1)
        assert told == []  # nothing before the first wait
        time.sleep(0.35)
    n = len(told)
    assert n >= 2 and told[0] >= 0.2 and all(b > a for a, b in itertools.pairwise(told))
    time.sleep(0.15)
    assert len(told) == n  # stopped with the block


def test_a_ticker_stopped_before_its_first_wait_tells_nothing_and_stop_can_skip_the_join():
    told: list[float] = []
    with Ticker(told.append, 0.05):
        pass
    assert told == []
    slow = threading.Event()
    ticker = Ticker(lambda _: slow.wait(5.0), 0.01).start()
    time.sleep(0.1)  # a tell under way, blocked
    start = time.monotonic()
    ticker.stop(join=False)
    assert time.monotonic() - start < 1.0
    slow.set()
    ticker.thread.join(5.0)
    assert not ticker.thread.is_alive()
