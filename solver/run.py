"""Run directories: one solve of one variant, with everything needed to use or resume it.

Layout of ``RUN_DIR``:

- ``run.json``: game, variant, algorithm and parameters, iterations, seed, seconds,
  value_p1, exploitability, nash_conv, tree sizes, spycfr version, status.
- ``strategy.npz``: the average strategy as an exact float64 array (what the
  analysis commands load), with the tree fingerprint it belongs to.
- ``strategy.parquet`` and ``strategy.csv``: the same strategy as a tidy table
  (see :mod:`solver.strategy_table`).
- ``convergence.csv``: iteration, seconds, exploitability.
- ``checkpoint.npz``: the solver's full state (regrets, strategy sums, ...), written
  atomically every ``checkpoint_every`` iterations; ``resume`` continues from it
  bit-identically.

Monte-Carlo CFR runs (``es-mccfr``, ``os-mccfr``; Agent Hunter only) use the same
layout when the variant is small enough to enumerate (at most :data:`ENUMERABLE_NODES`
estimated nodes): the tree is built and the exploitability is exact. On larger variants
there is no tree: ``exploitability`` and ``nash_conv`` are null, ``exploitability_estimate``
holds the sampled-regret bound and says so, ``convergence.csv`` has an
``exploitability_estimate`` column, there are no strategy tables, and ``openings.csv``
holds the placement distributions (values empty: they cannot be measured without a tree).
"""

from __future__ import annotations

import hashlib
import json
import os
import time
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from solver import __version__
from solver.best_response import best_response, expected_value, infoset_values
from solver.build import build_tree
from solver.cfr import CFRSolver
from solver.errors import Interrupted, MemoryLimitReached, SpycfrError
from solver.games import make_game
from solver.io import atomic_path, save_npz, write_json, write_text
from solver.strategy_table import strategy_table, write_table
from solver.tree import Tree

RUN_JSON = "run.json"
CHECKPOINT = "checkpoint.npz"
STRATEGY_NPZ = "strategy.npz"
CONVERGENCE = "convergence.csv"
OPENINGS_CSV = "openings.csv"
RUN_FILES = (RUN_JSON, CHECKPOINT, STRATEGY_NPZ, CONVERGENCE, OPENINGS_CSV,
             "strategy.parquet", "strategy.csv")

# Monte-Carlo CFR: algorithm name -> sampling scheme of solver.cfr.mccfr.
MCCFR_ALGORITHMS = {"es-mccfr": "external", "os-mccfr": "outcome"}
MCCFR_GAME = "agent-hunter"
DEFAULT_EPSILON = 0.6  # outcome sampling's exploration (OpenSpiel's default)
DEFAULT_MEMORY_LIMIT_GIB = 8.0
# Variants whose estimated tree is at most this big are enumerated, so that an MCCFR
# run gets its exact exploitability and the strategy tables of a full-tree run.
ENUMERABLE_NODES = 30_000_000
TREELESS_CAVEAT = "approximate: MCCFR, exploitability not measured"


@dataclass
class SolveConfig:
    """What a solve was asked to do (stored in run.json, reused by --resume)."""

    game: str
    preset: str | None
    params: dict
    algorithm: str = "cfr+"
    alpha: float = 1.5
    beta: float = 0.0
    gamma: float = 2.0
    alternating: bool = True
    iterations: int | None = None
    target_exploitability: float | None = None
    time_limit: float | None = None
    check_every: int | None = None
    seed: int = 0
    epsilon: float | None = None  # os-mccfr only (None: DEFAULT_EPSILON)
    memory_limit: float | None = None  # MCCFR only, GiB (None: DEFAULT_MEMORY_LIMIT_GIB)


# Settings a resumed run takes from the command line rather than from its checkpoint.
RESUME_LIMITS = ("iterations", "target_exploitability", "time_limit", "check_every",
                 "memory_limit")


@dataclass
class Run:
    """A loaded run directory: its metadata, the rebuilt tree and the average strategy."""

    path: Path
    meta: dict
    tree: Tree
    strategy: np.ndarray


