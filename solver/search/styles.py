"""Whether the opponent plays one of the opposing continuations (issue 22; an option of the
search agent, off by default): the posterior, given the public history, that the opponent
IS each of the styles its rollout leaves guard against, against "none of them"; the agent
re-solves with its own leaves while that posterior says a style, with robust leaves once it
does not (:class:`Detection`, docs/search.md "Playing the opponent seen").

The likelihood of the opponent's observed moves under style s sums over its private states:
a range ``w_s`` over them, started from the deal's prior and stepped at each opponent move by
the style's probabilities of each state's actions (the game's ``style_rows`` hook: the
heuristic players'); the move's likelihood is ``sum(w_s after) / sum(w_s before)``, the
style's predictive probability of the public move. Public chance and signals narrow every
range by its masks without weighing the styles (the likelihood counts the moves only:
a signal says what the opponent holds, not how it plays). "None of them" gives every
opponent move with more than one public child the probability ``none_prob``: a player not
among the styles that plays with that much predictability (uniform play would be a straw
man: a uniformly random hand attacker, the prober, is more likely than uniform play for any
player that only attacks with its hand, as LBR mostly does). By kind (``by`` "kind", the
game's ``move_kinds`` hook), "none of them" chooses the move's kind with probability
``none_prob`` (1 where the decision offers one kind) and then any move of that kind alike:
a style that picks uniformly within a kind (the prober among hand attacks) is then told
from "none" by the kinds alone, and a deterministic one by its exact moves (each at
``1 / none_prob`` times the moves of its kind against "none"). A style that cannot make a
move (a deterministic heuristic's other move) is out for good. Immutable: each step makes a
new belief, so that a walk copied at a branch (agent_exploitability) keeps its own.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import numpy as np

from spycfr.search.beliefs import step

# the robust leaves: the opponent's continuation chosen per leaf and opposing private state,
# with a guess per house's card, every live row read (the least exploitable setting measured
# on Agent Hunter standard: LBR +0.062 [-0.407, +0.532] in 16 games; docs/search.md)
ROBUST = {"focus_rows": 80, "reader_range": "public", "choice": "state", "guesses": True,
          "guess_by": "feature"}
PRIOR = 0.5  # the prior probability that the opponent plays one of the styles
# "none of them": each opponent move's probability (module notes). Measured on standard
# (the posterior along 57 recorded LBR games and heuristic games, no re-solve; docs/search.md
# "Playing the opponent seen"): at 0.1 LBR's second move leaves "none" at 0.94 or more in
# every game, the hunter's second 0.02-0.46; at 0.05 the prober outweighed "none" in 2 LBR
# games
NONE_PROB = 0.1
# what "none of them" plays alike: each move (none_prob a move), or each move's kind (then
# any move of it; the game's move_kinds hook)
BY = ("move", "kind")


@dataclass(frozen=True)
class StyleBelief:
    """The styles' ranges over the opponent's private states and the log-likelihoods of its
    moves (the styles', then "none"'s) for one game; :meth:`stepped` follows a public step."""

    plugin: Any
    params: Any
    opp: int
    styles: tuple[int, ...]  # heuristic style numbers (the style_rows hook's)
    prior: float
    none_prob: float
    ranges: tuple[np.ndarray, ...]
    log_like: tuple[float, ...]  # one per style, then "none"
    by: str = "move"  # one of BY

    def __post_init__(self) -> None:
        if self.by not in BY:  # none_move reads any other value as "kind"
            raise ValueError(f"by {self.by!r}: one of {', '.join(BY)}")

    @classmethod
    def start(cls, plugin: Any, params: Any, weights: np.ndarray, opp: int,
              styles: tuple[int, ...], prior: float = PRIOR,
              none_prob: float = NONE_PROB, by: str = "move") -> StyleBelief:
        """Every style's range the deal's prior ``weights`` for the opponent (seat ``opp``)."""
        return cls(plugin, params, opp, tuple(styles), prior, none_prob,
                   tuple(weights.copy() for _ in styles), (0.0,) * (len(styles) + 1), by)

    def stepped(self, tree: Any, node: int, child: int) -> StyleBelief:
        """The belief at child number ``child`` of ``node`` of ``tree`` (a public tree)."""
        k = int(tree.kind[node])
        ranges, log_like = list(self.ranges), list(self.log_like)
        if k == self.opp:
            width = tree.row_kid.shape[2]
            for x, style in enumerate(self.styles):
                w = ranges[x]
                if log_like[x] == -math.inf:
                    continue
                live = np.flatnonzero(w)
                rows = np.zeros((w.size, width))
                got = np.zeros((live.size, width))
                self.plugin.style_rows(tree.pub[node], self.params, np.int64(style),
                                       live.astype(np.int64), got)
                rows[live] = got
                after = step(tree, node, self.opp, w, rows, child)
                p = float(after.sum() / w.sum())
                log_like[x] += math.log(p) if p > 0 else -math.inf
                ranges[x] = after / after.sum() if p > 0 else after
            if tree.count[node] > 1:
                log_like[-1] += math.log(self.none_move(tree, node, child))
        else:
            for x in range(len(self.styles)):
                after = step(tree, node, self.opp, ranges[x], None, child)
                total = after.sum()
                if total <= 0:  # a signal no state the style holds gives
                    log_like[x] = -math.inf
                ranges[x] = after / total if total > 0 else after
        return StyleBelief(self.plugin, self.params, self.opp, self.styles, self.prior,
                           self.none_prob, tuple(ranges), tuple(log_like), self.by)

    def none_move(self, tree: Any, node: int, child: int) -> float:
        """"None of them"'s probability of child number ``child`` of the opponent's decision
        ``node`` of ``tree`` (one of several): ``none_prob``; by kind, ``none_prob`` (1 where
        every child is of one kind) over the children of its kind."""
        if self.by == "move":
            return self.none_prob
        kinds = np.empty(tree.game.max_actions, np.int32)
        n = int(self.plugin.move_kinds(tree.pub[node], self.params, kinds))
        kinds = kinds[:n]
        alike = int((kinds == kinds[child]).sum())
        return (self.none_prob if (kinds != kinds[0]).any() else 1.0) / alike

    def posterior(self) -> np.ndarray:
        """P(the opponent plays each style, then "none of them" | its moves so far)."""
        n = len(self.styles)
        logs = np.array([*(math.log(self.prior / n) + v for v in self.log_like[:-1]),
                         math.log(1 - self.prior) + self.log_like[-1]])
        top = logs.max()
        p = np.exp(logs - top)
        return p / p.sum()

    def explained(self) -> bool:
        """Whether a style explains the opponent's play: "none of them" below one half."""
        return bool(self.posterior()[-1] < 0.5)


