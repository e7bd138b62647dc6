"""Local best response against a search agent (spycfr.analysis.lbr_agent; its long runs:
lbr_agent_dask) on Agent Hunter tiny: the Python loop replays the table path game for game
against a stored strategy, its belief against the agent is the agent's own range, its payoff
stays under the agent's exact exploitability, and `spycfr measure` records it and resumes."""

from __future__ import annotations

import functools
import json

import numpy as np
import pytest

from cli_helpers import spycfr
from spycfr.analysis.headtohead import player_args, player_from, tree_player
from spycfr.analysis.lbr import two_player_params
from spycfr.analysis.lbr_agent import (
    BELIEF_CAP,
    AgentOpponent,
    play_game,
    table_games,
)
from spycfr.analysis.lbr_agent_dask import GAMES_FILE, _read_games
from spycfr.cfr import CFRSolver
from spycfr.errors import SpycfrError
from spycfr.games import build_tree, get_plugin, make_game
from spycfr.provenance import code_version
from spycfr.public import protocol as pp
from spycfr.runs.agent_run import load_agent
from spycfr.search.agent import AgentConfig, SearchAgent, agent_exploitability


@pytest.fixture(scope="module")
def tiny():
    return make_game("agent-hunter", "tiny")


@pytest.mark.parametrize("me", [0, 1])
def test_the_loop_replays_the_table_path_against_a_stored_strategy(tiny, me):
    """The same games, move for move: the agent path with the agent replaced by a fixed
    strategy is the table path."""
    tree = build_tree(tiny)
    solver = CFRSolver(tree, "cfr+")
    solver.iterate(20)
    params = get_plugin("agent-hunter").numba_params(tiny.variant_obj)
    player = tree_player(tree, solver.average_strategy(), params)
    numba, mine, _, _ = table_games(tiny, player, me, 7, 3, 40, rollouts=3)
    assert np.array_equal(numba, mine)
    assert len(set(numba)) > 1  # the games differ: a real comparison
    numba, mine, _, _ = table_games(tiny, player, me, 7, 0, 20, rollouts=2,
                                    roll=player_from("heuristic", tiny))
    assert np.array_equal(numba, mine)


def test_the_belief_against_the_agent_is_its_own_range(tiny):
    """After every move, LBR's particles weighted by the agent's re-solved strategy give, per
    private state of the agent, its range (the public belief it plays from) times
    compatibility with LBR's own cards: the probabilities are read at the right histories."""
    agent = SearchAgent("agent-hunter", tiny.variant_obj.as_dict(), AgentConfig(iterations=30))
    params = two_player_params(tiny)
    priv = pp.python_impl(agent.params, "private_of_history")
    checked = 0

    def watch(view, bs, bw, n, state):
        nonlocal checked
        g = view.view
        mine = g.mine
        j = agent.private(state, 1 - g.seat)
        compat = agent.model.compat[:, j] if g.seat == 0 else agent.model.compat[j]
        expected = mine * compat
        if expected.sum() == 0:
            return
        got = np.zeros_like(expected)
        for x in range(n):
            got[priv(bs[x], agent.params, g.seat)] += bw[x]
        assert got == pytest.approx(expected / expected.sum(), abs=1e-9)
        checked += 1

    opponent = AgentOpponent(agent, player_from("heuristic", tiny))
    roll = player_args(player_from("heuristic", tiny))
    for me in (0, 1):
        for g in range(4):
            play_game(params, me, opponent, roll, 2, 11, g, watch)
    assert checked >= 30


@pytest.mark.slow
def test_measure_lbr_against_the_agent_bounds_its_exact_exploitability(tmp_path):
    """`spycfr measure` on an agent run: LBR's payoff is at most the agent's exact
    exploitability (its strategy at every public node, then a best response), up to its
    interval; the games are kept and a rerun with more plays only the new ones."""
    run = tmp_path / "agent"
    code, _, err = spycfr("solve", "agent-hunter", "--preset", "tiny", "--algorithm",
                          "re-solving", "--iterations", "30", "--value-function", "scored-now",
                          "--endgame", "0", "--plan-endgame", "0", "-o", str(run), "-q")
    assert code == 0, err
    code, out, err = spycfr("measure", str(run), "--lbr-games", "300", "--lbr-rollouts", "4",
                            "--workers", "0", "--json")
    assert code == 0, err
    lbr = json.loads(out)["local_best_response"]
    assert lbr["games"] == 300 and lbr["rollout_policy"] == "heuristic"
    expl, br, _ = agent_exploitability(load_agent(run))
    assert lbr["value"] <= expl + (lbr["ci95"][1] - lbr["value"])
    for seat, b in (("as_p1", br[0]), ("as_p2", br[1])):
        assert lbr[seat]["mean"] <= b + (lbr[seat]["ci95"][1] - lbr[seat]["mean"])
    print(f"LBR {lbr['value']:.3f} {lbr['ci95']}, exact {expl:.3f} {br}")
    assert lbr["value"] > 0.0  # it finds some of the agent's exploitability
    meta = json.loads((run / "run.json").read_text())
    assert meta["measured"]["local_best_response"]["value"] == lbr["value"]
    assert meta["measured"]["exploitability_lower_bound"]["opponent"] == "local best response"
    assert "--lbr-rollout heuristic" in meta["measured"]["command"]
    lines = (run / GAMES_FILE).read_text().splitlines()
    assert len(lines) == 301
    code, out, err = spycfr("measure", str(run), "--lbr-games", "310", "--lbr-rollouts", "4",
                            "--workers", "0")
    assert code == 0, err
    assert "300 of 310 games already" in err and "local best response, 310 games" in out
    assert (run / GAMES_FILE).read_text().splitlines()[:301] == lines
    code, _, err = spycfr("measure", str(run), "--lbr-games", "10", "--lbr-rollouts", "2",
                          "--workers", "0")
    assert code == 2 and "other settings" in err and "Traceback" not in err
    code, _, err = spycfr("measure", str(run))
    assert code == 2 and "nothing to measure" in err


