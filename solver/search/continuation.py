"""Leaf values that look beyond the leaf without a trained network: the values of
continuation strategies, by rollouts (Brown, Sandholm and Amos 2018, "Depth-Limited Solving
for Imperfect-Information Games": multi-valued states).

At a leaf each seat may continue with one of its own strategies (the game's
``continuations``, some of its heuristic players) and guards against the opposing ones (the
game's ``opposing_continuations``, by default the same). For a private state i of seat s,
games are played to the end from the leaf's public state (the game's ``rollouts`` hook,
numba) against opposing private states j drawn from the opponent's range there, once for
every pair of continuations; the mean payoff per pair is ``U[k, k']``. The value of i is
``max_k min_k' U[k, k']``, k over its own and k' over the opposing continuations: the seat
continues as suits its cards best, against the opposing continuation worst for it. (Brown
et al. put each seat's choice in the subgame as a decision of the whole range; a row's own
worst case here is more cautious: the opponent's choice may depend on i.)

Cost and sampling. The games of one re-solve are played once, at the solve's first call
(the leaves' public states and ranges then), and reused by every iteration. When every pair
of private states of every leaf fits the ``budget`` of games (small variants), every pair is
played (``pair_samples`` games each, for the heuristics' own randomness) and the values are
exact sums over the current ranges: one strategy everywhere, which the exact evaluation
measures. Otherwise only the ``focus`` row (the agent's actual private state, set by the agent
before each re-solve) is played, against ``focus_samples`` opposing private states drawn from
the opposing reach at the leaf at the first call (what the leaf's signals allow); its value is
the samples' mean over their mean pair weight (a ratio estimate: the game's payoffs weigh
each pair by ``pair_weights``, Agent Avenue's card removal, or by the compatibility) times
the current opposing mass under the same weights, so a standard error of at most
``1 / sqrt(focus_samples)`` per pair of continuations (payoffs in [-1, 1]), the value never
outside the payoff range times that mass, and 0 against an opposing range the row cannot
meet (the plain mean times the unweighted mass was: on Agent Avenue ``small``, 131 of 530
rows of a re-solve over 1 once divided by that mass, up to 634); every other row takes the
``fallback`` values (scored as it stands). Reweighting the samples by the solve's
changing ranges (importance weights) was tried and dropped: the ranges concentrate, a few
samples carry all the weight, and the solve then chases their noise (values of +-1 at most
leaves). Samples are common random numbers: sample m uses the same uniform variate to draw
the opposing state and the same seed for the game's own randomness at every leaf, so the
differences between leaves, which decide the move, are much less noisy than the values.

Balance (``focus_rows`` > 1). With the agent's range at the subgame's root, up to
``focus_rows`` - 1 more rows drawn from it (seeded by the seed and the public state: the same
draw whatever the actual cards) are played too, on a ``balance_budget`` of their own, so that
the re-solve's rows for private states the opponent cannot tell apart from the actual ones
are valued alike, not scored as they stand. Where the subgame holds no opposing decision
(one-sided, depth 1: the agent's move and its signals) each row's best move depends on its
own values only, so the drawn rows change neither the actual cards' values nor the move
played; they change the rows the agent's range follows, and what a reader of the re-solve's
rows (the local best response of spycfr.analysis.lbr_agent) infers of the actual cards.

Reading the range (``reader``: a game's ``range_reader`` style among the opposing ones, and
its ``rollouts_guessing`` hook). The opposing continuations above read only public
bookkeeping, so the agent values every move as if its opponent learned nothing from it,
and a one-sided re-solve makes its move a function of its cards that a best responder
inverts. The range reader is an opposing continuation that reads the focus seat's range at
the leaf: in each game it is given ``reader_draws`` private states drawn from that range
(common random numbers: draw m takes the same uniform variates at every leaf), which the
game's style believes (Agent Hunter: the ``ranger`` narrows what it holds possible in each
opposing house to those states' cards). The range at a leaf is the focus rows' root range
(the actual cards and the balance rows, weighted by the agent's range; under
:meth:`focus_each` the states valued, weighted as given) pushed through the subgame's
strategy; rows not valued by rollouts are left out (their strategies are the fallback's).
The leaf values then depend on the strategy being solved, so a re-solve reads in rounds
(:func:`spycfr.search.reading.solve_reading`): solve with the root range pushed through
uniform play, then ``reader_rounds`` times read the range at each leaf from the last solve's
average strategy and solve again (the games replayed with the same seeds and draws: only the
guesses change). Where a move is played by the actual cards' row alone, the range at its leaves
is that row's and the reader guesses right; where the valued rows pool on a move, its
guesses spread, so CFR+ has a reason to pool the rows' moves.

The reader's range from public information (``reader_range`` "public"; the default "own" is
the above). The range above holds the actual cards' row whatever the draw, weighted by the
agent's own range (which its past re-solves shaped with its actual cards), so a best
responder that models the agent (spycfr.analysis.lbr_agent) cannot compute it: it reads its
own belief instead and its model of the agent breaks (docs/search.md). Here the reader's root
range is ``focus_rows`` - 1 rows drawn uniformly, without replacement, from the live rows
of the agent's range (seeded by the seed and the public state; the live rows are the same
whatever the cards: every CFR+ average keeps a share of its uniform first iteration, and the
openings table is public), each weighted alike, the actual cards' row among them only where
drawn. Those rows are valued first, on the balance budget, and the actual cards' rows that
they do not reach on the focus budget, so every row's values, and in a one-sided solve its
strategy, are the same whichever row is the actual one: :meth:`focus_each` with the same
range reproduces the agent holding each state exactly, reading and all. A move that no drawn
row plays leaves the reader without a range at its leaves (it plays as the hunter there).
The opposing decision below (``choice`` "leaf") reads the same public rows where
``reader_range`` is "public", with or without a range reader; without either (``choice``
"row", no reader) "public" values those rows too, each by its own ``max_a min_b``, so that
the exact walk (no actual cards) values what a game values: a row's values do not depend on
the other rows valued where the draws per row reach ``focus_samples`` (small variants).

The opposing continuation as a decision (``choice`` "leaf"; the default "row" is the
``max_a min_b`` above). Rounds of reading cannot make a one-sided re-solve mix: within a
round the leaf values are fixed, so every row best-responds alone (docs/search.md). Here, as
in Brown et al., the opponent's continuation b at each leaf is a decision of the subgame:
one information set per leaf (the opponent's private state left out of the guess), solved by
regret matching+ inside the value function, a step at every call of the solve's loop
against the focus seat's reach at the leaf (the solve's current range), its current
strategy sigma_leaf giving row i the value ``max_a sum_b sigma_leaf[b] U_i[a, b]`` (the
seat's own continuation a stays its row's choice). With ``guesses`` the opposing
continuations at a leaf also hold one **guess** per row valued there: the range reader's
style given that row as its one guess (the hunter that believes the seat holds row k), so
that a leaf reached by one row only has that row's guess chosen against it and rows pooled on
a move share the guesses. Only the rows valued by rollouts take part (the focus path, over
the budget); with ``reader_range`` "public" and ``focus_rows`` over the live rows, every
live row. Where every pair is played (within the budget) ``choice`` changes nothing yet.
The decision itself (its regrets, its step at every call, one numba kernel over every
leaf) is :mod:`spycfr.search.leafchoice`.

The opposing continuation per leaf and opposing private state (``choice`` "state"; Brown et
al.'s full form, experiments in docs/search.md). The choice above leaves the opponent's cards
out: one continuation for the leaf's whole opposing range. Here the opponent holding j at a
leaf chooses for j, against the focus seat's range there: a regret-matching+ decision per
(leaf, j), j among the opposing states the leaf's rows were played against (the sampled
draws, common random numbers, so the rows of a leaf mostly share them). A row's value is the
mean over its draws of ``max_a``-chosen values against each draw's state's current choice
(the draws' values kept, not their mean), and the decision of j is stepped by the draws
played against j only. With ``guesses`` the guess continuations are among each state's
options. ``guess_weight`` and ``row_weight`` are the per-leaf decision's only (ValueError).
Where every pair is played (within the budget) it changes nothing, as "leaf".

Cheaper guesses (``guess_by``, ``guess_draws``; experiments, docs/search.md). A guess per
row costs rows x guesses x own continuations x draws games at every leaf (on ``standard``,
72 x 72 x 2 a draw: 95% of a re-solve's rollout time). ``guess_by`` "feature" makes one
guess per label of a feature of the game's ``guess_features`` hook among the rows guessed at the
leaf, the range reader given every row of that label (Agent Hunter: the hunter that
believes a house holds a card, whatever the other houses hold among those rows: at most
houses x cards guesses); ``guess_draws`` plays the guess games on the first that many of
the row's draws only.

Where the pieces live: this module is the value function (:class:`Continuations`: its
options, which games a re-solve plays and the values it gives); the games themselves (the
jobs, laid out for the game's rollouts hooks, and each row's ratio estimate) are
:mod:`spycfr.search.continuation_games`; which rows a re-solve values is
:mod:`spycfr.search.continuation_focus`; what the games give each row
(:class:`~spycfr.search.continuation_rows.ValuedRow`) is :mod:`spycfr.search.continuation_rows`;
the choice of the opposing continuation (``CHOICES``, the per-row ``max_a min_b``, the
decisions) is :mod:`spycfr.search.leafchoice`; the reading rounds are
:mod:`spycfr.search.reading`; an agent's leaves set up by name for an experiment,
:mod:`spycfr.search.configure`.
"""