def fingerprint(tree: Tree) -> dict:
    """Sizes that identify a tree well enough to catch a strategy loaded on the wrong one."""
    return {
        "nodes": tree.num_nodes,
        "infosets": tree.num_infosets,
        "infosets_p1": int(np.count_nonzero(tree.infoset_player == 0)),
        "actions": int(tree.infoset_num_actions.astype(np.int64).sum()),
    }


def _convergence_csv(log, column: str = "exploitability") -> str:
    frame = pd.DataFrame(log, columns=["iteration", "seconds", column])
    return frame.to_csv(index=False, float_format="%.17g")


def _save_checkpoint(run_dir: Path, engine, config: SolveConfig, seconds: float,
                     state: dict | None = None) -> None:
    solver = engine.solver
    state = solver.state_dict() if state is None else state
    arrays = {k: v for k, v in state.items() if isinstance(v, np.ndarray)}
    scalars = {k: v for k, v in state.items() if not isinstance(v, np.ndarray)}
    meta = {"config": config.__dict__, "solver": scalars, "seconds": seconds,
            "log": solver.log, "version": __version__}
    _save_fast_npz(run_dir / CHECKPOINT, meta=np.array(json.dumps(meta)), **arrays)
    write_text(run_dir / CONVERGENCE, _convergence_csv(solver.log, engine.value_column))


def _save_fast_npz(target: Path, **arrays: np.ndarray) -> None:
    """Atomically save a compressed .npz at zlib level 1: checkpoints are written often and
    MCCFR's hold GiBs of mostly-zero tables (about 3x faster than the default level, files
    barely larger); streamed in chunks, so no extra copy of the arrays."""
    with atomic_path(target) as tmp, zipfile.ZipFile(
        tmp, "w", zipfile.ZIP_DEFLATED, allowZip64=True, compresslevel=1
    ) as archive:
        for name, array in arrays.items():
            with archive.open(f"{name}.npy", "w", force_zip64=True) as fh:
                np.lib.format.write_array(fh, np.asanyarray(array), allow_pickle=False)


def _load_checkpoint(run_dir: Path) -> tuple[dict, dict, float, list]:
    path = run_dir / CHECKPOINT
    if not path.is_file():
        raise SpycfrError(f"cannot resume: {str(path)!r} does not exist")
    try:
        with np.load(path) as data:
            meta = json.loads(str(data["meta"]))
            state = {k: data[k] for k in data.files if k != "meta"}
    except Exception as exc:
        raise SpycfrError(f"cannot resume: {str(path)!r} is unreadable ({exc})") from None
    state.update(meta["solver"])
    return meta["config"], state, float(meta["seconds"]), [tuple(r) for r in meta["log"]]


# --- solver engines: what differs between the full-tree and the Monte-Carlo solvers ----------


class _FullTree:
    """A CFR-family solver on the enumerated tree (any game)."""

    value_column = "exploitability"

    def __init__(self, config: SolveConfig) -> None:
        self.config = config
        self.tree = build_tree(make_game(config.game, config.preset, config.params))
        self.solver = CFRSolver(self.tree, config.algorithm, config.alpha, config.beta,
                                config.gamma, config.alternating)

    def restore(self, state: dict, log: list, seconds: float) -> None:
        self.solver.load_state_dict(state)
        self.solver.log = list(log)
        self.solver.solve_seconds = seconds

    def advance(self, chunk: int | None, time_left: float | None, progress) -> tuple[float, str]:
        c = self.config
        result = self.solver.solve(chunk, c.target_exploitability, time_left, c.check_every,
                                   progress)
        return result.seconds, result.stopped_by

    def strategy(self) -> np.ndarray:
        return self.solver.average_strategy()

    def extra_meta(self) -> dict:
        return {}


