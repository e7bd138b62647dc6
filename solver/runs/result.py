"""A run's result, typed and frozen (:class:`RunResult`): what a solve writes to run.json
and what :func:`spycfr.runs.store.load_run` reads back, so that analysis reads attributes
(``run.result.exploitability``), not string keys.

The record keeps the JSON object it came from (:attr:`RunResult.record`) and writes exactly
that back (:meth:`RunResult.to_json`): run.json's format on disk is unchanged, every run
written by an earlier version loads, and keys a later version adds survive a rewrite."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from spycfr.runs.config import SolveConfig


@dataclass(frozen=True)
class ChoiceOfAuto:
    """What ``--algorithm auto`` chose, and why (one sentence)."""

    chosen: str
    why: str


@dataclass(frozen=True)
class RegretEstimate:
    """A tree-less MCCFR run's sampled-regret bound (``exploitability_estimate``): an
    estimate, informative only when within the payoff span and covering every decision."""

    value: float
    payoff_span: float
    informative: bool
    note: str
    kind: str

    @property
    def shortfall(self) -> str:
        """Why the bound bounds nothing (when not informative): see :func:`bound_shortfall`."""
        return bound_shortfall(self.value, self.payoff_span)


def bound_shortfall(value: float, payoff_span: float) -> str:
    """Why a run's sampled-regret bound (not informative) bounds nothing, as words to follow
    "the bound": for the run's note, the CLI and reports."""
    if value > payoff_span:
        return f"is above the payoff span {payoff_span:g}"
    return "covers only the decisions the table learnt, not those its fallback played"


@dataclass(frozen=True)
class TablesMemory:
    """A sampled run's tables: bytes allocated and used, the limit on the resident memory."""

    bytes_allocated: int
    bytes_used: int
    limit_bytes: int


@dataclass(frozen=True)
class RunResult:
    """run.json of a solve, typed (see the module notes; :mod:`spycfr.runs.store` for the
    files). Values a run did not measure are None: a tree-less run has no exploitability,
    only ``exploitability_estimate``."""

    game: str
    variant: dict[str, Any]
    iterations: int
    preset: str | None = None
    algorithm: str = "?"
    algorithm_choice: ChoiceOfAuto | None = None
    algorithm_params: dict[str, Any] = field(default_factory=dict)
    seed: int | None = None
    stopped_by: str | None = None
    value_p1: float | None = None
    value_interval: tuple[float, float] | None = None
    exploitability: float | None = None
    nash_conv: float | None = None
    best_response_p1: float | None = None
    best_response_p2: float | None = None
    nodes: int | None = None
    infosets: int | None = None
    build_seconds: float | None = None
    solve_seconds: float | None = None
    ms_per_iteration: float | None = None
    version: str | None = None
    created: str | None = None
    device: str | None = None
    tree: str | None = None  # the tree solved on: history or public (older runs: history)
    tree_choice: dict[str, str] | None = None  # what --tree auto chose, and why
    public_tree: dict[str, Any] | None = None  # a public-tree run's sizes
    threads: int | None = None
    threads_note: str | None = None
    memory_limit_gib: float | None = None
    peak_rss_bytes: int | None = None
    tables_skipped: str | None = None
    run_dir: str | None = None
    # Monte-Carlo CFR
    epsilon: float | None = None
    tree_enumerated: bool | None = None
    tree_not_enumerated_because: str | None = None
    estimated_nodes: float | None = None
    infosets_seen: int | None = None
    infosets_seen_p1: int | None = None
    infosets_seen_p2: int | None = None
    memory: TablesMemory | None = None
    memory_stop: str | None = None
    frozen_at_iteration: int | None = None
    unstored_decisions: int | None = None
    exploitability_estimate: RegretEstimate | None = None
    # spycfr measure's record of a tree-less run's strength
    measured: dict[str, Any] | None = None
    # what identifies the run's files and state
    fingerprint: dict[str, int] | None = None
    strategy_sha256: str | None = None
    state_sha256: str | None = None
    files: dict[str, str] | None = None
    config: SolveConfig | None = None
    record: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def treeless(self) -> bool:
        """Whether the run was solved by MCCFR without a tree (no exact values)."""
        return self.tree_enumerated is False

    @property
    def log(self) -> list[dict[str, Any]]:
        """The convergence log: {"iteration", "seconds", the value's name: value} rows."""
        return list(self.record.get("log") or [])

    @classmethod
    def from_json(cls, record: Mapping[str, Any]) -> RunResult:
        """The typed view of a run.json object (its types checked by
        :func:`spycfr.runs.store.read_run_meta`)."""
        known = {f.name for f in fields(cls)} - {"record"}
        values: dict[str, Any] = {k: record[k] for k in known if record.get(k) is not None}
        config = record.get("config")
        if config is not None:
            names = {f.name for f in fields(SolveConfig)}
            values["config"] = SolveConfig(**{k: v for k, v in config.items() if k in names})
        choice = record.get("algorithm_choice")
        if choice:
            values["algorithm_choice"] = ChoiceOfAuto(choice["chosen"], choice["why"])
        interval = record.get("value_interval")
        if interval is not None:
            values["value_interval"] = (float(interval[0]), float(interval[1]))
        memory = record.get("memory")
        if memory:
            values["memory"] = TablesMemory(memory["bytes_allocated"], memory["bytes_used"],
                                            memory["limit_bytes"])
        estimate = record.get("exploitability_estimate")
        if estimate:
            values["exploitability_estimate"] = RegretEstimate(
                estimate["value"], estimate["payoff_span"], bool(estimate["informative"]),
                estimate.get("note", ""), estimate.get("kind", ""))
        return cls(**values, record=dict(record))

    def to_json(self) -> dict[str, Any]:
        """The run.json object (as read or written: every key kept)."""
        return dict(self.record)

    def with_measured(self, measured: dict[str, Any]) -> RunResult:
        """This result with ``spycfr measure``'s record."""
        return RunResult.from_json({**self.record, "measured": measured})
