"""The game of a solve, resolved once (:func:`resolve_game`) into a frozen record: the
plug-in, the variant, the numba parameters and the tree's estimated size for a built-in
game; the tree itself for a game read from an .efg file or OpenSpiel. The plan and every
engine read this record instead of rebuilding the game from its name."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from spycfr.cfr.kernels import ALGORITHMS
from spycfr.engine import protocol
from spycfr.engine.playout import estimate_nodes
from spycfr.errors import SpycfrError
from spycfr.games import build_tree, foreign_kind, get_plugin
from spycfr.games.plugin import GamePlugin
from spycfr.memory import MemoryBudget
from spycfr.runs.config import SolveConfig
from spycfr.runs.source import TREE_NPZ, game_tree, load_tree, save_tree
from spycfr.tree import Tree


@dataclass(frozen=True)
class ResolvedGame:
    """A solve's game: built-in (``plugin``, ``variant``, ``game``, ``params`` set) or
    foreign (``tree`` set, the others None)."""

    name: str
    preset: str | None
    plugin: GamePlugin | None
    variant: Any  # the plug-in's variant object
    game: Any  # the Python game (spycfr.engine.states), what MCCFR and the enumerator take
    params: Any  # the numba parameters record (spycfr.engine.protocol)
    estimated_nodes: float  # the tree's size: estimated (built-in), exact (foreign)
    tree: Tree | None = None  # a foreign game's tree, read once

    @property
    def foreign(self) -> bool:
        return self.tree is not None

    @property
    def size_text(self) -> str:
        """The tree's size in words, as ``--algorithm auto`` explains its choice."""
        if self.tree is not None:
            return f"the tree has {self.tree.num_nodes:,} nodes"
        return f"the tree has about {self.estimated_nodes:.3g} nodes (estimated)"

    def variant_dict(self) -> dict[str, Any]:
        assert self.tree is not None or self.variant is not None
        return self.tree.variant if self.tree is not None else self.variant.as_dict()

    def build_tree(self, memory: MemoryBudget | None = None) -> Tree:
        """The enumerated tree (a foreign game's as read), checked against ``memory`` as it
        grows."""
        if self.tree is not None:
            return self.tree
        return build_tree(self.game, memory=memory)


def resolve_game(config: SolveConfig, run_dir: Path | None = None,
                 resumed: bool = False) -> ResolvedGame:
    """``config``'s game, once. A foreign game's tree is the one saved with the run when
    resuming, else read and then saved there (when there is a run directory)."""
    if foreign_kind(config.game) is not None:
        if resumed and run_dir is not None:
            tree = load_tree(run_dir / TREE_NPZ)
        else:
            tree = game_tree(config.game, config.preset, config.params, config.memory_budget())
            if run_dir is not None:
                save_tree(run_dir / TREE_NPZ, tree)  # what --resume and the analysis load
        return ResolvedGame(config.game, config.preset, None, None, None, None,
                            float(tree.num_nodes), tree)
    plugin = get_plugin(config.game)
    variant = plugin.make_variant(config.preset, dict(config.params))
    params = plugin.numba_params(variant)
    return ResolvedGame(config.game, config.preset, plugin, variant, plugin.python_game(variant),
                        params, float(estimate_nodes(params)))


def check_game(config: SolveConfig, game: ResolvedGame) -> None:
    """What the game allows of ``config``: MCCFR samples a built-in game's rules only, and
    CFR and MCCFR need two seats (one per team)."""
    if config.mccfr and game.foreign:
        raise SpycfrError(f"es-mccfr/os-mccfr sample a built-in game's rules; {config.game} is "
                          f"solved on its full tree: --algorithm {', '.join(ALGORITHMS)}")
    if game.params is not None and protocol.seats(game.params) > 2:
        raise SpycfrError(
            f"this variant has {protocol.seats(game.params)} seats in two teams whose members "
            "see different cards: CFR and MCCFR have no guarantee there; solve it with "
            f"`spycfr team {config.game}` (team equilibrium)")
