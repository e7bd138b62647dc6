"""Registry of the built-in games: name -> plug-in record (:class:`GamePlugin`).

Each game module exposes ``PLUGIN``. Generic code reaches games only through this
registry; adding a game is adding its module here (the engines, the CLI, the conformance
tests all pick it up from its record).
"""

from __future__ import annotations

import importlib

from spycfr.engine import reference
from spycfr.engine.enumerate import DEFAULT_MAX_NODES, enumerate_tree
from spycfr.engine.labels import infoset_labels, state_at
from spycfr.engine.playout import game_bounds
from spycfr.errors import SpycfrError
from spycfr.games.plugin import GamePlugin
from spycfr.memory import MemoryBudget, current_budget
from spycfr.tree import Tree

_MODULES = {
    "agent-hunter": "spycfr.games.agent_hunter",
    "agent-avenue": "spycfr.games.agent_avenue",
    "agent-double-double-agent": "spycfr.games.agent_double_double_agent",
    "kuhn": "spycfr.games.kuhn",
    "leduc": "spycfr.games.leduc",
    "liars-dice": "spycfr.games.liars_dice",
}


OPENSPIEL_PREFIX = "openspiel:"
FOREIGN_USES = ("solve (full-tree algorithms), info, exploitability, best-response and "
                "export")


def game_names() -> list[str]:
    return list(_MODULES)


def foreign_kind(name: str) -> str | None:
    """Games from outside: "efg" for a path to a Gambit .efg file, "openspiel" for
    ``openspiel:GAME``; None for a built-in game's name."""
    if name.startswith(OPENSPIEL_PREFIX):
        return "openspiel"
    if name.lower().endswith(".efg"):
        return "efg"
    return None


def get_plugin(name: str) -> GamePlugin:
    """The plug-in record of game ``name``; unknown names raise SpycfrError."""
    kind = foreign_kind(name)
    if kind is not None:
        source = "an .efg file" if kind == "efg" else "OpenSpiel"
        raise SpycfrError(f"{name!r} is a game from {source}, not one of spycfr's games: "
                          f"this needs a built-in game's rules; such games work with "
                          f"{FOREIGN_USES}")
    if name not in _MODULES:
        raise SpycfrError(f"unknown game {name!r}; known games: {', '.join(_MODULES)}")
    return importlib.import_module(_MODULES[name]).PLUGIN


def feature(name: str, attribute: str, what: str):
    """The plug-in field ``attribute`` of game ``name`` (a feature only some games have), or a
    one-line error naming the games that have it (``what`` names the feature)."""
    value = getattr(get_plugin(name), attribute)
    if value is None:
        raise SpycfrError(f"game {name!r} has no {what}; games with one: "
                          f"{', '.join(games_with(attribute)) or 'none'}")
    return value


def games_with(attribute: str) -> list[str]:
    """The games whose plug-in has the field ``attribute`` (a feature only some have)."""
    return [g for g in _MODULES if getattr(get_plugin(g), attribute) is not None]


def make_variant(name: str, preset: str | None = None, params: dict | None = None):
    """The validated variant of game ``name`` from a preset and/or explicit parameters."""
    return get_plugin(name).make_variant(preset, dict(params or {}))


def make_game(name: str, preset: str | None = None, params: dict | None = None):
    """The Python game (:mod:`spycfr.engine.states`) of ``name`` for a preset and/or parameters."""
    plugin = get_plugin(name)
    return plugin.python_game(plugin.make_variant(preset, dict(params or {})))


def build_tree(game, max_nodes: int = DEFAULT_MAX_NODES,
               memory: MemoryBudget | None = None) -> Tree:
    """The flat tree of a game object (from :func:`make_game`), by the numba enumerator
    (within ``memory``'s limit, by default the running command's budget)."""
    memory = memory if memory is not None else current_budget()
    plugin = get_plugin(game.name)
    variant = game.variant_obj
    params = plugin.numba_params(variant)
    if game_bounds(params)[2] < 0:
        raise SpycfrError(f"{plugin.name} {variant.describe()} has an infinite game tree"
                          + (f": {plugin.unbounded_hint}" if plugin.unbounded_hint else ""))
    return enumerate_tree(params, plugin.name, variant.as_dict(), variant.describe(),
                          max_nodes, plugin.too_big_hint, memory)


def build_reference_tree(game) -> Tree:
    """The same tree built in plain Python through the State protocol (slow; a cross-check)."""
    return reference.build_reference_tree(game)


def game_of_tree(tree: Tree):
    """The Python game a tree was built from."""
    return make_game(tree.game, None, tree.variant)


def sample_labels(tree: Tree, infosets) -> list[tuple[str, list[str]]]:
    """(key, action labels) of a few infosets, replayed from the root (no cache)."""
    game = game_of_tree(tree)
    parents = tree.parents()
    out = []
    for i in infosets:
        v, path = int(tree.infoset_node[int(i)]), []
        while v > 0:
            path.append(int(tree.node_action[v]))
            v = int(parents[v])
        state = state_at(game, path[::-1])
        node = int(tree.infoset_node[int(i)])
        s, k = int(tree.first_child[node]), int(tree.num_children[node])
        out.append((state.information_state(int(tree.infoset_seat[int(i)])),
                    [state.action_label(int(a)) for a in tree.node_action[s:s + k]]))
    return out


def tree_labels(tree: Tree) -> tuple[list[str], list[list[str]]]:
    """(infoset key, action labels) per infoset; cached on the tree once computed."""
    if tree.infoset_keys is None or tree.action_labels is None:
        keys, actions = infoset_labels(tree, game_of_tree(tree))
        tree.infoset_keys, tree.action_labels = list(keys), [list(a) for a in actions]
    return tree.infoset_keys, tree.action_labels
