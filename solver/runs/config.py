"""What a solve is asked to do (:class:`SolveConfig`, stored in run.json and the checkpoint)
and its validation: every setting that only makes sense with some algorithms, devices or
games is refused here with a one-line error, whatever calls the solve (the CLI, a sweep, a
library user)."""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field
from typing import Any

import numba

from spycfr.cfr.gpu import DEVICES
from spycfr.cfr.kernels import ALGORITHMS
from spycfr.errors import SpycfrError
from spycfr.memory import MemoryBudget, budget_for, physical_bytes
from spycfr.seeds import check_seed

# Monte-Carlo CFR: algorithm name -> sampling scheme of spycfr.cfr.mccfr.
MCCFR_ALGORITHMS = {"es-mccfr": "external", "os-mccfr": "outcome"}
# Every --algorithm: auto (spycfr.runs.plan chooses), the exact LP, the full-tree CFR family
# and Monte-Carlo CFR.
ALL_ALGORITHMS = ("auto", "lp", *ALGORITHMS, *MCCFR_ALGORITHMS)
# --tree: the public tree (spycfr.public), the history tree, or auto (spycfr.runs.public_run).
TREES = ("auto", "public", "history")
DEFAULT_EPSILON = 0.6  # outcome sampling's exploration (OpenSpiel's default)
AUTO_THREADS = 0  # SolveConfig.threads meaning --threads auto
# Settings a resumed run takes from the command line rather than from its checkpoint.
RESUME_LIMITS = ("iterations", "target_exploitability", "time_limit", "check_every",
                 "memory_limit", "device", "threads", "when_full")
# Which algorithms take the discount exponents (spycfr.cfr.kernels.discount_defaults).
_EXPONENTS = {"alpha": ("dcfr", "pdcfr+"), "beta": ("dcfr",),
              "gamma": ("dcfr", "pdcfr+", "hs-pcfr+")}


@dataclass(frozen=True)
class SolveConfig:
    """What a solve was asked to do (stored in run.json, reused by --resume)."""

    game: str
    preset: str | None
    params: dict[str, Any] = field(default_factory=dict)
    algorithm: str = "cfr+"  # the library's; `spycfr solve` defaults to "auto"
    alpha: float | None = None  # None: the algorithm's own (spycfr.cfr.kernels.discount_defaults)
    beta: float | None = None
    gamma: float | None = None
    alternating: bool = True
    iterations: int | None = None
    target_exploitability: float | None = None
    time_limit: float | None = None
    check_every: int | None = None
    seed: int = 0
    epsilon: float | None = None  # os-mccfr only (None: DEFAULT_EPSILON)
    memory_limit: float | None = None  # GiB of resident memory (None: half the RAM)
    abstraction: bool = False  # MCCFR only: key infosets by the game's information abstraction
    device: str | None = "cpu"  # full tree: cpu, gpu or auto (a GPU when numba finds one)
    threads: int | None = 1  # full tree on the CPU: threads of the iterations (0: auto)
    when_full: str | None = None  # MCCFR only, at the memory limit: stop (None) or freeze
    fallback: str | None = None  # MCCFR only: how unstored infosets play (None: uniform)
    store_depth: int | None = None  # MCCFR only: decisions deeper than this are not stored
    tree: str = "history"  # public, history or auto (spycfr.runs.public_run.choose_tree)

    def as_dict(self) -> dict[str, Any]:
        """The fields as run.json and the checkpoint store them."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}

    def replace(self, **changes: Any) -> SolveConfig:
        return dataclasses.replace(self, **changes)

    def resumed(self, saved: dict[str, Any]) -> SolveConfig:
        """The configuration of a run resumed from a checkpoint that stored ``saved``: its
        own settings, with this one's limits (:data:`RESUME_LIMITS`) where given."""
        limits = {k: getattr(self, k) for k in RESUME_LIMITS if getattr(self, k) is not None}
        try:
            return SolveConfig(**{**saved, **limits})
        except TypeError as exc:
            raise SpycfrError(f"cannot resume: the checkpoint's settings are corrupt "
                              f"({str(exc)[:200]}): solve again") from None

    @property
    def mccfr(self) -> bool:
        return self.algorithm in MCCFR_ALGORITHMS

    def memory_budget(self) -> MemoryBudget:
        """The memory limit as every engine checks it (the one form it takes)."""
        return budget_for(self.memory_limit)

    @property
    def memory_limit_gib(self) -> float:
        """--memory-limit in GiB, by default half the machine's RAM (the most it may be)."""
        return self.memory_budget().limit_bytes / 2**30

    @property
    def epsilon_value(self) -> float | None:
        """Outcome sampling's exploration (None for the other algorithms)."""
        if self.algorithm != "os-mccfr":
            return None
        return DEFAULT_EPSILON if self.epsilon is None else float(self.epsilon)

    def iterative_settings(self, checkpoint_every: int | None = None) -> list[str]:
        """The options given that only an iterative algorithm uses."""
        return [name for name, value in (
            ("--iterations", self.iterations), ("--time-limit", self.time_limit),
            ("--check-every", self.check_every), ("--checkpoint-every", checkpoint_every),
            ("--simultaneous", None if self.alternating else True)) if value is not None]


