"""Agent Double Double Agent variants: every datum the rulebook leaves unknown is a parameter
with the spec's default (an assumption), validated here; plus the named presets."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property

import numpy as np

from spycfr.errors import VariantError
from spycfr.games.agent_double_double_agent.layout import (
    K_P,
    KIND_LABELS,
    KIND_VALUE,
    MAX_AGENTS,
    NKINDS,
    ADDAParams,
)

GAME = "agent-double-double-agent"
FACEUP = ("stuck", "always")
PAYOFFS = ("win", "margin")
RULEBOOK_TOKENS = "1,2,2,3,4,5"
# The spec's per-player deck (an assumption: the rulebook does not list the 22 cards).
STANDARD_DECK = "1*2,2*2,3*2,4*2,5*2,6*2,7,P,0/7=0*2,0/7=7*2,?=1,?=2,?=3,?=4"
MAX_DECK = 30
MAX_HANDS = 20_000  # possible first hands: the outcomes of one chance node

PARAMETERS: dict[str, str] = {
    "agents": "integer 2..6 (rulebook 6): agents in a row, neighbours i-1 and i+1",
    "loyalty": "one token per agent, each 0..9, e.g. 1,2,2,3,4,5 (rulebook; default 1..n for "
               "fewer agents)",
    "deck": "each player's file cards: 0..7, P (Personal Files), 0/7=0, 0/7=7, ?=0..?=7, "
            "NAME*N for N copies; 1..30 cards (default: the spec's 22-card assumption)",
    "hand": "integer 1..8 (rulebook 5), at most the deck: hand size, refilled while the pile lasts",
    "threshold": "integer 2..8 (rulebook 4): file cards at which an agent delivers",
    "neighbour_threshold": "integer 1..threshold (rulebook 3; default threshold-1): the "
                           "threshold of an agent once a neighbour has delivered",
    "track": "even integer 2..8 (assumed 4): spaces of an influence track",
    "start": "the side each counter starts on, one digit 1 (P1) or 2 (P2) per agent "
             "(assumed 121212: alternating, from P1)",
    "counters": "integer 0..6 (rulebook 3): each player's first turns in which they "
                "activate an influence counter",
    "plus_one": "agents carrying a `+1 file` counter (threshold +1), e.g. 2,5, or none "
                "(default none)",
    "faceup": "stuck (default) or always: when a ? card may be played face up (no effect, "
              "it leaves the game): only when no card can go face down, or any time",
    "payoff": "win (+1/0/-1, ties on fewer score-pile cards; default) or margin (score "
              "difference)",
}

# Sized by measuring the enumerated trees (spycfr info agent-double-double-agent --preset P):
# tiny 5,743 nodes (2 agents: the first delivery ends the game; an LP solves it), small
# 310,387 (3 agents, chain reactions, one card in hand), medium 914,251 (two cards in hand);
# CFR+ reaches exploitability 1e-4 on each in seconds to a minute. standard is the spec's
# game (about 1e60 nodes), for Monte-Carlo CFR.
PRESETS: dict[str, dict] = {
    "tiny": {"agents": 2, "loyalty": "1,2", "deck": "1,0/7=0,0/7=7", "hand": 1,
             "threshold": 2, "neighbour_threshold": 1, "counters": 1},
    "small": {"agents": 3, "loyalty": "1,1,2", "deck": "1,P,?=2", "hand": 1,
              "threshold": 2, "neighbour_threshold": 1, "counters": 1},
    "medium": {"agents": 3, "loyalty": "1,1,2", "deck": "1,P,?=2", "hand": 2,
               "threshold": 2, "neighbour_threshold": 1, "counters": 1},
    "standard": {},
}


def _label_index() -> dict[str, int]:
    return {label: k for k, label in enumerate(KIND_LABELS)}


CARD_INDEX = _label_index()


def parse_cards(name: str, text: str, allowed: str) -> list[int]:
    """Card kinds of a comma-separated list with optional ``*N`` repeats; VariantError else."""
    kinds: list[int] = []
    for item in text.replace(" ", "").split(","):
        label, _, times = item.partition("*")
        if label.upper() == "P":
            label = "P"
        if label not in CARD_INDEX or (times and not times.isdigit()):
            raise VariantError(f"{name}={text!r} is not allowed: {item!r} is not a card "
                               f"({allowed})")
        kinds += [CARD_INDEX[label]] * (int(times) if times else 1)
    return kinds


def format_cards(counts) -> str:
    """The canonical text of a card multiset (kind order, ``*N`` for repeats)."""
    return ",".join(KIND_LABELS[k] + (f"*{c}" if c > 1 else "")
                    for k, c in enumerate(counts) if c > 0)


DECK_CARDS = "cards 0..7, P, 0/7=0, 0/7=7, ?=0..?=7, each optionally *N"


@dataclass(frozen=True)
class Variant:
    """One variant; construction validates every parameter (None: the default for agents)."""

    agents: int = 6
    loyalty: str | None = None
    deck: str = STANDARD_DECK
    hand: int = 5
    threshold: int = 4
    neighbour_threshold: int | None = None
    track: int = 4
    start: str | None = None
    counters: int = 3
    plus_one: str = "none"
    faceup: str = "stuck"
    payoff: str = "win"
    _counts: tuple = field(default=(), init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        _check_int("agents", self.agents, 2, MAX_AGENTS)
        n = self.agents
        if self.loyalty is None:
            object.__setattr__(self, "loyalty", RULEBOOK_TOKENS if n == 6 else
                               ",".join(str(i) for i in range(1, n + 1)))
        if self.start is None:
            object.__setattr__(self, "start", "121212"[:n])
        object.__setattr__(self, "loyalty", _canonical_tokens(self.loyalty, n))
        counts = Counter(parse_cards("deck", str(self.deck), DECK_CARDS))
        vec = tuple(counts.get(k, 0) for k in range(NKINDS))
        size = sum(vec)
        if not 1 <= size <= MAX_DECK:
            raise VariantError(f"deck={self.deck!r} is not allowed: 1..{MAX_DECK} cards "
                               f"(got {size})")
        if vec[0] and vec[K_P]:
            raise VariantError(f"deck={self.deck!r} is not allowed: a simple 0 and Personal "
                               "Files (P) would share the back `0`; use one of them")
        object.__setattr__(self, "deck", format_cards(vec))
        object.__setattr__(self, "_counts", vec)
        _check_int("hand", self.hand, 1, 8)
        if self.hand > size:
            raise VariantError(f"hand={self.hand} is not allowed: at most the deck's {size} "
                               "cards")
        _check_int("threshold", self.threshold, 2, 8)
        if self.neighbour_threshold is None:
            object.__setattr__(self, "neighbour_threshold", max(1, self.threshold - 1))
        nt = self.neighbour_threshold
        if nt is None or not _is_int(nt) or not 1 <= nt <= self.threshold:
            raise VariantError(f"neighbour_threshold={self.neighbour_threshold!r} is not allowed "
                               f"with threshold={self.threshold}: an integer 1..{self.threshold}")
        _check_int("track", self.track, 2, 8)
        if self.track % 2:
            raise VariantError(f"track={self.track} is not allowed: an even integer 2..8")
        start = str(self.start)
        if len(start) != n or set(start) - {"1", "2"}:
            raise VariantError(f"start={self.start!r} is not allowed: {n} digits 1 or 2, one "
                               f"per agent (e.g. {'121212'[:n]})")
        object.__setattr__(self, "start", start)
        _check_int("counters", self.counters, 0, 6)
        object.__setattr__(self, "plus_one", _canonical_agents(self.plus_one, n))
        if self.faceup not in FACEUP:
            raise VariantError(f"faceup={self.faceup!r} is not allowed: one of "
                               f"{', '.join(FACEUP)}")
        if self.payoff not in PAYOFFS:
            raise VariantError(f"payoff={self.payoff!r} is not allowed: one of "
                               f"{', '.join(PAYOFFS)}")
        hands = _count_hands(vec, self.hand)
        if hands > MAX_HANDS:
            raise VariantError(f"hand={self.hand} is not allowed with deck={self.deck!r}: "
                               f"{hands:,} possible first hands (at most {MAX_HANDS:,}); "
                               "choose a smaller hand or fewer kinds of cards")

    # --- derived -----------------------------------------------------------------------

    @property
    def tokens(self) -> list[int]:
        assert self.loyalty is not None  # filled in by __post_init__
        return [int(t) for t in self.loyalty.split(",")]

    @property
    def deck_counts(self) -> tuple[int, ...]:
        return self._counts

    @property
    def deck_size(self) -> int:
        return sum(self._counts)

    @property
    def deck_value(self) -> int:
        """Total value of one player's deck."""
        return sum(c * int(KIND_VALUE[k]) for k, c in enumerate(self._counts))

    @property
    def plus_agents(self) -> list[int]:
        """0-based agents with a `+1 file` counter."""
        return [] if self.plus_one == "none" else [int(a) - 1 for a in self.plus_one.split(",")]

    def start_space(self, a: int) -> int:
        """The starting space of agent a's counter: the inner space of its side."""
        assert self.start is not None  # filled in by __post_init__
        return self.track // 2 - 1 if self.start[a] == "1" else self.track // 2

    @cached_property
    def deal_sets(self) -> tuple[np.ndarray, np.ndarray]:
        """(int16[n, NKINDS] possible first hands, float64[n] probabilities)."""
        vec = self._counts
        rows: list[tuple[int, ...]] = []

        def walk(k: int, left: int, acc: list[int]) -> None:
            if k == NKINDS:
                if left == 0:
                    rows.append(tuple(acc))
                return
            for m in range(min(vec[k], left) + 1):
                walk(k + 1, left - m, acc + [m])

        walk(0, self.hand, [])
        total = math.comb(self.deck_size, self.hand)
        probs = [float(Fraction(math.prod(math.comb(c, m) for c, m in zip(vec, r, strict=True)),
                                total)) for r in rows]
        return np.array(rows, dtype=np.int16), np.array(probs, dtype=np.float64)

    @cached_property
    def deal_index(self) -> dict[tuple[int, ...], int]:
        """Possible first hand (counts per kind) -> its outcome index."""
        return {tuple(int(x) for x in r): i for i, r in enumerate(self.deal_sets[0])}

    @cached_property
    def n_perms(self) -> int:
        return math.factorial(self.agents) // math.prod(
            math.factorial(c) for c in Counter(self.tokens).values())

    def as_dict(self) -> dict:
        return {name: getattr(self, name) for name in PARAMETERS}

    @cached_property
    def params(self) -> ADDAParams:
        """The params record of the numba rules (see layout.py)."""
        i64 = np.int64
        start = np.zeros(MAX_AGENTS, dtype=np.int64)
        plus = np.zeros(MAX_AGENTS, dtype=np.int64)
        for a in range(self.agents):
            start[a] = self.start_space(a)
        for a in self.plus_agents:
            plus[a] = 1
        sets, probs = self.deal_sets
        neighbour = self.neighbour_threshold
        assert neighbour is not None  # filled in by __post_init__
        return ADDAParams(
            i64(self.agents), i64(self.hand), i64(self.threshold), i64(neighbour),
            i64(self.track), i64(self.counters), i64(FACEUP.index(self.faceup)),
            i64(PAYOFFS.index(self.payoff)), i64(self.deck_size), i64(self.n_perms),
            np.array(sorted(self.tokens), dtype=np.int64), start, plus,
            np.array(self._counts, dtype=np.int64), sets, probs)

    def to_params(self) -> ADDAParams:
        return self.params

    def describe(self) -> str:
        # imported here: a top-level import would make spycfr.words a numba kernel source
        from spycfr.words import params_text

        return params_text(self.as_dict())


