"""The lower bound on a strategy's exploitability measured by play, in words: the one way the
terminal (`spycfr query`, `play`, `openings`, `measure`), the reviews, the workbench and the
report say it.

`spycfr measure` records (run.json ``measured.exploitability_lower_bound``) the best mean
payoff any measured opponent won against the run: a local best response or a head-to-head
player. That MEAN is not a bound anyone has shown: in 11 games a local best response won
+0.500 a game on Agent Avenue standard with a 95% interval of +0.062 to +0.938, so what the
games show at 95% is "at least 0.062", and where the interval's low end is 0 or below,
nothing above 0. The words give the opponent, its mean, the interval and the number of games,
then what is shown. Game-agnostic: it reads only the measured block."""

from __future__ import annotations

from dataclasses import dataclass

from spycfr.analysis.markdown import num

LBR = "local best response"  # the name of the LBR opponent in the lower bound's ``by``


@dataclass(frozen=True)
class LowerBound:
    """What the measured opponent that won most against the run won, per game: ``mean`` and
    its 95% interval (``low``, ``high``; the opponent's payoff within the payoff range, not
    clipped at 0 as the recorded bound's is), in ``games`` games (None where the
    measurement does not record how many)."""

    by: str
    mean: float
    low: float
    high: float
    games: int | None

    @property
    def shown(self) -> float:
        """The exploitability the games show at 95%: the interval's low end, 0 where it is
        0 or below (an exploitability is never negative)."""
        return max(0.0, self.low)

    def words(self) -> str:
        """e.g. 'a local best response won +0.500 a game [95%: +0.062, +0.938] in 11
        games, so at least 0.062 at 95%'."""
        who = "a local best response" if self.by == LBR else f"{self.by} (head to head)"
        games = "" if self.games is None else f" in {self.games:,} game" + (
            "" if self.games == 1 else "s")
        won = (f"{who} won {num(self.mean, '{:+.3f}')} a game [95%: {num(self.low, '{:+.3f}')}"
               f", {num(self.high, '{:+.3f}')}]{games}")
        if self.low <= 0:
            return f"{won}, which shows no exploitability above 0 at 95%"
        return f"{won}, so at least {self.shown:.3f} at 95%"


def lower_bound(measured: dict | None) -> LowerBound | None:
    """The lower bound ``measured`` (a run.json ``measured`` block) shows at 95%: of the
    measured opponents (the local best response, each head-to-head match, the run's payoff
    negated) the one whose interval's low end is highest, read from its own games (not
    clipped at 0); where none shows anything above 0, the recorded bound's opponent (the best
    mean). The recorded bound's own figures where its opponent's games are not in the block
    (an older run.json). None where nothing was measured (no bound, or one by nobody)."""
    measured = measured or {}
    bound = measured.get("exploitability_lower_bound")
    if not bound or bound.get("by") in (None, "nobody"):
        return None
    by = str(bound["by"])
    low, high = bound.get("ci95") or (bound["value"], bound["value"])
    found = [LowerBound(by, float(bound["value"]), float(low), float(high), None)]
    lbr = measured.get("local_best_response") or {}
    if "value" in lbr:
        low, high = lbr["ci95"]
        found.append(LowerBound(LBR, float(lbr["value"]), float(low), float(high),
                                lbr.get("games")))
    for match in measured.get("head_to_head") or []:
        low, high = match["payoff"]["ci95"]
        found.append(LowerBound(str(match["opponent"]), -float(match["payoff"]["mean"]),
                                -float(high), -float(low), measured.get("games")))
    # an opponent's own games over the recorded bound's copy of them; then what it shows
    mine = [b for b in found[1:] if b.by == by] or found[:1]
    best = max(found[1:], key=lambda b: b.shown, default=mine[0])
    return best if best.shown > mine[0].shown else mine[0]


def lower_bound_words(measured: dict | None) -> str | None:
    """The measured lower bound in words (:meth:`LowerBound.words`), None where nothing
    was measured."""
    bound = lower_bound(measured)
    return None if bound is None else bound.words()
