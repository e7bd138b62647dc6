"""A review of a game against a search agent's run values each of a seat's moves as `spycfr
query --seat` does at that decision: the agent in that seat, walked along the seat's view
(its re-solves, or its first plan where that reaches the end of the game; against its model
of the opponent). The review used to value a seat's moves with the agent in the other seat
(re-solving from its own ranges and cards), which on Agent Hunter ``standard`` gave
switch:3=7>3@1 -0.125 where `query --seat P2` gave +0.91, its best move.

A seeded game (the player's moves drawn at random, so mistakes too) on a small variant of
each game: at every decision of both seats, the review's probabilities and values, every
move's, equal query's to 1e-9; in play (the review after the agent played the other seat,
the two walks sharing the agent) and in `spycfr review` (both seats, one record)."""

from __future__ import annotations

import numpy as np
import pytest

from spycfr.analysis.agentplay import AgentOpponent, agent_query
from spycfr.analysis.play import Opponent, review, run_game
from spycfr.analysis.review import review_records
from spycfr.games import get_plugin, make_game, make_variant
from spycfr.runs import agent_run
from spycfr.runs.store import read_run
from spycfr.search.agent import AgentConfig

CLOSE = 1e-9


def _agent_run(tmp_path_factory, game: str, preset: str, iterations: int = 30) -> str:
    """An agent run directory of ``game`` ``preset`` (the defaults, ``iterations`` a
    re-solve), without the exact exploitability walk (minutes; nothing here reads it)."""
    out = tmp_path_factory.mktemp("agent") / f"{game}-{preset}"
    config = AgentConfig.default(game, iterations=iterations)
    params = make_variant(game, preset).as_dict()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(agent_run, "exact_measure", lambda agent, progress=None: None)
        agent_run.write_agent_run(out, game, preset, params, config)
    return str(out)


def _played(run_dir: str, seat: int, seed: int):
    """A game played as ``seat`` against the run's agent, the seat's moves drawn at random
    (seeded): the opponent, the final state and the seat's decisions."""
    meta = read_run(run_dir)
    opp = Opponent(meta, agent=AgentOpponent(run_dir))
    game = make_game(meta.game, None, meta.variant)
    rng = np.random.default_rng(seed)
    final, decisions = run_game(game, opp, seat, np.random.default_rng(seed),
                                lambda state, labels: int(rng.integers(len(labels))))
    assert final is not None and final.is_terminal() and len(decisions) >= 2
    return opp, game, final, decisions


def _same_as_query(run_dir: str, opp: Opponent, seat: int, rows: list[dict]) -> int:
    """Every row's move and every move at its decision as `query --seat` answers there
    (probability and value to CLOSE, loss, tie, the best moves); the decisions checked."""
    answers = []
    for r in rows:
        q = agent_query(run_dir, seat, r["view"])
        by_move = {m["move"]: m for m in q["moves"]}
        m = by_move[r["move"]]
        assert abs(r["probability"] - m["probability"]) <= CLOSE, (r, m)
        assert (r["value"] is None) == (m["value"] is None), (r, m)
        if r["value"] is not None:
            assert abs(r["value"] - m["value"]) <= CLOSE, (r, m)
            assert abs(r["loss"] - m["loss"]) <= CLOSE and r["tie"] == m["tie"], (r, m)
        assert sorted(r["best_moves"]) == sorted(q["best_moves"])
        answers.append((r, q))
    for r, q in answers:
        info = opp.agent.infos[(seat, r["view"])]  # every move there, not only the one made
        labels = _labels(opp, seat, r["view"])
        assert len(info.actions) == len(labels) == len(q["moves"])
        for move in q["moves"]:
            i = labels.index(move["move"])
            assert abs(info.probs[i] - move["probability"]) <= CLOSE
            if move["value"] is None:
                assert np.isnan(info.values[i])
            else:
                assert abs(info.values[i] - move["value"]) <= CLOSE, (move, info.values[i])
    return len(rows)


def _labels(opp: Opponent, seat: int, view: str) -> list[str]:
    """The rules' move labels at ``seat``'s view (the order of the review's arrays)."""
    records = get_plugin(opp.result.game).records
    _, position = records.view_key(make_variant(opp.result.game, None, opp.result.variant),
                                   view, seat)
    return list(position["legal_moves"])


