"""One stage of value-function training, resumable: generate its situations in batches (on
Dask: a LocalCluster by default, a cluster by its scheduler's address, or in this process
with ``workers=0``), each batch written as it arrives; then train the network with a
checkpoint after every epoch. The stage's directory records what it is, its cost and its
held-out error::

    OUT/stage-N/stage.json            the spec, counts, seconds, errors
    OUT/stage-N/situations/batch-*.npz one file per finished batch
    OUT/stage-N/train-checkpoint.npz   (.pt with PyTorch) the last finished epoch
    OUT/stage-N/weights.npz            the trained network (what LearnedValues loads)

Rerunning the same command skips finished batches and resumes training; a different spec
for an existing stage is refused. ``data`` names other stage directories of the same game and
variant whose situations are trained on as well (after this stage's own): the rounds of
training at an agent's own leaf queries (DAgger) each solve only their new queries and train
on all the rounds so far.
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path

import numpy as np

from spycfr import __version__
from spycfr.cluster import dask_client
from spycfr.errors import SpycfrError
from spycfr.io import save_npz, write_json
from spycfr.search.learned import combine_weights, game_features, load_weights, save_weights
from spycfr.search.situations import StageSpec, game_model, generate_batch
from spycfr.search.training import Data, TrainSettings, train

Note = Callable[[str], None]


def stage_dir(out: str | Path, stage: int) -> Path:
    return Path(out) / f"stage-{stage}"


def previous_weights(out: str | Path, stage: int) -> str | None:
    """Stage N > 1 reads stage N - 1's finished weights."""
    if stage == 1:
        return None
    path = stage_dir(out, stage - 1) / "weights.npz"
    if not path.exists():
        raise SpycfrError(f"stage {stage} needs stage {stage - 1}'s weights: {path} is missing "
                          f"(train stage {stage - 1} first)")
    return str(path)


# Settings a stage records since stages were first made, with what the stages made before
# did: the shift head, random situations (no queries file, roots by span), PyTorch's
# threads (how fast, not what is trained), a constant learning rate. Stages without
# `internal` are older still: their situation files lack the masks read now, so they are
# refused.
_ADDED: dict[str, dict] = {"spec": {"queries": None, "after_decisions": None},
                           "train": {"head": "shift", "threads": 1, "schedule": "constant"}}


def _differences(recorded: dict, config: dict) -> str:
    """The settings of ``config`` that a stage's recorded ones differ from ('' if none)."""
    out = []
    for part, asked in config.items():
        if not isinstance(asked, dict):
            if recorded.get(part) != asked:
                out.append(f"{part}: {recorded.get(part)!r} there, {asked!r} now")
            continue
        there = {**_ADDED.get(part, {}), **recorded.get(part, {})}
        for key, value in asked.items():
            if key not in there:
                out.append(f"{part}.{key}: not recorded, {value!r} now")
            elif there[key] != value:
                out.append(f"{part}.{key}: {there[key]!r} there, {value!r} now")
    return "; ".join(out)


