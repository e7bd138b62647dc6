"""The openings as a matrix game (spycfr.search.openings): the LP, Agent Hunter's symmetry
classes, the table's games (the rollouts hook's, resumable, seeded) and the agent opening
with the table (tiny: cheap games)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from cli_helpers import spycfr
from spycfr.games import get_plugin
from spycfr.games.agent_hunter.leaf import opening_classes
from spycfr.search import openings as O


def _saddle(a, x, y, v):
    """Neither seat gains by any pure deviation from (x, y); v is the value."""
    assert (x @ a).min() >= v - 1e-7 and (a @ y).max() <= v + 1e-7
    assert abs(x @ a @ y - v) < 1e-7


def test_the_lp_solves_known_matrix_games():
    rps = np.array([[0, -1, 1], [1, 0, -1], [-1, 1, 0]], float)
    x, y, v = O.solve_matrix(rps)
    assert abs(v) < 1e-9 and np.allclose(x, 1 / 3) and np.allclose(y, 1 / 3)
    # a saddle point: row 1 column 0 (value 2); and a random game's equilibrium holds
    x, y, v = O.solve_matrix(np.array([[1.0, 5.0], [2.0, 3.0]]))
    assert abs(v - 2) < 1e-9 and np.allclose(x, [0, 1]) and np.allclose(y, [1, 0])
    a = np.random.default_rng(3).normal(size=(7, 5))
    _saddle(a, *O.solve_matrix(a))


def test_agent_hunter_registers_its_opening_classes():
    plugin = get_plugin("agent-hunter")
    assert plugin.opening_classes is opening_classes
    cls, names = opening_classes(plugin.make_variant("standard", {}))
    assert cls.size == 721 and len(names) == 121 and names[-1] == "not placed yet"
    assert (np.bincount(cls[:720]) == 6).all() and cls[720] == 120  # a set in 3! orders
    assert names[0] == "0,1,2" and "7,8,9" in names


@pytest.fixture(scope="module")
def tiny():
    variant = get_plugin("agent-hunter").make_variant("tiny", {}).as_dict()
    return O.OpeningGame.of("agent-hunter", variant)


def test_the_tiny_openings_and_an_entry_by_hand(tiny):
    assert tiny.shape() == (3, 3, 2) and tiny.names[0] == ["0,1", "0,2", "1,2"]
    assert all(m.size == 2 for s in (0, 1) for m in tiny.members[s])
    u = O.play_table(tiny, 8, seed=5)
    # entry (class 1, class 2, hunter, switcher), half 0: the same games played directly
    rng = np.random.default_rng(5)
    seeds, u0, u1 = rng.integers(0, 2**31 - 1, 8), rng.random(8), rng.random(8)
    r, c = tiny.members[0][1], tiny.members[1][2]
    i0, i1 = r[(u0 * 2).astype(int)][:4], c[(u1 * 2).astype(int)][:4]
    out = np.empty(4)
    tiny.rollouts(tiny.pub[None], tiny.params, np.zeros(4, np.int64), i0, i1,
                  np.full(4, tiny.styles[0]), np.full(4, tiny.styles[1]), seeds[:4], out)
    assert u[0, 1, 2, 0, 1] == pytest.approx(out.mean())
    assert np.array_equal(u, O.play_table(tiny, 8, seed=5))  # seeded
    assert not np.array_equal(u, O.play_table(tiny, 8, seed=6))


def test_the_table_resumes_from_its_partial_file(tiny, tmp_path):
    partial = tmp_path / "p.npz"
    u = O.play_table(tiny, 4, seed=1, partial=partial)
    with np.load(partial) as z:
        meta, done, sums = z["meta"], int(z["done"]), z["sums"]
    assert done == 3
    # a partial file with one row done: the rest is played, the row read back as saved
    fake = sums.copy()
    fake[:, 0] += 10.0
    fake[:, 1:] = 0.0
    np.savez(partial, meta=meta, done=np.array(1), sums=fake)
    again = O.play_table(tiny, 4, seed=1, partial=partial)
    assert np.allclose(again[:, 0], u[:, 0] + 5.0) and np.array_equal(again[:, 1:], u[:, 1:])
    # other settings: the file is ignored
    assert np.array_equal(O.play_table(tiny, 4, seed=2, partial=partial),
                          O.play_table(tiny, 4, seed=2))


def test_the_equilibrium_and_its_saved_table(tiny, tmp_path):
    table = O.OpeningTable.make(tiny, 16, seed=0)
    a = O.matrix(table.u)
    _saddle(a, table.eq.x.ravel(), table.eq.y.ravel(), table.eq.value)
    p = table.private_mixture(0, 7)
    assert p[6] == 0 and abs(p.sum() - 1) < 1e-12
    for c, rows in enumerate(table.members[0]):  # a class's members equally likely
        assert np.allclose(p[rows], table.eq.classes(0)[c] / 2)
    v = table.private_values(1, 7)
    best = O.class_values(table.u, table.eq, 1)
    assert np.isnan(v[6]) and best.max() <= -table.eq.value + 1e-9
    check = table.check
    assert len(check["value_half"]) == 2 and all(0 <= d <= 1 for d in check["tv_distance"])
    table.save(tmp_path / "t.npz")
    back = O.OpeningTable.load(tmp_path / "t.npz")
    assert back.eq.value == table.eq.value and back.names == table.names
    assert np.allclose(back.u, table.u, atol=1e-6) and back.meta["games_per_entry"] == 16
    assert all(np.array_equal(x, y) for x, y in zip(back.members[1], table.members[1],
                                                     strict=True))


@pytest.mark.slow
def test_train_openings_makes_the_agent_open_with_the_mixture(tmp_path):
    run = str(tmp_path / "tiny-agent")
    code, _, err = spycfr("solve", "agent-hunter", "--preset", "tiny", "--algorithm",
                          "re-solving", "--iterations", "20", "-o", run, "-q")
    assert code == 0, err
    code, _, err = spycfr("train-openings", run, "--games", "3")
    assert code == 2 and "even number" in err and err.count("\n") == 1
    code, out, err = spycfr("train-openings", run, "--games", "16", "--opening-range",
                            "mixture")
    assert code == 0, err
    assert "value for P1" in out and "card sets in the support" in out
    meta = json.loads(open(f"{run}/run.json").read())
    assert meta["agent"]["opening_file"] == "openings-table.npz"
    assert meta["agent"]["opening_range"] == "mixture"
    assert "openings-table.npz" in meta["files"]
    from spycfr.provenance import code_version

    assert meta["code"] == code_version()  # the code that made the agent as it now opens
    from spycfr.runs.agent_run import load_agent
    from spycfr.search.agentgame import OPENING_FLOOR

    agent = load_agent(run)
    table = agent.openings
    mix = [table.private_mixture(s, agent.model.n[s]) for s in (0, 1)]
    g = agent.game(0)
    state = agent.initial()
    probs = g.policy(state)
    places = agent.legal(state)
    want = [mix[0][agent.private(agent.after(state, int(a)), 0)] for a in places]
    assert np.allclose(probs, want) and g.solves == 0  # no re-solve at the placement
    plan = agent.plan()  # not solved: the table's strategy, its reaches and values
    assert plan.iterations == 0
    assert np.allclose(plan.reach[1][-1, :6] / plan.reach[1][-1, :6].sum(), mix[1][:6])
    br = float(agent.model.weights[1] @ plan.best[1][0])
    assert br >= float(agent.model.weights[1] @ plan.values[1][0]) - 1e-12
    # the agent as P2: P1's placement seen, its own placement from the mixture too, and P1's
    # range the table's mixture with every placement still possible
    h = agent.game(1)
    after = agent.after(state, int(places[-1]))
    probs = h.policy(after)
    want = [mix[1][agent.private(agent.after(after, int(a)), 1)] for a in agent.legal(after)]
    assert np.allclose(probs, want)
    h.observe(agent.after(after, int(agent.legal(after)[0])))
    floor = OPENING_FLOOR
    assert np.allclose(h.support[:6], (1 - floor) * mix[0][:6] / mix[0].max() + floor)
    code, out, err = spycfr("openings", run, "--json")
    assert code == 0, err
    shown = json.loads(out)
    for seat, p in enumerate(("P1", "P2")):
        rows = shown[p]["top"]
        assert abs(sum(r["probability"] for r in rows) - 1) < 1e-9
        assert len(rows) == shown[p]["support"] == (table.eq.classes(seat) > 1e-9).sum()
        # the most played set's value: the seat's value (it is in the equilibrium's support)
        sign = 1 if seat == 0 else -1
        assert rows[0]["value"] == pytest.approx(sign * shown["value_p1"], abs=1e-6)
    code, out, err = spycfr("openings", run)
    assert code == 0, err
    assert "solved as a matrix game" in out and "card set" in out and "eq prob" in out
    # the sets played are worth the same: the ranks say how often, not how good
    for p in ("P1", "P2"):
        values = [r["value"] for r in shown[p]["top"]]
        tied = len(values) > 1 and max(values) - min(values) <= 1e-9
        line = " ".join(out.split(f"{p}: ", 1)[1].split("rank", 1)[0].split())
        assert ("rank is by probability, not by value" in line) == tied
    code, _, err = spycfr("report", run, "-o", str(tmp_path / "report.md"))
    assert code == 0, err
    report = (tmp_path / "report.md").read_text()
    assert "opens with the equilibrium mixture" in report and "| card set |" in report


def test_an_agent_with_a_table_says_its_first_plan_is_the_tables(tiny, tmp_path):
    """The first plan's line names the openings table and no node-state budget (there is
    none: the table plays the openings), not 'solved ... at most 0 node-states'."""
    from spycfr.search.agent import AgentConfig, SearchAgent

    path = tmp_path / "t.npz"
    O.OpeningTable.make(tiny, 16, seed=0).save(path)
    lines: list[str] = []
    variant = get_plugin("agent-hunter").make_variant("tiny", {}).as_dict()
    agent = SearchAgent("agent-hunter", variant, AgentConfig(iterations=5,
                                                             opening_file=str(path)),
                        lines.append)
    agent.plan()
    assert lines[0] == ("the first plan (the openings table's, built once per agent): "
                        "building its public tree (2 decision levels)")
    assert not any("node-states" in x for x in lines)


@pytest.mark.parametrize(("plan_endgame", "clause"), [
    (0, ""), (5000, ", or to the end of the game where that takes at most 5,000 node-states")])
def test_a_first_plan_with_no_endgame_budget_names_none(plan_endgame, clause):
    """--plan-endgame 0 (Agent Avenue standard's): the line names no budget, not 'or to the
    end of the game where that takes at most 0 node-states' (seen on the README's query)."""
    from spycfr.search.agent import AgentConfig, SearchAgent

    lines: list[str] = []
    variant = get_plugin("agent-avenue").make_variant("tiny", {}).as_dict()
    agent = SearchAgent("agent-avenue", variant,
                        AgentConfig(iterations=2, plan_endgame=plan_endgame), lines.append)
    agent.plan()
    assert lines[0] == ("the first plan (solved once per agent): building its public tree "
                        f"(2 decision levels{clause})")


def test_an_agent_values_the_openings_it_plays_by_its_table(tiny, tmp_path):
    """At the openings the agent plays by its table (query, play's review), each opening's
    value is the table's (against the other seat's mixture, continuing best), not its first
    plan's leaves valued otherwise: on results/standard those read +1.0 for P1's 0-1-2 and
    +0.82 for P2's, where the table says -0.0161 and +0.0161 for every set played."""
    from spycfr.search.agent import AgentConfig, SearchAgent

    path = tmp_path / "t.npz"
    O.OpeningTable.make(tiny, 16, seed=0).save(path)
    variant = get_plugin("agent-hunter").make_variant("tiny", {}).as_dict()
    agent = SearchAgent("agent-hunter", variant, AgentConfig(iterations=5,
                                                             opening_file=str(path)))
    table = agent.openings
    state = agent.initial()
    for seat in (0, 1):
        # the agent's own opening (a query's) and the opponent's (a review's)
        for g in (agent.game(seat), agent.game(1 - seat)):
            info = g.move_info(state, seat)
            assert info.from_table
            want = table.private_values(seat, agent.model.n[seat])
            after = [agent.private(agent.after(state, int(a)), seat) for a in info.actions]
            assert np.allclose(info.values, want[after], equal_nan=True)
            # the sets the table plays all tie, at the seat's value of the table's game
            played = info.probs > 1e-9
            sign = 1 if seat == 0 else -1
            assert np.allclose(info.values[played], sign * table.eq.value, atol=1e-9)
            assert info.value == pytest.approx(sign * table.eq.value, abs=1e-9)
        state = agent.after(state, int(info.actions[0]))