def _after_the_placements(agent):
    """P1's first decision after each of its placements (P2's placement the same): those
    states (the particles), uniform weights, and ``at_decision(x, opponent)``, the
    opponent's view of the game walked to the x-th."""
    start = agent.initial()
    placements = agent.legal(start)
    theirs = int(agent.legal(agent.after(start, int(placements[0])))[0])
    histories = [[start, agent.after(start, int(a))] for a in placements]
    for h in histories:
        h.append(agent.after(h[-1], theirs))
    bs = np.array([h[-1] for h in histories])

    def at_decision(x, opponent):
        view = opponent.game(0)
        for state in histories[x]:
            view.observe(state)
        return view

    return bs, np.full(len(bs), 1.0 / len(bs)), at_decision


def _over_the_budget(tiny):
    """The rollout agent of the particle tests (20 iterations a re-solve), its rollout budget
    forced down to 10 games and 8 focus samples: only the actual cards' rows (and a reader's)
    are valued by games, as on ``standard``; (the agent, its rollout leaves)."""
    agent = SearchAgent("agent-hunter", tiny.variant_obj.as_dict(),
                        AgentConfig(iterations=20, value_function="rollout"))
    inner = agent.values.inner
    inner.budget, inner.focus_samples = 10, 8
    return agent, inner


def _rows_read(tiny, agent, placements, actual: int):
    """The agent holding the ``actual``-th particle's cards (``placements``:
    :func:`_after_the_placements`) moves at its decision, seen by a new opponent (a cache of
    its own); (that opponent, its view, the rows LBR reads for every particle then)."""
    bs, bw, at_decision = placements
    params = two_player_params(tiny)
    opponent = AgentOpponent(agent, player_from("heuristic", tiny))
    view = at_decision(actual, opponent)
    acts = agent.legal(bs[actual])
    view.move(params, bs[actual], None, acts, len(acts), np.zeros(len(acts)))
    return opponent, view, view.particle_rows(params, bs, bw, len(bs), 16)


@pytest.mark.parametrize("run", ["standard", "agent-avenue/standard",
                                 "agent-avenue/advanced"])
def test_the_committed_lbr_figure_is_the_mean_of_its_games(run):
    """A committed agent run's recorded LBR figure is the mean of the games kept beside it
    (the two seats' means averaged), played against the agent that run.json configures
    (results/agent-avenue/standard's 11 games: the agent before needs_only was adopted on
    2026-11-28, every other setting the same; run.json's note on them says so)."""
    from pathlib import Path

    d = Path(__file__).resolve().parent.parent / "results" / run
    meta = json.loads((d / "run.json").read_text())
    lbr = (meta.get("measured") or {}).get("local_best_response")
    if lbr is None:  # not measured: then no games may pretend to be
        assert not (d / GAMES_FILE).exists()
        return
    lines = [json.loads(x) for x in (d / GAMES_FILE).read_text().splitlines()]
    agent = dict(meta["agent"])
    if run == "agent-avenue/standard":
        assert agent.pop("needs_only") is True
        assert "without needs_only" in lbr["code"][0]["note"]
    assert lines[0]["settings"]["agent"] == agent
    assert lines[0]["settings"]["rollouts"] == lbr["rollouts"]
    seats = [[r["payoff"] for r in lines[1:] if r["seat"] == s] for s in (0, 1)]
    assert len(seats[0]) + len(seats[1]) == lbr["games"]
    assert lbr["value"] == pytest.approx((np.mean(seats[0]) + np.mean(seats[1])) / 2)
    if "belief_cap" in lines[0]["settings"]:
        return
    # played before the belief had a cap, never past it: the same command resumes them
    settings = {**lines[0]["settings"], "belief_cap": BELIEF_CAP}
    assert len(_read_games(d / GAMES_FILE, settings)) == lbr["games"]
    with pytest.raises(SpycfrError, match="larger cap"):
        _read_games(d / GAMES_FILE, {**settings, "belief_cap": 100})