def _check(run_dir: str, seat: int, seed: int) -> None:
    opp, game, final, decisions = _played(run_dir, seat, seed)
    rows = review(opp, seat, decisions)  # play's review: after the agent's walk as 1 - seat
    assert [r["move"] for r in rows] == [d.move for d in decisions]
    assert _same_as_query(run_dir, opp, seat, rows) == len(decisions)
    # `spycfr review` of the same game: both seats (the agent's own seat too), each the
    # query of that seat, the played seat's rows those of play's review
    fresh = Opponent(opp.result, agent=AgentOpponent(run_dir))
    result = review_records(fresh, game, [final.record()], (0, 1))
    assert result["errors"] == 0
    seats = result["games"][0]["seats"]
    for s, name in enumerate(("P1", "P2")):
        assert _same_as_query(run_dir, fresh, s, seats[name]["moves"]) > 0
    again = {r["view"]: r for r in seats[("P1", "P2")[seat]]["moves"]}
    for r in rows:
        got = again[r["view"]]
        for k in ("probability", "value", "best_value", "loss"):
            assert (got[k] is None and r[k] is None) or abs(got[k] - r[k]) <= CLOSE


@pytest.fixture(scope="module")
def hunter_tiny(tmp_path_factory):
    return _agent_run(tmp_path_factory, "agent-hunter", "tiny")


@pytest.fixture(scope="module")
def avenue_tiny(tmp_path_factory):
    return _agent_run(tmp_path_factory, "agent-avenue", "tiny")


@pytest.mark.parametrize("seat,seed", [(0, 3), (1, 7)])
def test_agent_hunter_tiny_review_equals_query(hunter_tiny, seat, seed):
    _check(hunter_tiny, seat, seed)


@pytest.mark.parametrize("seat,seed", [(0, 5), (1, 2)])
def test_agent_avenue_tiny_review_equals_query(avenue_tiny, seat, seed):
    _check(avenue_tiny, seat, seed)


@pytest.mark.slow
def test_agent_hunter_mini_review_equals_query(tmp_path_factory):
    _check(_agent_run(tmp_path_factory, "agent-hunter", "mini"), 1, 11)


@pytest.mark.slow
def test_agent_avenue_mini_review_equals_query(tmp_path_factory):
    _check(_agent_run(tmp_path_factory, "agent-avenue", "mini"), 0, 4)


def test_agent_hunter_walk_by_steps_answers_as_by_prefixes(hunter_tiny, monkeypatch):
    """Agent Hunter's records give ``view_steps`` (the view replayed a token at a time):
    a both-seat review and a query answer to the last bit what the walk that replayed each
    prefix with ``view_state`` answered. The game has a refill at a decision of each seat
    (its view ends with the attack, the next view's token amends it): the walk by steps goes
    on through it (``ViewSteps.amend``), the walk by prefixes starts again from the game's
    start, and the answers are the same."""
    meta = read_run(hunter_tiny)
    game = make_game(meta.game, None, meta.variant)
    records = get_plugin("agent-hunter").records
    record = "place:0-2 place:2-1 house:2=2>1:eq>1 house:2=1>2:eq>0"
    prefixes = []  # the views the walks replayed from their start
    view_state = records.view_state
    monkeypatch.setitem(records.__dict__, "view_state",
                        lambda *a: prefixes.append(a[1]) or view_state(*a))

    def answers() -> tuple:
        opp = Opponent(meta, agent=AgentOpponent(hunter_tiny))
        out = review_records(opp, game, [record], (0, 1))
        assert out["errors"] == 0
        rows = [(s, r["view"], r["move"], r["probability"], r["value"], r["best_value"],
                 r["loss"], r["best_moves"])
                for s, d in out["games"][0]["seats"].items() for r in d["moves"]]
        info = [(key, np.asarray(i.probs).tobytes(), np.asarray(i.values).tobytes())
                for key, i in opp.agent.infos.items()]  # to the last bit, NaN too
        q = agent_query(hunter_tiny, 1, "place:? place:2-1 house:2=2>1:eq>?")
        return rows, info, [(m["move"], m["probability"], m["value"]) for m in q["moves"]]

    by_steps = answers()
    assert not prefixes and any(view.endswith(":eq") for _, view, *_ in by_steps[0])
    monkeypatch.setitem(records.__dict__, "view_steps", None)
    by_prefixes = answers()
    assert prefixes
    assert by_steps == by_prefixes