def test_a_damaged_openings_table_is_a_one_line_error(tiny, tmp_path):
    from spycfr.errors import SpycfrError

    path = tmp_path / "openings-table.npz"
    O.OpeningTable.make(tiny, 16, seed=0).save(path)
    path.write_bytes(path.read_bytes()[:200])
    with pytest.raises(SpycfrError, match=r"unreadable or corrupt \(.*\): make it again with "
                                          r"`spycfr train-openings "):
        O.OpeningTable.load(path)


def test_openings_and_report_check_the_table_against_run_json(tiny, tmp_path):
    """`spycfr openings` and `spycfr report` read the agent's openings table only where it is
    the file run.json vouches for (its sha256, as every other run file is checked) and is
    for the run's game and variant: a changed or another run's table is one line naming
    the file and how to make it again, exit 2 (they printed the stale table's openings).
    `spycfr play` and `spycfr query`, which load the agent, refuse it with the same line
    (they checked the variant only, and played a changed table)."""
    import shutil
    from pathlib import Path

    from spycfr.compiling import COMPILING
    from test_faults import one_line_error

    run = tmp_path / "standard"
    shutil.copytree(Path(__file__).resolve().parent.parent / "results" / "standard", run)
    table = run / "openings-table.npz"
    report = str(tmp_path / "report.md")
    moves = tmp_path / "moves.txt"
    moves.write_text("")
    commands = [["openings", str(run)], ["openings", str(run), "--json"],
                ["report", str(run), "-o", report]]
    agents = [["query", str(run), "--seat", "P1"], ["play", str(run), "--moves", str(moves)]]
    for args in commands:
        code, _, err = spycfr(*args)
        assert code == 0, err

    def refused(fragment: str) -> set[str]:
        """Each command's one line, which has ``fragment`` (numba's notice that it
        compiles, a line of its own, not counted); the lines, the same for every command."""
        said = {one_line_error(args, fragment) for args in commands}
        for args in agents:
            code, _, err = spycfr(*args)
            lines = [x for x in err.strip().splitlines() if x != COMPILING]
            assert code == 2 and len(lines) == 1, err
            said.add(lines[0])
        assert len(said) == 1, said
        return said

    with np.load(table) as z:
        arrays = dict(z)
    np.savez(table, **{**arrays, "value": np.array(0.5)})  # the same table, another value
    for line in refused(f"the openings table {str(table)!r} is not the one run.json records "
                        "(its sha256 differs"):
        assert f"make it again with `spycfr train-openings {run}`" in line
    O.OpeningTable.make(tiny, 16, seed=0).save(table)  # another variant's, no hash recorded
    meta = json.loads((run / "run.json").read_text())
    del meta["files"]["openings-table.npz"]
    (run / "run.json").write_text(json.dumps(meta))
    for line in refused(f"the openings table {str(table)!r} is for agent-hunter cards=3 "
                        "houses=2"):
        assert "not this run's agent-hunter cards=10 houses=3" in line
        assert "spycfr train-openings" in line