class _MonteCarlo:
    """External- or outcome-sampling MCCFR straight on the Agent Hunter rules.

    The tree is built only if the variant is enumerable (then the exploitability is exact);
    otherwise the run reports the solver's labelled regret-bound estimate.
    """

    def __init__(self, config: SolveConfig) -> None:
        from solver.cfr.mccfr import MCCFRSolver
        from solver.games.agent_hunter.enumerate import estimate_nodes

        self.config = config
        game = make_game(config.game, config.preset, config.params)
        self.variant = game.variant_obj
        self.estimated_nodes = estimate_nodes(self.variant)
        self.enumerable = self.estimated_nodes <= ENUMERABLE_NODES
        if not self.enumerable and config.target_exploitability is not None:
            raise SpycfrError(
                f"--target-exploitability needs an exact best response, and this variant is too "
                f"big to enumerate (about {self.estimated_nodes:.2g} nodes > "
                f"{ENUMERABLE_NODES:,}): use --iterations or --time-limit"
            )
        self.solver = MCCFRSolver(
            self.variant, MCCFR_ALGORITHMS[config.algorithm], seed=config.seed,
            epsilon=_epsilon(config) or DEFAULT_EPSILON,
            memory_limit=_memory_limit_gib(config) * 2**30,
        )
        self.tree = build_tree(game) if self.enumerable else None
        self.value_column = "exploitability" if self.enumerable else "exploitability_estimate"
        self.memory_message: str | None = None

    def restore(self, state: dict, log: list, seconds: float) -> None:
        self.solver.load_state_dict(state)
        self.solver.log = list(log)
        self.solver.seconds = seconds

    def advance(self, chunk: int | None, time_left: float | None, progress) -> tuple[float, str]:
        from solver.cfr.mccfr import REGRET_BOUND_KIND

        c = self.config
        label = "exploitability" if self.enumerable else "exploitability~"
        note = "" if self.enumerable else f" ({REGRET_BOUND_KIND.split(' (')[0]})"

        def report(iteration: int, seconds: float, value: float | None) -> None:
            if progress is not None:
                progress(iteration, seconds, value, label=label, details=self._details(note))

        t0 = time.perf_counter()
        try:
            result = self.solver.solve(
                iterations=chunk, time_limit=time_left, check_every=c.check_every,
                tree=self.tree, target_exploitability=c.target_exploitability, progress=report,
            )
        except MemoryLimitReached as exc:
            # Raised between two iterations: the state is consistent and can be saved.
            self.memory_message = str(exc)
            spent = time.perf_counter() - t0
            self.solver.seconds += spent
            return spent, "memory"
        return result.seconds, result.stopped_by

    def _details(self, note: str) -> Callable[[], str]:
        def details() -> str:
            gib = self.solver.stats()["bytes_allocated"] / 2**30
            return f"{note}  {self.solver.num_infosets:,} infosets  {gib:.2f} GiB"
        return details

    def log_final(self) -> None:
        """Log the exact exploitability or the estimate at the current iteration if missing
        (a stop by memory happens inside the solver's loop, before it logs)."""
        from solver.best_response import exploitability
        from solver.cfr.mccfr import strategy_on_tree

        s = self.solver
        if s.log and s.log[-1][0] == s.iteration:
            return
        if self.tree is not None:
            value = exploitability(self.tree, strategy_on_tree(s, self.tree))
        else:
            value = s.regret_bound()["exploitability_bound_estimate"]
        s.log.append((s.iteration, s.seconds, value))

    def strategy(self) -> np.ndarray | None:
        from solver.cfr.mccfr import strategy_on_tree

        return None if self.tree is None else strategy_on_tree(self.solver, self.tree)

    def extra_meta(self) -> dict:
        from solver.cfr.mccfr import REGRET_BOUND_KIND

        self.log_final()
        stats = self.solver.stats()
        meta = {
            "epsilon": _epsilon(self.config),
            "tree_enumerated": self.enumerable,
            "estimated_nodes": self.estimated_nodes,
            "enumerable_node_limit": ENUMERABLE_NODES,
            "infosets_seen": stats["infosets"],
            "infosets_seen_p1": stats["infosets_p1"],
            "infosets_seen_p2": stats["infosets_p2"],
            "nodes_visited": stats["nodes_visited"],
            "memory": {"bytes_allocated": stats["bytes_allocated"],
                       "bytes_used": stats["bytes_used"],
                       "limit_bytes": int(self.solver.memory_limit)},
            "memory_stop": self.memory_message,
            "exploitability_estimate": None,
        }
        if self.tree is not None:
            meta["tree_coverage"] = self.solver.last_tree_coverage
        else:
            bound = self.solver.regret_bound()
            meta["exploitability_estimate"] = {
                "value": bound["exploitability_bound_estimate"],
                "kind": REGRET_BOUND_KIND,
                "method": "sum over both players of sum over stored infosets of the largest "
                          "positive cumulative sampled regret, divided by the iterations "
                          "(CFR's NashConv bound evaluated on sampled regrets), halved",
                "nash_conv_bound_estimate": bound["nash_conv_bound_estimate"],
                "regret_p1": bound["regret_p1"],
                "regret_p2": bound["regret_p2"],
                "iteration": self.solver.iteration,
            }
        return meta


