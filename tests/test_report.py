"""`spycfr report`: the markdown strategy report and its figures.

Numbers in the report are checked against the run's own metadata, against values known
independently (Kuhn's -1/18, the LP value of a tiny Agent Hunter variant), against the
plain-Python best-response twin (tests/reference.py), and, for the play statistics of
Agent Hunter, against a walk of the Python game protocol that reads attack answers off
the game records (rulesheet notation), not off the numba state.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from matplotlib.image import imread

from cli_helpers import spycfr
from reference import reference_best_response, reference_expected_value
from spycfr.analysis.report import write_report
from spycfr.exact.lp import solve_lp
from spycfr.games import make_game
from spycfr.games.agent_hunter.analysis.report import agent_hunter_stats
from spycfr.runs import SolveConfig, load_run, solve_run

# End to end: solves runs and writes their reports (the fast tier's report check is
# tests/test_adda_records.py::test_report_sections_of_a_solved_run).
pytestmark = pytest.mark.slow

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
AH_SECTIONS = ("## Optimal openings", "## How the game is played at equilibrium",
               "## How attacks fare", "## What each kind of move is worth",
               "### How games end at equilibrium")
COMMON_SECTIONS = ("## Headline numbers", "## Convergence", "## Best responses",
                   "## What a player can learn")


def _solve(tmp: Path, name: str, game: str, preset, params: dict, iterations: int) -> Path:
    out = tmp / name
    solve_run(SolveConfig(game, preset, params, iterations=iterations, check_every=50), out)
    return out


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("report")
    tiny = _solve(tmp, "tiny", "agent-hunter", "tiny", {}, 300)
    h1 = _solve(tmp, "h1", "agent-hunter", None,
                {"cards": 3, "houses": 1, "decoys": 1, "max_turns": 3, "payoff": "margin"}, 300)
    kuhn = _solve(tmp, "kuhn", "kuhn", None, {}, 400)
    # Agent Hunter through the library, with figures in a folder of our choosing ...
    tiny_md = write_report(load_run(tiny), tmp / "out" / "tiny.md", tmp / "out" / "figs")
    h1_md = write_report(load_run(h1), tmp / "out" / "h1.md")
    # ... and Kuhn through the command line, with its default output RUN_DIR/report.md.
    code, out, err = spycfr("report", str(kuhn))
    assert code == 0, err
    assert "report.md" in out
    return {"tiny": (tiny, tiny_md), "h1": (h1, h1_md), "kuhn": (kuhn, kuhn / "report.md")}


def _num(text: str) -> float:
    return float(text.replace("−", "-").replace("+", ""))


def _row(md: str, first_cell: str) -> list[str]:
    """Cells of the first table row whose first cell is ``first_cell``."""
    for line in md.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and cells[0] == first_cell:
            return cells
    raise AssertionError(f"no table row {first_cell!r}")


def _section(md: str, heading: str) -> str:
    start = md.index(heading)
    nxt = md.find("\n## ", start + len(heading))
    return md[start:] if nxt < 0 else md[start:nxt]


def _decimals(cell: str) -> int:
    return len(cell.split(".")[1])


@pytest.mark.parametrize("name", ["tiny", "h1", "kuhn"])
def test_files_exist_and_figures_are_png(runs, name):
    _, md_path = runs[name]
    md = md_path.read_text()
    links = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", md)
    expected = {"convergence.png"} | ({"openings.png", "turns.png"} if name != "kuhn" else set())
    assert {Path(link).name for link in links} == expected
    for link in links:
        assert not Path(link).is_absolute()  # the report can be moved with its folder
        png = md_path.parent / link
        assert png.read_bytes()[:8] == PNG_MAGIC
        image = imread(png)
        assert image.ndim == 3 and image.shape[0] > 200 and image.shape[1] > 300
        # nothing half-written is left behind by the atomic writes
        assert not [p for p in png.parent.iterdir() if p.name.endswith(".tmp")]
    if name == "tiny":
        assert all(link.startswith("figs/") for link in links)
    if name == "h1":
        assert all(link.startswith("h1_files/") for link in links)


@pytest.mark.parametrize("name", ["tiny", "h1", "kuhn"])
def test_headline_numbers_are_the_runs(runs, name):
    run_dir, md_path = runs[name]
    md = md_path.read_text()
    meta = load_run(run_dir).result
    value, eps = meta.value_p1, meta.exploitability
    row = _row(md, "value of the game for P1")
    d = _decimals(row[1])
    assert abs(_num(row[1]) - value) <= 0.5 * 10 ** -d + 1e-12
    assert abs(_num(_row(md, "value of the game for P2")[1]) + value) <= 0.5 * 10 ** -d + 1e-12
    # the exploitability is stated beside every value
    for label in ("value of the game for P1", "value of the game for P2",
                  "first-player advantage (P1's value − P2's value)"):
        stated = _row(md, label)[2]
        assert stated.startswith("exploitability ")
        assert _num(stated.split()[1]) == pytest.approx(eps, rel=5e-3)
    lo, hi = (_num(x) for x in _row(md, "exact game value for P1 lies in")[1].strip("[]")
              .split(","))
    assert lo == pytest.approx(-meta.best_response_p2, abs=10 ** -d)
    assert hi == pytest.approx(meta.best_response_p1, abs=10 ** -d)
    gains = _section(md, "## Best responses")
    assert _num(_row(gains, "P1")[3]) == pytest.approx(meta.best_response_p1 - value, rel=5e-3)


def test_certified_interval_holds_the_true_value(runs):
    """Kuhn's value is -1/18; the LP gives tiny's. Both must lie in the stated interval."""
    for name, truth in (("kuhn", -1 / 18), ("tiny", None)):
        run_dir, md_path = runs[name]
        if truth is None:
            truth = solve_lp(load_run(run_dir).tree).value_p1
        cell = _row(md_path.read_text(), "exact game value for P1 lies in")[1]
        lo, hi = (_num(x) for x in cell.strip("[]").split(","))
        slack = 0.5 * 10 ** -_decimals(cell.split(",")[0])
        assert lo - slack <= truth <= hi + slack


def test_sections_by_game(runs):
    for name in ("tiny", "h1", "kuhn"):
        md = runs[name][1].read_text()
        for heading in COMMON_SECTIONS:
            assert heading in md
        for heading in AH_SECTIONS:
            assert (heading in md) == (name != "kuhn"), (name, heading)
        assert ("### The whole strategy" in md) == (name == "kuhn")
    kuhn = runs["kuhn"][1].read_text()
    assert "Kuhn poker" in kuhn and "Agent Hunter" not in kuhn
    h1 = runs["h1"][1].read_text()
    assert "the VP margin" in h1 and "arrangement (house" not in h1  # one house
    tiny = runs["tiny"][1].read_text()
    assert "arrangement (house 1 … house 2)" in tiny
    # every takeaway line is a bullet with content
    takeaways = _section(tiny, "## What a player can learn").splitlines()
    bullets = [line for line in takeaways if line.startswith("- ")]
    assert len(bullets) >= 4 and all(len(b) > 20 for b in bullets)


def test_random_opponent_numbers_match_the_reference(runs):
    run_dir, md_path = runs["kuhn"]
    run = load_run(run_dir)
    tree = run.tree
    md = _section(md_path.read_text(), "## Best responses")
    uniform = tree.uniform_strategy()
    table = md[md.index("Against a uniformly random opponent"):]
    for p, name in ((0, "P1"), (1, "P2")):
        row = _row(table, name)
        d = _decimals(row[1])
        mixed = uniform.copy()
        mine = tree.infoset_player == p
        mixed[mine] = run.strategy[mine]
        sign = 1 if p == 0 else -1
        assert _num(row[1]) == pytest.approx(sign * reference_expected_value(tree, mixed),
                                             abs=10 ** -d)
        assert _num(row[2]) == pytest.approx(reference_best_response(tree, uniform, p)[0],
                                             abs=10 ** -d)
        assert _num(row[3]) == pytest.approx(sign * reference_expected_value(tree, uniform),
                                             abs=10 ** -d)
    # a random P2 lets P1's best response bet K, call with K only: +0.5 (hand-checkable)
    assert _num(_row(table, "P1")[2]) == pytest.approx(0.5, abs=1e-6)


def _python_walk(run):
    """Expected counts of each move type per player, attack answers, P1 outcomes: a walk of
    the Python game protocol, answers read from the full record (rulesheet notation)."""
    tree, strategy = run.tree, run.strategy
    game = make_game("agent-hunter", run.result.preset, run.result.config.params)
    moves = np.zeros((2, 5))  # place, hand, switch, house, refill
    answers = np.zeros((2, 2, 3))  # [player, hand/house, lo/eq/hi]
    outcome = np.zeros(3)
    kinds = ("place", "hand", "switch", "house", "refill")
    stack = [(0, game.new_initial_state(), 1.0)]
    while stack:
        n, state, reach = stack.pop()
        if tree.num_children[n] == 0:
            u = state.returns()[0]
            outcome[0 if u > 0 else 2 if u < 0 else 1] += reach
            continue
        p, j = state.current_player(), tree.node_infoset[n]
        for a, code in enumerate(state.legal_actions()):
            w = reach * strategy[j, a]
            if w <= 0:
                continue
            kind = state.action_label(code).split(":")[0]
            moves[p, kinds.index(kind)] += w
            child = state.child(code)
            if kind in ("hand", "house"):
                token = child.record().split()[-1]  # e.g. hand:2>1:hi, house:1=0>2:lo+hand
                answer = token.split(":")[2][:2]
                answers[p, int(kind == "house"), ("lo", "eq", "hi").index(answer)] += w
            stack.append((tree.first_child[n] + a, child, w))
    return moves, answers, outcome


def test_play_statistics_match_a_walk_of_the_game(runs):
    run_dir, md_path = runs["tiny"]
    run = load_run(run_dir)
    moves, answers, outcome = _python_walk(run)
    st = agent_hunter_stats(run.tree, run.strategy)
    assert np.allclose(st.usage.sum(axis=1)[:, 1:], moves[:, 1:], atol=1e-12)
    assert np.allclose(st.hand.sum(axis=1), answers[:, 0], atol=1e-12)
    assert np.allclose(st.house.sum(axis=1), answers[:, 1], atol=1e-12)
    assert np.allclose(st.outcome, outcome, atol=1e-12)
    assert moves[:, 0].tolist() == pytest.approx([1.0, 1.0])  # each player places once
    md = md_path.read_text()
    play = _section(md, "## How the game is played at equilibrium")
    for line in play.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if line.startswith("| P") and cells[1] in ("hand attack", "switch", "house attack"):
            p = ("P1", "P2").index(cells[0])
            t = ("hand attack", "switch", "house attack").index(cells[1]) + 1
            assert float(cells[2]) == pytest.approx(moves[p, t], abs=5e-4)
    wins = _row(md, "P1 wins")[1]
    assert float(wins.rstrip("%")) == pytest.approx(100 * outcome[0], abs=0.05)


def test_placement_table_is_the_root_strategy(runs):
    run_dir, md_path = runs["tiny"]
    run = load_run(run_dir)
    labels = run.tree.action_labels[0]
    section = _section(md_path.read_text(), "## Optimal openings")
    p1 = section[section.index("### P1's placements"):section.index("### P2's placements")]
    total = 0.0
    for a, label in enumerate(labels):
        cell = _row(p1, label)[3]
        assert float(cell.strip("%<")) == pytest.approx(100 * run.strategy[0, a], abs=0.05)
        total += run.strategy[0, a]
    assert total == pytest.approx(1.0)


def _one_line_error(*args: str) -> str:
    code, out, err = spycfr("report", *args)
    assert code == 2, (code, out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in err
    return lines[0]


def test_errors(runs, tmp_path):
    kuhn = str(runs["kuhn"][0])
    assert "does not exist" in _one_line_error(str(tmp_path / "nowhere"), "-o",
                                               str(tmp_path / "r.md"))
    (tmp_path / "empty").mkdir()
    assert "not a run directory" in _one_line_error(str(tmp_path / "empty"), "-o",
                                                    str(tmp_path / "r.md"))
    blocker = tmp_path / "file.txt"
    blocker.write_text("x")
    assert "is a file, not a directory" in _one_line_error(kuhn, "-o", str(blocker / "report.md"))
    assert "is a directory" in _one_line_error(kuhn, "-o", str(tmp_path))
    # a missing folder is refused, not made: one rule for every -o FILE (solver.io)
    missing = tmp_path / "a" / "b" / "c"
    assert f"its folder {str(missing)!r} does not exist" in _one_line_error(
        kuhn, "-o", str(missing / "report.md"))
    assert not (tmp_path / "a").exists()
    assert not (tmp_path / "file.txt_files").exists()
