"""The game plug-in record: what a game declares once so that every command can use it.

In the spirit of OpenSpiel's ``GameType``: generic code asks the record, never the game's
name. A game module exposes ``PLUGIN = GamePlugin(...)``; registering its module path in
:mod:`spycfr.games` is all it takes to appear in every command, engine and test suite.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from spycfr.errors import RecordError, VariantError

# Records are short lines of printable text: these bound what a malformed one can cost.
MAX_RECORD_CHARS = 100_000
MAX_MOVE_CHARS = 64


def check_record_text(text: str) -> str:
    """``text`` if it can be a record: at most MAX_RECORD_CHARS characters of printable text,
    moves separated by spaces (the specs' notation: no other whitespace), none longer than
    MAX_MOVE_CHARS; else RecordError."""
    if not isinstance(text, str):
        raise RecordError(f"a record is text, got {type(text).__name__}")
    if len(text) > MAX_RECORD_CHARS:
        raise RecordError(f"the record is {len(text):,} characters long; at most "
                          f"{MAX_RECORD_CHARS:,} are allowed")
    for column, char in enumerate(text, 1):
        if char != " " and unicodedata.category(char)[0] in "CZ":
            raise RecordError(f"character U+{ord(char):04X} at column {column} is not "
                              "allowed: a record is printable text, its moves separated by "
                              "spaces")
    for number, move in enumerate(text.split(), 1):
        if len(move) > MAX_MOVE_CHARS:
            raise RecordError(f"move {number} ({move[:20]}...) is {len(move):,} characters "
                              f"long; moves are at most {MAX_MOVE_CHARS}")
    return text


@dataclass(frozen=True)
class Parameter:
    """One variant parameter: its name (``max_turns``; CLI ``--max-turns``) and a help text
    saying what it means and which values are allowed. Validation is the game's."""

    name: str
    help: str

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")


@dataclass(frozen=True)
class RecordNotation:
    """A game's record notation: replay full records and one seat's view of them.

    ``summary(variant, text)``: the position after a full record or a view (a dict with
    at least ``valid``, ``terminal``, ``to_move`` ("P1"/"P2"), ``payoff`` and
    ``legal_moves``), raising RecordError naming the bad token. ``lines(summary, variant)``:
    the position in words, one string per line. ``view_key(variant, text, seat)``: the
    information-state key of the tree at the position of a seat's view, and its summary.
    """

    summary: Callable[[Any, str], dict]
    fields: tuple[str, ...]
    lines: Callable[[dict, Any], list[str]]
    view_key: Callable[[Any, str, int], tuple[str, dict]]
    example: str = ""
    # What the moves' notation means, in a few lines for a player (`spycfr play`'s help).
    guide: tuple[str, ...] = ()
    # One full state (the numba rules' array) consistent with a seat's view: where the
    # seat's information abstraction is read (a sampled run's query); None if not given.
    view_state: Callable[[Any, str, int], Any] | None = None
    # A seat's view replayed a move at a time (``view_steps(variant, seat)``, an object
    # whose ``push(move)`` gives the state ``view_state`` gives for the moves pushed so far):
    # a walk along a view in one pass, where ``view_state`` of each prefix replays the
    # record from its start (a search agent's query and review); None: prefix by prefix.
    view_steps: Callable[[Any, int], Any] | None = None
    # The action (and chance outcome) codes of a full record, from the start: what replays
    # a recorded game on the tree (a review); None if not given.
    actions: Callable[[Any, str], list[int]] | None = None
    # What chance event comes next at a position where no player moves (its summary), and
    # how a record gives it, in a phrase: where a query's record stops before it (e.g. Agent
    # Avenue advanced's black market, a token of its own); None: "a deal or draw".
    chance_next: Callable[[Any, dict], str | None] | None = None

    def __post_init__(self) -> None:
        # Every record reaches the game's parser through check_record_text first.
        summary, view_key, view_state = self.summary, self.view_key, self.view_state
        actions = self.actions
        if actions is not None:
            object.__setattr__(self, "actions", lambda variant, text: actions(
                variant, check_record_text(text)))
        object.__setattr__(self, "summary",
                           lambda variant, text: summary(variant, check_record_text(text)))
        object.__setattr__(self, "view_key", lambda variant, text, seat: view_key(
            variant, check_record_text(text), seat))
        if view_state is not None:
            object.__setattr__(self, "view_state", lambda variant, text, seat: view_state(
                variant, check_record_text(text), seat))


@dataclass(frozen=True)
class Openings:
    """The first decisions worth a table of their own (Agent Hunter's placements, Agent
    Avenue's first turn for each starting hand).

    ``paths(variant)``: (player, action path from the root, context) of each decision to
    tabulate; the path may go through any node of the infoset, chance outcomes included;
    ``context`` says which situation the decision is in (e.g. the starting hand; "" when a
    player has one opening decision) and ``context_name`` names that column (None: no
    column). ``group(label)``: what a move amounts to, for a summary by group (e.g. the set
    of cards placed).
    """

    paths: Callable[[Any], list[tuple[int, list[int], str]]]
    group: Callable[[str], str]
    group_name: str = "group"
    group_title: str = "groups"
    what: str = "opening"
    whats: str = "openings"
    context_name: str | None = None


@dataclass(frozen=True)
class NoParameters:
    """The variant of a game without parameters."""

    def as_dict(self) -> dict:
        return {}

    def describe(self) -> str:
        return "(no parameters)"


def no_parameters(game: str) -> Callable[[str | None, dict], NoParameters]:
    """``make_variant`` of a parameterless game: only the preset 'default' (or none)."""

    def make_variant(preset: str | None = None, params: dict | None = None) -> NoParameters:
        if params:
            raise VariantError(f"{game} takes no parameters (got: {', '.join(sorted(params))})")
        if preset not in (None, "default"):
            raise VariantError(
                f"{game} takes no parameters; unknown preset {preset!r} (allowed: default)")
        return NoParameters()

    return make_variant


@dataclass(frozen=True)
class GamePlugin:
    """Everything generic code may know about one game.

    ``make_variant(preset, params)`` validates (VariantError naming the parameter, the value
    and what is allowed) and returns a variant object with ``as_dict()`` and
    ``describe()``; ``python_game(variant)`` the game of :mod:`spycfr.engine.states` (labels,
    records, the reference builder); ``numba_params(variant)`` the params record of the
    numba protocol (:mod:`spycfr.engine.protocol`).
    """

    name: str
    title: str
    summary: str
    make_variant: Callable[[str | None, dict], Any]
    python_game: Callable[[Any], Any]
    numba_params: Callable[[Any], Any]
    parameters: tuple[Parameter, ...] = ()
    presets: dict[str, dict] = field(default_factory=lambda: {"default": {}})
    # Presets of team variants (more than two seats): not two-player games, so kept out of
    # the presets every two-player engine is checked on; solved by `spycfr team`.
    team_presets: dict[str, dict] = field(default_factory=dict)
    # Words for errors and reports.
    too_big_hint: str = ""  # how to shrink a variant whose tree is too big
    unbounded_hint: str = ""  # how to bound a variant whose tree is infinite
    words: Callable[[dict], str] | None = None  # the variant in plain words
    payoff_unit: Callable[[dict], str] = lambda variant: "points"
    win_payoff: Callable[[dict], bool] = lambda variant: False  # payoffs are +1/0/-1
    payoff_bound: Callable[[dict], float] = lambda variant: 1.0  # max |payoff| of a game
    # names of the protocol's styled heuristic players (style i = heuristic_styles[i])
    heuristic_styles: tuple[str, ...] = ()
    # The Monte-Carlo CFR settings measured best on the game's full variants (SolveConfig
    # field names: abstraction, fallback, store_depth): what `--algorithm auto` samples with
    # when the full tree would not fit and none of them was given.
    sampled_settings: dict[str, Any] = field(default_factory=dict)
    seat_note: str = "When the first player is drawn at random"
    # Optional features.
    records: RecordNotation | None = None
    openings: Openings | None = None
    # The game's report sections, as "module:function" (analysis code, in the game's
    # subpackage spycfr.games.<game>.analysis, loaded by name by the report, so that the
    # rules never import the layer above them): function(ctx) adds sections to a report (see
    # spycfr.analysis.report.ReportContext).
    report_sections: str | None = None
    # pooled(variant): the same team variant with each team's information pooled (teammates
    # see each other's cards): one player with perfect recall per team, the bound of a team
    # that could talk; None if the game has no team variants.
    pooled: Callable[[Any], Any] | None = None
    # The game's sections of a team run's report, as "module:function" (analysis code):
    # function(run) -> markdown lines (see spycfr.analysis.team.TeamRun).
    team_sections: str | None = None
    # How the game's positions look, as a module path (presentation, in
    # spycfr.games.<game>.analysis, loaded by name): ``private_state(summary, seat)``
    # names a seat's private state in a few words, ``draw(summary, seat)`` the position as
    # that seat sees it (HTML), ``NOTATION`` the record notation explained (HTML); each
    # optional, the summaries those of ``records``.
    views: str | None = None
    # search_params(variant) -> the numba params whose public model a search agent
    # re-solves on, where it must be an abstraction of the game's (the rules the same);
    # None: numba_params.
    search_params: Callable[[Any], Any] | None = None
    # public_params(variant) -> the numba params whose public model the public-tree solver
    # runs on (`--tree public`), where a lossless reduction of numba_params' exists (Leduc's
    # suits merged): the same history rules, exactly the same values and exploitabilities;
    # None: numba_params.
    public_params: Callable[[Any], Any] | None = None
    # pair_weights(pub, params, seat, i, n_other) -> (n_other,): how much seat's private
    # state i and each private state of the other seat weigh together at public state pub
    # beyond the model's compatibility (a model that keeps card
    # removal in its payoffs: what a search agent's posterior and move values weigh the
    # opponent's range by); None: nothing beyond it.
    pair_weights: Callable | None = None
    # scored_now(pubs, params, r0, r1, v0, v1): a function (numba or not) writing each seat's
    # values (sum over the other's range of the payoff times compat) with the game ended at
    # each public state, as it stands: the leaf values of a search agent without a trained
    # value function (spycfr.search.leafvalues); None: the game offers none.
    scored_now: Callable | None = None
    # what scored_now values a leaf by, in words (a run's record and its readers)
    scored_now_words: str | None = None
    # rollouts(pubs, params, leaf, i0, i1, style0, style1, seeds, out): an @njit function
    # writing P1's payoff of one game played to the end per job q from public state
    # pubs[leaf[q]] with private states i0[q], i1[q], each seat playing its styled heuristic
    # (style0[q], style1[q]), numba's generator seeded with seeds[q], times the pair's
    # ``pair_weights`` at the leaf where the game has them (as its payoffs are); with
    # ``continuations`` (the heuristic styles a seat may continue with below a leaf; a game
    # without heuristic_styles names its one heuristic, style 0, "heuristic") the
    # ``rollout`` leaf values of spycfr.search.continuation. None: the game offers none.
    rollouts: Callable | None = None
    continuations: tuple[str, ...] = ()
    # the names of the rollouts hook's styles (style i = rollout_styles[i]) where they are
    # not heuristic_styles (players for the rollouts only); empty: heuristic_styles
    rollout_styles: tuple[str, ...] = ()
    # the styles a seat guards against below a leaf (the opponent's continuations); empty:
    # ``continuations``
    opposing_continuations: tuple[str, ...] = ()
    # the rollout style (a name of rollout_styles) that reads the opponent's range at the
    # leaf, and rollouts_guessing(pubs, params, leaf, i0, i1, style0, style1, seeds, guesses,
    # out): the rollouts hook with guesses[q, :], private states of that style's opponent
    # drawn from its range at the leaf (-1: none; spycfr.search.continuation); None: none
    range_reader: str | None = None
    rollouts_guessing: Callable | None = None
    # style_rows(pub, params, style, states, out): an @njit function writing out[x, e], the
    # probability that the mover at decision ``pub`` holding private state states[x] takes
    # entry e of its row (the public protocol's private_actions order) when it plays the
    # heuristic style ``style`` (a number of heuristic_styles); what spycfr.search.styles reads to
    # weigh whether the opponent plays one of the opposing continuations. None: the game
    # offers none (no detection)
    style_rows: Callable | None = None
    # move_kinds(pub, params, out) -> n: an @njit function writing out[o] (int32, room for
    # the protocol's max_actions), the kind of public label o at decision ``pub`` (the
    # protocol's legal_actions order), for its n labels: moves of one kind that a player of
    # none of the styles would make alike (spycfr.search.styles, ``by`` "kind": "none of
    # them" chooses a kind, then any of its moves). None: no kinds (no detection by kind)
    move_kinds: Callable | None = None
    # guess_features(params) -> (private states, F) ints: each private state's label under
    # each of F features (-1: none); the opposing decision's guesses grouped by feature
    # (``guess_by`` "feature" of spycfr.search.continuation: one guess per label of a
    # feature among the rows guessed at a leaf, the range reader given those rows); None:
    # only a guess per row
    guess_features: Callable | None = None
    # opening_classes(variant) -> (class of each private state, names of the classes): the
    # openings (the private states after both seats' first hidden decisions) that the rules
    # cannot tell apart share a class, which spycfr.search.openings values and plays as one
    # (its members uniformly); None: every private state its own class.
    opening_classes: Callable[[Any], tuple[Any, list[str]]] | None = None
    # private_names(variant, pub, seat) -> each private state of ``seat`` at public state
    # ``pub`` of the search agent's model in words (what its posterior over the opponent's
    # private state shows); None: numbers.
    private_names: Callable[[Any, Any, int], list[str]] | None = None
    # Presets whose default `spycfr solve` makes a search agent (spycfr.search.agent)
    # instead of a stored strategy: those too big to solve whole.
    agent_presets: tuple[str, ...] = ()
    # The leaf values a search agent of this game uses unless told (spycfr.search.leafvalues).
    agent_value_function: str = "scored-now"
    # The subgames' depth in decision levels a search agent of this game uses unless told.
    agent_depth: int = 1
    # The first plan's CFR+ iterations a search agent of this game uses unless told (0: the
    # re-solves' iterations).
    agent_plan_iterations: int = 0
    # The depth rule's budget in node-states a search agent of this game uses unless told
    # (spycfr.search.agent.AgentConfig.subgame_budget; 0: off): a re-solve's subgame past it
    # is cut a decision level shallower.
    agent_subgame_budget: int = 0
    # needed_moves(params, state, seat, actions) -> bool per action: the moves a search
    # agent restricted to what its hand needs (AgentConfig.needs_only, an option) may make
    # at its own decision at rules state ``state`` among the legal ``actions``; None: all.
    needed_moves: Callable | None = None
    # what needed_moves keeps, in a player's words (`spycfr query` and a review say it of
    # the moves it cuts, shown without a value, and an agent's words where it cuts them);
    # None: 'the game's rule of needed moves' (needed_moves_said)
    needed_moves_words: str | None = None
    # value_features(variant) -> f(pubs (L, P)) -> (L, F) floats: what a learned value
    # function (spycfr.search.learned) reads of a public state; None: the state's integers.
    value_features: Callable[[Any], Callable] | None = None

    def needed_moves_said(self) -> str:
        """What needed_moves keeps, in words: needed_moves_words, or where the game gives
        none 'the game's rule of needed moves'."""
        return self.needed_moves_words or "the game's rule of needed moves"

    def describe_variant(self, variant: dict) -> str:
        return self.words(variant) if self.words else (
            ", ".join(f"{k} = {v}" for k, v in variant.items()) or "no parameters")
