"""Leduc poker, exactly as OpenSpiel's ``leduc_poker`` (2 players, default options).

Six cards J1 J2 Q1 Q2 K1 K2 (codes 0-5, rank = code // 2). Chance deals P1's
card, then P2's, each from the remaining cards; ante 1 each. Round 1 betting,
one public card, round 2 betting; P1 opens both rounds. Actions: 0 = fold (legal
only when facing a bet), 1 = call/check, 2 = raise (2 in round 1, 4 in round 2,
at most 2 raises per round). Showdown: a pair with the public card wins, else
the higher rank; equal ranks split. Returns are chips won or lost. The
information-state strings are OpenSpiel's, so strategies can be compared by key.
"""

from __future__ import annotations

from spycfr.engine.states import CHANCE_PLAYER, TERMINAL_PLAYER
from spycfr.games.plugin import NoParameters

FOLD, CALL, RAISE = 0, 1, 2
CARD_NAMES = ("J1", "J2", "Q1", "Q2", "K1", "K2")
_ACTION_NAMES = ("fold", "call", "raise")
_NUM_CARDS = 6
_STARTING_MONEY = 100
_INVALID_CARD = -10000  # OpenSpiel's kInvalidCard (shows up in its strings)
_OS_CHANCE = -1  # OpenSpiel's kChancePlayerId (shows up in its strings)
_MAX_RAISES = 2


class LeducState:
    """A Leduc state; fields mirror OpenSpiel's LeducState."""

    __slots__ = (
        "cur", "num_calls", "num_raises", "round", "stakes", "pot", "public",
        "deck", "dealt", "remaining", "private", "money", "ante", "folded",
        "seq1", "seq2",
    )

    def __init__(self) -> None:
        self.cur = _OS_CHANCE
        self.num_calls = 0
        self.num_raises = 0
        self.round = 1
        self.stakes = 1
        self.pot = 2
        self.public = _INVALID_CARD
        self.deck = (True,) * _NUM_CARDS  # card still in the deck
        self.dealt = 0
        self.remaining = 2
        self.private = [_INVALID_CARD, _INVALID_CARD]
        self.money: list[float] = [_STARTING_MONEY - 1, _STARTING_MONEY - 1]
        self.ante = [1, 1]
        self.folded = [False, False]
        self.seq1: tuple[int, ...] = ()
        self.seq2: tuple[int, ...] = ()

    def _copy(self) -> LeducState:
        s = LeducState.__new__(LeducState)
        for f in LeducState.__slots__:
            setattr(s, f, getattr(self, f))
        s.private = list(self.private)
        s.money = list(self.money)
        s.ante = list(self.ante)
        s.folded = list(self.folded)
        return s

    def _ready_for_next_round(self) -> bool:
        return (self.num_raises == 0 and self.num_calls == self.remaining) or (
            self.num_raises > 0 and self.num_calls == self.remaining - 1
        )

    def is_terminal(self) -> bool:
        return self.remaining == 1 or (self.round == 2 and self._ready_for_next_round())

    def current_player(self) -> int:
        if self.is_terminal():
            return TERMINAL_PLAYER
        return CHANCE_PLAYER if self.cur == _OS_CHANCE else self.cur

    def legal_actions(self) -> list[int]:
        if self.current_player() not in (0, 1):
            return []
        actions = [FOLD] if self.stakes > self.ante[self.cur] else []
        actions.append(CALL)
        if self.num_raises < _MAX_RAISES:
            actions.append(RAISE)
        return actions

    def chance_outcomes(self) -> list[tuple[int, float]]:
        left = [c for c in range(_NUM_CARDS) if self.deck[c]]
        return [(c, 1.0 / len(left)) for c in left]

    def _next_player(self) -> int:
        start = 1 if self.cur == _OS_CHANCE else self.cur  # chance: search from before P1
        for i in (1, 2):
            p = (start + i) % 2
            if not self.folded[p]:
                return p
        raise AssertionError("no player left")

    def _put(self, player: int, amount: int) -> None:
        self.pot += amount
        self.ante[player] += amount
        self.money[player] -= amount

    def _append(self, move: int) -> None:
        if self.round == 1:
            self.seq1 = self.seq1 + (move,)
        else:
            self.seq2 = self.seq2 + (move,)

    def _after_passive(self) -> None:
        if self.is_terminal():
            self._resolve()
        elif self._ready_for_next_round():
            self.round = 2
            self.num_raises = 0
            self.num_calls = 0
            self.cur = _OS_CHANCE
        else:
            self.cur = self._next_player()

    def child(self, action: int) -> LeducState:
        s = self._copy()
        if s.cur == _OS_CHANCE:
            deck = list(s.deck)
            deck[action] = False
            s.deck = tuple(deck)
            if s.dealt < 2:
                s.private[s.dealt] = action
                s.dealt += 1
                if s.dealt == 2:
                    s.cur = 0
            else:
                s.public = action
                s.cur = s._next_player()
            return s
        p = s.cur
        if action == FOLD:
            s._append(FOLD)
            s.folded[p] = True
            s.remaining -= 1
            s._after_passive()
        elif action == CALL:
            s._put(p, s.stakes - s.ante[p])
            s.num_calls += 1
            s._append(CALL)
            s._after_passive()
        elif action == RAISE:
            call_amount = s.stakes - s.ante[p]
            if call_amount > 0:
                s._put(p, call_amount)
            raise_amount = 2 if s.round == 1 else 4
            s.stakes += raise_amount
            s._put(p, raise_amount)
            s.num_raises += 1
            s.num_calls = 0
            s._append(RAISE)
            s.cur = s._next_player()
        else:
            raise ValueError(f"illegal Leduc action {action}")
        return s

    def _rank(self, player: int) -> int:
        lo, hi = sorted((self.public, self.private[player]))
        if lo % 2 == 0 and hi == lo + 1:
            return _NUM_CARDS * _NUM_CARDS + lo  # pair
        return (hi // 2) * _NUM_CARDS + lo // 2

    def _resolve(self) -> None:
        if self.remaining == 1:
            winners = [p for p in (0, 1) if not self.folded[p]]
        else:
            r0, r1 = self._rank(0), self._rank(1)
            winners = [0] if r0 > r1 else [1] if r1 > r0 else [0, 1]
        for p in winners:
            self.money[p] += self.pot / len(winners)
        self.pot = 0

    def returns(self) -> tuple[float, float]:
        if not self.is_terminal():
            return (0.0, 0.0)
        return (float(self.money[0] - _STARTING_MONEY), float(self.money[1] - _STARTING_MONEY))

    def information_state(self, player: int) -> str:
        money = " ".join(_fmt(m) for m in self.money)
        out = (
            f"[Observer: {player}][Private: {self.private[player]}][Round {self.round}]"
            f"[Player: {self.cur}][Pot: {_fmt(self.pot)}][Money: {money}]"
        )
        if self.public != _INVALID_CARD:
            out += f"[Public: {self.public}]"
        r1 = " ".join(map(str, self.seq1))
        r2 = " ".join(map(str, self.seq2))
        return out + f"[Round1: {r1}][Round2: {r2}]"

    def action_label(self, action: int) -> str:
        if self.cur == _OS_CHANCE and not self.is_terminal():
            return CARD_NAMES[action]
        return _ACTION_NAMES[action]


def _fmt(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else str(x)


class LeducGame:
    """Leduc poker (no parameters)."""

    name = "leduc"
    variant_obj = NoParameters()

    @property
    def variant(self) -> dict:
        return {}

    def new_initial_state(self) -> LeducState:
        return LeducState()