def test_the_needs_only_lbr_games_are_against_the_committed_agent():
    """results/agent-avenue/standard/lbr-games.needs-only.jsonl (the rule amended 2026-11-28,
    its README) holds LBR games against the directory's agent as run.json configures it
    (needs_only), with the committed lbr-games.jsonl's settings but the agent, in the same
    order of seats and indices (each seat's first games), each recording the code that
    played it; `spycfr measure` reads it as games of these settings (it would resume them)."""
    from pathlib import Path

    d = Path(__file__).resolve().parent.parent / "results" / "agent-avenue" / "standard"
    meta = json.loads((d / "run.json").read_text())
    lines = [json.loads(x) for x in (d / "lbr-games.needs-only.jsonl").read_text().splitlines()]
    earlier = json.loads((d / GAMES_FILE).read_text().splitlines()[0])["settings"]
    settings = lines[0]["settings"]
    assert settings["agent"] == meta["agent"] and settings["agent"]["needs_only"] is True
    assert {k: v for k, v in settings.items() if k != "agent"} == {
        k: v for k, v in earlier.items() if k != "agent"}
    games = lines[1:]
    for s in (0, 1):
        assert sorted(r["game"] for r in games if r["seat"] == s) == list(
            range(sum(r["seat"] == s for r in games)))
    assert all(r["code"]["commit"] and r["code"]["modified"] is False for r in games)
    assert len(_read_games(d / "lbr-games.needs-only.jsonl", settings)) == len(games)


def test_the_particles_rows_are_the_agent_holding_their_cards_whatever_it_holds(tiny):
    """Over the rollout budget (forced on tiny) the agent values only its own cards' rows
    by games. The rows LBR reads for its particles (every placement of the agent, the
    same public history) must not depend on the agent's actual placement, and each must be
    what the agent plays holding that particle's cards: before the fix they were the rows
    of the agent's own re-solve, the other placements' rows scored as they stand."""
    agent, _ = _over_the_budget(tiny)
    params = two_player_params(tiny)
    placed = _after_the_placements(agent)
    bs, bw, at_decision = placed

    read = []
    for actual in (0, 3):  # each with a cache of its own
        opponent, view, rows = _rows_read(tiny, agent, placed, actual)
        read.append(rows)
        assert (view.decisions, view.cached, view.approximate) == (1, 0, 0)
    assert np.array_equal(read[0], read[1])
    acts = agent.legal(bs[0])
    again = at_decision(0, opponent)  # the same situation in another game: from the cache
    again.move(params, bs[0], None, acts, len(acts), np.zeros(16))
    assert np.array_equal(again.particle_rows(params, bs, bw, len(bs), 16), read[0])
    assert (again.decisions, again.cached, again.solves) == (1, 1, 0)
    # bounded to the two heaviest states: theirs exact, the rest's mass reported
    bounded = at_decision(0, AgentOpponent(agent, player_from("heuristic", tiny), 2))
    bounded.move(params, bs[0], None, acts, len(acts), np.zeros(16))
    heavy = np.array([0.1, 0.1, 0.1, 0.1, 0.3, 0.3])
    rows = bounded.particle_rows(params, bs, heavy, len(bs), 16)
    assert np.array_equal(rows[4:], read[0][4:]) and bounded.unvalued_mass == pytest.approx(0.4)
    for x in range(len(bs)):
        plays = at_decision(x, opponent).view.policy(bs[x])
        assert read[0][x, :plays.size] == pytest.approx(plays, abs=1e-12)
        assert not read[0][x, plays.size:].any()
    assert len({tuple(np.round(r, 6)) for r in read[0]}) == len(bs)  # six different rows


def test_the_particles_cache_keeps_the_leaves_its_rows_were_solved_with(tiny):
    """The cache of the particles' rows (the opponent's, over its games) keys on the id of
    the leaves they were solved with: an entry holds those leaves, so that no leaves made
    later (the agent's replaced, as an experiment sets it up) take that id and are served
    rows solved with others."""
    import gc
    import weakref

    from spycfr.search.leafvalues import value_function

    agent, _ = _over_the_budget(tiny)
    opponent, view, _ = _rows_read(tiny, agent, _after_the_placements(agent), 0)
    assert len(opponent.cache) == 1
    solved_with = weakref.ref(agent.values)
    agent.values = value_function("rollout", agent.model, agent.plugin)
    del view
    opponent.last = None  # the last game's counters (its view)
    gc.collect()
    assert solved_with() is not None


