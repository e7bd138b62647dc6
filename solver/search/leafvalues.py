"""Leaf value functions by name: what a search agent's configuration names (``run.json``'s
``value_function``), so that a trained one is a one-word switch.

- ``scored-now``: the game scored as if it ended at the leaf (the game's ``scored_now`` hook,
  then its O(n) ``terminal_values``): no search below the leaf at all. Cheap and honest, and
  blind to everything the remaining turns would bring (a hunt's information, the opponent's
  next attack); the weakest defensible choice, used until a trained function exists.
- ``rollout``: the values of continuation strategies (the game's heuristic players) by
  rollouts to the end of the game, each seat choosing its continuation
  (:mod:`spycfr.search.continuation`; the game's ``rollouts`` hook): sees the turns below the
  leaf as those players would play them.
- ``learned``: a trained network (:mod:`spycfr.search.learned`, numpy inference) from a
  weights file.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from spycfr.errors import SpycfrError
from spycfr.public import protocol as pp
from spycfr.search.tree import GameModel
from spycfr.search.values import ValueFunction

# in a player's words (queries, reviews and reports show them; the modules are named above)
VALUE_FUNCTIONS = {
    "scored-now": "the game scored as it stands there: no look-ahead beyond",
    "learned": "a trained value network's estimate (read from its weights file)",
    "rollout": "games played out to the end by the game's heuristic players, each seat "
               "continuing as the heuristic best for it against the opponent's worst",
}


class ScoredNow:
    """Leaf values of the game ended at the leaf (the game's ``scored_now`` hook)."""

    name = "scored-now"
    linear = True  # a zero-sum matrix times the other seat's range (spycfr.search.folding)

    def __init__(self, game: GameModel, scored_now) -> None:
        self.game, self.scored_now = game, scored_now

    def values(self, pubs: np.ndarray, r0: np.ndarray, r1: np.ndarray,
               nodes: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        v0, v1 = np.empty(r0.shape), np.empty(r1.shape)
        self.scored_now(np.ascontiguousarray(pubs), self.game.params, np.ascontiguousarray(r0),
                        np.ascontiguousarray(r1), v0, v1)
        # over z in place: the same division (the same bits) without two more arrays of
        # the leaves' size, a solve asking twice an iteration
        np.divide(v0, self.game.z, out=v0)
        np.divide(v1, self.game.z, out=v1)
        return v0, v1


class ExactTerminals:
    """``inner`` at the leaves that are not terminal, the game's payoff at those that are
    (subgames built with terminals as leaves: :func:`spycfr.search.subgame.subgame`)."""

    def __init__(self, inner: ValueFunction, game: GameModel, exact: ScoredNow) -> None:
        self.inner, self.game, self.exact = inner, game, exact
        self._current = pp.python_impl(game.params, "current_player")
        # the last leaves asked about and which of them are terminal (a solve asks about
        # the same leaves twice an iteration)
        self._ended: tuple[bytes, np.ndarray] = (b"", np.zeros(0, bool))

    def __getattr__(self, name: str):
        """``focus``, ``one_sided`` and ``forget`` are the inner function's, where it has
        them (leaf values that spend their effort on the agent's own cards, and so ask for
        our first move's re-solve: :meth:`spycfr.search.agentgame.AgentGame._arrive`); a
        function without them (a learned network) leaves the first plan's play at our first
        move."""
        if name in ("focus", "one_sided", "forget"):
            return getattr(self.__dict__["inner"], name)
        raise AttributeError(name)

    def reset(self) -> None:
        """A new solve begins: an inner function's per-solve cache is stale."""
        if hasattr(self.inner, "reset"):
            self.inner.reset()

    def values(self, pubs: np.ndarray, r0: np.ndarray, r1: np.ndarray,
               nodes: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        key = pubs.tobytes()
        if self._ended[0] != key:
            self._ended = (key, np.array([self._current(p, self.game.params) == pp.TERMINAL
                                          for p in pubs], bool))
        ended = self._ended[1]
        if ended.all() or not ended.any():
            return (self.exact if ended.all() else self.inner).values(pubs, r0, r1)
        v0, v1 = np.empty(r0.shape), np.empty(r1.shape)
        for part, vf in ((ended, self.exact), (~ended, self.inner)):
            v0[part], v1[part] = vf.values(pubs[part], r0[part], r1[part])
        return v0, v1


def value_function(name: str, game: GameModel, plugin, path: str | Path | None = None
                   ) -> ValueFunction:
    """The value function ``name`` (one of :data:`VALUE_FUNCTIONS`) for ``game``, exact at
    terminal public states."""
    if plugin.scored_now is None:
        raise SpycfrError(f"{plugin.name} has no scored_now hook: a search agent needs it "
                          "for the subgame's terminal leaves")
    exact = ScoredNow(game, plugin.scored_now)
    if name == "scored-now":
        return exact
    return ExactTerminals(_inner(name, path, game, plugin, exact), game, exact)


def _inner(name: str, path: str | Path | None, game: GameModel, plugin, exact: ScoredNow
           ) -> ValueFunction:
    if name == "rollout":
        if plugin.rollouts is None or not plugin.continuations:
            raise SpycfrError(f"{plugin.name} has no rollouts hook and continuations: no "
                              "rollout leaf values")
        from spycfr.search.continuation import Continuations

        # style numbers: a game without styled heuristics continues with its one, style 0
        names = plugin.rollout_styles or plugin.heuristic_styles or ("heuristic",)
        styles = tuple(names.index(c) for c in plugin.continuations)
        opposing = tuple(names.index(c)
                         for c in plugin.opposing_continuations or plugin.continuations)
        reader = plugin.range_reader
        return Continuations(game, plugin.rollouts, styles, exact, opposing=opposing,
                             pair_weights=plugin.pair_weights, guessing=plugin.rollouts_guessing,
                             reader=names.index(reader) if reader in names else None,
                             guess_features=plugin.guess_features)
    if name == "learned":
        if path is None:
            raise SpycfrError("the learned value function needs its weights file")
        try:
            from spycfr.search.learned import LearnedValues
        except ImportError:
            raise SpycfrError("this version has no learned value function "
                              "(spycfr.search.learned)") from None
        if not Path(path).is_file():
            raise SpycfrError(f"no weights file {str(path)!r}")
        return LearnedValues.load(path)
    raise SpycfrError(f"value function {name!r}: not one of {', '.join(VALUE_FUNCTIONS)}")
