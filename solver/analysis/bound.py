"""The lower bound on a strategy's exploitability measured by play, in words: the one way the
terminal (`spycfr query`, `play`, `openings`, `measure`), the reviews, the workbench and the
report say it, and the one rule that picks it (:func:`lower_bound`), which `spycfr measure`
records.

Every measured opponent's mean payoff against the run (a local best response's, or a
head-to-head player's, playing half its games in each seat) is at most the exploitability,
but a mean is not a bound anyone has shown: in 11 games a local best response won +0.500 a
game on Agent Avenue standard with a 95% interval of +0.062 to +0.938, so what the games show
at 95% is "at least 0.062", and where the interval's low end is 0 or below, nothing above 0.
Of the opponents, the bound is the one whose interval's low end is highest (ties: the best
mean); the words give the opponent, its mean, the interval and the number of games, then what
is shown. run.json's ``measured.exploitability_lower_bound`` records it
(:meth:`LowerBound.record`): ``value`` what is shown (the low end, 0 where it is 0 or below),
``opponent``, ``mean``, ``low95``, ``high95`` and ``games``; `query --json` and `openings
--json` give the same with the ``words``. A run.json measured by earlier code (every one
committed before) records the best mean as ``value`` (with ``by`` and its ``ci95`` clipped at
0); the bound is read afresh from the opponents' games in the block either way.
Game-agnostic: it reads only the measured block."""

from __future__ import annotations

from dataclasses import dataclass

from spycfr.analysis.markdown import num

LBR = "local best response"  # the name of the LBR opponent in the lower bound's ``by``


@dataclass(frozen=True)
class LowerBound:
    """What a measured opponent ``by`` won against the run, per game: ``mean`` and its 95%
    interval (``low``, ``high``; the opponent's payoff within the payoff range, not clipped
    at 0), in ``games`` games (None where the measurement does not record how many)."""

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

    def record(self) -> dict:
        """The bound as run.json and the JSON outputs give it: ``value`` what the games show
        at 95% (:attr:`shown`, as the words), the ``opponent``, its ``mean`` payoff, its 95%
        interval (``low95``, ``high95``) and its ``games`` (None: not recorded), the
        ``method``."""
        return {"value": self.shown, "opponent": self.by, "mean": self.mean, "low95": self.low,
                "high95": self.high, "games": self.games, "method": METHOD}


METHOD = (
    "the measured opponent (of uniform, the heuristic players and, when measured, a local best "
    "response, each playing both seats against the run: head to head half its games as each "
    "seat, a local best response's mean the average of its two seats' means) whose 95% "
    "interval's low end is highest (ties: the best mean): every such opponent's mean payoff is "
    "at most the exploitability, (BR_P1 + BR_P2) / 2, so the low end of its interval (0 where "
    "it is 0 or below) is a statistical lower bound. Not a best response: the exploitability "
    "itself may be larger")


def opponents_bounds(measured: dict) -> list[LowerBound]:
    """What each measured opponent in ``measured`` won against the run, from its own games:
    the local best response, then each head-to-head match (the run's payoff negated)."""
    found = []
    lbr = measured.get("local_best_response") or {}
    if "value" in lbr:
        low, high = lbr["ci95"]
        found.append(LowerBound(LBR, float(lbr["value"]), float(low), float(high),
                                lbr.get("games")))
    for match in measured.get("head_to_head") or []:
        low, high = match["payoff"]["ci95"]
        found.append(LowerBound(str(match["opponent"]), -float(match["payoff"]["mean"]),
                                -float(high), -float(low), measured.get("games")))
    return found


def strongest(found: list[LowerBound]) -> LowerBound | None:
    """The bound of the opponents ``found``: the highest low end shown at 95%, ties by the
    best mean (the first listed of equals); None where there are none."""
    return max(found, key=lambda b: (b.shown, b.mean), default=None)


def _recorded(bound: dict) -> LowerBound:
    """A recorded bound as it stands, either format (see the module notes): an older
    run.json's ``ci95`` was the best mean's interval clipped at 0."""
    by = str(bound.get("opponent", bound.get("by")))
    if "mean" in bound:
        return LowerBound(by, float(bound["mean"]), float(bound["low95"]),
                          float(bound["high95"]), bound.get("games"))
    low, high = bound.get("ci95") or (bound["value"], bound["value"])
    return LowerBound(by, float(bound["value"]), float(low), float(high), None)


