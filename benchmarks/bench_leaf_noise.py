"""How accurate a learned value function must be: the depth-limited re-solving agent's exact
exploitability when its leaf values are the committed ones (exact for a blueprint
continuation, :class:`~spycfr.search.values.CommittedValues`) plus a fixed error per public
state and private state (normal, ``sigma`` in payoff units per unit of opponent range, the
network's scale), zero-sum corrected as the network's outputs are. Run from the repository
root::

    python benchmarks/bench_leaf_noise.py agent-hunter --preset tiny --depth 4 0 0.01 0.03 0.1 0.2

One JSON line per ``sigma``.
"""

from __future__ import annotations

import argparse
import json
import time
import zlib

import numpy as np

from spycfr.search.evaluate import Settings, exploitability
from spycfr.search.learned import normalised, unit_values, zero_sum
from spycfr.search.resolve import committed_blueprint
from spycfr.search.situations import game_model
from spycfr.search.tree import build
from spycfr.search.values import CommittedValues


class NoisyValues:
    """``inner``'s values with a fixed error per (public state, private state), seeded by
    the public state's bytes (the same error at every call, as a network's would be)."""

    def __init__(self, inner: CommittedValues, sigma: float, z: float):
        self.inner, self.sigma, self.z = inner, sigma, z

    def for_agent(self, seat: int) -> NoisyValues:
        return NoisyValues(self.inner.for_agent(seat), self.sigma, self.z)

    def values(self, pubs, r0, r1, nodes=None):
        v0, v1 = self.inner.values(pubs, r0, r1, nodes)
        n0 = r0.shape[1]
        e = np.array([np.random.default_rng(zlib.crc32(p.tobytes())).normal(
            0.0, self.sigma, n0 + r1.shape[1]) for p in pubs])
        u0, u1 = zero_sum(normalised(r0), normalised(r1),
                          unit_values(v0, r1, self.z) + e[:, :n0],
                          unit_values(v1, r0, self.z) + e[:, n0:])
        return u0 * r1.sum(1, keepdims=True) / self.z, u1 * r0.sum(1, keepdims=True) / self.z


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("game")
    ap.add_argument("--preset", default=None)
    ap.add_argument("--depth", type=int, default=4)
    ap.add_argument("--iterations", type=int, default=100)
    ap.add_argument("--blueprint-iterations", type=int, default=300)
    ap.add_argument("sigmas", type=float, nargs="+")
    a = ap.parse_args()
    game = game_model(a.game, a.preset, {})
    full = build(game)
    committed = committed_blueprint(game, a.blueprint_iterations, full)
    for sigma in a.sigmas:
        t0 = time.perf_counter()
        vf = NoisyValues(committed, sigma, game.z)
        expl, _ = exploitability(game, Settings(iterations=a.iterations, depth=a.depth,
                                                value_function=vf), full)
        print(json.dumps({"sigma": sigma, "depth": a.depth, "iterations": a.iterations,
                          "exploitability": round(expl, 5),
                          "seconds": round(time.perf_counter() - t0)}), flush=True)


if __name__ == "__main__":
    main()
