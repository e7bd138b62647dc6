"""The measured lower bound on an exploitability in words (spycfr.analysis.bound): what the
games show at 95%, whoever the opponent was."""

from __future__ import annotations

from spycfr.analysis.bound import (
    LBR,
    LowerBound,
    bound_words,
    games_agent_words,
    lower_bound,
    lower_bound_json,
    measured_json,
    opponents_bounds,
    strongest,
)


def _bound(by: str, value: float, ci95: list[float]) -> dict:
    return {"value": value, "by": by, "ci95": ci95, "method": "m"}


def test_a_head_to_head_bound_reads_the_match_it_came_from():
    """The run lost -0.2 a game to uniform [-0.3, -0.1] in 200 games each: uniform won +0.2."""
    measured = {"games": 200, "head_to_head": [
        {"opponent": "heuristic", "payoff": {"mean": 0.4, "ci95": [0.3, 0.5]}},
        {"opponent": "uniform", "payoff": {"mean": -0.2, "ci95": [-0.3, -0.1]}}],
        "local_best_response": None,
        "exploitability_lower_bound": _bound("uniform", 0.2, [0.1, 0.3])}
    assert bound_words(measured, None) == (
        "uniform (head to head) won +0.200 a game [95%: +0.100, +0.300] in 200 games, so at "
        "least 0.100 at 95%")


def test_an_interval_reaching_zero_shows_nothing_above_zero():
    measured = {"games": 0, "head_to_head": [],
                "local_best_response": {"value": 0.1, "ci95": [-0.2, 0.4], "games": 1},
                "exploitability_lower_bound": _bound(LBR, 0.1, [0.0, 0.4])}
    bound = lower_bound(measured)
    assert bound is not None and bound.shown == 0.0
    assert bound_words(measured, None) == (
        "a local best response won +0.100 a game [95%: -0.200, +0.400] in 1 game, which shows "
        "no exploitability above 0 at 95%")


