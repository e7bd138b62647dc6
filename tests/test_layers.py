"""The package reads top-down: every import points to the same or a lower layer, no generic
module names a specific game, and imports form no cycle, function-level imports included."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
GAMES = {p.name for p in (ROOT / "solver" / "games").iterdir()
         if p.is_dir() and (p / "__init__.py").exists()}

# Lower layers first; a module may import its own layer and the ones below.
LAYERS = [
    ("spycfr", "spycfr.errors", "spycfr.io", "spycfr.memory", "spycfr._numba_cache"),  # utilities
    ("spycfr.tree",),  # the flat tree and the passes over it
    ("spycfr.engine", "spycfr.public.protocol"),  # the numba game protocols, generic engines
    ("spycfr.games",),  # the registry, the plug-in record and the games' rules
    ("spycfr.exact",),  # best response, exploitability, LP
    ("spycfr.cfr", "spycfr.public", "spycfr.formats"),  # iterative solvers (history and public
    # trees); strategy tables and .efg files
    ("spycfr.search",),  # belief tracking, safe re-solving, value functions (public tree)
    ("spycfr.runs",),  # run directories
    ("spycfr.analysis",),  # openings, query, reports (and each game's analysis package)
    ("spycfr.sweep",),  # variant sweeps on Dask (runs and reports of many variants)
    ("spycfr.web",),  # the workbench in the browser (spycfr serve)
    ("spycfr.cli",),
]
# Game-specific modules live in the game's package, spycfr.games.<game>; they may import their
# own game, nothing else may. Its subpackage ``analysis`` (report sections, figures, views:
# named by strings in the plug-in record) sits in the analysis layer, the rest in the games'.
GAME_PACKAGES = (("spycfr", "games"),)
GAME_ANALYSIS = "analysis"

# The installed package: solver/ is `spycfr`, cli/ is `spycfr.cli` (pyproject's package-dir).
FOLDERS = {"spycfr.cli": ROOT / "cli", "spycfr": ROOT / "solver"}


def _module(path: Path) -> str:
    for package, folder in FOLDERS.items():
        if path.is_relative_to(folder):
            parts = [package, *path.relative_to(folder).with_suffix("").parts]
            break
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _layer(module: str) -> int:
    parts = module.split(".")
    if parts[:2] == ["spycfr", "games"] and parts[2:3] and parts[2] in GAMES \
            and parts[3:4] == [GAME_ANALYSIS]:
        module = "spycfr.analysis"  # a game's analysis package: the analysis layer
    best, best_len = None, -1
    for rank, prefixes in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best_len:
                best, best_len = rank, len(prefix)
    assert best is not None, module
    return best


def _imports(tree: ast.AST) -> set[str]:
    """The package's modules that ``tree`` imports, at any level (inside functions too)."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.add(node.module)
            out.update(f"{node.module}.{a.name}" for a in node.names)
    return {m for m in out if m.split(".")[0] == "spycfr" and _exists(m)}


def _exists(module: str) -> bool:
    for package, folder in FOLDERS.items():
        if module == package or module.startswith(package + "."):
            path = folder.joinpath(*module.split(".")[package.count(".") + 1:])
            return path.with_suffix(".py").exists() or (path / "__init__.py").exists()
    return False


SOURCES = {_module(p): ast.parse(p.read_text())
           for folder in FOLDERS.values() for p in folder.rglob("*.py")}


def _game_of(module: str) -> str | None:
    parts = tuple(module.split("."))
    for package in GAME_PACKAGES:
        n = len(package)
        if parts[:n] == package and len(parts) > n and parts[n] in GAMES:
            return parts[n]
    return None


@pytest.mark.parametrize("module", sorted(SOURCES))
def test_imports_point_down_and_name_no_game(module):
    mine = _layer(module)
    own_game = _game_of(module)
    for target in _imports(SOURCES[module]):
        assert _layer(target) <= mine, f"{module} (layer {mine}) imports {target} " \
                                       f"(layer {_layer(target)})"
        game = _game_of(target)
        assert game is None or game == own_game, f"generic module {module} imports {target}"


def test_no_import_cycles():
    """Not even through an import inside a function: a cycle there is one that only shows
    when that function runs, and a sign that two modules are one concept or mis-layered."""
    graph = {m: {t for t in _imports(tree) if t in SOURCES and t != m}
             for m, tree in SOURCES.items()}
    # A package's __init__ re-exporting its own submodules is not a cycle back into it.
    for m, targets in graph.items():
        graph[m] = {t for t in targets if not m.startswith(t + ".")}
    state: dict[str, int] = {}

    def visit(m: str, path: list[str]) -> None:
        state[m] = 1
        for t in graph[m]:
            if state.get(t) == 1:
                raise AssertionError("import cycle: " + " -> ".join(path + [m, t]))
            if t not in state:
                visit(t, path + [m])
        state[m] = 2

    for m in graph:
        if m not in state:
            visit(m, [])
    assert len(state) == len(SOURCES)