def lower_bound(measured: dict | None) -> LowerBound | None:
    """The lower bound ``measured`` (a run.json ``measured`` block) shows at 95%: of the
    measured opponents (the local best response, each head-to-head match, the run's payoff
    negated), read from their own games (not clipped at 0), the one whose interval's low
    end is highest, ties by the best mean (:func:`strongest`). The recorded bound's own
    figures join them where its opponent's games are not in the block (an older run.json).
    None where nothing was measured (no bound, or one by nobody)."""
    measured = measured or {}
    bound = measured.get("exploitability_lower_bound")
    if not bound or bound.get("opponent", bound.get("by")) in (None, "nobody"):
        return None
    found = opponents_bounds(measured)
    recorded = _recorded(bound)
    if all(b.by != recorded.by for b in found):
        found.append(recorded)
    return strongest(found)


def lower_bound_json(measured: dict | None) -> dict | None:
    """The measured lower bound as the JSON outputs give it: :meth:`LowerBound.record` (the
    words' opponent and figures, whichever format run.json recorded) with its ``words``;
    None where nothing was measured."""
    bound = lower_bound(measured)
    return None if bound is None else {**bound.record(), "words": bound.words()}


def measured_json(measured: dict | None) -> dict | None:
    """A copy of a run.json ``measured`` block for the JSON outputs (``query --json``) with
    its bound as :func:`lower_bound_json` gives it, whichever format run.json recorded;
    None where nothing was measured."""
    if measured is None:
        return None
    return {**measured, "exploitability_lower_bound": lower_bound_json(measured)}


def games_agent_words(measured: dict | None, run_code: dict | None,
                      brief: bool = False) -> str | None:
    """Which agent a local best response's games were played against, where it is not known
    to be the run's: the games of a search agent's LBR record the code that played them
    (``local_best_response.code``, each code with its games, from the games file; none in a
    result measured before games recorded it), and the run records the code that made it
    (run.json ``code``; :func:`spycfr.provenance.same_code`). None where every game was
    played by the run's code, or where no games file was kept (a stored strategy's LBR,
    whose games depend on its tables alone). The report says it beside the bound where the
    bound is LBR's (:func:`lbr_games_note`); ``brief``: without naming the codes, for a
    header (:func:`bound_words`)."""
    from spycfr.provenance import agent_words, code_words, games_by_words, same_code

    lbr = (measured or {}).get("local_best_response") or {}
    if "games_file" not in lbr:
        return None
    codes = lbr.get("code") or [{"version": None, "commit": None, "games": lbr["games"]}]
    others = [c for c in codes if not same_code(c, run_code)]
    if not others:
        return None
    n, total = sum(c["games"] for c in others), sum(c["games"] for c in codes)
    games = "its games were" if n == total else f"{n:,} of its {total:,} games were"
    if brief:  # what it means and what to do, without the codes
        return (f"{games} played by other code than the code that made this run's agent, or "
                "by code not recorded, so they may not measure this agent (to measure it: "
                "move the run's lbr-games.jsonl aside, then `spycfr measure RUN_DIR "
                "--lbr-games N`)")
    who = agent_words(others[0]) if len(others) == 1 else (
        f"the agents of other code ({games_by_words(others)})")
    run = (f"not this run's ({code_words(run_code)})" if run_code
           else "and run.json does not record the code that made this run's agent")
    return f"{games} played against {who}, {run}"


def lbr_games_note(measured: dict | None, run_code: dict | None, bound: LowerBound | None,
                   brief: bool = False) -> str | None:
    """What is said beside ``bound`` (:func:`lower_bound` of ``measured``) where it is the
    local best response's and its games were not all played by the run's agent
    (:func:`games_agent_words`); None otherwise (another opponent's bound, no bound, every
    game the run's)."""
    if bound is None or bound.by != LBR:
        return None
    return games_agent_words(measured, run_code, brief)


def bound_words(measured: dict | None, run_code: dict | None,
                brief: bool = False) -> str | None:
    """The measured lower bound in words with, where its games were another agent's, which
    (:func:`lbr_games_note`): the one sentence of the workbench, the report's readers and
    `spycfr query`; ``brief``: the note without the codes (a header line). None where
    nothing was measured."""
    bound = lower_bound(measured)
    if bound is None:
        return None
    note = lbr_games_note(measured, run_code, bound, brief)
    return bound.words() + ("" if note is None else f"; {note}")