@pytest.mark.parametrize("reader_range", ["public", "own"])
def test_with_the_public_range_reader_the_particles_rows_are_the_agent_holding_them(
        tiny, reader_range):
    """The agent guarding against a range reader (``ranger``) whose range is rows drawn
    from public information (``reader_range`` "public"): LBR's re-solve of its particles
    reads the same range, so each particle's row is what the agent plays holding its cards,
    whatever the agent holds, reading rounds and all (as without a reader, above). With the
    reader of the agent's own range (the default) LBR reads its belief instead, and rows
    differ from the agent's (docs/search.md: the model mismatch); the test shows it."""
    agent, inner = _over_the_budget(tiny)
    ranger = agent.plugin.rollout_styles.index("ranger")
    inner.configure(opposing=(*inner.opposing_styles, ranger), focus_rows=3, reader_rounds=1,
                    reader_range=reader_range)
    assert inner.reads_range
    placed = _after_the_placements(agent)
    bs, _, at_decision = placed

    read, drawn = [], []
    for actual in (0, 3):
        opponent, _, rows = _rows_read(tiny, agent, placed, actual)
        read.append(rows)
        drawn.append(inner.public_rows.copy())
    same = [bool(np.allclose(read[0][x, :len(p)], p, atol=1e-12))
            for x in range(len(bs))
            for p in [at_decision(x, opponent).view.policy(bs[x])]]
    if reader_range == "own":
        assert not all(same)
        return
    assert drawn[0].size == 2 and np.array_equal(drawn[0], drawn[1])
    assert np.array_equal(read[0], read[1])
    assert all(same)


@pytest.mark.parametrize("choice, guesses", [("leaf", True), ("leaf", False),
                                             ("state", True)])
def test_with_the_opposing_decision_the_particles_rows_are_the_agent_holding_them(
        tiny, choice, guesses):
    """The opponent's continuation chosen as a decision at each leaf, with or without a
    guess per row (``choice`` "leaf", ``guesses``; "state": per leaf and opposing private
    state), every live row of the agent's range
    valued (public rows, focus_rows over the 6 placements): the rows now depend on each other (the
    decision answers the whole range), and LBR, re-solving from the agent's range and the
    same rows, still gets each particle's row as the agent holding its cards plays it."""
    agent, inner = _over_the_budget(tiny)
    inner.configure(focus_rows=8, reader_range="public", choice=choice, guesses=guesses)
    assert inner.guessing_rows == guesses and not inner.reads_range
    placed = _after_the_placements(agent)
    bs, _, at_decision = placed
    read = []
    for actual in (0, 3):
        opponent, _, rows = _rows_read(tiny, agent, placed, actual)
        read.append(rows)
        assert inner.public_rows.size == len(bs)  # every placement valued, guessed
        assert any(c[3][len(inner._opp):].sum() > 0
                   for c in inner.leaf_choice()) == guesses  # a guess chosen somewhere
    assert np.array_equal(read[0], read[1])
    for x in range(len(bs)):
        plays = at_decision(x, opponent).view.policy(bs[x])
        assert read[0][x, :plays.size] == pytest.approx(plays, abs=1e-12)


@pytest.mark.slow
def test_games_played_elsewhere_at_other_indices_count(tmp_path):
    """Games of the same settings appended to lbr-games.jsonl by another machine (other game
    indices) count towards --lbr-games: a run plays only each seat's missing games, at its
    lowest free indices, and the summary holds them all."""
    from spycfr.analysis.lbr_agent_dask import _append, agent_game_task, agent_lbr

    run = tmp_path / "agent"
    code, _, err = spycfr("solve", "agent-hunter", "--preset", "tiny", "--algorithm",
                          "re-solving", "--iterations", "5", "--value-function", "scored-now",
                          "-o", str(run), "-q")
    assert code == 0, err
    first = agent_lbr(run, 4, rollouts=2, workers=0)  # indices 0 and 1 of each seat
    settings = json.loads((run / GAMES_FILE).read_text().splitlines()[0])["settings"]
    elsewhere = [agent_game_task(str(run), settings, me, 500) for me in (0, 1)]
    for row in elsewhere:
        _append(run / GAMES_FILE, row)
    out = agent_lbr(run, 8, rollouts=2, workers=0)
    rows = [json.loads(x) for x in (run / GAMES_FILE).read_text().splitlines()[1:]]
    assert sorted((r["seat"], r["game"]) for r in rows) == [
        (me, g) for me in (0, 1) for g in (0, 1, 2, 500)]
    assert all(r["code"] == code_version() for r in rows)  # the code that played each
    assert out["games"] == 8 and first["games"] == 4
    assert agent_lbr(run, 4, rollouts=2, workers=0)["games"] == 8  # every game counts
    seats = [[r["payoff"] for r in rows if r["seat"] == me] for me in (0, 1)]
    assert out["value"] == pytest.approx((np.mean(seats[0]) + np.mean(seats[1])) / 2)