def _is_int(value) -> bool:
    return isinstance(value, int | np.integer) and not isinstance(value, bool)


def _check_int(name: str, value, lo: int, hi: int) -> None:
    if not _is_int(value) or not lo <= value <= hi:
        raise VariantError(f"{name}={value!r} is not allowed: an integer {lo}..{hi}")


def _canonical_tokens(text, n: int) -> str:
    parts = str(text).replace("-", ",").replace(" ", "").split(",")
    if not all(p.isdigit() and len(p) == 1 for p in parts):
        raise VariantError(f"loyalty={text!r} is not allowed: {n} tokens 0..9 separated by "
                           "commas, e.g. 1,2,2,3,4,5")
    if len(parts) != n:
        raise VariantError(f"loyalty={text!r} is not allowed: {n} tokens, one per agent "
                           f"(agents={n}), got {len(parts)}")
    return ",".join(parts)


def _canonical_agents(text, n: int) -> str:
    raw = str(text).strip().lower()
    if raw in ("", "none", "no"):
        return "none"
    parts = raw.replace(" ", "").split(",")
    if not all(p.isdigit() and 1 <= int(p) <= n for p in parts) or len(set(parts)) != len(parts):
        raise VariantError(f"plus_one={text!r} is not allowed: distinct agents 1..{n} "
                           "separated by commas, or none")
    return ",".join(str(a) for a in sorted(int(p) for p in parts))