def test_a_both_seat_review_says_why_the_seats_values_are_not_opposite(hunter_tiny):
    """Each seat's values are that agent's own estimate (its cards, its model of the other
    seat), so both seats can be above 0 at one point of a game (seen on Agent Hunter
    standard: P1 +0.74, P2 +0.91 two moves apart), not a sign: the review of both seats says
    so, in the terminal and on the workbench; one seat's review does not."""
    import html
    from urllib.parse import urlencode

    from cli_helpers import spycfr
    from spycfr.analysis.agentplay import SEATS_APART
    from spycfr.web.app import make_app
    from spycfr.web.catalog import discover
    from test_web_pages import _ask

    _, _, final, _ = _played(hunter_tiny, 0, 3)
    record = final.record()
    for seat, said in (("both", True), ("P1", False)):
        code, out, err = spycfr("review", hunter_tiny, record, "--seat", seat)
        assert code == 0, err
        assert (SEATS_APART in " ".join(out.split())) == said, out
    app = make_app(discover([hunter_tiny]))
    name = next(iter(discover([hunter_tiny])))
    for seat, said in (("both", True), ("P1", False)):
        code, page = _ask(app, "/review", "run=" + name,
                          urlencode({"records": record, "seat": seat}).encode())
        assert code == 200 and ('id="apart"' in page) == said, page[-500:]
        assert (SEATS_APART[1:] in html.unescape(page)) == said


def test_query_says_why_the_agents_own_move_loses_against_its_model(hunter_tiny):
    """Agent Avenue standard's query showed the agent's own 99.7% move 0.1947 below the best
    against its model, beyond the 0.01 stated: its probabilities come from a re-solve
    against the opponent's range as that solve holds it (there the move was the best,
    +0.1286 against +0.0605), its values against its model (0.46 apart in total
    variation). query gives each move's value against the solve's range and says so."""
    from spycfr.analysis.agentplay import mix_apart_words, ties_words

    def move(name, p, v, loss, solved):
        return {"move": name, "probability": p, "value": v, "loss": loss,
                "tie": loss <= 0.01, "value_as_solved": solved}

    result = {"tolerance": 0.01, "best_moves": ["b"], "solved_range_apart": 0.46,
              "moves": [move("a", 0.9968, -0.0289, 0.1947, 0.1286),
                        move("b", 0.0002, 0.1658, 0.0, 0.0225)]}
    said = ties_words(result)
    assert "The agent plays a 99.7% though it is 0.1947 below the best" in said
    assert "+0.1286 (the best there: the two ranges, not the re-solve's imprecision" in said
    assert "0.46 apart" in said
    tied = {**result, "moves": [dict(m, tie=True, loss=0.0) for m in result["moves"]]}
    assert mix_apart_words(tied) == ""  # its move ties: nothing to explain
    assert mix_apart_words({**result, "solved_range_apart": None}) == ""  # an openings table
    # a real query gives the values against the solve's range and how far apart the ranges
    opp, game, final, decisions = _played(hunter_tiny, 0, 3)
    q = agent_query(hunter_tiny, 0, decisions[-1].view)
    assert q["solved_range_apart"] is None or 0.0 <= q["solved_range_apart"] <= 1.0
    assert all("value_as_solved" in m for m in q["moves"])


def test_a_view_walk_that_cannot_amend_starts_again_from_the_games_start():
    """Where the records' steps cannot take a completed token as a step (``amend`` gives
    None), :meth:`ViewWalk.to` starts again (:meth:`ViewWalk.restart`, where it called
    ``__init__`` again): the agent's value function forgotten, a new game that observed
    the initial state, new steps, then the whole view walked, as a walk made for it."""
    from types import SimpleNamespace

    from spycfr.analysis.agentplay import ViewWalk

    forgot, games, made = [], [], []

    class Steps:
        def __init__(self) -> None:
            self.pushed: list[str] = []
            made.append(self)

        def push(self, token: str, last: bool) -> np.ndarray:
            self.pushed.append(token)
            return np.array([len(self.pushed)])

        def amend(self, token: str, last: bool) -> None:
            return None  # cannot take the completion as a step of its own

    def game(player: int) -> SimpleNamespace:
        seen: list = []
        games.append(seen)
        return SimpleNamespace(observe=seen.append)

    agent = SimpleNamespace(forget=lambda: forgot.append(1), game=game,
                            initial=lambda: np.array([0]))
    records = SimpleNamespace(view_state=lambda *a: None,
                              view_steps=lambda variant, player: Steps())
    walk = ViewWalk(agent, records, {}, 0)
    walk.to("place:1 switch:1")
    assert walk.amends("place:1 switch:1=2")
    state = walk.to("place:1 switch:1=2 hand:3")
    assert len(forgot) == 2 and len(games) == 2 and len(made) == 2
    assert made[1].pushed == ["place:1", "switch:1=2", "hand:3"]
    assert walk.tokens == ["place:1", "switch:1=2", "hand:3"] and state.tolist() == [3]
    assert [x.tolist() for x in games[1]] == [[0], [1], [2], [3]]