def test_a_remade_agents_run_sets_the_other_agents_lbr_games_aside(tmp_path):
    """results/regenerate.sh remakes an agent run, then resumes its LBR games: games played
    against the same agent stay; against another (run.json's agent changed: the endgame
    rule on) they move to lbr-games.other-agent.jsonl, kept whole, and the measurement
    starts afresh instead of refusing the file."""
    import shutil
    from pathlib import Path

    from spycfr.analysis.lbr_agent_dask import OTHER_AGENT_FILE, set_aside_other_agents_games

    committed = Path(__file__).resolve().parent.parent / "results" / "standard"
    for name in ("run.json", GAMES_FILE):
        shutil.copy(committed / name, tmp_path / name)
    _stamp(tmp_path / GAMES_FILE, lambda k: code_version())  # this code's games
    games = (tmp_path / GAMES_FILE).read_text()
    assert set_aside_other_agents_games(tmp_path) is None
    assert (tmp_path / GAMES_FILE).read_text() == games
    meta = json.loads((tmp_path / "run.json").read_text())
    meta["agent"] = {**meta["agent"], "endgame": 4_000_000, "plan_endgame": 60_000_000}
    (tmp_path / "run.json").write_text(json.dumps(meta))
    assert set_aside_other_agents_games(tmp_path) == tmp_path / OTHER_AGENT_FILE
    assert not (tmp_path / GAMES_FILE).exists()
    assert (tmp_path / OTHER_AGENT_FILE).read_text() == games
    assert set_aside_other_agents_games(tmp_path) is None  # nothing left to move


def test_a_remade_agents_run_sets_games_of_other_code_aside(tmp_path):
    """The same agent settings played by other code (a change that alters play leaves
    run.json's agent block equal: results/agent-avenue/standard's 11 LBR games were the
    agent before f555065) are set aside by the remake too, games that record no code
    included; `spycfr measure` itself still resumes them (test below)."""
    import shutil
    from pathlib import Path

    from spycfr.analysis.lbr_agent_dask import OTHER_AGENT_FILE, set_aside_other_agents_games

    committed = Path(__file__).resolve().parent.parent / "results" / "standard"
    for name in ("run.json", GAMES_FILE):
        shutil.copy(committed / name, tmp_path / name)
    here = code_version()
    _stamp(tmp_path / GAMES_FILE, lambda k: here if k % 2 else {**here, "commit": "0" * 40})
    games = (tmp_path / GAMES_FILE).read_text()
    assert set_aside_other_agents_games(tmp_path) == tmp_path / OTHER_AGENT_FILE
    assert (tmp_path / OTHER_AGENT_FILE).read_text() == games
    shutil.copy(committed / GAMES_FILE, tmp_path / GAMES_FILE)  # no code recorded
    assert set_aside_other_agents_games(tmp_path) == tmp_path / OTHER_AGENT_FILE


@pytest.mark.parametrize("played, here, same", [
    ({"version": "0.1.0", "commit": "1a2b3c4d" * 5}, {"version": "0.1.0", "commit": "1a2b3c4d" * 5},
     True),
    ({"version": "0.1.0", "commit": "1a2b3c4d" * 5}, {"version": "0.1.0", "commit": "0" * 40},
     False),
    ({"version": "0.1.0", "commit": None}, {"version": "0.1.0", "commit": None}, False),
])
def test_the_remake_and_the_report_take_one_rule_for_the_same_code(tmp_path, monkeypatch,
                                                                   played, here, same):
    """The remake's set-aside (results/regenerate.sh) and the report's bound line
    (bound.games_agent_words) agree on whether games were played by the code at hand,
    by spycfr.provenance.same_code: one commit and version is the same code, another
    commit is not, and two codes without a commit (run outside a checkout) are not known
    to be the same (the remake sets those games aside, the report names their agent)."""
    import shutil
    from pathlib import Path

    from spycfr.analysis import lbr_agent_dask
    from spycfr.analysis.bound import games_agent_words
    from spycfr.provenance import same_code

    committed = Path(__file__).resolve().parent.parent / "results" / "standard"
    for name in ("run.json", GAMES_FILE):
        shutil.copy(committed / name, tmp_path / name)
    _stamp(tmp_path / GAMES_FILE, lambda k: {**played, "modified": False})
    monkeypatch.setattr(lbr_agent_dask, "code_version", lambda: {**here, "modified": False})
    moved = lbr_agent_dask.set_aside_other_agents_games(tmp_path)
    measured = {"local_best_response": {"games_file": GAMES_FILE, "games": 4,
                                        "code": [{**played, "games": 4}]}}
    assert same_code(played, here) == same
    assert (moved is None) == same
    assert (games_agent_words(measured, here) is None) == same


