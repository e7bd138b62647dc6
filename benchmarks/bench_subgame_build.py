"""Times the search agent's subgame builds (spycfr.search.subgame) of this tree against
those of an earlier revision, in one process, alternating, and checks that both give the
same bits.

The subgames are those a re-solve builds (``--levels`` decision levels, 2 by default) at the
public states of a seeded random walk on the game's public tree (the search agent's model,
``search_params``): ``--roots`` of its decisions. Each round builds every subgame the old
way and the new, in alternating order, and records each one's seconds;
the old and the new trees must be equal in every array. Prints each round's ratio (new over
old), their median and range, and the seconds a node of each. The old build is the files
``solver/search/subgame.py`` and ``solver/search/tree.py`` (its ``_expand``) at ``--old``
(read with ``git show``), each loaded as its own module; the game's model is the working
tree's (so a change of the game's own functions is not what this times: an ``_expand``
that asked for each private state's row by the per-state functions was timed against one
that asks for every state's at once).

    nice -n 10 python benchmarks/bench_subgame_build.py --old a4440ed --preset standard

(a4440ed: the last tree.py that asks state by state; ``--old main`` times a branch against
main before it lands.) With ``--build`` it times ``tree.build`` instead (the old one is the
old tree.py's, its count and fill too): the rest of the game, with each seat's live states
(the endgame rule's exact subgames), from the first ``--roots`` decisions of the walk that
are at most ``--max-nodes`` public nodes from the end.
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from revision import RevisionError, module_at  # noqa: E402

from spycfr.errors import SpycfrError  # noqa: E402
from spycfr.games import get_plugin, make_variant  # noqa: E402
from spycfr.public import protocol as pp  # noqa: E402
from spycfr.search import subgame as S  # noqa: E402
from spycfr.search import tree as T  # noqa: E402
from spycfr.search.tree import GameModel  # noqa: E402


def search_model(game: str, preset: str) -> GameModel:
    """The public model ``game``'s search agent re-solves on at ``preset`` (the plug-in's
    search_params); SpycfrError naming what is wrong: an unknown game or preset, or a game
    without a public-state model (the scripts that import this build its subgames)."""
    plugin = get_plugin(game)
    params = (plugin.search_params or plugin.numba_params)(make_variant(game, preset))
    if not pp.has_public(params):
        raise SpycfrError(f"{game} has no public-state model: no search agent, no subgames "
                          "(give a game the search agent plays, e.g. agent-hunter)")
    return GameModel.of(params)


def public_walk(game: GameModel, seed: int, count: int,
                private_chance: bool = False) -> list[tuple[np.ndarray, int, int]]:
    """(public state, kind, labels) of the first ``count`` decisions (and private chances
    with ``private_chance``) of seeded random walks on the public tree from the root, each
    label or outcome uniform (a new walk at each end; tests/test_resolve_speed.py's nodes)."""
    params = game.params
    current, legal, outcomes, apply = (pp.python_impl(params, f) for f in (
        "current_player", "legal_actions", "chance_outcomes", "apply_action"))
    rng = np.random.default_rng(seed)
    codes, probs = np.zeros(game.max_actions, np.int32), np.zeros(game.max_actions)
    pub, out = game.root(), []
    while len(out) < count:
        kind = int(current(pub, params))
        k = 0 if kind == pp.TERMINAL else int(
            outcomes(pub, params, codes, probs) if kind == pp.CHANCE
            else legal(pub, params, codes))
        if k == 0:
            pub = game.root()
            continue
        if kind in (0, 1) or (private_chance and kind >= pp.PRIVATE_CHANCE):
            out.append((pub.copy(), kind, k))
        kid = np.empty_like(pub)
        apply(pub, params, codes[rng.integers(k)], kid)
        pub = kid
    return out


def same(a, b) -> bool:
    """Two Subtrees equal in every array field (bits)."""
    for f in dataclasses.fields(a):
        x, y = getattr(a, f.name), getattr(b, f.name)
        for u, v in zip(x if isinstance(x, tuple) else (x,), y if isinstance(y, tuple) else (y,),
                        strict=True):
            if isinstance(u, np.ndarray) and (u.shape != v.shape or u.tobytes() != v.tobytes()):
                return False
    return True


def builds(subgame, game: GameModel, roots: list, levels: int) -> tuple[list, list[float]]:
    """Each root's subgame built by ``subgame``: (trees, seconds)."""
    trees, secs = [], []
    for r in roots:
        began = time.perf_counter()
        trees.append(subgame(game, r, levels))
        secs.append(time.perf_counter() - began)
    return trees, secs


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--old", default="main", help="git revision of the old tree.py")
    p.add_argument("--game", default="agent-avenue")
    p.add_argument("--preset", default="standard")
    p.add_argument("--roots", type=int, default=12)
    p.add_argument("--levels", type=int, default=2)
    p.add_argument("--seed", type=int, default=5)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--build", action="store_true",
                   help="time tree.build to the end of the game (live) instead of subgame")
    p.add_argument("--max-nodes", type=int, default=5000,
                   help="with --build: the roots at most this many nodes from the end")
    args = p.parse_args(argv)
    if min(args.roots, args.levels, args.rounds, args.max_nodes) < 1:
        p.exit(2, "error: --roots, --levels, --rounds and --max-nodes must be at least 1\n")
    try:
        game = search_model(args.game, args.preset)
    except SpycfrError as e:
        p.exit(2, f"error: {e}\n")
    if args.build:  # decisions near the end, from as many walks as it takes
        roots, seen = [], 0
        while len(roots) < args.roots and seen < 1000 * args.roots:
            for pub, _, _ in public_walk(game, args.seed + seen, 100):
                if len(roots) < args.roots and T.nodes_to_end(game, pub, args.max_nodes):
                    roots.append(pub)
            seen += 100
        if not roots:
            p.exit(2, f"error: no decision of the walks within {args.max_nodes:,} nodes of "
                   "the end\n")
    else:
        roots = [pub for pub, _, _ in public_walk(game, args.seed, args.roots)]
    with tempfile.TemporaryDirectory() as tmp:
        try:
            old = module_at(args.old, "solver/search/subgame.py", "subgame_old", Path(tmp))
            old_tree = module_at(args.old, "solver/search/tree.py", "tree_old", Path(tmp))
            old._expand = old_tree._expand
        except RevisionError as e:
            p.exit(2, f"error: --old {args.old}: {e}\n")
        kinds = {"old": old.subgame, "new": S.subgame}
        if args.build:
            kinds = {"old": lambda g, r, _: old_tree.build(g, r, live=True),
                     "new": lambda g, r, _: T.build(g, r, live=True)}
        first_old, _ = builds(kinds["old"], game, roots, args.levels)  # compiles
        first_new, _ = builds(kinds["new"], game, roots, args.levels)
        nodes = sum(t.size for t in first_new)
        identical = all(same(a, b) for a, b in zip(first_old, first_new, strict=True))
        what = "builds to the end" if args.build else f"subgames of {args.levels} levels"
        print(f"{args.game} {args.preset}: {len(roots)} {what}, {nodes:,} nodes; old and new "
              f"the same bits: {identical}", flush=True)
        ratios, totals = [], {"old": [], "new": []}
        for r in range(args.rounds):
            order = ("old", "new") if r % 2 == 0 else ("new", "old")
            got = {}
            for name in order:
                trees, secs = builds(kinds[name], game, roots, args.levels)
                identical &= all(same(a, b) for a, b in zip(first_new, trees, strict=True))
                got[name] = sum(secs)
                totals[name].append(sum(secs))
            ratios.append(got["new"] / got["old"])
            print(f"round {r}: old {got['old']:.3f} s, new {got['new']:.3f} s, "
                  f"{ratios[-1]:.2f}x", flush=True)
    med = {k: statistics.median(v) for k, v in totals.items()}
    print(f"median old {med['old']:.3f} s ({1e3 * med['old'] / nodes:.3f} ms a node), new "
          f"{med['new']:.3f} s ({1e3 * med['new'] / nodes:.3f} ms a node); new/old median "
          f"{statistics.median(ratios):.2f}x, range {min(ratios):.2f}-{max(ratios):.2f} over "
          f"{len(ratios)} rounds; every build the same bits: {identical}")
    return 0 if identical else 1


if __name__ == "__main__":
    sys.exit(main())