def _epsilon(config: SolveConfig) -> float | None:
    if config.algorithm != "os-mccfr":
        return None
    return DEFAULT_EPSILON if config.epsilon is None else float(config.epsilon)


def _memory_limit_gib(config: SolveConfig) -> float:
    return DEFAULT_MEMORY_LIMIT_GIB if config.memory_limit is None else float(config.memory_limit)


def _check_config(config: SolveConfig) -> None:
    """Settings that only make sense with some algorithms or games: one-line errors."""
    mccfr = config.algorithm in MCCFR_ALGORITHMS
    if mccfr and config.game != MCCFR_GAME:
        raise SpycfrError(
            f"--algorithm {config.algorithm} samples the Agent Hunter rules: it works on "
            f"{MCCFR_GAME} only, not {config.game!r} (use cfr, cfr+, lcfr, dcfr or pcfr+)"
        )
    if config.epsilon is not None:
        if config.algorithm != "os-mccfr":
            raise SpycfrError("--epsilon applies to --algorithm os-mccfr only")
        if not 0.0 < config.epsilon <= 1.0:
            raise SpycfrError(f"--epsilon must be in (0, 1], got {config.epsilon!r}")
    if config.memory_limit is not None:
        if not mccfr:
            raise SpycfrError("--memory-limit applies to --algorithm es-mccfr or os-mccfr only")
        ram = _physical_gib()
        if not 0.0 < config.memory_limit <= ram / 2:
            raise SpycfrError(
                f"--memory-limit must be > 0 and at most half the RAM ({ram / 2:.3g} GiB here: a "
                f"checkpoint copies the tables), got {config.memory_limit!r}"
            )
    if mccfr and not config.alternating:
        raise SpycfrError("MCCFR always alternates the players' updates: drop --simultaneous")
    if mccfr and not 0 <= config.seed < 2**63:
        raise SpycfrError(f"--seed must be an integer 0..2**63-1, got {config.seed}")


def _physical_gib() -> float:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    except (ValueError, OSError, AttributeError):
        return 2 * DEFAULT_MEMORY_LIMIT_GIB