from __future__ import annotations

import numpy as np

from spycfr.search import continuation_focus as focusing
from spycfr.search import continuation_games as games
from spycfr.search import passes
from spycfr.search.continuation_rows import RowValues, ValuedRow
from spycfr.search.leafchoice import CHOICES, LeafDecisions, StateDecisions, robust
from spycfr.search.tree import GameModel, Subtree
from spycfr.search.values import ValueFunction

# where the range reader's root range comes from (module notes): the focus rows weighted by
# the agent's range ("own"), or rows drawn alike from its live rows ("public")
READER_RANGES = ("own", "public")
# what one guess of the opposing decision believes (module notes): one row, or the rows of
# one label of a feature (the game's guess_features hook)
GUESS_BY = ("row", "feature")


class Continuations:
    """The ``rollout`` leaf values (module notes)."""

    name = "rollout"

    def __init__(self, game: GameModel, rollouts, styles: tuple[int, ...],
                 fallback: ValueFunction, pair_samples: int = 4, focus_samples: int = 64,
                 budget: int = 50_000, focus_budget: int = 60_000, row_samples: int = 16,
                 seed: int = 0, opposing: tuple[int, ...] | None = None, focus_rows: int = 1,
                 balance_budget: int = 60_000, pair_weights=None, guessing=None,
                 reader: int | None = None, reader_draws: int = 4,
                 reader_rounds: int = 1, reader_range: str = "own", choice: str = "row",
                 guesses: bool = False, guess_features=None, guess_by: str = "row",
                 guess_draws: int = 0, guess_weight: float = 1.0,
                 row_weight: float = 0.0) -> None:
        # ``styles``: what a seat itself may continue with; ``opposing``: what it guards
        # against (default the same); the games use their union
        self.game, self.rollouts = game, rollouts
        self.guard_against(tuple(styles), tuple(styles) if opposing is None else opposing)
        self.fallback = fallback
        self.pair_samples, self.focus_samples, self.budget = pair_samples, focus_samples, budget
        self.focus_budget, self.row_samples = focus_budget, row_samples
        self.balance_budget = balance_budget
        self.seed = seed
        # the game's pair_weights hook (pub, params, seat, i, n_other) -> (n_other,), which
        # its rollouts' payoffs carry (spycfr.games.plugin); None: the compatibility alone
        self.pair_weights = pair_weights
        # the range reader: the rollouts hook taking guesses, the style that reads them
        # (module notes); the root range it reads and its range at each leaf (by public
        # state) for the next solve
        self.guessing, self.reader = guessing, reader
        self.reader_draws = reader_draws
        # the game's guess_features hook (spycfr.games.plugin): called once, when asked for
        self.guess_features = guess_features
        self._features: np.ndarray | None = None
        # what configure sets (and checks), from these defaults: the one place they are set
        self.focus_rows, self.reader_rounds, self.reader_range = 1, 1, "own"
        self.choice, self.guesses, self.guess_by, self.guess_draws = "row", False, "row", 0
        self.guess_weight, self.row_weight = 1.0, 0.0
        self.configure(focus_rows=focus_rows, reader_rounds=reader_rounds,
                       reader_range=reader_range, choice=choice, guesses=guesses,
                       guess_by=guess_by, guess_draws=guess_draws, guess_weight=guess_weight,
                       row_weight=row_weight)
        # the opposing continuation as a decision at each leaf, with guess continuations
        # (module notes; spycfr.search.leafchoice): the rows guessed at each leaf and their
        # groups (guess_groups), by public state; the leaves' decisions of the current solve
        self._groups_at: dict[bytes, np.ndarray] = {}
        self._choices = self._decisions()
        # the reader's range at each leaf (by public state) for the next solve
        self._reader_at: dict[bytes, np.ndarray] = {}
        self._G: np.ndarray | None = None  # this solve's guesses (_guesses)
        # the games of the last solve, call by call, and those of this one: a reading round
        # replays only the reader's games (the rest are the same games: same jobs, seeds)
        self._last_games: list = []
        self._games: list = []
        # the rows the next solve values (spycfr.search.continuation_focus)
        self.focused = focusing.Focus()
        # focus_each: after a solve, the states left to a later one and those a lone focus
        # would value as here
        self.deferred: list[int] = []
        self.alone_over_budget: list[int] = []
        self._ready = False
        self._prepared = np.zeros((0, 0))  # the leaves' public states the games are for
        self._live: tuple[np.ndarray, np.ndarray] = (np.zeros(0, int), np.zeros(0, int))
        self.games_played = 0  # rollouts played so far (all re-solves)
        # re-solves over the budget with no focus (the exploitability walk holds no actual
        # cards): every leaf took the fallback, where a real game plays its cards' games
        self.unfocused = 0

    def guard_against(self, styles: tuple[int, ...], opposing: tuple[int, ...]) -> None:
        """Continue with the rollout styles ``styles`` and guard against ``opposing`` (the
        games use their union)."""
        union = tuple(dict.fromkeys((*styles, *opposing)))
        self.styles = np.asarray(union, np.int64)
        self._own = np.array([union.index(x) for x in styles], np.int64)
        self._opp = np.array([union.index(x) for x in opposing], np.int64)

    @property
    def own_styles(self) -> tuple[int, ...]:
        """The rollout styles a seat continues with (:meth:`guard_against`)."""
        return tuple(int(x) for x in self.styles[self._own])

    @property
    def opposing_styles(self) -> tuple[int, ...]:
        """The rollout styles guarded against (:meth:`guard_against`)."""
        return tuple(int(x) for x in self.styles[self._opp])

    def settings(self) -> dict:
        """Every option :meth:`configure` sets, as they are now (its keywords), so that other
        leaves can be set up alike (the detection's robust leaves: spycfr.search.styles)."""
        return {"own": self.own_styles, "opposing": self.opposing_styles,
                "focus_rows": self.focus_rows,
                "reader_rounds": self.reader_rounds, "reader_range": self.reader_range,
                "choice": self.choice, "guesses": self.guesses, "guess_by": self.guess_by,
                "guess_draws": self.guess_draws, "guess_weight": self.guess_weight,
                "row_weight": self.row_weight}

    def configure(self, opposing: tuple[int, ...] | None = None, focus_rows: int | None = None,
                  reader_rounds: int | None = None, reader_range: str | None = None,
                  choice: str | None = None, guesses: bool | None = None,
                  guess_by: str | None = None, guess_draws: int | None = None,
                  guess_weight: float | None = None, row_weight: float | None = None,
                  own: tuple[int, ...] | None = None) -> None:
        """Change the leaves after they were made (an experiment's set-up: the benchmarks'
        ``--opposing``, ``--own``, ``--focus-rows``, ...; the constructor's checks too): guard
        against the rollout styles ``opposing`` and continue with the better of ``own``
        (:meth:`guard_against`; one not given kept as it is), value ``focus_rows`` rows of
        the range, read ``reader_rounds`` rounds, take the reader's range from
        ``reader_range``, choose the opposing continuation per ``choice`` with or without
        ``guesses``, a guess per row or per label of a feature (``guess_by``), played with
        at most ``guess_draws`` of the row's draws (0: all), the decision's mass on the guesses
        bounded by ``guess_weight`` and ``row_weight`` of each row's value its per-row
        ``max_a min_b`` (spycfr.search.leafchoice) (module notes); None leaves one
        as it is. Everything is checked before anything changes (ValueError naming the bad
        value and what is allowed)."""
        for name, styles in (("opposing", opposing), ("own", own)):
            if styles is not None and (len(styles) == 0 or any(
                    isinstance(x, bool) or not isinstance(x, (int, np.integer)) or x < 0
                    for x in styles)):
                raise ValueError(f"{name} {styles!r}: one or more rollout style numbers (>= 0)")
        for name, value, least in (("focus_rows", focus_rows, 1),
                                   ("reader_rounds", reader_rounds, 0),
                                   ("guess_draws", guess_draws, 0)):
            if value is not None and (isinstance(value, bool)
                                      or not isinstance(value, (int, np.integer))
                                      or value < least):
                raise ValueError(f"{name} {value!r}: a whole number >= {least}")
        if reader_range is not None and reader_range not in READER_RANGES:
            raise ValueError(f"reader_range {reader_range!r}: one of {', '.join(READER_RANGES)}")
        if choice is not None and choice not in CHOICES:
            raise ValueError(f"choice {choice!r}: one of {', '.join(CHOICES)}")
        if guesses is not None and not isinstance(guesses, (bool, np.bool_)):
            raise ValueError(f"guesses {guesses!r}: True or False")
        for name, share in (("guess_weight", guess_weight), ("row_weight", row_weight)):
            if share is not None and (isinstance(share, bool)
                                      or not isinstance(share, (int, float, np.integer,
                                                                np.floating))
                                      or not 0.0 <= float(share) <= 1.0):
                raise ValueError(f"{name} {share!r}: a number from 0 to 1")
        if guess_by is not None and guess_by not in GUESS_BY:
            raise ValueError(f"guess_by {guess_by!r}: one of {', '.join(GUESS_BY)}")
        if guess_by == "feature" and self.guess_features is None:
            raise ValueError("guess_by 'feature': the game has no guess_features hook (guess "
                             "by row)")
        after = (self.choice if choice is None else choice,
                 self.guess_weight if guess_weight is None else float(guess_weight),
                 self.row_weight if row_weight is None else float(row_weight))
        if after[0] == "state" and (after[1] < 1.0 or after[2] > 0.0):
            raise ValueError(f"choice 'state' with guess_weight {after[1]!r} and row_weight "
                             f"{after[2]!r}: the per-state decision takes neither (guess_weight "
                             "1 and row_weight 0, or choice 'leaf')")
        if opposing is not None or own is not None:
            self.guard_against(self.own_styles if own is None else tuple(int(x) for x in own),
                               self.opposing_styles if opposing is None
                               else tuple(int(x) for x in opposing))
        if focus_rows is not None:
            self.focus_rows = int(focus_rows)
        if reader_rounds is not None:
            self.reader_rounds = int(reader_rounds)
        if reader_range is not None:
            self.reader_range = reader_range
        if choice is not None:
            self.choice = choice
        if guesses is not None:
            self.guesses = bool(guesses)
        if guess_by is not None:
            self.guess_by, self._groups_at = guess_by, {}
        if guess_draws is not None:
            self.guess_draws = int(guess_draws)
        if guess_weight is not None:
            self.guess_weight = float(guess_weight)
        if row_weight is not None:
            self.row_weight = float(row_weight)

    def focus(self, seat: int | None, private: int | None = None, tree: Subtree | None = None,
              weights: np.ndarray | None = None) -> None:
        """Value ``seat``'s private state ``private`` with rollouts when not every pair can
        be (the agent's own cards); with the subgame ``tree``, at each leaf the private
        states it can lead to there (a switch changes the cards); with ``seat``'s range at
        the subgame's root (``weights``) and ``focus_rows`` > 1, also up to focus_rows - 1
        more rows drawn from it (balance: module notes). None: no focus. With no ``private``
        (a walk without actual cards: the exact exploitability's) the public rows
        (``reader_range`` "public": with the opposing decision, ``choice`` "leaf", with or
        without ``guesses``, or per row, ``choice`` "row") are still valued, which are every
        row the seat plays where ``focus_rows`` exceeds the live rows of ``weights``, as a
        game with any cards values them."""
        self.focused = focusing.focus(seat, private, tree, weights, self.seed, self.focus_rows,
                                      self.reader_range)
        self._reader_at, self._groups_at = {}, {}

    def focus_each(self, seat: int, privates, tree: Subtree,
                   weights: np.ndarray | None = None) -> None:
        """Value each of ``seat``'s private states ``privates`` in the next solve of ``tree``
        as a :meth:`focus` on it alone would (no balance rows): the rows it leads to at each
        leaf, with the draws per row that its own games' count gives. A row's games depend
        only on the row, the leaf, the opposing range there and the seed, never on which
        focus asked for them, so every state's rows get the values its own focus gives,
        and over the budget (a one-sided solve: no opposing decision, each row's strategy
        from its own leaf values) its strategy row is the one it would play holding those
        cards. A row that two states want at different numbers of draws is played for the
        first; the second is left out (``deferred`` after the solve: focus on it in
        another). Where every pair fits the budget the solve plays every pair and no state
        is deferred. For a reader of every private state's row, the local best response of
        spycfr.analysis.lbr_agent. A range reader reads the range ``weights`` (over seat's
        private states; None: the states ``privates`` alike); with ``reader_range``
        "public", ``weights`` is the agent's own range at the root, whose live rows the
        public range is drawn from as :meth:`focus` draws it (``public_rows``: those rows,
        which the solve's range must hold too), valued first, and each state's rows are
        those the drawn rows do not reach."""
        self.focused = focusing.focus_each(seat, privates, tree, weights, self.seed,
                                           self.focus_rows, self.reader_range)
        self._reader_at, self._groups_at = {}, {}
        self.deferred, self.alone_over_budget = [], []

    @property
    def sample(self) -> np.ndarray:
        """The rows the last focus drew at the root (the actual cards' among them)."""
        return self.focused.sample

    @property
    def public_rows(self) -> np.ndarray:
        """The rows the public reader's range is made of (``reader_range`` "public")."""
        return self.focused.public_rows

    @property
    def guessing_rows(self) -> bool:
        """Whether the opposing decision at each leaf holds guess continuations (module
        notes): ``guesses`` with ``choice`` "leaf" or "state" and the game's range reader."""
        return (self.guesses and self.choice in ("leaf", "state") and self.reader is not None
                and self.guessing is not None)

    @property
    def reads_range(self) -> bool:
        """Whether a range reader is among the opposing continuations (module notes)."""
        return (self.reader is not None and self.guessing is not None
                and self.reader in self.styles[self._opp])

    def read(self, tree: Subtree, strategy: np.ndarray | None) -> None:
        """The range reader's range at each leaf of ``tree`` for the next solve: the focus
        rows' root range pushed through ``strategy`` (None: uniform play)."""
        self._reader_at = {}
        self._last_games, self._games = (self._games if strategy is not None else []), []
        if self.focused.reader_root is None:
            return
        seat, root = self.focused.reader_root
        sigma = strategy
        if sigma is None:
            sigma = focusing.uniform_play(tree)
        reach = np.zeros((tree.size, root.size))
        passes.forward(seat, *tree.seat_arrays(seat), sigma, root, reach)
        for n in tree.leaves:
            self._reader_at[tree.pub[n].tobytes()] = reach[n]

    def _guesses(self, pubs: np.ndarray, samples: int) -> np.ndarray | None:
        """(leaves, samples, reader_draws): the reader's guesses at each leaf for each
        sample (-1 where it has no range there), or None without a reader; common random
        numbers: sample m's variates are the same at every leaf."""
        if not (self.reads_range and self._reader_at):
            return None
        u = np.random.default_rng([self.seed, 0x7ead]).random((samples, self.reader_draws))
        out = np.full((pubs.shape[0], samples, self.reader_draws), -1, np.int64)
        for leaf in range(pubs.shape[0]):
            p = self._reader_at.get(pubs[leaf].tobytes())
            if p is None or p.sum() <= 0:
                continue
            cdf = np.cumsum(p / p.sum())
            out[leaf] = np.minimum(np.searchsorted(cdf, u, side="right"), p.size - 1)
        return out

    def one_sided(self, tree: Subtree, ranges: tuple[np.ndarray, np.ndarray]) -> bool:
        """Whether a solve of ``tree`` from ``ranges`` values only the focus rows (over the
        budget, with a focus): the opponent's rows then take the fallback, which is not
        comparable with its values of the last solve, so a re-solving gadget fed those
        would only add noise."""
        k = self.styles.size
        count = (tree.leaves.size * int((ranges[0] > 0).sum()) * int((ranges[1] > 0).sum())
                 * k * k * self.pair_samples)
        return self.focused.actual is not None and count > self.budget

    def reset(self) -> None:
        """A new solve begins: its first call plays its games."""
        self._ready = False

    def forget(self) -> None:
        """Back to the state of a function just made (no focus, no games, no reading): what
        a walk of a game that starts now values is then what a freshly loaded agent's walk
        values, whatever other walks of the same agent solved before (a leaf asked about
        before the walk's own first re-solve plays its games for the focus and ranges of
        that moment). Counters are kept."""
        self.focus(None)
        self._ready = False
        self._prepared = np.zeros((0, 0))
        self._last_games, self._games = [], []
        self._G = None
        self._choices = self._decisions()

    def values(self, pubs: np.ndarray, r0: np.ndarray, r1: np.ndarray,
               nodes: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        if not (self._ready and np.array_equal(pubs, self._prepared)):
            # a new solve, or leaves other than those the games were played for (a solution
            # evaluated after a solve of another subgame): play this one's games
            self._prepare(pubs, r0, r1)
            self._ready = True
            self._prepared = np.array(pubs, copy=True)
        z = self.game.z
        if self._pairs is not None:  # every pair played: exact sums over the ranges
            u, (rows0, rows1) = self._pairs, self._live  # u: (L, i, a, b, j) over live rows
            if rows0.size == 0 or rows1.size == 0:  # no game: every value times a range of 0
                return np.zeros(r0.shape), np.zeros(r1.shape)
            L, n0, k = u.shape[0], u.shape[1], u.shape[2]
            q0 = np.matmul(u, r1[:, None, None, rows1, None])[..., 0]  # (L, i, a, b)
            q1 = -np.matmul(r0[:, None, rows0], u.reshape(L, n0, -1))[:, 0]
            q1 = q1.reshape(L, k, k, -1).transpose(0, 3, 2, 1)  # (L, j, b, a)
            v0, v1 = np.zeros(r0.shape), np.zeros(r1.shape)
            own, opp = self._own[:, None], self._opp[None, :]
            v0[:, rows0] = robust(q0[..., own, opp]) / z
            v1[:, rows1] = robust(q1[..., own, opp]) / z
            return v0, v1
        v0, v1 = self.fallback.values(pubs, r0, r1)
        out, ranges = (v0, v1), (r0, r1)
        for s, got in self._focus_values.items():
            mass = np.einsum("qj,qj->q", got.weights, ranges[1 - s][got.leaf])
            out[s][got.leaf, got.rows] = got.value * mass / z
        self._choices.step(out, ranges, z)
        return v0, v1

    def _prepare(self, pubs: np.ndarray, r0: np.ndarray, r1: np.ndarray) -> None:
        """Choose this re-solve's games and play them."""
        k, L = self.styles.size, pubs.shape[0]
        n0, n1 = r0.shape[1], r1.shape[1]
        pairs = np.array([(a, b) for a in range(k) for b in range(k)], np.int64)
        live0, live1 = r0 > 0, r1 > 0
        count = int((live0.sum(1) * live1.sum(1)).sum()) * k * k * self.pair_samples
        rng = np.random.default_rng(self.seed)
        self._pairs: np.ndarray | None = None
        self._rows: list[ValuedRow] = []
        self._focus_values: dict[int, RowValues] = {}
        self._choices = self._decisions()
        self._groups_at = {}
        self._G = None
        if count <= self.budget:
            ls, i0, i1 = np.nonzero(live0[:, :, None] & live1[:, None, :])
            # at least row_samples games per row where the other seat has few rows (the
            # placements: the opponent's NOTHING), within the budget
            few = max(1, int(np.minimum(live0.sum(1), live1.sum(1)).min()))
            m = max(self.pair_samples, min(-(-self.row_samples // few),
                                           self.budget // max(ls.size * k * k, 1)))
            seeds = rng.integers(0, 2**31 - 1, m)
            self._G = self._guesses(pubs, m)
            reps = pairs.shape[0] * m  # per (leaf, i, j): every pair of styles, m seeds
            u = games.play(self, pubs, np.repeat(ls, reps), np.repeat(i0, reps),
                           np.repeat(i1, reps),
                           np.tile(np.repeat(pairs[:, 0], m), ls.size),
                           np.tile(np.repeat(pairs[:, 1], m), ls.size),
                           np.tile(seeds, ls.size * pairs.shape[0]),
                           np.tile(np.arange(m), ls.size * pairs.shape[0]))
            means = u.reshape(ls.size, k, k, m).mean(axis=3)
            # dense over the rows live at some leaf only (late in a game a few of 721)
            self._live = (np.flatnonzero(live0.any(0)), np.flatnonzero(live1.any(0)))
            at0, at1 = np.full(n0, -1), np.full(n1, -1)
            at0[self._live[0]] = np.arange(self._live[0].size)
            at1[self._live[1]] = np.arange(self._live[1].size)
            self._pairs = np.zeros((L, self._live[0].size, k, k, self._live[1].size))
            self._pairs[ls, at0[i0], :, :, at1[i1]] = (
                means * self.game.compat[i0, i1][:, None, None])
            return
        focused = self.focused
        if focused.actual is None:
            self.unfocused += 1
            return
        s, own = focused.actual
        draws, seeds = rng.random(self.focus_samples), rng.integers(0, 2**31 - 1,
                                                                     self.focus_samples)
        self._G = self._guesses(pubs, self.focus_samples)
        pairs = np.array([(a, b) for a in self._own for b in self._opp], np.int64)
        if focused.units:
            self._rows += games.each_state(self, pubs, (r0, r1), s, draws, seeds, pairs, k)
        else:
            # the actual cards first, with their own budget: the balance rows never change
            # the samples (nor so the values and the play) of the actual cards
            for rows_at, default, budget, floor in (
                    (focused.rows, (own,) if own >= 0 else (), self.focus_budget, 8),
                    (focused.balance, (), self.balance_budget, 4)):
                jobs = games.jobs_of(self, pubs, (r0, r1), s, rows_at, default, draws)
                if jobs:
                    self._rows += games.roll(self, pubs, s, jobs, pairs, budget, floor, seeds)
        if self._rows and self.choice != "row":  # the opponent's decisions at each leaf
            self._choices.group(s, self._rows, pubs, focused.guess_at)
        elif self._rows:  # per row: each by its own max_a min_b
            self._focus_values[s] = RowValues(
                np.array([x.leaf for x in self._rows], np.int64),
                np.array([x.row for x in self._rows], np.int64),
                robust(np.array([x.values for x in self._rows])),
                np.array([x.weights for x in self._rows]))

    def _decisions(self) -> LeafDecisions | StateDecisions:
        """A new solve's opposing decisions (``choice`` "leaf"): the game's opposing
        continuations plain, then the guesses, with these leaves' ``guess_weight`` and
        ``row_weight`` (:meth:`configure`); one per leaf and opposing state where ``choice``
        is "state" (spycfr.search.leafchoice)."""
        if self.choice == "state":
            return StateDecisions()
        return LeafDecisions(int(self._opp.size), self.guess_weight, self.row_weight)

    def leaf_choice(self) -> list[tuple[int, int, np.ndarray, np.ndarray]]:
        """The opponent's average choice at each leaf of the last solve (``choice`` "leaf";
        "state": over the leaf's opposing states, each weighted by its samples):
        (seat valued, leaf, rows valued, probability of each opposing continuation: the
        game's opposing ones, then one guess per group of :meth:`guess_groups` there: a row
        of :meth:`guessed_rows` each, by ``guess_by`` "row")."""
        return self._choices.average()

    def guessed_rows(self, pub: np.ndarray) -> np.ndarray:
        """The rows the opposing decision guesses at the leaf of public state ``pub``."""
        if not self.guessing_rows:
            return np.zeros(0, np.int64)
        return np.asarray(self.focused.guess_at.get(np.ascontiguousarray(pub).tobytes(),
                                                    np.zeros(0, np.int64)), np.int64)

    def guess_groups(self, pub: np.ndarray) -> np.ndarray:
        """(guesses, width): the rows each guess continuation of the leaf of public state
        ``pub`` is given (-1 padded): one row of :meth:`guessed_rows` each (``guess_by``
        "row"), or, by "feature", for each feature of the game's ``guess_features`` hook
        and each label it gives those rows, the rows of that label (a group met twice kept
        once; rows with no label in any feature no guess)."""
        rows = self.guessed_rows(pub)
        if self.guess_by == "row" or rows.size == 0:
            return rows[:, None]
        key = np.ascontiguousarray(pub).tobytes()
        got = self._groups_at.get(key)
        if got is not None:
            return got
        if self._features is None:
            self._features = np.asarray(self.guess_features(self.game.params), np.int64)
        labels = self._features[rows]  # (R, F)
        groups: dict[bytes, np.ndarray] = {}
        for f in range(labels.shape[1]):
            for v in np.unique(labels[:, f]):
                if v >= 0:
                    g = rows[labels[:, f] == v]
                    groups.setdefault(g.tobytes(), g)
        got = np.full((len(groups), max((g.size for g in groups.values()), default=1)), -1,
                      np.int64)
        for x, g in enumerate(groups.values()):
            got[x, :g.size] = g
        self._groups_at[key] = got
        return got
