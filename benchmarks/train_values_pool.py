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

``spycfr`` must be importable (``pip install -e .``; or a directory holding ``spycfr`` as a
link to ``solver/``, with ``solver/cli`` a link to ``cli/``, on ``PYTHONPATH``).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import sys
import time


def _batch(job: tuple[dict, int, int]) -> tuple[int, dict]:
    from spycfr.search.situations import generate_batch

    spec, start, count = job
    return start, generate_batch(spec, start, count)


def main() -> None:
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
    ap.add_argument("--measure", type=int, default=None, metavar="DEPTH")
    ap.add_argument("--measure-iterations", type=int, default=100)
    a = ap.parse_args()

    from spycfr.io import save_npz, write_json
    from spycfr.search.situations import StageSpec, generate_batch
    from spycfr.search.stages import previous_weights, run_stage, stage_dir
    from spycfr.search.training import TrainSettings, backend_name

    t0 = time.perf_counter()

    def say(text: str) -> None:
        print(f"{time.perf_counter() - t0:7.1f}s {text}", flush=True)

    spec = StageSpec(a.game, a.preset, {}, a.stage, a.span, a.iterations, a.seed,
                     previous_weights(a.out, a.stage), internal=a.internal)
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
    settings = TrainSettings(hidden=tuple(int(w) for w in a.hidden.split(",")), epochs=a.epochs,
                             batch=a.train_batch, lr=a.lr, seed=a.seed,
                             backend=backend_name("auto"))
    made = {"by": f"a pool of {a.processes} processes (benchmarks/train_values_pool.py; the "
                  "first batch, which compiles, in its parent before the pool's wall time)",
            "batches": done, "wall_seconds": gen_wall}
    record = run_stage(a.out, spec, done * a.batch, settings, a.batch, workers=0, note=say,
                       made_before=made)
    record["pool"] = {"processes": a.processes, "generate_wall_seconds": gen_wall,
                      "budget": a.budget}
    path = stage_dir(a.out, a.stage) / "stage.json"
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
                                           "pool", "agent_exploitability") if k in record}))


if __name__ == "__main__":
    sys.exit(main())
