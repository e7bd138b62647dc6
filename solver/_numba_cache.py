"""Keep numba's on-disk cache consistent with the sources.

numba's cache checks only the source file of the cached function itself, so a kernel that
inlines functions or freezes module-level constants from another module (the enumerator
calls the rules, best response calls the CFR passes) would keep running stale machine code
after that other module changes. Before anything compiles, hash the sources the cached
kernels can depend on; when the hash differs from the one recorded with the cache, drop all
cached kernels of the package.

The sources hashed (:func:`kernel_sources`), found by parsing imports, not by searching text:

1. every module that imports numba, or defines a function whose decorator takes ``cache=``
   (a kernel compiled with a re-exported decorator, like ``cuda.jit`` from another module);
2. every module whose top level calls into a module of the set (a game registering its
   ``@njit`` rules with :mod:`spycfr.engine.protocol`: kernels dispatch to what it names);
3. every in-package module that a module of the set imports, transitively. Importing
   ``spycfr.a.b`` runs ``spycfr/a/__init__.py`` too, so it counts. Only imports that can bind
   a name a kernel sees count: those outside functions, and those inside a function that
   defines functions (a kernel factory's closure); an import inside a plain function binds
   a local of that function, invisible to compiled code.

Edits elsewhere (the search agent's Python driver, reports, the web pages, the command
line) keep the compiled kernels. Imports by computed name (``importlib``) are not followed:
compiled code cannot reach such a module's names except through rule 2.

Parsing every source takes about a second, so the stamp also records each source's size and
modification time (what numba's own cache compares): while they match, nothing is parsed.
"""

from __future__ import annotations

import ast
import hashlib
import os
from pathlib import Path

STAMP = "numba-sources.sha256"
PACKAGE = "spycfr"
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


def _module_name(package_dir: Path, path: Path) -> str:
    parts = list(path.relative_to(package_dir).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join([PACKAGE, *parts])


class _Module:
    """What the rules above need of one source: its imports, seen by ast."""

    def __init__(self, name: str, path: Path):
        self.name, self.path = name, path
        self.is_package = path.name == "__init__.py"
        self.numba = False  # rule 1
        self.imports: set[str] = set()  # dotted names a kernel's names can come from (rule 3)
        self.bound: dict[str, str] = {}  # top-level name -> the dotted name it came from
        self.top_calls: set[str] = set()  # names whose attributes the top level calls
        tree = ast.parse(path.read_bytes(), str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import | ast.ImportFrom):
                self.numba |= any(m.split(".")[0] == "numba" for m in self._targets(node))
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                self.numba |= any(isinstance(d, ast.Call) and
                                  any(k.arg == "cache" for k in d.keywords)
                                  for d in node.decorator_list)
        self._visit(tree, top=True)

    def _targets(self, node: ast.Import | ast.ImportFrom) -> list[str]:
        """The dotted names an import statement may load (a from-import's names may be
        submodules)."""
        if isinstance(node, ast.Import):
            return [alias.name for alias in node.names]
        base = node.module or ""
        if node.level:  # relative: from the package holding this module
            parts = self.name.split(".")[:len(self.name.split(".")) + self.is_package
                                         - node.level]
            base = ".".join([*parts, *([node.module] if node.module else [])])
        return [base, *(f"{base}.{alias.name}" for alias in node.names)]

    def _bind(self, node: ast.Import | ast.ImportFrom, targets: list[str]) -> None:
        """Record where each top-level name of ``node`` comes from: ``import a.b`` binds
        ``a``; ``from a import b`` binds ``a.b``, the submodule or a name of module ``a``."""
        for alias, target in zip(node.names, targets[-len(node.names):], strict=True):
            if isinstance(node, ast.Import) and not alias.asname:
                self.bound[target.split(".")[0]] = target.split(".")[0]
            else:
                self.bound[alias.asname or alias.name] = target

    def _visit(self, node: ast.AST, top: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, _FUNCTIONS):
                factory = any(isinstance(inner, _FUNCTIONS)
                              for inner in ast.walk(child) if inner is not child)
                if factory:
                    self._visit(child, top=False)
                continue
            if isinstance(child, ast.Import | ast.ImportFrom):
                targets = self._targets(child)
                self.imports.update(targets)
                if top:
                    self._bind(child, targets)
            elif top and isinstance(child, ast.Expr) and isinstance(child.value, ast.Call):
                func = child.value.func
                while isinstance(func, ast.Attribute):
                    func = func.value
                if isinstance(func, ast.Name):
                    self.top_calls.add(func.id)
            self._visit(child, top=top and not isinstance(child, ast.ClassDef))


def kernel_sources(package_dir: Path) -> list[Path]:
    """The sources whose changes can change a cached kernel (the rules above), sorted."""
    modules = {}
    for path in package_dir.rglob("*.py"):
        module = _Module(_module_name(package_dir, path), path)
        modules[module.name] = module

    def in_package(dotted: set[str]) -> set[str]:
        found: set[str] = set()
        for name in dotted:
            parts = name.split(".")
            found.update(prefix for i in range(1, len(parts) + 1)
                         if (prefix := ".".join(parts[:i])) in modules)
        return found

    def source_module(dotted: str) -> str:
        """The module a bound name ``dotted`` is (a submodule) or belongs to."""
        return dotted if dotted in modules else dotted.rpartition(".")[0]

    chosen: set[str] = set()
    seeds = {name for name, module in modules.items() if module.numba}
    while seeds:
        stack = list(seeds)
        while stack:  # rule 3
            name = stack.pop()
            if name not in chosen:
                chosen.add(name)
                stack.extend(in_package(modules[name].imports))
        seeds = {name for name, module in modules.items() if name not in chosen and any(
            source_module(module.bound.get(call, "")) in chosen for call in module.top_calls)}
    return sorted(modules[name].path for name in chosen)


def _stat_signature(package_dir: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(package_dir.rglob("*.py")):
        stat = path.stat()
        digest.update(f"{path.relative_to(package_dir)}\0{stat.st_mtime_ns}\0{stat.st_size}\n"
                      .encode())
    return digest.hexdigest()


def source_key(package_dir: Path) -> str:
    """The hash of the kernel sources' paths and contents."""
    digest = hashlib.sha256()
    for path in kernel_sources(package_dir):
        digest.update(str(path.relative_to(package_dir)).encode() + b"\0")
        digest.update(path.read_bytes())
    return digest.hexdigest()


def guard_cache(package_dir: Path) -> None:
    """Drop the package's cached kernels when a kernel source changed since they were made."""
    stamp_path = package_dir / "__pycache__" / STAMP
    stats = _stat_signature(package_dir)
    try:
        recorded_stats, recorded_key = stamp_path.read_text().split()
    except (OSError, ValueError):
        recorded_stats = recorded_key = ""
    if stats == recorded_stats:
        return
    key = source_key(package_dir)
    try:
        if key != recorded_key:
            for cached in package_dir.rglob("__pycache__/*.nb[ic]"):
                cached.unlink(missing_ok=True)
        stamp_path.parent.mkdir(exist_ok=True)
        partial = stamp_path.with_name(f"{STAMP}.{os.getpid()}")
        partial.write_text(f"{stats}\n{key}\n")
        partial.replace(stamp_path)
    except OSError:  # a read-only install: numba then caches elsewhere or not at all
        pass
