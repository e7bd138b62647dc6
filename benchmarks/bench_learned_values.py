"""Learned value functions compared on one stage's situations (``spycfr train-values ...
--out DIR``, stage 1, to the end of the game): networks trained on chosen rows with chosen
settings, each measured by its held-out error on the solves' roots and by the exact
exploitability of the depth-limited re-solving agent that uses it (``evaluate.exploitability``),
in one process. Run from the repository root::

    python benchmarks/bench_learned_values.py DIR/stage-1 VARIANTS.json [--depth 4] \
        [--data OTHER/stage-1 ...]

``VARIANTS.json`` (a file or the JSON itself) is a list of objects: ``name``; ``rows``:
``root`` (each solve's root only), ``all`` (the nodes below too) or ``rootx`` (all, the roots
repeated ``k`` times); ``mask`` (default true: the loss weighs only the private states a seat
can hold); ``hidden``, ``epochs``, ``batch``, ``lr``, ``seed``, ``backend``, ``head``,
``schedule`` as :class:`~spycfr.search.training.TrainSettings`; or ``ensemble``: a list of
earlier variants' names, their networks averaged (``learned.combine_weights``). ``--data``
adds other stage directories' situations after the first's (as ``spycfr train-values
--data``). One JSON line per variant. ``--depth 0``: no agent measured (training and the
held-out error only, the ensembles too, and the whole game's tree not built: a network for
another agent's walk, as ``results/mini-values``'s and ``results/small-values``'s).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from spycfr.games import make_variant
from spycfr.search.evaluate import Settings, exploitability
from spycfr.search.learned import LearnedValues, combine_weights, game_features, save_weights
from spycfr.search.situations import StageSpec, game_model
from spycfr.search.stages import load_situations, other_situations
from spycfr.search.training import Data, TrainSettings, error, split, train
from spycfr.search.tree import build


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("stage_dir", type=Path)
    ap.add_argument("variants")
    ap.add_argument("--depth", type=int, default=4,
                    help="the measuring agent's depth (0: no measure, the network only)")
    ap.add_argument("--iterations", type=int, default=100)
    ap.add_argument("--data", nargs="*", default=[], type=Path,
                    help="other stage directories trained on as well")
    a = ap.parse_args()
    text = a.variants if a.variants.lstrip().startswith("[") else Path(a.variants).read_text()
    d = a.stage_dir
    spec = StageSpec(**json.loads((d / "stage.json").read_text())["config"]["spec"])
    data = Data.concat([load_situations(d, spec)[0],
                        *(other_situations(x, spec) for x in a.data)])
    roots = np.concatenate([np.load(p)["root"] for x in (d, *a.data)
                            for p in sorted(x.glob("situations/batch-*.npz"))])
    print(f"{data.size} rows, {int(roots.sum())} solves", flush=True)
    game = game_model(spec.game, spec.preset, spec.params)
    full = build(game) if a.depth else None  # --depth 0 measures nothing: no whole tree
    feats = game_features(spec.game, make_variant(spec.game, spec.preset, spec.params))
    for v in json.loads(text):
        if "ensemble" in v:  # earlier variants' networks averaged
            path = d / f"variant-{v['name']}.npz"
            combine_weights(path, [d / f"variant-{name}.npz" for name in v["ensemble"]])
            t1 = time.perf_counter()
            expl = None if a.depth == 0 else exploitability(game, Settings(
                iterations=a.iterations, depth=a.depth,
                value_function=LearnedValues.load(path, feats)), full)[0]
            print(json.dumps({"variant": v, "eval_seconds": round(time.perf_counter() - t1),
                              "depth": a.depth, "iterations": a.iterations,
                              "exploitability": None if expl is None else round(expl, 5)}),
                  flush=True)
            continue
        rows = v.get("rows", "all")
        sel = np.flatnonzero(roots) if rows == "root" else np.arange(data.size)
        if rows == "rootx":
            sel = np.concatenate([sel] + [np.flatnonzero(roots)] * v.get("k", 10))
        part = data.take(sel)
        if not v.get("mask", True):
            part.m0, part.m1 = np.ones_like(part.u0), np.ones_like(part.u1)
        settings = TrainSettings(hidden=tuple(v.get("hidden", (128, 128))),
                                 epochs=v.get("epochs", 100), batch=v.get("batch", 256),
                                 lr=v.get("lr", 1e-3), seed=v.get("seed", 0),
                                 backend=v.get("backend", "auto"),
                                 head=v.get("head", "bilinear"),
                                 schedule=v.get("schedule", "cosine"))
        t0 = time.perf_counter()
        net, record = train(part, settings)
        _, held = split(part.group, settings.heldout, settings.seed)
        held_roots = data.take(np.unique(sel[held][roots[sel[held]]]))  # masked, as the loss
        path = d / f"variant-{v['name']}.npz"
        save_weights(path, net, {"game": spec.game, "preset": spec.preset,
                                 "params": spec.params, "z": game.z, "stage": spec.stage,
                                 "span": spec.span})
        t1 = time.perf_counter()
        expl = None if a.depth == 0 else exploitability(
            game, Settings(iterations=a.iterations, depth=a.depth,
                           value_function=LearnedValues.load(path, feats)), full)[0]
        print(json.dumps({
            "variant": v, "rows": int(part.size), "train_seconds": round(t1 - t0),
            "eval_seconds": round(time.perf_counter() - t1),
            "heldout_roots": {k: round(x, 4) for k, x in error(net, held_roots).items()},
            "heldout_rows": {k: round(x, 4) for k, x in record["heldout_error"].items()},
            "depth": a.depth, "iterations": a.iterations,
            "exploitability": None if expl is None else round(expl, 5)}), flush=True)


if __name__ == "__main__":
    main()
