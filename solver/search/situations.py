"""Training situations for a learned value function, stage by stage backward from the
horizon (DeepStack 2017): a random public state, random ranges for both seats on the private
states they can hold there, and the subgame below it solved by :func:`~spycfr.search.resolve.solve`;
the situation's targets are both seats' counterfactual values at its root.

Stage N takes public states that a random playout leaves ``span * (N - 1) < r <= span * N``
public edges before its end; stage 1 solves them to the end of the game, a later stage to
``span`` edges below, its leaves valued by the previous stage's network. Each situation has
its own seed (the stage's seed, the stage and its index), so a batch gives the same
situations whoever computes it, in whatever order: batches are independent tasks for Dask.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass

import numpy as np

from spycfr.public.protocol import CHANCE, TERMINAL
from spycfr.search.beliefs import step
from spycfr.search.resolve import solve
from spycfr.search.tree import GameModel, build
from spycfr.search.values import ValueFunction


@dataclass(frozen=True)
class StageSpec:
    """What one stage's situations are: the game, the stage, its span in public edges, CFR+
    iterations per solve and the previous stage's weights (stage > 1)."""

    game: str
    preset: str | None
    params: dict
    stage: int
    span: int
    iterations: int
    seed: int
    previous: str | None = None
    max_nodes: int = 200_000

    def as_dict(self) -> dict:
        return asdict(self)


def game_model(game: str, preset: str | None, params: dict) -> GameModel:
    from spycfr.games import get_plugin, make_variant

    return GameModel.of(get_plugin(game).numba_params(make_variant(game, preset, params)))


def sample_range(support: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A random range on ``support`` (booleans), summing to 1: DeepStack's recursive
    split, here over a random order of the private states (the mass of each half of the
    list is a uniform share of its parent's), so ranges run from near-uniform to a few
    states holding almost everything."""
    if not support.any():
        raise ValueError("a range needs at least one private state to hold")
    idx = rng.permutation(np.flatnonzero(support))
    out = np.zeros(support.shape[0])
    stack = [(0, idx.size, 1.0)]
    while stack:
        lo, hi, mass = stack.pop()
        if hi - lo == 1:
            out[idx[lo]] = mass
            continue
        mid = (lo + hi) // 2
        u = rng.random()
        stack.append((lo, mid, mass * u))
        stack.append((mid, hi, mass * (1.0 - u)))
    return out


def random_path(game: GameModel, rng: np.random.Generator
                ) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """A random playout from the root (chance by its probabilities, every decision's public
    labels alike): each public state on it with the private states each seat can hold
    there (reachable under some strategy)."""
    pub = game.root()
    poss = [game.weights[0] > 0, game.weights[1] > 0]
    path = []
    while True:
        path.append((pub, poss[0], poss[1]))
        t = build(game, pub, depth=1)
        k = t.kind[0]
        if k == TERMINAL:
            return path
        p = t.prob[1:] / t.prob[1:].sum() if k == CHANCE else None
        c = int(rng.choice(t.count[0], p=p))
        rows = None
        if k in (0, 1):
            q = t.row[0]
            rows = np.where(np.arange(t.row_kid.shape[2])[None, :] < t.row_count[q][:, None],
                            1.0, 0.0)
        poss = [step(t, 0, s, poss[s].astype(float), rows, c) > 0 for s in (0, 1)]
        pub = t.pub[1 + c]


def situation(game: GameModel, spec: StageSpec, index: int,
              vf: ValueFunction | None) -> dict | None:
    """Situation ``index`` of the stage (None when its playout is too short for the
    stage: the caller draws the next index)."""
    rng = np.random.default_rng([spec.seed, spec.stage, index])
    path = random_path(game, rng)
    end = len(path) - 1
    lo, hi = spec.span * (spec.stage - 1), spec.span * spec.stage
    cands = [i for i in range(end) if lo < end - i <= hi]
    if not cands:
        return None
    pub, s0, s1 = path[int(rng.choice(cands))]
    if not (s0.any() and s1.any()):  # a public chance outcome no private state allows
        return None
    r0, r1 = sample_range(s0, rng), sample_range(s1, rng)
    sub = build(game, pub, None if spec.stage == 1 else spec.span, spec.max_nodes)
    sol = solve(sub, (r0, r1), spec.iterations, vf)
    return {"pub": pub, "r0": r0, "r1": r1, "v0": sol.values[0][0], "v1": sol.values[1][0],
            "nodes": sub.size}


def generate_batch(spec_dict: dict, start: int, count: int) -> dict:
    """Situations ``start .. start + count - 1`` of a stage (a Dask task): stacked arrays,
    the indices that gave none, and the seconds it took."""
    from spycfr.search.learned import LearnedValues

    t0 = time.perf_counter()
    spec = StageSpec(**spec_dict)
    game = game_model(spec.game, spec.preset, spec.params)
    vf = LearnedValues.load(spec.previous) if spec.previous else None
    rows = [situation(game, spec, i, vf) for i in range(start, start + count)]
    got = [r for r in rows if r is not None]
    out = {k: np.array([r[k] for r in got]) for k in ("pub", "r0", "r1", "v0", "v1", "nodes")}
    out["index"] = np.array([i for i, r in zip(range(start, start + count), rows, strict=True)
                             if r is not None], np.int64)
    out["seconds"] = np.array(time.perf_counter() - t0)
    return out