def solve_run(
    config: SolveConfig,
    out_dir: str | Path | None = None,
    resume: str | Path | None = None,
    checkpoint_every: int | None = None,
    progress: Callable[..., None] | None = None,
    write_tables: bool = True,
    overwrite: bool = False,
) -> dict:
    """Build, solve and (with ``out_dir``) write a run directory; returns run.json's content.

    With ``resume`` the configuration comes from the run's checkpoint (only the limits of
    ``config`` (:data:`RESUME_LIMITS`) apply) and the run continues in place. ``iterations``
    counts the run's total, so a resumed run ends exactly where an uninterrupted one would.
    ``overwrite`` replaces the run files of an existing run in ``out_dir`` (nothing else).
    ``progress(iteration, seconds, value, label=..., details=...)`` is called once with the
    starting point (value None), then after every batch; ``seconds`` counts the whole run.
    """
    seconds_before = 0.0
    state = None
    log: list = []
    if resume is not None:
        out_dir = Path(resume)
        saved, state, seconds_before, log = _load_checkpoint(out_dir)
        limits = {k: getattr(config, k) for k in RESUME_LIMITS}
        config = SolveConfig(**{**saved, **{k: v for k, v in limits.items() if v is not None}})
    run_dir = Path(out_dir) if out_dir is not None else None
    if run_dir is not None and resume is None and _holds_run(run_dir):
        if not overwrite:
            raise SpycfrError(f"{str(run_dir)!r} already holds a run; choose another -o, "
                              "add --overwrite to replace it, or use --resume")
        for name in RUN_FILES:
            (run_dir / name).unlink(missing_ok=True)
    if checkpoint_every is not None and checkpoint_every < 1:
        raise SpycfrError(f"--checkpoint-every must be >= 1, got {checkpoint_every}")
    if checkpoint_every is not None and run_dir is None:
        raise SpycfrError("--checkpoint-every needs an output run directory (-o RUN_DIR)")
    _check_config(config)

    mccfr = config.algorithm in MCCFR_ALGORITHMS
    engine = _MonteCarlo(config) if mccfr else _FullTree(config)
    solver, tree = engine.solver, engine.tree
    if state is not None:
        engine.restore(state, log, seconds_before)
    if run_dir is not None:
        run_dir.mkdir(parents=True, exist_ok=True)

    total = config.iterations
    if total is None and config.target_exploitability is None and config.time_limit is None:
        total = 1000
    if progress is not None:
        progress(solver.iteration, seconds_before, None)
    try:
        seconds, stopped = _iterate(engine, config, total, checkpoint_every, run_dir,
                                    seconds_before, progress)
    except BaseException as exc:
        if not is_interrupt(exc):
            raise
        where = "no checkpoint was written"
        if run_dir is not None and (run_dir / CHECKPOINT).is_file():
            where = (f"the last checkpoint in {str(run_dir)!r} is intact: continue with "
                     f"spycfr solve --resume {run_dir}")
        raise Interrupted(f"stopped at iteration {solver.iteration}; {where}") from None

    strategy = engine.strategy()
    meta = {
        "game": config.game,
        "variant": tree.variant if tree is not None else engine.variant.as_dict(),
        "preset": config.preset,
        "algorithm": config.algorithm,
        "algorithm_params": _algorithm_params(config),
        "iterations": solver.iteration,
        "seed": config.seed,
        "best_response_p1": None,
        "best_response_p2": None,
        "stopped_by": stopped,
        "value_p1": None,
        "exploitability": None,
        "nash_conv": None,
        "nodes": None if tree is None else tree.num_nodes,
        "infosets": None if tree is None else tree.num_infosets,
        "build_seconds": None if tree is None else tree.build_seconds,
        "solve_seconds": seconds,
        "ms_per_iteration": 1e3 * seconds / max(solver.iteration, 1),
        "version": __version__,
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "fingerprint": None if tree is None else fingerprint(tree),
    }
    if strategy is not None:
        br = [best_response(tree, strategy, p)[0] for p in (0, 1)]
        meta.update(best_response_p1=br[0], best_response_p2=br[1],
                    value_p1=expected_value(tree, strategy), nash_conv=br[0] + br[1],
                    exploitability=(br[0] + br[1]) / 2.0,
                    strategy_sha256=hashlib.sha256(strategy.tobytes()).hexdigest())
    meta.update(engine.extra_meta())
    final_state = None
    if mccfr:
        final_state = solver.state_dict()
        meta["state_sha256"] = _state_hash(final_state)
    meta["log"] = [{"iteration": it, "seconds": sec, engine.value_column: e}
                   for it, sec, e in solver.log]
    meta["run_dir"] = None if run_dir is None else str(run_dir)
    if run_dir is not None:
        if checkpoint_every is None:
            # a run without periodic checkpoints still gets one at the end, to extend it later
            _save_checkpoint(run_dir, engine, config, seconds, final_state)
        write_text(run_dir / CONVERGENCE, _convergence_csv(solver.log, engine.value_column))
        if strategy is not None:
            save_npz(run_dir / STRATEGY_NPZ, average=strategy,
                     fingerprint=np.array(json.dumps(meta["fingerprint"])))
            if write_tables:
                table = strategy_run_table(tree, strategy)
                write_table(table, run_dir / "strategy.parquet")
                write_table(table, run_dir / "strategy.csv")
        else:
            table = mccfr_openings_table(solver)
            write_text(run_dir / OPENINGS_CSV, table.to_csv(index=False, float_format="%.17g"))
        meta["config"] = config.__dict__
        write_json(run_dir / RUN_JSON, meta)
    return meta