def test_a_bound_without_its_source_reads_the_bound_and_nothing_is_none():
    """A bound whose opponent's games are not in the block (an older run.json): its own
    mean and interval, no game count; no bound, or a bound by nobody: None."""
    old = {"exploitability_lower_bound": _bound("LBR", 0.3, [0.1, 0.5])}
    assert bound_words(old, None) == (
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
    assert bound_words(measured, None).endswith("in 2,000 games, so at least 0.250 at 95%")
    # where nothing shows more than the recorded opponent, the recorded opponent is read
    measured["head_to_head"][0]["payoff"] = {"mean": -0.3, "ci95": [-0.9, 0.3]}
    assert lower_bound(measured).by == LBR and lower_bound(measured).games == 11


def test_the_recorded_bound_and_the_json_say_the_words_figures():
    """run.json's bound (measure) and the JSON outputs give what the words say: ``value`` the
    95% low end shown (0 where it is 0 or below), with the opponent, its mean, its interval
    and its games. Before, ``value`` was the best mean (here the local best response's
    0.5) while the words said the match's 0.25."""
    measured = {"games": 2000, "head_to_head": [
        {"opponent": "heuristic", "payoff": {"mean": -0.3, "ci95": [-0.35, -0.25]}}],
        "local_best_response": {"value": 0.5, "ci95": [0.06, 0.94], "games": 11}}
    bound = strongest(opponents_bounds(measured))
    assert bound is not None
    record = bound.record()
    assert record["value"] == 0.25 and record["opponent"] == "heuristic"
    assert record["mean"] == 0.3 and record["games"] == 2000
    assert (record["low95"], record["high95"]) == (0.25, 0.35)
    measured["exploitability_lower_bound"] = record
    # the new record reads back as itself, and the JSON adds the words
    assert lower_bound(measured) == bound
    assert lower_bound_json(measured) == {**record, "words": bound.words()}
    assert bound_words(measured, None).endswith("in 2,000 games, so at least 0.250 at 95%")
    out = measured_json(measured)
    assert out is not None and out["exploitability_lower_bound"]["words"] == bound.words()
    assert measured_json(None) is None
    # the recorded figures alone (no games in the block) read as they stand
    assert lower_bound({"exploitability_lower_bound": record}) == bound


def test_an_older_record_gives_the_new_json():
    """A run.json measured before (``value`` the best mean, ``by``, a clipped ``ci95``):
    its JSON bound is the words' (the match's 0.25 low end), not its recorded mean."""
    measured = {"games": 2000, "head_to_head": [
        {"opponent": "heuristic", "payoff": {"mean": -0.3, "ci95": [-0.35, -0.25]}}],
        "local_best_response": {"value": 0.5, "ci95": [0.06, 0.94], "games": 11},
        "exploitability_lower_bound": _bound(LBR, 0.5, [0.06, 0.94])}
    out = lower_bound_json(measured)
    assert out is not None
    assert (out["value"], out["opponent"], out["mean"], out["games"]) == (
        0.25, "heuristic", 0.3, 2000)
    assert lower_bound_json({"exploitability_lower_bound": _bound("nobody", 0, [0, 0])}) is None


def test_ties_go_to_the_best_mean():
    """Where no interval reaches above 0 (every opponent shows 0), the opponent is the one of
    the best mean, as the recorded bound was: the words and the record agree."""
    found = [LowerBound("uniform", -0.2, -0.3, -0.1, 100), LowerBound(LBR, 0.1, -0.2, 0.4, 8),
             LowerBound("heuristic", 0.05, -0.1, 0.2, 100)]
    assert strongest(found) == found[1] and strongest([]) is None


def test_the_report_says_which_agent_played_the_lbr_games():
    """A search agent's LBR games record the code that played them and the agent's run.json
    the code that made it: where they differ, or either is not recorded, the report's lower
    bound says which agent the games were played against (the committed Agent Avenue
    advanced run's 18 games were an earlier agent's, which its report did not say)."""
    import json
    from pathlib import Path

    from spycfr.analysis.markdown import Doc
    from spycfr.analysis.sampled_report import _measured
    from spycfr.runs.result import RunResult

    made = {"version": "0.1.0", "commit": "a" * 40, "modified": False}
    later = {"version": "0.1.0", "commit": "b" * 40, "modified": False}
    lbr = {"value": 0.5, "ci95": [0.1, 0.9], "games": 11, "games_file": "lbr-games.jsonl",
           "code": [{**made, "games": 5}, {**later, "games": 6}]}
    measured = {"local_best_response": lbr}
    assert games_agent_words(measured, made) == (
        "6 of its 11 games were played against the agent of spycfr 0.1.0 at bbbbbbb, not this "
        "run's (spycfr 0.1.0 at aaaaaaa)")
    lbr["code"] = [{**made, "games": 2}, {**later, "games": 6}, {"version": None, "games": 1}]
    assert games_agent_words(measured, made) == (
        "7 of its 9 games were played against the agents of other code (6 games by spycfr "
        "0.1.0 at bbbbbbb, 1 game by code not recorded), not this run's (spycfr 0.1.0 at "
        "aaaaaaa)")
    lbr["code"] = [{**made, "games": 11}]
    assert games_agent_words(measured, made) is None  # every game by the run's code
    assert games_agent_words(measured, None) == (
        "its games were played against the agent of spycfr 0.1.0 at aaaaaaa, and run.json "
        "does not record the code that made this run's agent")
    del lbr["code"]  # measured before the games recorded their code
    assert games_agent_words(measured, made) == (
        "its games were played against an agent whose code was not recorded, not this run's "
        "(spycfr 0.1.0 at aaaaaaa)")
    assert games_agent_words(measured, made, brief=True) == (
        "its games were played by other code than the code that made this run's agent, or "
        "by code not recorded, so they may not measure this agent (to measure it: move the "
        "run's lbr-games.jsonl aside, then `spycfr measure RUN_DIR --lbr-games N`)")
    lbr["value"], lbr["ci95"] = 0.5, [0.1, 0.9]
    measured["exploitability_lower_bound"] = {"value": 0.1, "opponent": LBR}
    assert bound_words(measured, made) == (
        lower_bound(measured).words() + "; " + games_agent_words(measured, made))
    measured["head_to_head"] = [{"opponent": "uniform", "payoff": {"mean": -0.9,
                                                                   "ci95": [-0.95, -0.85]}}]
    assert bound_words(measured, made) == lower_bound(measured).words()  # uniform's: no note
    del measured["head_to_head"]
    del lbr["games_file"]  # a stored strategy's LBR: no games file, no agent to name
    assert games_agent_words(measured, made) is None

    data = json.loads((Path(__file__).parent.parent / "results" / "agent-avenue" / "advanced"
                       / "run.json").read_text())
    doc = Doc()
    _measured(doc, RunResult.from_json(data), False)
    text = " ".join(" ".join(doc.parts).split())
    assert ("in 18 games, which shows no exploitability above 0 at 95%; its games were played "
            "against an agent whose code was not recorded (an earlier agent than today's: the code "
            "before 74d1c67") in text
    # said once: the LBR paragraph's method leaves its code sentence to the bound line
    assert text.count("the code before 74d1c67") == 1 and "Every game played by" not in text
    assert text.count("clipped to the payoff range.") == 1
    code = data["measured"]["local_best_response"]["code"][0]
    data["code"] = code = {**code, "version": "0.1.0", "commit": "c" * 40}
    data["measured"]["local_best_response"]["code"] = [code]
    doc = Doc()
    _measured(doc, RunResult.from_json(data), False)  # the run's own code played them
    assert "played against" not in " ".join(doc.parts)
    assert "payoff range. Every game played by code not recorded (an earlier" in " ".join(
        " ".join(doc.parts).split())  # the method, as measured, says it where the bound does not


def test_the_method_says_how_the_mean_is_made_where_the_seats_games_differ():
    """The method said every opponent played 'half its games as each seat'; results/standard's
    local best response played 59 as P1 and 74 as P2, its mean the average of its two seats'
    means, as the words now say."""
    import json
    from pathlib import Path

    from spycfr.analysis.bound import METHOD

    meta = json.loads((Path(__file__).resolve().parent.parent / "results" / "standard"
                       / "run.json").read_text())
    lbr = meta["measured"]["local_best_response"]
    assert lbr["as_p1"]["games"] != lbr["as_p2"]["games"]
    assert abs(lbr["value"] - (lbr["as_p1"]["mean"] + lbr["as_p2"]["mean"]) / 2) < 1e-12
    assert "best response, each playing half its games as each seat" not in METHOD
    assert "a local best response's mean the average of its two seats' means" in METHOD
