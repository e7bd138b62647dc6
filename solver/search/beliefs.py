"""Belief tracking: both seats' ranges at the public state of a game in progress, updated move
by move through the public-state protocol.

A range is a seat's reach per private state (the deal's prior times the seat's action
probabilities along the way, its chance masks and private chance): the agent's own range comes
from its own strategy, the opponent's from the agent's model of the opponent's strategy. The
posterior over the opponent's private state given one's own is the opponent's range times
compatibility, normalised (:meth:`Beliefs.posterior`).
"""

from __future__ import annotations

import numpy as np

from spycfr.public.protocol import CHANCE, PRIVATE_CHANCE
from spycfr.search.tree import GameModel, Subtree, build


def step(tree: Subtree, node: int, seat: int, reach: np.ndarray, rows: np.ndarray | None,
         child: int) -> np.ndarray:
    """``seat``'s range at child number ``child`` of ``node`` from its range ``reach`` at the
    node; ``rows`` (n_seat, PA) is seat's strategy there when it moves."""
    k = tree.kind[node]
    c = tree.first[node] + child
    if k == seat:
        if rows is None:
            raise ValueError("the mover's strategy is needed to update its range")
        q = tree.row[node]
        out = np.zeros_like(reach)
        for i in np.flatnonzero(reach):
            for e in range(tree.row_count[q, i]):
                if tree.row_kid[q, i, e] == child:
                    out[tree.row_next[q, i, e]] += reach[i] * rows[i, e]
        return out
    if k == PRIVATE_CHANCE + seat:
        q = tree.row[node]
        out = np.zeros_like(reach)
        for i in np.flatnonzero(reach):
            for e in range(tree.row_count[q, i]):
                out[tree.row_next[q, i, e]] += reach[i] * tree.row_prob[q, i, e]
        return out
    if k == CHANCE:
        return reach * tree.mask[seat][c]
    return reach.copy()


class Beliefs:
    """Both seats' ranges at the current public state of one game."""

    def __init__(self, game: GameModel, pub: np.ndarray | None = None,
                 ranges: tuple[np.ndarray, np.ndarray] | None = None):
        self.game = game
        self.pub = game.root() if pub is None else np.asarray(pub).copy()
        self.ranges = [w.copy() for w in (game.weights if ranges is None else ranges)]
        self._here = build(game, self.pub, depth=1)

    @property
    def kind(self) -> int:
        return int(self._here.kind[0])

    def children(self) -> np.ndarray:
        """The public states of the current node's children, in protocol order."""
        t = self._here
        return t.pub[t.first[0]:t.first[0] + t.count[0]]

    def actions(self, seat: int, i: int) -> list[tuple[int, int]]:
        """(child, next private state) of each action of ``seat`` holding ``i`` here."""
        t, q = self._here, self._here.row[0]
        return [(int(t.row_kid[q, i, e]), int(t.row_next[q, i, e]))
                for e in range(t.row_count[q, i])]

    def advance(self, child: int, rows: np.ndarray | None = None) -> None:
        """Move to child number ``child`` (a public label or chance outcome); ``rows`` is the
        mover's strategy (n_mover, PA) here: its own at its decision, its model of the
        opponent's at the opponent's."""
        t = self._here
        if not 0 <= child < t.count[0]:
            raise ValueError(f"child {child} of a node with {t.count[0]} children")
        self.ranges = [step(t, 0, s, self.ranges[s], rows, child) for s in (0, 1)]
        self.pub = t.pub[t.first[0] + child].copy()
        self._here = build(self.game, self.pub, depth=1)

    def posterior(self, seat: int, own: int) -> np.ndarray:
        """P(the other seat's private state | public history, ``seat`` holds ``own``)."""
        other = self.ranges[1 - seat]
        c = self.game.compat[own] if seat == 0 else self.game.compat[:, own]
        p = other * c
        total = p.sum()
        if total <= 0:
            raise ValueError(f"seat {seat} cannot hold private state {own} here")
        return p / total