@dataclass
class Detection:
    """A search agent's option (:func:`configure_detection`): its own leaves ``own`` while a
    style explains the opponent's play (:meth:`StyleBelief.explained`), ``robust`` once not;
    ``counts``: the re-solves made with each, over every game."""

    own: Any
    robust: Any
    styles: tuple[int, ...]
    prior: float = PRIOR
    none_prob: float = NONE_PROB
    by: str = "move"
    counts: dict[str, int] = field(default_factory=lambda: {"own": 0, "robust": 0})

    def belief(self, agent: Any, opp: int) -> StyleBelief:
        """A new game's belief about the opponent, seat ``opp``, of ``agent`` (the game's
        leaves are the own ones until its first re-solve: AgentGame)."""
        return StyleBelief.start(agent.plugin, agent.model.params, agent.model.weights[opp],
                                 opp, self.styles, self.prior, self.none_prob, self.by)

    def leaves(self, belief: StyleBelief) -> Any:
        """The leaves to re-solve with given ``belief`` (counted)."""
        which = "own" if belief.explained() else "robust"
        self.counts[which] += 1
        return self.own if which == "own" else self.robust


def configure_detection(agent: Any, prior: float = PRIOR, none_prob: float = NONE_PROB,
                        robust: dict | None = None, by: str = "move") -> Detection:
    """Give the search ``agent`` the detection (``agent.detection``): its leaves as they are
    while the opponent plays one of their opposing styles that the game's ``style_rows``
    hook plays, once not leaves made alike, set up as the agent's are (its
    :func:`~spycfr.search.configure.configure_agent` settings, so configure those first),
    then changed by ``robust`` (:data:`ROBUST`; configure_agent's keywords); ``by``: what
    "none of them" plays alike (:data:`BY`; "kind" by the game's ``move_kinds`` hook).
    ValueError where the game has no such hook, the leaves guard against no style it plays,
    a number or ``by`` is out of range, or ``robust`` asks what the agent's settings rule
    out."""
    from spycfr.search.configure import configure_agent
    from spycfr.search.leafvalues import value_function

    if agent.plugin.style_rows is None:
        raise ValueError(f"{agent.plugin.name} has no style_rows hook: no detection")
    if not 0 < prior < 1 or not 0 < none_prob <= 1:
        raise ValueError(f"prior {prior!r} must be in (0, 1) and none_prob {none_prob!r} in "
                         "(0, 1]")
    if by not in BY:
        raise ValueError(f"by {by!r}: one of {', '.join(BY)}")
    if by == "kind" and agent.plugin.move_kinds is None:
        raise ValueError(f"{agent.plugin.name} has no move_kinds hook: no detection by kind")
    inner = getattr(agent.values, "inner", agent.values)
    plays = tuple(agent.plugin.heuristic_styles)
    names = tuple(agent.plugin.rollout_styles) or plays
    styles = tuple(plays.index(names[x]) for x in getattr(inner, "opposing_styles", ())
                   if names[x] in plays)
    if not styles:
        raise ValueError("the agent's leaves guard against none of its game's heuristic "
                         "styles: nothing to detect")
    c = agent.config
    other = value_function(c.value_function, agent.model, agent.plugin, c.value_file)
    # the robust leaves start as the agent's own are set up (its configure_agent: the own
    # and opposing styles, every option), then take ``robust``'s changes
    alike: Any = getattr(other, "inner", other)
    alike.configure(**inner.settings())
    try:
        configure_agent(SimpleNamespace(values=other, plugin=agent.plugin),
                        **(ROBUST if robust is None else robust))
    except ValueError as e:  # a change that the agent's own settings rule out
        raise ValueError(f"the detection's robust leaves (the agent's own settings, then "
                         f"{ROBUST if robust is None else robust}): {e}") from e
    agent.detection = Detection(agent.values, other, styles, prior, none_prob, by)
    return agent.detection