def test_a_resumed_games_file_says_how_many_games_each_code_played(tmp_path):
    """LBR's games file resumes across code changes (its settings record the agent's
    configuration, not the code), so its summary's method says which code played the
    games and, where several did, how many each: every game counts (games from other
    machines must merge), the code of each recorded with the game."""
    import shutil
    from pathlib import Path

    from spycfr.analysis.lbr_agent_dask import agent_lbr

    committed = Path(__file__).resolve().parent.parent / "results" / "standard"
    for name in ("run.json", GAMES_FILE):
        shutil.copy(committed / name, tmp_path / name)
    lbr = json.loads((committed / "run.json").read_text())["measured"]["local_best_response"]
    games = lbr["games"]
    later = {"version": "9.9", "commit": "abcdef1" + "0" * 33, "modified": False}
    _stamp(tmp_path / GAMES_FILE, lambda k: later if k >= 100 else None)
    rows = [json.loads(x) for x in (tmp_path / GAMES_FILE).read_text().splitlines()[1:]]
    fewest = min(sum(r["seat"] == me for r in rows) for me in (0, 1))

    def measured() -> dict:  # as many asked as each seat has played: nothing is played
        return agent_lbr(tmp_path, 2 * fewest, seed=1, rollouts=16,
                         rollout="heuristic:hunter", workers=0)

    out = measured()
    assert out["games"] == games and out["value"] == pytest.approx(lbr["value"])
    assert out["code"] == [{"version": None, "commit": None, "modified": None, "games": 100},
                           {**later, "games": games - 100}]
    assert out["method"].endswith(
        f"Played by 2 different codes (a games file resumed or merged across code changes: "
        f"the mean mixes their agents): 100 games by code not recorded, {games - 100} games "
        "by spycfr 9.9 at abcdef1")
    _stamp(tmp_path / GAMES_FILE, lambda k: later)
    assert measured()["method"].endswith("Every game played by spycfr 9.9 at abcdef1")


def _stamp(path, code_of) -> None:
    """The games file ``path`` with its k-th game's ``code`` set to ``code_of(k)`` (None:
    none recorded, as before the code was)."""
    lines = path.read_text().splitlines()
    rows = [json.loads(x) for x in lines[1:]]
    for k, row in enumerate(rows):
        row.pop("code", None)
        if code_of(k) is not None:
            row["code"] = code_of(k)
    path.write_text("\n".join([lines[0], *map(json.dumps, rows)]) + "\n")


def test_a_workers_numba_compiling_is_said_on_the_client():
    """`spycfr measure`'s LBR games run on Dask workers, each compiling numba's kernels on a
    cold cache for minutes: a task run by on_worker tells the client when its numba compiles
    (once, however many kernels or workers), and says nothing when nothing compiles."""
    import time

    from spycfr.analysis.lbr_agent_dask import WORKERS_COMPILING, on_worker, say_workers_compiling
    from spycfr.cluster import dask_client

    said: list[str] = []
    # a fresh jitted function, compiled on the worker (a lambda travels by value)
    compiles = lambda x: __import__("numba").njit(lambda y: y + 1)(x)  # noqa: E731
    with dask_client(None, 1) as (client, _):
        state = say_workers_compiling(client, said.append)
        assert client.submit(on_worker, abs, -3, pure=False).result() == 3  # compiles nothing
        time.sleep(0.5)
        assert not state.now(10.0)
        assert client.submit(on_worker, compiles, 3, pure=False).result() == 4
        assert client.submit(on_worker, compiles, 5, pure=False).result() == 6
        deadline = time.monotonic() + 20
        while not said and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.5)  # a second notice, if any, would have come by now
    assert said == [WORKERS_COMPILING]
    # the kernels' events came too: compiling was seen lately, and every start ended
    assert state.now(10.0) and state.open == 0 and not state.now(0.0)


def test_the_wait_for_the_first_game_says_what_the_workers_do():
    """While no LBR game has finished, the periodic line says numba compiles where the
    workers' kernels compile (not the plan, as it said before), else the opening plan."""
    import time

    from spycfr.analysis.lbr_agent_dask import WorkersCompiling, _until_first
    from spycfr.ticking import Ticker

    for compiling, want in ((True, "numba is still compiling kernels on the workers"),
                            (False, "each worker first solves or reads the agent's opening "
                                    "plan")):
        state, said = WorkersCompiling(), []
        if compiling:
            state.kernel((0.0, 1))
        with Ticker(functools.partial(_until_first, said.append, state), 0.05):
            time.sleep(0.3)
        assert said and all(x.startswith("no game finished yet after") and want in x
                            for x in said), said


