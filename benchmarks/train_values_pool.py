"""One stage of ``spycfr train-values`` on a machine without Dask (the lent GPU machine: many
cores, PyTorch with CUDA): the situations in a process pool of ``--processes`` (forked after
the parent has compiled the numba kernels on the first batch), stopped at the last whole
batch once ``--budget`` seconds of generation have passed, then :func:`run_stage` trains (on
the GPU when PyTorch sees one) and writes ``stage.json`` and ``weights.npz`` as the command
does; with ``--measure DEPTH`` the depth-limited re-solving agent's exact exploitability with
the new weights (``evaluate.exploitability``, ``--measure-iterations`` a re-solve) is added
to ``stage.json`` as ``agent_exploitability``. Run from the repository root::

    python3 benchmarks/train_values_pool.py agent-hunter --preset tiny --out OUT \\
        --situations 60000 --internal 0 --budget 150 --processes 16 --measure 4

``--after-decisions D``: the situations' roots are the decision nodes a random playout
reaches after its first D decisions (``StageSpec.after_decisions``; DeepStack-style random
ranges there), each solved to the end: Agent Hunter's D = 4, after P2's first turn decision,
is where the search agent of results/mini-values asks its network. ``--seeds 0,1,2`` trains
one network per training seed on the same situations (the first by the stage, written as
its ``weights.npz``; the others ``weights-seed-S.npz``) and averages them into
``ensemble.npz`` (``learned.combine_weights``), each member's held-out error under
``ensemble`` in ``stage.json``. ``--pack PREFIX`` writes the situations packed into
``PREFIX-K.npz`` files of at most ``--pack-mb`` MB of arrays each (a batch file's keys: a
later session can put them in a stage's ``situations/`` as ``batch-*.npz`` and train again).

``spycfr`` must be importable (``pip install -e .``; or a directory holding ``spycfr`` as a
link to ``solver/``, with ``solver/cli`` a link to ``cli/``, on ``PYTHONPATH``).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import sys
import time
from pathlib import Path


def _batch(job: tuple[dict, int, int]) -> tuple[int, dict]:
    from spycfr.search.situations import generate_batch

    spec, start, count = job
    return start, generate_batch(spec, start, count)


def main() -> None:
    t0 = time.perf_counter()  # --train-deadline counts from here, as a shell's timeout would
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("game")
    ap.add_argument("--preset", default=None)
    ap.add_argument("--out", required=True)
    ap.add_argument("--stage", type=int, default=1)
    ap.add_argument("--situations", type=int, default=60000, help="draws at most")
    ap.add_argument("--batch", type=int, default=100)
    ap.add_argument("--span", type=int, default=4)
    ap.add_argument("--iterations", type=int, default=300)
    ap.add_argument("--internal", type=int, default=0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--budget", type=float, default=150.0,
                    help="seconds of generation after the first batch")
    ap.add_argument("--processes", type=int, default=mp.cpu_count())
    ap.add_argument("--hidden", default="256,256,256")
    ap.add_argument("--epochs", type=int, default=60)
    ap.add_argument("--train-batch", type=int, default=1024)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--after-decisions", type=int, default=None, metavar="D",
                    help="roots D decisions below the game's root (not by --span)")
    ap.add_argument("--seeds", default=None,
                    help="training seeds, comma-separated: an ensemble (default: --seed)")
    ap.add_argument("--pack", default=None, metavar="PREFIX")
    ap.add_argument("--pack-mb", type=float, default=15.0)
    ap.add_argument("--train-deadline", type=float, default=None, metavar="SECONDS",
                    help="--seeds: train a further member only if it can end (taking as "
                         "long as the first) within this many seconds of the start")
    ap.add_argument("--measure", type=int, default=None, metavar="DEPTH")
    ap.add_argument("--measure-iterations", type=int, default=100)
    a = ap.parse_args()
    from spycfr.errors import SpycfrError
    from spycfr.search.training import hidden_widths
    from spycfr.seeds import check_seed, seed_list

    try:  # told now, not as a traceback after the solves (numpy refuses a negative seed)
        check_seed(a.seed, "--seed")
        seeds = [a.seed] if a.seeds is None else seed_list(a.seeds, "--seeds")
    except SpycfrError as exc:
        ap.exit(2, f"error: {exc}\n")
    if a.after_decisions is not None and a.after_decisions < 0:
        ap.exit(2, f"error: --after-decisions must be at least 0 (got {a.after_decisions})\n")
    if a.after_decisions is not None and a.stage != 1:
        ap.exit(2, f"error: --after-decisions makes stage 1 only (its roots are solved to the "
                   f"end of the game; got --stage {a.stage})\n")
    try:  # told now, not after the situations' budget
        hidden = hidden_widths(a.hidden)
    except SpycfrError as exc:
        ap.exit(2, f"error: {exc}\n")
    if a.pack_mb <= 0:
        ap.exit(2, f"error: --pack-mb must be more than 0 (got {a.pack_mb:g})\n")

    from spycfr.games import make_variant
    from spycfr.io import save_npz, write_json
    from spycfr.search.situations import StageSpec, generate_batch
    from spycfr.search.stages import previous_weights, run_stage, stage_dir, train_ensemble
    from spycfr.search.training import TrainSettings, backend_name

    try:
        make_variant(a.game, a.preset)
    except SpycfrError as e:  # an unknown game or preset
        ap.exit(2, f"error: {e}\n")

    def say(text: str) -> None:
        print(f"{time.perf_counter() - t0:7.1f}s {text}", flush=True)

    spec = StageSpec(a.game, a.preset, {}, a.stage, a.span, a.iterations, a.seed,
                     previous_weights(a.out, a.stage), internal=a.internal,
                     after_decisions=a.after_decisions)
    d = stage_dir(a.out, a.stage) / "situations"
    d.mkdir(parents=True, exist_ok=True)
    say("first batch in this process (compiles the numba kernels)")
    save_npz(d / f"batch-{0:07d}.npz", **generate_batch(spec.as_dict(), 0, a.batch))
    say(f"compiled; {a.processes} processes for {a.budget:.0f} s")
    jobs = [(spec.as_dict(), s, a.batch) for s in range(a.batch, a.situations, a.batch)]
    done = 1
    g0 = time.perf_counter()
    with mp.get_context("fork").Pool(a.processes) as pool:
        for start, arrays in pool.imap(_batch, jobs):  # in order: the batches made are a prefix
            save_npz(d / f"batch-{start:07d}.npz", **arrays)
            done += 1
            if done % 20 == 0:
                say(f"{done} batches")
            if time.perf_counter() - g0 > a.budget:
                pool.terminate()
                break
    gen_wall = time.perf_counter() - g0
    say(f"{done} batches ({done * a.batch} draws) in {gen_wall:.0f} s")
    packed = None if a.pack is None else pack(d.parent, a.pack, a.pack_mb)
    if packed is not None:  # before the training: kept if a training is cut short
        say(f"packed: {packed}")
    settings = TrainSettings(hidden=hidden, epochs=a.epochs,
                             batch=a.train_batch, lr=a.lr, seed=seeds[0],
                             backend=backend_name("auto"))
    made = {"by": f"a pool of {a.processes} processes (benchmarks/train_values_pool.py; the "
                  "first batch, which compiles, in its parent before the pool's wall time)",
            "batches": done, "wall_seconds": gen_wall}
    record = run_stage(a.out, spec, done * a.batch, settings, a.batch, workers=0, note=say,
                       made_before=made)
    record["pool"] = {"processes": a.processes, "generate_wall_seconds": gen_wall,
                      "budget": a.budget}
    path = stage_dir(a.out, a.stage) / "stage.json"
    if packed is not None:
        record["packed"] = packed
        write_json(path, record)
    if len(seeds) > 1:
        until = None if a.train_deadline is None else t0 + a.train_deadline
        record["ensemble"] = train_ensemble(d.parent, spec, settings, seeds,
                                            record["training"], say, until)
        write_json(path, record)
    if a.measure is not None:
        from spycfr.search.evaluate import Settings, exploitability
        from spycfr.search.learned import LearnedValues
        from spycfr.search.situations import game_model

        say(f"measuring the re-solving agent at depth {a.measure}")
        vf = LearnedValues.load(stage_dir(a.out, a.stage) / "weights.npz")
        game = game_model(a.game, a.preset, {})
        expl, _ = exploitability(game, Settings(iterations=a.measure_iterations,
                                                depth=a.measure, value_function=vf))
        record["agent_exploitability"] = {"depth": a.measure,
                                          "iterations": a.measure_iterations,
                                          "exploitability": expl}
    write_json(path, record)
    say(json.dumps({k: record[k] for k in ("situations_made", "training_rows", "training",
                                           "pool", "ensemble", "agent_exploitability")
                    if k in record}))


def pack(d: Path, prefix: str, most_mb: float) -> list[dict]:
    """Stage directory ``d``'s batch files (``situations/batch-*.npz``) concatenated into
    ``PREFIX-K.npz`` files, compressed, a new one started before ``most_mb`` MB of arrays;
    each file's name, batches and rows."""
    import numpy as np

    out: list[dict] = []
    group: list[dict] = []

    def flush() -> None:
        name = f"{prefix}-{len(out) + 1}.npz"
        Path(name).parent.mkdir(parents=True, exist_ok=True)
        # a batch whose draws gave no situation holds empty arrays of another shape
        made = [batch for batch in group if batch["index"].size] or group[:1]
        arrays = {k: np.concatenate([batch[k] for batch in made])
                  for k in made[0] if k != "seconds"}
        np.savez_compressed(name, seconds=np.array(sum(float(g["seconds"]) for g in group)),
                            **arrays)
        out.append({"file": name, "batches": len(group), "rows": int(arrays["index"].size)})
        group.clear()

    size = 0
    for path in sorted((d / "situations").glob("batch-*.npz")):
        with np.load(path) as f:
            arrays = {k: f[k] for k in f.files}
        nbytes = sum(v.nbytes for v in arrays.values())
        if group and size + nbytes > most_mb * 1e6:
            flush()
            size = 0
        group.append(arrays)
        size += nbytes
    if group:
        flush()
    return out


if __name__ == "__main__":
    sys.exit(main())
