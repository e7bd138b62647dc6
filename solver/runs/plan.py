"""The plan of a solve: which engine runs, chosen from the configuration and the resolved
game (the rule of ``--algorithm auto``: :func:`choose_algorithm`), each engine judged by the
memory it says it needs."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from spycfr.runs.config import MCCFR_ALGORITHMS, SolveConfig
from spycfr.runs.engines import ExactLPRun, FullTreeRun, RunEngine
from spycfr.runs.game import ResolvedGame
from spycfr.runs.public_run import PublicTreeRun, choose_tree
from spycfr.runs.sampled import SampledRun

# `--algorithm auto` (measured side by side, benchmarks/README.md): the exact LP (exploitability
# ~1e-16) up to AUTO_LP_NODES nodes (estimated): first or tied to 1e-6 on every tree measured
# but the smallest (Kuhn to an Agent Hunter variant of 716,605 nodes: 15-36 s against
# pdcfr+'s 29-49 s), while a 2.3 M-node tree did not finish in 900 s. Discounted predictive
# CFR+ on the full tree for a loose target (at least AUTO_LOOSE_TARGET) on a tree of more than
# AUTO_CFR_NODES nodes (to 1e-3 it was 2.5-4.6x sooner than the LP on Agent Hunter mini, 4x at
# 716,605 nodes, 1.7x later on liar's dice), above the LP's size, or when something iterative
# is asked for; external-sampling MCCFR when the full tree would not fit.
AUTO_LP_NODES = 1_000_000
AUTO_CFR_NODES = 100_000
AUTO_LOOSE_TARGET = 1e-3
AUTO_CFR = "pdcfr+"
AUTO_SAMPLED = "es-mccfr"
# With a target tighter than AUTO_LOOSE_TARGET, auto's LP is preceded by a race: AUTO_CFR for
# AUTO_RACE_ITERATIONS iterations (measured every AUTO_RACE_CHECK_EVERY) on the LP's tree, kept
# when it reaches the target. End to end at 1e-6 (README.md, "auto's race"): on a
# wide and shallow tree (Agent Hunter 8/2/1/1) pdcfr+ is there in 30 iterations, auto 0.57x the
# LP's time; where the LP is faster the race costs 13-38% (Agent Hunter mini 1.38x, Leduc and
# liar's dice 1.27x). A looser target on a tree this small keeps the exact LP (a sweep's
# default: exact values).
AUTO_RACE_ITERATIONS = 40
AUTO_RACE_CHECK_EVERY = 10
SAMPLED_SETTINGS = ("abstraction", "fallback", "store_depth")  # a game's sampled_settings keys


@dataclass(frozen=True)
class Plan:
    """What runs: the configuration with its algorithm decided, and why when auto chose."""

    config: SolveConfig
    choice: dict[str, str] | None = None  # {"requested": "auto", "chosen", "why"}
    tree_choice: dict[str, str] | None = None  # the same for --tree auto
    race: int | None = None  # iterations of AUTO_CFR tried before the LP (auto, a target)

    def race_config(self) -> SolveConfig:
        """The configuration of the race that precedes auto's LP."""
        return self.config.replace(algorithm=AUTO_CFR, check_every=AUTO_RACE_CHECK_EVERY)

    def engine(self, game: ResolvedGame) -> RunEngine:
        """The engine of the chosen algorithm, built within the memory limit."""
        algorithm = self.config.algorithm
        if algorithm == "lp":
            return ExactLPRun(self.config, game)
        if algorithm in MCCFR_ALGORITHMS:
            return SampledRun(self.config, game)
        if self.config.tree == "public":
            return PublicTreeRun(self.config, game)
        return FullTreeRun(self.config, game)