def test_lbr_particle_states_is_refused_where_it_means_nothing(tmp_path):
    """--lbr-particle-states bounds the agent's private states LBR re-solves: below 1, or
    on a stored strategy (no re-solve to bound), a one-line error before any game."""
    import shutil
    from pathlib import Path

    committed = Path(__file__).resolve().parent.parent / "results"
    code, _, err = spycfr("measure", str(committed / "tiny"), "--games", "0", "--lbr-games",
                          "4", "--lbr-particle-states", "4")
    assert code == 2 and "--lbr-particle-states is for a search agent" in err
    assert "Traceback" not in err and err.strip().splitlines()[-1].startswith("error: ")
    shutil.copy(committed / "standard" / "run.json", tmp_path / "run.json")
    code, _, err = spycfr("measure", str(tmp_path), "--lbr-games", "4",
                          "--lbr-particle-states", "0", "--workers", "0")
    assert code == 2 and "--lbr-particle-states must be >= 1" in err and "got 0" in err
    assert "Traceback" not in err and not (tmp_path / GAMES_FILE).exists()


@pytest.mark.slow
def test_lbr_with_bounded_particle_states_is_recorded_and_resumed_as_its_own(tmp_path):
    """`spycfr measure --lbr-particle-states K`: the games file's settings hold K (games of
    every state re-solved are not resumed by it, nor its games by a measure without it), the
    result says K and the belief mass it left unvalued, run.json's command repeats it; a
    rerun with the same K resumes."""
    run = tmp_path / "agent"
    code, _, err = spycfr("solve", "agent-hunter", "--preset", "tiny", "--algorithm",
                          "re-solving", "--iterations", "5", "--value-function", "rollout",
                          "-o", str(run), "-q")
    assert code == 0, err
    args = ("measure", str(run), "--lbr-games", "4", "--lbr-rollouts", "2", "--workers", "0")
    code, out, err = spycfr(*args, "--lbr-particle-states", "1", "--json")
    assert code == 0, err
    lbr = json.loads(out)["local_best_response"]
    assert lbr["games"] == 4 and lbr["particle_states"] == 1
    assert 0.0 < lbr["unvalued_mass_largest"] < 1.0  # one of several states valued
    assert "only the 1 private states LBR's belief weighs most" in lbr["method"]
    lines = (run / GAMES_FILE).read_text().splitlines()
    assert json.loads(lines[0])["settings"]["particle_states"] == 1 and len(lines) == 5
    meta = json.loads((run / "run.json").read_text())
    assert "--lbr-particle-states 1" in meta["measured"]["command"]
    code, _, err = spycfr(*args)  # every state: other settings
    assert code == 2 and "other settings" in err and "Traceback" not in err
    code, out, err = spycfr(*args, "--lbr-particle-states", "1")
    assert code == 0 and "4 of 4 games already" in err, err
    assert (run / GAMES_FILE).read_text().splitlines() == lines


