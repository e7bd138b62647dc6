"""The measured lower bound on an exploitability in words (spycfr.analysis.bound): what the
games show at 95%, whoever the opponent was."""

from __future__ import annotations

from spycfr.analysis.bound import LBR, lower_bound, lower_bound_words


def _bound(by: str, value: float, ci95: list[float]) -> dict:
    return {"value": value, "by": by, "ci95": ci95, "method": "m"}


def test_a_head_to_head_bound_reads_the_match_it_came_from():
    """The run lost -0.2 a game to uniform [-0.3, -0.1] in 200 games each: uniform won +0.2."""
    measured = {"games": 200, "head_to_head": [
        {"opponent": "heuristic", "payoff": {"mean": 0.4, "ci95": [0.3, 0.5]}},
        {"opponent": "uniform", "payoff": {"mean": -0.2, "ci95": [-0.3, -0.1]}}],
        "local_best_response": None,
        "exploitability_lower_bound": _bound("uniform", 0.2, [0.1, 0.3])}
    assert lower_bound_words(measured) == (
        "uniform (head to head) won +0.200 a game [95%: +0.100, +0.300] in 200 games, so at "
        "least 0.100 at 95%")


def test_an_interval_reaching_zero_shows_nothing_above_zero():
    measured = {"games": 0, "head_to_head": [],
                "local_best_response": {"value": 0.1, "ci95": [-0.2, 0.4], "games": 1},
                "exploitability_lower_bound": _bound(LBR, 0.1, [0.0, 0.4])}
    bound = lower_bound(measured)
    assert bound is not None and bound.shown == 0.0
    assert lower_bound_words(measured) == (
        "a local best response won +0.100 a game [95%: -0.200, +0.400] in 1 game, which shows "
        "no exploitability above 0 at 95%")


def test_a_bound_without_its_source_reads_the_bound_and_nothing_is_none():
    """A bound whose opponent's games are not in the block (an older run.json): its own
    mean and interval, no game count; no bound, or a bound by nobody: None."""
    assert lower_bound_words({"exploitability_lower_bound": _bound("LBR", 0.3, [0.1, 0.5])}) == (
        "LBR (head to head) won +0.300 a game [95%: +0.100, +0.500], so at least 0.100 at 95%")
    assert lower_bound(None) is None and lower_bound({}) is None
    assert lower_bound({"exploitability_lower_bound": _bound("nobody", 0.0, [0.0, 0.0])}) is None


def test_the_opponent_shown_is_the_one_whose_interval_shows_most():
    """A head-to-head loss of -0.30 [-0.35, -0.25] in 2,000 games shows more at 95% than a
    local best response's +0.50 [+0.06, +0.94] in 11 games, although the recorded bound
    (the best mean) is the local best response's: the words name the match."""
    measured = {"games": 2000, "head_to_head": [
        {"opponent": "heuristic", "payoff": {"mean": -0.3, "ci95": [-0.35, -0.25]}}],
        "local_best_response": {"value": 0.5, "ci95": [0.06, 0.94], "games": 11},
        "exploitability_lower_bound": _bound(LBR, 0.5, [0.06, 0.94])}
    bound = lower_bound(measured)
    assert bound is not None and bound.by == "heuristic" and bound.shown == 0.25
    assert lower_bound_words(measured).endswith("in 2,000 games, so at least 0.250 at 95%")
    # where nothing shows more than the recorded opponent, the recorded opponent is read
    measured["head_to_head"][0]["payoff"] = {"mean": -0.3, "ci95": [-0.9, 0.3]}
    assert lower_bound(measured).by == LBR and lower_bound(measured).games == 11