def run_stage(out: str | Path, spec: StageSpec, situations: int, train_settings: TrainSettings,
              batch: int = 16, scheduler: str | None = None, workers: int | None = None,
              note: Note | None = None, data: tuple[str, ...] = (),
              made_before: dict | None = None) -> dict:
    """Generate ``situations`` situation draws for ``spec`` (draws whose playout is too short
    for the stage give none) and train on them and ``data``'s stage directories' situations;
    returns the stage's record (also in stage.json).

    The record's ``generate_wall_seconds`` is the wall time spent making the stage's
    batches: summed over the calls that made some (``batches_generated`` counts the batches
    they made) and ``made_before``'s, where given: batches another process made in the
    stage's directory before this call ({"by": words, "batches": n, "wall_seconds": s}:
    benchmarks/train_values_pool.py's pool), recorded as ``made_before``. A call that finds
    every batch made, without ``made_before``, adds nothing: the seconds an earlier call
    recorded stay, and where none did they are None (not known; code before 6e0d9de
    recorded the microseconds this call took to find the batches)."""
    say = note or (lambda text: None)
    data = tuple(str(Path(x).resolve()) for x in data)
    extra = [other_situations(Path(x), spec) for x in data]  # refused before any work
    d = stage_dir(Path(out), spec.stage)
    (d / "situations").mkdir(parents=True, exist_ok=True)
    record_path = d / "stage.json"
    config = {"spec": spec.as_dict(), "situations": situations, "batch": batch,
              "train": {**asdict(train_settings), "hidden": list(train_settings.hidden)}}
    if data:
        config["data"] = list(data)
    record = json.loads(record_path.read_text()) if record_path.exists() else {}
    if record and (differ := _differences(record["config"], config)):
        raise SpycfrError(f"{d} holds a stage made with other settings ({differ}); "
                          + ("it was made by an earlier spycfr whose situation files this one "
                             "cannot read: use another --out" if "not recorded" in differ else
                             "use another --out or the same settings to resume"))
    record.update(config=config, version=__version__)
    write_json(record_path, record)
    starts = list(range(0, situations, batch))
    todo = [s for s in starts if not (d / "situations" / f"batch-{s:07d}.npz").exists()]
    say(f"stage {spec.stage}: {len(starts) - len(todo)} of {len(starts)} batches already "
        f"made, {len(todo)} to go ({situations} draws, {spec.iterations} CFR+ iterations a "
        f"solve; the first batch compiles numba kernels)")
    t0 = time.perf_counter()
    _generate(d, spec, todo, batch, situations, scheduler, workers, say)
    seconds = time.perf_counter() - t0 if todo else 0.0  # nothing made: no time of its own
    if made_before is not None:
        record["made_before"] = made_before
        seconds += made_before["wall_seconds"]
    if todo or made_before is not None:
        record["generate_wall_seconds"] = (record.get("generate_wall_seconds") or 0.0) + seconds
        record["batches_generated"] = record.get("batches_generated", 0) + len(todo)
    else:
        record.setdefault("generate_wall_seconds", None)  # found made: by whom, not known
    own, worker_seconds, nodes, example = load_situations(d, spec)
    record.update(situations_made=int(np.unique(own.group).size), training_rows=own.size,
                  generate_worker_seconds=worker_seconds, mean_subgame_nodes=nodes)
    if extra:
        record["data_rows"] = [part.size for part in extra]
    all_data = Data.concat([own, *extra])
    write_json(record_path, record)
    if all_data.size < 2:
        raise SpycfrError(f"stage {spec.stage} has only {all_data.size} situation: too few to "
                          "train (more --situations, or roots that more draws reach; this "
                          f"stage's: {spec.roots()})")
    say(f"training on {all_data.size} rows of "
        f"{int(np.unique(all_data.group).size)} situations ({train_settings.epochs} epochs)")
    net, trained = train(all_data, train_settings, d / "train-checkpoint.npz",
                         lambda e, loss, err: say(
                             f"epoch {e}/{train_settings.epochs}: loss {loss:.3g}"
                             + (f", held-out mse {err['mse']:.3g}" if err else "")))
    if "training" in record:  # a rerun after the training had finished
        trained["train_seconds"] += record["training"]["train_seconds"]
    record.update(training=trained)
    save_weights(d / "weights.npz", net, {
        "game": spec.game, "preset": spec.preset, "params": spec.params,
        "z": game_model(spec.game, spec.preset, spec.params).z, "stage": spec.stage,
        "span": spec.span, "example_pub": example, "heldout_error": trained["heldout_error"],
        "version": __version__})
    write_json(record_path, record)
    return record


def train_ensemble(d: Path, spec: StageSpec, settings: TrainSettings, seeds: list[int],
                   first: dict, note: Note | None = None, until: float | None = None,
                   data: tuple[str, ...] = (), into: str = "ensemble.npz") -> list[dict]:
    """Networks for ``seeds[1:]`` trained on stage directory ``d``'s situations and
    ``data``'s as :func:`run_stage` trained ``seeds[0]``'s (``weights.npz``, its training
    record ``first``), each saved as ``weights-seed-S.npz`` with its held-out error, then all
    averaged into ``d / into`` (``learned.combine_weights``); each member's record (seed,
    seconds, errors on its own held-out situations). ``into`` "weights.npz" makes the
    ensemble the stage's network (what a next DAgger round loads), the first member kept as
    ``weights-seed-S.npz``. A member that could not end by ``until`` (perf_counter seconds),
    taking as long as the first, is left out and said so (a one-shot run on a lent machine
    keeps the members made)."""
    from dataclasses import replace

    say = note or (lambda text: None)
    keys = ("train_seconds", "heldout_error", "train_error", "heldout_rows")
    members = [{"seed": seeds[0], **{k: first[k] for k in keys}}]
    # the rows in run_stage's order: each member's held-out split is drawn from them by its seed
    all_data = Data.concat([load_situations(d, spec)[0],
                            *(other_situations(Path(x).resolve(), spec) for x in data)])
    _, meta = load_weights(d / "weights.npz")
    paths: list[str | Path] = [d / "weights.npz"]
    if into == "weights.npz":
        paths = [d / f"weights-seed-{seeds[0]}.npz"]
        shutil.copyfile(d / "weights.npz", paths[0])
    for seed in seeds[1:]:
        if until is not None and time.perf_counter() + first["train_seconds"] > until:
            say(f"seed {seed} left out: no time to train it before the deadline")
            members.append({"seed": seed, "left_out": "the deadline"})
            continue
        say(f"training seed {seed}")
        net, trained = train(all_data, replace(settings, seed=seed))
        paths.append(d / f"weights-seed-{seed}.npz")
        save_weights(paths[-1], net, {**meta, "heldout_error": trained["heldout_error"]})
        members.append({"seed": seed, **{k: trained[k] for k in keys}})
        say(f"seed {seed}: held-out {trained['heldout_error']}, "
            f"{trained['train_seconds']:.0f} s")
    combine_weights(d / into, paths)
    say(f"{into}: {len(paths)} networks averaged")
    return members