@pytest.mark.slow
def test_lbr_belief_on_the_advanced_game_follows_the_public_market(tmp_path):
    """Agent Avenue's advanced mode starts with a public chance (the black market's supply)
    and resolves black market cards with private steps: along LBR games against the
    heuristic, in both seats, every particle of LBR's belief is public-state for public-state
    the true history (the market, its supply and who holds which card included), with LBR's
    own hand, and the true state is among them while nothing was resampled."""
    game = make_game("agent-avenue", "advanced")
    params = two_player_params(game)
    model = params._replace(forget=np.int64(1))
    pub_of = pp.python_impl(model, "public_of_history")
    priv = pp.python_impl(model, "private_of_history")
    checked = 0

    def watch(me, view, bs, bw, n, state):
        nonlocal checked
        want, got = np.empty_like(state), np.empty_like(state)
        pub_of(state, model, want)
        for x in range(0, n, max(1, n // 500)):  # up to 500 particles spread over them
            pub_of(bs[x], model, got)
            assert np.array_equal(got, want)
            assert priv(bs[x], model, me) == priv(state, model, me)
        if counts.get("resampled", 0) == 0:
            assert (bs[:n] == state).all(axis=1).any()
        assert bw[:n].sum() == pytest.approx(1.0)
        checked += 1

    heuristic = player_from("heuristic", game)
    roll = player_args(heuristic)
    from spycfr.analysis.lbr_agent import TableOpponent

    payoffs = []
    for me in (0, 1):
        counts: dict = {}
        payoffs.append(play_game(params, me, TableOpponent(heuristic), roll, 2, 5, 0,
                                 functools.partial(watch, me), counts=counts)[0])
    assert checked > 40 and all(abs(p) <= 1 for p in payoffs)


@pytest.mark.parametrize("leaves", ["scored-now", "rollout"])
@pytest.mark.parametrize("needs_only", [True, False])
def test_lbr_models_each_particle_as_the_agent_holding_its_cards_cuts_its_moves(
        monkeypatch, leaves, needs_only):
    """AgentConfig.needs_only (Agent Avenue mini: a discard only where the swapper's rule
    finds one the hand needs): at each of the agent's re-solved decisions in LBR's games
    (LBR as P2), the move probabilities LBR reads for each particle are those the agent
    plays holding that particle's cards (its walk to the decision as it was, its cards
    the particle's: at its first cut decision, the agent dealt them), with leaves that
    look only at the board (scored-now: the agent's own re-solve run again per cut) and
    with rollout leaves over their budget (one re-solve of the particles' states, each
    row cut by its own needs). Before, every row but the actual cards' was the uncut one
    (and the actual cards' cut was read for every particle of their private state).
    Without needs_only the same holds with nothing cut."""
    import copy

    from spycfr.analysis import lbr_agent
    from spycfr.games.agent_avenue import rules as R
    from spycfr.search.agentgame import AgentGame

    mini = make_game("agent-avenue", "mini")
    agent = SearchAgent("agent-avenue", mini.variant_obj.as_dict(),
                        AgentConfig(iterations=10, depth=1, value_function=leaves,
                                    needs_only=needs_only))
    if leaves == "rollout":  # only the actual cards' rows valued by games, as on standard
        inner = agent.values.inner
        inner.budget, inner.focus_samples = 10, 8

    class Watched(AgentGame):  # the walk as it was before each public step
        def __post_init__(self):
            super().__post_init__()
            self.before = copy.copy(self)  # (the first move: at the deal's public state)

        def observe(self, state):
            if not np.array_equal(self.agent.public(state), self.pub):
                before = copy.copy(self)
                before.before = None
                self.before = before
            super().observe(state)

    agent.game = lambda seat: Watched(agent, seat)
    seen = []
    read = lbr_agent.AgentOpponent.particle_rows

    def recorded(self, params, bs, bw, n, width):
        rows = read(self, params, bs, bw, n, width)
        v = self.view
        if v.sol is not v.plan and v.s == 0:  # a re-solve at this decision
            seen.append((copy.copy(v), bs[:n].copy(), bw[:n].copy(), rows))
        return rows

    monkeypatch.setattr(lbr_agent.AgentOpponent, "particle_rows", recorded)
    params = two_player_params(mini)
    opponent = AgentOpponent(agent, player_from("heuristic", mini))
    roll = player_args(player_from("heuristic", mini))
    for g in range(3):
        play_game(params, 1, opponent, roll, 2, 11, g)
    compared = cut = differ = 0
    for v, bs, bw, rows in seen:
        if needs_only:
            assert v.needed is not None and v.needed.sol is v.sol
        seat = v.seat
        groups = {}  # one particle per private state and needs (the rows are per both)
        for x in np.flatnonzero(bw > 0):
            acts = agent.legal(bs[x])
            swaps = (acts >> 20) == R.T_SWAP
            need = tuple(_needs(agent, bs[x], seat, acts)[swaps]) if needs_only else ()
            groups.setdefault((agent.private(bs[x], seat), need), x)
        for (_, need), x in groups.items():
            plays = copy.copy(v.before).policy(bs[x])
            assert rows[x, :plays.size] == pytest.approx(plays, abs=1e-9)
            assert not rows[x, plays.size:].any()
            compared += 1
            acts = agent.legal(bs[x])
            swaps = (acts >> 20) == R.T_SWAP
            if needs_only and swaps.any() and not any(need):
                assert plays[swaps].sum() == 0.0  # cut: no discard
                cut += 1
                # the agent's own re-solve gives this state a discard (it cut only its own)
                differ += _as_read(v, bs[x], seat)[swaps].sum() > 1e-6
    assert compared >= 10
    if needs_only:
        assert cut >= 2 and differ >= 1  # a particle the old reading got wrong


def _needs(agent, state, seat, acts):
    """Agent Avenue's needed_moves hook at ``state`` (the moves ``seat``'s cards need)."""
    from spycfr.games.agent_avenue import leaf

    return leaf.needed_moves(agent.params, state, seat, acts)


def _as_read(view, state, seat):
    """The probabilities the agent's own re-solve at ``view`` gives ``state``'s private
    state (what LBR read for every particle before the cuts were its own)."""
    from spycfr.search.agentgame import _edges

    a = view.agent
    i = a.private(state, seat)
    acts = a.legal(state)
    nexts = [(a.public(nxt), a.private(nxt, seat)) for nxt in (a.after(state, int(x))
                                                                 for x in acts)]
    t = view.sol.tree
    on = _edges(t, 0, i, nexts)
    row = view.sol.strategy[t.row[0]][i]
    p = np.array([row[e] if e >= 0 else 0.0 for e in on])
    return p / p.sum() if p.sum() > 0 else np.full(len(acts), 1.0 / len(acts))