def is_interrupt(exc: BaseException | None) -> bool:
    """Whether ``exc`` is Ctrl-C: a KeyboardInterrupt, possibly wrapped by numba in a
    SystemError when the signal lands as a compiled function returns."""
    seen = 0
    while exc is not None and seen < 10:
        if isinstance(exc, KeyboardInterrupt):
            return True
        exc = exc.__cause__ or exc.__context__
        seen += 1
    return False


def _algorithm_params(config: SolveConfig) -> dict:
    if config.algorithm in MCCFR_ALGORITHMS:
        return {"scheme": MCCFR_ALGORITHMS[config.algorithm], "epsilon": _epsilon(config),
                "memory_limit_gib": _memory_limit_gib(config), "alternating": True}
    return {"alpha": config.alpha, "beta": config.beta, "gamma": config.gamma,
            "alternating": config.alternating}


def _state_hash(state: dict) -> str:
    """sha256 of a solver state's arrays (names and bytes, in name order)."""
    digest = hashlib.sha256()
    for name in sorted(k for k, v in state.items() if isinstance(v, np.ndarray)):
        digest.update(name.encode())
        digest.update(memoryview(np.ascontiguousarray(state[name])).cast("B"))
    return digest.hexdigest()


def _iterate(engine, config, total, checkpoint_every, run_dir, seconds, progress):
    """Run until the limits of ``config``, checkpointing every ``checkpoint_every`` iterations."""
    solver = engine.solver
    stopped = "iterations"
    while True:
        remaining = None if total is None else total - solver.iteration
        if remaining is not None and remaining <= 0:
            break
        chunk = remaining
        if checkpoint_every is not None:
            chunk = checkpoint_every if chunk is None else min(chunk, checkpoint_every)
        time_left = None if config.time_limit is None else config.time_limit - seconds
        if time_left is not None and time_left <= 0:
            stopped = "time"
            break
        report = None
        if progress is not None:
            base = seconds

            def report(iteration, secs, value, base=base, **kw):
                progress(iteration, base + secs, value, **kw)

        spent, stopped = engine.advance(chunk, time_left, report)
        seconds += spent
        if run_dir is not None and checkpoint_every is not None:
            _save_checkpoint(run_dir, engine, config, seconds)
        if stopped in ("target", "time", "memory"):
            break
    return seconds, stopped


def mccfr_openings_table(solver) -> pd.DataFrame:
    """The placement distributions of an MCCFR solver's average strategy, without a tree.

    Each player's placement is one infoset whose key is known: P1's is the root key;
    P2's extends P2's root key by what P2 observes of P1's placement (hidden, so the same
    code for every placement). Values are NaN: they need a best response on a tree.
    """
    from solver.cfr.mccfr import combine_key, root_key
    from solver.games.agent_hunter import rules as R
    from solver.games.agent_hunter.record import action_label

    variant = solver.variant
    params = variant.to_array()
    acts = np.empty(R.max_actions(variant), dtype=np.int32)
    root = R.initial_state(params)
    k1 = int(R.legal_actions(root, params, acts))
    first = int(acts[0])
    after = np.empty_like(root)
    R.apply_action(root, params, np.int32(first), after)
    code = int(R.observation(root, params, np.int32(first), 1))
    keys = (int(root_key(0)), int(combine_key(root_key(1), np.int64(code))))
    frames = []
    for player, (state, key) in enumerate(zip((root, after), keys, strict=True)):
        k = k1 if player == 0 else int(R.legal_actions(state, params, acts))
        names = [action_label(state, params, int(a)) for a in acts[:k]]
        policy = solver.average_policy(key)
        seen = policy is not None
        if policy is None:
            policy = np.full(k, 1.0 / k)
        if len(policy) != k:
            raise RuntimeError(f"P{player + 1}'s placement infoset has {len(policy)} actions, "
                               f"the rules give {k}")
        cards = [n.split(":", 1)[1].split("-") for n in names]
        frames.append(pd.DataFrame({
            "player": "P1" if player == 0 else "P2",
            "opening": names,
            "cards": [",".join(sorted(c, key=int)) for c in cards],
            "probability": policy,
            "eq_value": np.nan,
            "br_value": np.nan,
            "seen": seen,
        }))
    table = pd.concat(frames, ignore_index=True)
    table = table.sort_values(["player", "probability"], ascending=[True, False], kind="stable")
    table["rank"] = table.groupby("player").cumcount() + 1
    return table.reset_index(drop=True)