def _count_hands(vec, hand: int) -> int:
    """Number of distinct multisets of ``hand`` cards from the deck ``vec``."""
    ways = [1] + [0] * hand
    for c in vec:
        new = [0] * (hand + 1)
        for r in range(hand + 1):
            if ways[r]:
                for m in range(min(c, hand - r) + 1):
                    new[r + m] += ways[r]
        ways = new
    return ways[hand]


INT_PARAMS = ("agents", "hand", "threshold", "neighbour_threshold", "track", "counters")


def _coerce(name: str, value):
    """Accept CLI strings: integers for counts, lower-case words for choices."""
    if name in INT_PARAMS and isinstance(value, str):
        try:
            return int(value.strip())
        except ValueError:
            raise VariantError(f"{name}={value!r} is not allowed: an integer") from None
    if name in ("faceup", "payoff") and isinstance(value, str):
        return value.strip().lower()
    return value


def make_variant(preset: str | None = None, params: dict | None = None) -> Variant:
    """The variant of ``preset`` (or the spec's defaults) with ``params`` overriding it."""
    values: dict = {}
    if preset is not None:
        if preset not in PRESETS:
            raise VariantError(f"unknown preset {preset!r} for {GAME}; presets: "
                               f"{', '.join(PRESETS)}")
        values.update(PRESETS[preset])
    for name, value in (params or {}).items():
        if name not in PARAMETERS:
            raise VariantError(f"unknown parameter {name!r} for {GAME}; parameters: "
                               f"{', '.join(PARAMETERS)}")
        values[name] = _coerce(name, value)
    return Variant(**values)