def plan_solve(config: SolveConfig, game: ResolvedGame,
               checkpoint_every: int | None = None,
               note: Callable[[str], None] | None = None) -> Plan:
    """The plan of ``config`` on ``game``: as asked, or what auto chooses (the algorithm,
    then the tree it runs on; ``note`` hears the progress of counting the public tree)."""
    choice = tree_choice = race = None
    if config.algorithm == "auto":
        chosen, why = choose_algorithm(config, game, checkpoint_every)
        target = config.target_exploitability
        if chosen == "lp" and target is not None and target < AUTO_LOOSE_TARGET:
            race = AUTO_RACE_ITERATIONS
            why += (f"; first {race} iterations of {AUTO_CFR}, kept if they reach the target "
                    "(sooner than the LP on shallow trees)")
        choice = {"requested": "auto", "chosen": chosen, "why": why}
        config = config.replace(algorithm=chosen)
        if chosen == AUTO_SAMPLED:
            config, why = sampled_settings(config, game, why)
            choice["why"] = why
    tree, why = choose_tree(config, game, note)
    if config.tree == "auto":
        tree_choice = {"requested": "auto", "chosen": tree, "why": why}
    return Plan(config.replace(tree=tree), choice, tree_choice, race)


def sampled_settings(config: SolveConfig, game: ResolvedGame,
                     why: str) -> tuple[SolveConfig, str]:
    """``config`` with the game's measured sampling settings (its plug-in's
    ``sampled_settings``) when auto samples and none of them was given, and ``why`` saying
    so: without them external sampling of a long game (Agent Hunter's rulesheet game: about
    4.7e14 nodes an iteration) is refused."""
    settings = game.plugin.sampled_settings if game.plugin is not None else {}
    given = [name for name in SAMPLED_SETTINGS if getattr(config, name) not in (None, False)]
    if not settings or given:
        return config, why
    words = ", ".join(f"--{k.replace('_', '-')}" + ("" if v is True else f" {v}")
                      for k, v in settings.items())
    return config.replace(**settings), (f"{why}; with {game.name}'s measured sampling "
                                        f"settings ({words})")


def choose_algorithm(config: SolveConfig, game: ResolvedGame,
                     checkpoint_every: int | None = None) -> tuple[str, str]:
    """What ``--algorithm auto`` runs for ``config``, and why (one sentence).

    The rule (README, "Choosing the algorithm"): the exact LP when nothing iterative is asked
    for (iterations, a time limit, checks, checkpoints, simultaneous updates), the tree has
    at most AUTO_LP_NODES nodes (estimated) and the target is not loose on a tree of more than
    AUTO_CFR_NODES; otherwise AUTO_CFR on the full tree if it fits the memory limit (or a
    target needs it); otherwise AUTO_SAMPLED.
    """
    nodes, size = game.estimated_nodes, game.size_text
    memory = config.memory_budget()
    iterative = config.iterative_settings(checkpoint_every)
    target = config.target_exploitability
    loose = target is not None and target >= AUTO_LOOSE_TARGET and nodes > AUTO_CFR_NODES
    if config.device == "gpu":  # asked for: the LP runs on the CPU only
        return AUTO_CFR, f"--device gpu was asked for; {AUTO_CFR} runs there ({size})"
    if not iterative and not loose and nodes <= AUTO_LP_NODES and memory.fits(
            ExactLPRun.bytes_needed(nodes)):
        return "lp", (f"{size}, at most {AUTO_LP_NODES:,}: the exact LP, exact and first or "
                      "about tied to 1e-6 on the trees of this size measured")
    if memory.fits(FullTreeRun.bytes_needed(nodes)) or target is not None or game.foreign:
        if nodes > AUTO_LP_NODES:
            why = f"{size}, more than {AUTO_LP_NODES:,} for the exact LP"
        elif iterative:
            why = f"iterations were asked for ({' and '.join(iterative)})"
        elif loose:
            why = (f"{size} and the target {target:g} is loose: discounted predictive CFR+ "
                   "reached 1e-3 several times sooner than the LP on such trees")
        else:  # small enough, but the LP's tables would not fit the memory limit
            why = f"{size}: the exact LP would not fit the memory limit"
        return AUTO_CFR, (f"{why}; {AUTO_CFR} converged fastest of the CFR variants on most "
                          "trees measured")
    return AUTO_SAMPLED, (f"{size}: the full tree would not fit the memory limit "
                          f"({memory.limit_bytes / 2**30:.3g} GiB), so the game is sampled")