def _generate(d: Path, spec: StageSpec, todo: list[int], batch: int, situations: int,
              scheduler: str | None, workers: int | None, say: Note) -> None:
    def store(start: int, arrays: dict) -> None:
        save_npz(d / "situations" / f"batch-{start:07d}.npz", **arrays)

    counts = [min(batch, situations - s) for s in todo]
    if not todo:
        return
    if workers == 0 and scheduler is None:
        for k, (s, c) in enumerate(zip(todo, counts, strict=True)):
            store(s, generate_batch(spec.as_dict(), s, c))
            say(f"batch {k + 1}/{len(todo)} done")
        return
    from distributed import as_completed

    with dask_client(scheduler, workers or 2) as (client, text):
        say(f"on {text}")
        futures = {client.submit(generate_batch, spec.as_dict(), s, c, pure=False): s
                   for s, c in zip(todo, counts, strict=True)}
        for k, fut in enumerate(as_completed(futures)):
            store(futures[fut], fut.result())
            say(f"batch {k + 1}/{len(todo)} done")


def other_situations(d: Path, spec: StageSpec) -> Data:
    """Another stage directory's situations, to train ``spec``'s stage on as well: a
    SpycfrError unless it holds situations of the same game, variant and stage."""
    try:
        other = StageSpec(**json.loads((d / "stage.json").read_text())["config"]["spec"])
    except (OSError, ValueError, KeyError, TypeError):
        raise SpycfrError(f"{d} is not a stage directory of train-values (OUT/stage-N with "
                          "its stage.json)") from None
    what = [(s.game, s.preset, s.params, s.stage) for s in (other, spec)]
    if what[0] != what[1]:
        raise SpycfrError(f"{d} holds situations of (game, preset, params, stage) {what[0]}, "
                          f"not {what[1]}")
    return load_situations(d, other)[0]


def load_situations(d: Path, spec: StageSpec) -> tuple[Data, float, float, list[int]]:
    """A stage directory's situations as training data, with the generation's worker
    seconds, the solves' mean subgame size and an example public state."""
    keys = ("pub", "r0", "r1", "v0", "v1", "m0", "m1")
    parts: dict[str, list] = {k: [] for k in (*keys, "index", "nodes")}
    seconds = 0.0
    for path in sorted((d / "situations").glob("batch-*.npz")):
        with np.load(path) as f:
            seconds += float(f["seconds"])
            if f["index"].size:
                for k in (*keys, "index"):
                    parts[k].append(f[k])
                parts["nodes"].append(f["nodes"][f["root"]])
    if not parts["pub"]:
        raise SpycfrError(f"stage {spec.stage} made no situations: no draw reached its roots "
                          f"({spec.roots()})")
    a = {k: np.concatenate(v) for k, v in parts.items()}
    from spycfr.games import make_variant

    features = game_features(spec.game, make_variant(spec.game, spec.preset, spec.params))
    z = game_model(spec.game, spec.preset, spec.params).z
    data = Data.of(a["pub"], a["r0"], a["r1"], a["v0"], a["v1"], features, z, a["m0"], a["m1"],
                   a["index"])
    return data, seconds, float(a["nodes"].mean()), [int(x) for x in a["pub"][0]]