def test_the_layer_map_covers_every_module():
    for module in SOURCES:
        _layer(module)


def test_every_folder_is_a_listed_package():
    """pyproject lists the packages by hand (package-dir maps solver/ and cli/ into `spycfr`):
    a new folder of modules must be listed, or `pip install .` would leave it out."""
    import tomllib

    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"][
        "packages"])
    folders = {_module(p / "__init__.py") for root in FOLDERS.values()
               for p in [root, *root.rglob("*")] if p.is_dir() and any(p.glob("*.py"))}
    assert listed == folders


def test_no_generic_folder_is_named_for_a_game():
    """A game's code lives in its own package, spycfr.games.<game> (its report sections,
    figures and views in the subpackage ``analysis``), known elsewhere only through its
    plug-in record: no folder outside solver/games/ is named for a game."""
    games_dir = ROOT / "solver" / "games"
    named = [p for root in FOLDERS.values() for p in root.rglob("*")
             if p.is_dir() and p.name in GAMES and p.parent != games_dir]
    assert named == []


def test_the_plugins_analysis_hooks_name_modules_of_their_own_game():
    """report_sections, team_sections ("module:function") and views (a module) name code in
    the game's own analysis package, and it is there."""
    import importlib

    from spycfr.games import game_names, get_plugin

    for name in game_names():
        plugin = get_plugin(name)
        own = f"spycfr.games.{name.replace('-', '_')}.{GAME_ANALYSIS}."
        for hook in (plugin.report_sections, plugin.team_sections, plugin.views):
            if hook is None:
                continue
            module, _, function = hook.partition(":")
            assert module.startswith(own), f"{name}: {hook} is not in {own}"
            loaded = importlib.import_module(module)
            assert not function or callable(getattr(loaded, function, None)), hook


def _private_uses(module: str, tree: ast.AST) -> set[str]:
    """Another package module's underscore names that ``tree`` uses: imported by name, or read
    as an attribute of a module it imported under a name (``R._draw_count``)."""
    out, modules = set(), {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0 \
                and node.module.split(".")[0] == "spycfr" and node.module != module:
            for a in node.names:
                target = f"{node.module}.{a.name}"
                if _exists(target):
                    modules[a.asname or a.name] = target
                elif a.name.startswith("_") and not a.name.startswith("__"):
                    out.add(target)
        elif isinstance(node, ast.Import):
            modules.update((a.asname, a.name) for a in node.names
                           if a.asname and a.name.split(".")[0] == "spycfr")
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                and node.value.id in modules and modules[node.value.id] != module \
                and node.attr.startswith("_") and not node.attr.startswith("__"):
            out.add(f"{modules[node.value.id]}.{node.attr}")
    return out


# The underscore names still used across modules, each to be given a public name (or moved)
# by the module that owns it; the list may only shrink.
PRIVATE_USES_LEFT = {
    "spycfr.analysis.agentplay": {"spycfr.analysis.query._view_to_move"},
    "spycfr.analysis.review": {"spycfr.analysis.play._child_node"},
    "spycfr.games.agent_double_double_agent.view": {
        f"spycfr.games.agent_double_double_agent.record.{n}"
        for n in ("_RE", "_err", "_replay_full", "_tokens")},
    "spycfr.public.gpu": {"spycfr.cfr.gpu._free_gpu_bytes",
                          "spycfr.public.enumerate._terminal_blocks"},
    "spycfr.search.subgame": {"spycfr.search.tree._expand", "spycfr.search.tree._expand_buffers",
                              "spycfr.search.tree._payoffs"},
}


def test_no_module_uses_another_modules_private_names():
    """A name with an underscore is its module's own: another module that needs it asks for a
    public name, so that the owner sees who depends on what it may change (Agent Avenue's
    rules kept 15 such names that five modules called)."""
    found = {m: uses for m, tree in SOURCES.items() if (uses := _private_uses(m, tree))}
    new = {m: sorted(uses - PRIVATE_USES_LEFT.get(m, set())) for m, uses in found.items()}
    assert {m: u for m, u in new.items() if u} == {}
    gone = {m: sorted(left - found.get(m, set())) for m, left in PRIVATE_USES_LEFT.items()}
    assert {m: g for m, g in gone.items() if g} == {}, "fixed: take them off PRIVATE_USES_LEFT"
