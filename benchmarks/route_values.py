"""One learned-values file from several networks, each answering at its own public states (a
network per stage of the game, as DeepStack trains one per street): ``--default``'s networks
everywhere, and each ``--route W:LEVELS``'s networks at the public states where a subgame
from the root ``LEVELS`` decision levels deep is cut (its non-terminal leaves: the first
plan's leaves of a search agent whose plan is that deep). Run from the repository root::

    python benchmarks/route_values.py --default ROUND/stage-1/weights.npz \\
        --route SPECIAL/stage-1/weights.npz:3 -o OUT.npz

Prints the routes' state counts. ``learned.route_weights`` writes the file;
``LearnedValues.load`` reads it like any weights file (docs/search.md, "`mini`: learned
leaves above exact endgames").
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from spycfr.public import protocol as pp
from spycfr.search.learned import load_weights, route_weights
from spycfr.search.situations import game_model
from spycfr.search.subgame import subgame
from spycfr.search.tree import GameModel


def cut_states(game: GameModel, levels: int) -> np.ndarray:
    """The public states where a subgame from the root ``levels`` decision levels deep is
    cut: its leaves that are not terminal, one a row."""
    tree = subgame(game, game.root(), levels)
    current = pp.python_impl(game.params, "current_player")
    pubs = tree.pub[tree.leaves]
    keep = np.array([current(p, game.params) != pp.TERMINAL for p in pubs], bool)
    return np.unique(pubs[keep], axis=0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--default", required=True, type=Path, help="weights answering elsewhere")
    ap.add_argument("--route", action="append", default=[], metavar="WEIGHTS:LEVELS",
                    help="weights answering at the cut of a LEVELS-deep subgame from the root")
    ap.add_argument("-o", "--out", required=True, type=Path)
    a = ap.parse_args()
    routes = []
    try:
        _, meta = load_weights(a.default)
        game = game_model(meta["game"], meta["preset"], meta["params"])
        for text in a.route:
            source, _, levels = text.rpartition(":")
            if not source or not levels.isdigit() or int(levels) < 1:
                raise ValueError(f"--route {text!r}: write WEIGHTS:LEVELS, LEVELS a whole "
                                 "number of decision levels, at least 1")
            pubs = cut_states(game, int(levels))
            if not pubs.shape[0]:
                raise ValueError(f"--route {text!r}: a {levels}-level subgame from the root "
                                 "has no leaf that is not terminal")
            routes.append((source, pubs))
        route_weights(a.out, a.default, routes)
    except (OSError, ValueError, KeyError) as exc:
        sys.exit(f"route_values: {exc}")
    print(json.dumps({"out": str(a.out), "routes": [
        {"source": s, "states": int(p.shape[0])} for s, p in routes]}))


if __name__ == "__main__":
    main()