def _holds_run(run_dir: Path) -> bool:
    return any((run_dir / name).exists() for name in (RUN_JSON, CHECKPOINT))


def read_run_meta(path: str | Path) -> dict:
    """run.json of a run directory (errors say what is missing or corrupt)."""
    path = Path(path)
    if path.is_file():
        raise SpycfrError(f"{str(path)!r} is a file, not a run directory")
    if not path.is_dir():
        raise SpycfrError(f"run directory {str(path)!r} does not exist")
    meta_path = path / RUN_JSON
    if not meta_path.is_file():
        raise SpycfrError(f"{str(path)!r} is not a run directory: {RUN_JSON} is missing")
    try:
        meta = json.loads(meta_path.read_text())
        config = meta["config"]
        for key in ("game", "preset", "params"):
            config[key]  # noqa: B018 (a run is rebuilt from these)
    except (ValueError, KeyError, TypeError) as exc:
        raise SpycfrError(f"{str(meta_path)!r} is corrupt ({exc})") from None
    return meta


def is_treeless(meta: dict) -> bool:
    """Whether a run was solved by MCCFR without a tree (no strategy tables, no exact values)."""
    return meta.get("tree_enumerated") is False


def treeless_openings(path: str | Path) -> tuple[dict, pd.DataFrame] | None:
    """(run.json, openings table) of a tree-less MCCFR run; None if the run has a tree."""
    meta = read_run_meta(path)
    if not is_treeless(meta):
        return None
    target = Path(path) / OPENINGS_CSV
    try:
        table = pd.read_csv(target)
    except Exception as exc:
        raise SpycfrError(f"{str(target)!r} is missing or corrupt ({exc})") from None
    return meta, table


def strategy_run_table(tree: Tree, strategy: np.ndarray) -> pd.DataFrame:
    """The tidy strategy table with reach probabilities and conditional action values."""
    cfv, reach, opp = infoset_values(tree, strategy)
    return strategy_table(tree, strategy, cfv=cfv, reach=reach, opponent_reach=opp)


def load_run(path: str | Path) -> Run:
    """Load a run directory (rebuilding its tree); errors say what is missing or wrong."""
    path = Path(path)
    meta = read_run_meta(path)
    config = meta["config"]
    if is_treeless(meta):
        raise SpycfrError(
            f"run {str(path)!r} was solved by MCCFR on a variant too big to enumerate: it has "
            "no tree or strategy tables, only `spycfr openings` can read it"
        )
    try:
        with np.load(path / STRATEGY_NPZ) as data:
            strategy = np.array(data["average"], dtype=np.float64)
    except Exception as exc:
        raise SpycfrError(f"{str(path / STRATEGY_NPZ)!r} is missing or corrupt ({exc})") from None
    tree = build_tree(make_game(config["game"], config["preset"], config["params"]))
    if fingerprint(tree) != meta.get("fingerprint") or strategy.shape[0] != tree.num_infosets:
        raise SpycfrError(
            f"run {str(path)!r} does not match the tree of its variant (made by another version?)"
        )
    if tree.infoset_keys is None:
        _labels_from_table(tree, path / "strategy.parquet")
    return Run(path, meta, tree, strategy)


def _labels_from_table(tree: Tree, table_path: Path) -> None:
    """Take the infoset keys and action labels from the run's own table (rows are in infoset
    and action order), which is much faster than replaying every infoset."""
    try:
        table = pd.read_parquet(table_path, columns=["infoset", "action"])
    except Exception:
        return  # labels are recomputed on demand
    counts = tree.infoset_num_actions.astype(np.int64)
    if len(table) != int(counts.sum()):
        return
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    keys = table["infoset"].to_numpy()
    actions = table["action"].tolist()
    tree.infoset_keys = [str(keys[i]) for i in starts]
    tree.action_labels = [actions[i:i + k] for i, k in zip(starts, counts, strict=True)]
