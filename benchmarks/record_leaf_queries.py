"""Where a re-solving agent asks for leaf values: the queries of the depth-limited agent's
walk on an enumerable game (``situations.leaf_queries``, both seats), a uniform sample of
them at each public state queried, written as the ``--queries`` file of ``spycfr
train-values``. The agent's leaves are the committed blueprint's values (``--leaves
committed``: exact for a blueprint continuation, ``--blueprint-iterations`` CFR+ on the
whole game) or a trained network (a weights file or training directory); ``--add`` puts
earlier files' queries before the new ones, so that rounds of recording with the last
network and training on all the queries so far (as DAgger does) need one file each. Run
from the repository root::

    python benchmarks/record_leaf_queries.py agent-hunter --preset tiny --depth 4 \\
        --per-state 12 --out QUERIES.npz
    spycfr train-values agent-hunter --preset tiny --queries QUERIES.npz --situations N \\
        --internal 0 --out DIR ...
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from spycfr.io import save_npz
from spycfr.search.evaluate import Settings
from spycfr.search.learned import LearnedValues
from spycfr.search.resolve import committed_blueprint
from spycfr.search.situations import QUERY_KEYS, game_model, leaf_queries
from spycfr.search.tree import build


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("game")
    ap.add_argument("--preset", default=None)
    ap.add_argument("--depth", type=int, default=4)
    ap.add_argument("--iterations", type=int, default=100)
    ap.add_argument("--leaves", default="committed", help="committed, or a weights file")
    ap.add_argument("--blueprint-iterations", type=int, default=300)
    ap.add_argument("--per-state", type=int, default=12,
                    help="queries kept per public state (all where it has fewer)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--add", nargs="*", default=[], metavar="FILE",
                    help="earlier query files whose queries come first in --out")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    t0 = time.perf_counter()
    game = game_model(a.game, a.preset, {})
    full = build(game)
    if a.leaves == "committed":
        vf = committed_blueprint(game, a.blueprint_iterations, full)
    else:
        vf = LearnedValues.load(a.leaves)
    q = leaf_queries(game, Settings(iterations=a.iterations, depth=a.depth, value_function=vf),
                     a.per_state, a.seed, full)
    new = int(q["pub"].shape[0])
    for path in reversed(a.add):
        with np.load(path) as f:
            for k in QUERY_KEYS:
                q[k] = np.concatenate([f[k], q[k]])
    save_npz(a.out, **q)
    print(json.dumps({"game": a.game, "preset": a.preset, "depth": a.depth,
                      "iterations": a.iterations, "leaves": a.leaves,
                      "queries": new, "in_file": int(q["pub"].shape[0]),
                      "drawn_from": int(q["total"]),
                      "agent_exploitability": round(float(q["exploitability"]), 5),
                      "seconds": round(time.perf_counter() - t0)}), flush=True)


if __name__ == "__main__":
    main()