def assumptions(v: dict) -> list[str]:
    """The data of a variant that are assumptions (the rulebook does not give them)."""
    out = []
    if v["deck"] == STANDARD_DECK_CANONICAL:
        out.append("the 22-card deck (the spec's guess: 1-7 files, four 0/7, Personal Files, "
                   "four plain ? files worth 1-4)")
    else:
        out.append(f"the deck {v['deck']} (a reduced deck)")
    out.append(f"the board: {v['agents']} agents in a row, neighbours i-1 and i+1")
    out.append(f"the counters' starting sides ({start_words(v)}, each on its inner space) on a "
               f"{v['track']}-space track")
    if any(k.startswith("?=") for k in _kinds(v["deck"])):  # without one no text matters
        out.append("no action texts: a ? card played face up has no effect ("
                   + ("only when no card can go face down)" if v["faceup"] == "stuck"
                      else "allowed any time)"))
    return out


def _kinds(deck: str) -> set[str]:
    """The kinds of card in ``deck`` (the --deck text: labels, each with an optional *n)."""
    return {part.partition("*")[0] for part in deck.split(",")}


def card_words(deck: str) -> str:
    """What the cards of ``deck`` (the --deck text) are, one phrase per kind of card it
    holds (a player read the card ``?=2`` as the hidden mark ``?``)."""
    kinds = _kinds(deck)

    def span(labels: list[str]) -> str:
        """The labels as a run ('1..7') where their numbers follow on, else listed ('1, 3,
        7': a run would name cards the deck lacks)."""
        values = [int(k[-1]) for k in labels]
        if len(labels) > 2 and values == list(range(values[0], values[0] + len(values))):
            return f"{labels[0]}..{labels[-1]}"
        return ", ".join(labels)

    simple = [k for k in KIND_LABELS if k in kinds and k.isdigit()]
    mystery = [k for k in KIND_LABELS if k in kinds and k.startswith("?=")]
    double = [k for k in ("0/7=0", "0/7=7") if k in kinds]
    out = []
    if simple:
        out.append(f"{span(simple)} worth {'its' if len(simple) == 1 else 'their'} number")
    if "P" in kinds:
        out.append("P Personal Files (worth 0, +1 loyalty to its owner)")
    if double:
        out.append(f"{', '.join(double)} worth {' or '.join(k[-1] for k in double)} (its back "
                   "shows 0/7)")
    if mystery:
        out.append(f"{span(mystery)} worth {span([k[2:] for k in mystery])} (its back shows ?)")
    unseen = ["0/7=?"] * bool(double) + ["?=?"] * bool(mystery)  # as a view writes them
    if unseen:
        out.append(f"{', '.join(unseen)} {'each ' * (len(unseen) > 1)}a face you cannot see")
    return "; ".join(out)