def available_cpus() -> int:
    """The CPUs this process may run on that numba may use."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        cpus = os.cpu_count() or 1
    return max(1, min(cpus, numba.config.NUMBA_NUM_THREADS))


def check_requested(config: SolveConfig) -> None:
    """Settings checkable before the game is known, against the algorithm asked for (auto
    included): the algorithm itself, the discount exponents, the memory limit."""
    if config.memory_limit is not None:
        ram = physical_bytes() / 2**30
        if not 0.0 < config.memory_limit <= ram / 2:
            raise SpycfrError(
                f"--memory-limit must be > 0 and at most half the RAM ({ram / 2:.3g} GiB here: a "
                f"checkpoint copies the tables), got {config.memory_limit!r}"
            )
    if config.algorithm not in ALL_ALGORITHMS:
        raise SpycfrError(f"unknown algorithm {config.algorithm!r}; allowed: "
                          f"{', '.join(ALL_ALGORITHMS)}")
    if config.tree not in TREES:
        raise SpycfrError(f"--tree must be one of {', '.join(TREES)}, got {config.tree!r}")
    for name, algorithms in _EXPONENTS.items():
        if getattr(config, name) is not None and config.algorithm not in algorithms:
            raise SpycfrError(f"--{name} applies to --algorithm {_either(algorithms)} only"
                              + (" (pdcfr+ keeps no negative regrets)" if name == "beta"
                                 else ""))


def _either(names: tuple[str, ...]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"


def check_config(config: SolveConfig, checkpoint_every: int | None = None) -> None:
    """Settings that only make sense with some algorithms or devices, once the algorithm is
    chosen: one-line errors."""
    mccfr = config.mccfr
    if config.epsilon is not None:
        if config.algorithm != "os-mccfr":
            raise SpycfrError("--epsilon applies to --algorithm os-mccfr only")
        if not 0.0 < config.epsilon <= 1.0:
            raise SpycfrError(f"--epsilon must be in (0, 1], got {config.epsilon!r}")
    if config.device not in DEVICES:
        raise SpycfrError(f"--device must be one of {', '.join(DEVICES)}, got {config.device!r}")
    if mccfr and config.device == "gpu":
        raise SpycfrError("--device gpu runs the full-tree algorithms (cfr, cfr+, lcfr, dcfr, "
                          "pcfr+); es-mccfr and os-mccfr run on the CPU: drop --device gpu")
    for name in ("abstraction", "when_full", "fallback", "store_depth"):
        value = getattr(config, name)
        if value is not None and value is not False and not mccfr:
            raise SpycfrError(f"--{name.replace('_', '-')} applies to --algorithm es-mccfr or "
                              "os-mccfr only")
    if mccfr and not config.alternating:
        raise SpycfrError("MCCFR always alternates the players' updates: drop --simultaneous")
    check_seed(config.seed, "--seed")
    if config.threads is not None and config.threads != AUTO_THREADS:
        most = available_cpus()
        if not 1 <= config.threads <= most:
            raise SpycfrError(f"--threads must be between 1 and {most} (the CPUs available "
                              f"here) or auto, got {config.threads}")
        if config.threads > 1 and (mccfr or config.algorithm == "lp" or config.device == "gpu"):
            raise SpycfrError("--threads applies to the full-tree CFR algorithms on the CPU "
                              f"(not {config.algorithm}"
                              f"{' on the GPU' if config.device == 'gpu' else ''}): drop it")
    if config.algorithm == "lp" and config.device == "gpu":
        raise SpycfrError("the exact LP runs on the CPU: drop --device gpu, or choose a CFR "
                          "algorithm (e.g. --algorithm pdcfr+)")
    if config.algorithm == "lp":
        given = config.iterative_settings()
        if given:
            raise SpycfrError(f"{', '.join(given)} apply to the iterative algorithms; the exact "
                              "LP has no iterations: drop them, or choose --algorithm pdcfr+")
        if checkpoint_every is not None:
            raise SpycfrError("--checkpoint-every applies to the iterative algorithms; the "
                              "exact LP has no iterations")


def check_checkpointing(checkpoint_every: int | None, has_run_dir: bool) -> None:
    """--checkpoint-every: at least 1, and only into a run directory."""
    if checkpoint_every is not None and checkpoint_every < 1:
        raise SpycfrError(f"--checkpoint-every must be >= 1, got {checkpoint_every}")
    if checkpoint_every is not None and not has_run_dir:
        raise SpycfrError("--checkpoint-every needs an output run directory (-o RUN_DIR)")