def start_words(v: dict) -> str:
    """Where the counters start, by agent ('agents 1, 3 on P1's side, agent 2 on P2's'),
    where the report wrote the --start digits ('sides 121')."""
    sides = []
    for p in ("1", "2"):
        agents = [str(a + 1) for a, c in enumerate(v["start"]) if c == p]
        if agents:
            sides.append(("agent " if len(agents) == 1 else "agents ") + ", ".join(agents)
                         + f" on P{p}'s side")
    return ", ".join(sides)


def variant_words(v: dict) -> str:
    """A variant (as a dict) in plain words, for reports: its rules, its cards, what is
    assumed."""
    n = v["agents"]
    parts = [f"{n} agents in a row, loyalty tokens {v['loyalty']}",
             f"deck {v['deck']} per player, hand {v['hand']}",
             f"an agent delivers at {v['threshold']} cards ({v['neighbour_threshold']} once a "
             f"neighbour has delivered)"]
    if v["plus_one"] != "none":
        parts.append(f"`+1 file` counters on agents {v['plus_one']}")
    parts.append(f"counters start with {start_words(v)} of a {v['track']}-space track and are "
                 f"activated in each player's first " + (
                     "turn" if v["counters"] == 1 else f"{v['counters']} turns"))
    parts.append("payoff: win +1 / draw 0 / loss −1 (equal scores: fewer score-pile cards wins)"
                 if v["payoff"] == "win" else "payoff: the score difference")
    return ("; ".join(parts) + f". Cards: {card_words(v['deck'])}. Assumed (not in the "
            "rulebook): " + "; ".join(assumptions(v)) + ".")


def payoff_unit(v: dict) -> str:
    return "points"


STANDARD_DECK_CANONICAL = Variant().deck
