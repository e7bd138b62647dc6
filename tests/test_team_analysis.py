"""Team runs for players: `spycfr query` from a seat's view answers from the TMECor plans
restricted to those consistent with the view (checked against a brute-force walk of the
tree), its weights and values add up to the run's value, and the report's section on how
teammates coordinate agrees with the plans."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from spycfr.analysis.team import load_team_run, team_query
from spycfr.cli.main import cli
from spycfr.errors import SpycfrError
from spycfr.games import make_variant, tree_labels
from spycfr.games.agent_avenue import team_record as TR
from spycfr.games.agent_avenue.record import random_playout

# End to end on two committed runs (results/agent-avenue): team-tiny, a 2v1 run by column
# generation (its mixtures have few plans, so the brute-force checks stay cheap), and the 2v2
# team-duo, whose teams mix 12 and 8 joint plans (so the weights given a view differ from the
# run's). test_agent_avenue_team solves a 2v1 variant afresh; solving one here too cost 40-65 s
# of HiGHS MILPs.
pytestmark = pytest.mark.slow

RESULTS = Path(__file__).resolve().parent.parent / "results" / "agent-avenue"
DUO = RESULTS / "team-duo"


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("team") / "run"
    shutil.copytree(RESULTS / "team-tiny", out)  # a copy: the report test writes report.md
    return load_team_run(out)


@pytest.fixture(scope="module")
def duo():
    loaded = load_team_run(DUO)
    assert min(len(w) for w in loaded.weights) >= 2
    return loaded


def _consistent(run, seat: int, key: str) -> set[int]:
    """Brute force: the team's plans that play every team move on the path to some node
    whose history the seat sees as ``key``."""
    tree = run.tree
    keys, _ = tree_labels(tree)
    team = int(tree.infoset_player[tree.infoset_seat == seat][0])
    parents = tree.parents()
    found = set()
    for v in np.flatnonzero(tree.node_player == team).tolist():
        i = int(tree.node_infoset[v])
        if int(tree.infoset_seat[i]) != seat or keys[i] != key:
            continue
        for k, plan in enumerate(run.plans[team]):
            node, ok = v, True
            while node > 0:
                up = int(parents[node])
                if int(tree.node_player[up]) == team:
                    ok &= int(plan[tree.node_infoset[up]]) == node - int(tree.first_child[up])
                node = up
            if ok:
                found.add(k)
    return found


def _views(run, seat: int, count: int):
    """Views of ``seat`` at its own decisions in sampled games."""
    variant = make_variant("agent-avenue", None, run.meta["variant"])
    rng = np.random.default_rng(seat)
    params = variant.to_params()
    from spycfr.games.agent_avenue import team_rules as T

    out = []
    while len(out) < count:
        actions = random_playout(variant, rng)
        s = T.initial_state(params)
        nxt = np.empty_like(s)
        for n, a in enumerate(actions):
            if T.current_player(s, params) in (0, 1) and T.current_seat(s, params) == seat:
                out.append(TR.format_record(variant, actions[:n], seat))
            T.apply_action(s, params, np.int32(a), nxt)
            s, nxt = nxt, s
    return out[:count]


@pytest.mark.parametrize("which, count", [("run", 10), ("duo", 6)])
def test_plans_are_those_consistent_with_the_seats_view(which, count, request):
    run = request.getfixturevalue(which)
    stats = {"subset": 0, "reweighted": 0}
    for seat, view in [(s, view) for s in range(run.tree.num_seats)
                       for view in _views(run, s, count)]:
        res = team_query(run, seat, view)
        assert {p["plan"] for p in res["plans"]} == _consistent(run, seat,
                                                                res["information_state"])
        if res["plans"] and res["opponents_reach"]:
            weights = np.array([p["weight_given_view"] for p in res["plans"]])
            assert abs(weights.sum() - 1) < 1e-9
            probs = {m["move"]: m["probability"] for m in res["moves"]}
            for move, p in probs.items():  # a move's probability: the plans that play it
                assert abs(p - sum(q["weight_given_view"] for q in res["plans"]
                                   if q["move"] == move)) < 1e-9
            assert res["position_value"] == pytest.approx(  # the plans' own values, weighted
                sum(p["weight_given_view"] * p["value"] for p in res["plans"]
                    if p["value"] is not None), abs=1e-9)
            played = [m for m in res["moves"] if m["probability"] > 0]
            assert res["position_value"] == pytest.approx(
                sum(m["probability"] * m["plan_value"] for m in played), abs=1e-9)
            if len(played) == 1:  # every consistent plan plays it: its value is the position's
                assert played[0]["value"] == pytest.approx(res["position_value"], abs=1e-9)
            assert all(m["plan_value"] is None for m in res["moves"] if m["probability"] == 0)
            stats["subset"] += len(res["plans"]) < len(run.weights[res["team"]])
            stats["reweighted"] += any(abs(p["weight_given_view"] - p["weight"]) > 1e-6
                                       for p in res["plans"])
    if which == "duo":  # views that rule plans out, and weights changed by what was seen
        assert stats["subset"] > 0 and stats["reweighted"] > 0


def test_first_decisions_add_up_to_the_run_value(run):
    """At the captain's first decision the weights given the view are the run's (the deal
    does not depend on plans), and the values weighted by reach give the TMECor value."""
    tree = run.tree
    keys, _ = tree_labels(tree)
    firsts = sorted({keys[i] for i in np.flatnonzero(tree.infoset_seat == 0).tolist()
                     if keys[i].count(" ") == 2})  # the three deals, then S1 decides
    total = reach = 0.0
    for key in firsts:
        res = team_query(run, 0, key)
        assert {p["plan"]: p["weight_given_view"] for p in res["plans"]} == pytest.approx(
            {k: float(w) for k, w in enumerate(run.weights[0])})
        total += res["reach_probability"] * res["position_value"]
        reach += res["reach_probability"]
    assert reach == pytest.approx(1.0) and total == pytest.approx(run.meta["value_team0"],
                                                                  abs=1e-9)


def test_query_refusals_and_the_cli(run):
    view = "S1:deal:EN.CB S2:deal:? S3:deal:?"
    with pytest.raises(SpycfrError, match="after this record S1 is to move, not S2"):
        team_query(run, 1, "S1:deal:? S2:deal:EN.CB S3:deal:?")
    with pytest.raises(SpycfrError, match="S4 is not a seat of this run"):
        team_query(run, 3, view)
    runner = CliRunner()
    r = runner.invoke(cli, ["query", str(run.path), view, "--as", "S1", "--json"])
    assert r.exit_code == 0, r.output
    res = json.loads(r.output)
    assert res["seat"] == "S1" and "TMECor plans" in res["source"]
    assert [m["record"] for m in res["moves"]] == ["S1:lead:S1", "S1:lead:S2"]
    r = runner.invoke(cli, ["query", str(run.path), view, "--as", "S1"])
    assert "source: the run's TMECor plans" in r.output and "consistent plans" in r.output
    r = runner.invoke(cli, ["query", str(run.path), view, "--as", "P1"])
    assert isinstance(r.exception, SpycfrError) and "is a team run" in str(r.exception)


def test_report_section_on_coordination_agrees_with_the_plans(run):
    r = CliRunner().invoke(cli, ["report", str(run.path)])
    assert r.exit_code == 0, r.output
    text = (run.path / "report.md").read_text()
    assert "## How teammates coordinate" in text and "Team 1 (S3) is a lone player" in text
    rows = re.findall(r"^\| `([A-Z.]+)` \| `([A-Z.]+)` \| ([\d.]+)% \| ([\d.]+)% \| (.+) \|$",
                      text, re.M)
    assert len(rows) == 9  # every pair of hands of two cards of EN, CB
    assert sum(float(r[2]) for r in rows) == pytest.approx(100, abs=0.1)
    for s1, s2, _, lead, choices in rows:
        hands = {"S1": s1.split("."), "S2": s2.split(".")}
        shares = re.findall(r"(S\d) up (\w\w), (S\d) down (\w\w) \(([\d.]+)%\)", choices)
        assert sum(float(x[4]) for x in shares) == pytest.approx(100, abs=0.2)
        assert float(lead) == pytest.approx(sum(float(x[4]) for x in shares if x[0] == "S1"),
                                            abs=0.2)
        for up_seat, up, down_seat, down, _ in shares:  # each card from its player's hand
            assert up in hands[up_seat] and down in hands[down_seat] and up_seat != down_seat
    # the captain's share of first turns: the deals' shares where it leads
    m = re.search(r"the captain S1 in ([\d.]+)% of team 0's first turns", text)
    assert float(m.group(1)) == pytest.approx(
        sum(float(r[2]) * float(r[3]) / 100 for r in rows), abs=0.2)


def _play(run, seat: int, seed: int, follow: bool):
    """A game as ``seat`` that plays what the team's plan says (or, where it can, another
    move), reading the advice from the lines said."""
    from spycfr.analysis.play import Moves
    from spycfr.analysis.team_play import play_team_game

    said: list[str] = []

    def lines():
        for _ in range(100):  # a game has far fewer moves: a refused move fails the test
            advice = [x for x in said if x.startswith("your team's plan: ")][-1]
            move = advice.split(": ", 1)[1]
            at = max(n for n, x in enumerate(said) if x.startswith("your moves ("))
            listed = said[at + 1:]  # this decision's numbered moves
            if not follow:
                others = [m for x in listed if x.startswith("  ")
                          for m in re.findall(r"\d+ (\S+)", x) if m != move]
                move = others[0] if others else move
            yield move

    result = play_team_game(str(run.path), seat, seed, Moves(lines(), echo=False),
                            said.append, run=run)
    return result, said


def test_play_in_a_team_seat_follows_or_leaves_the_drawn_plan(run):
    """The player is told its team's drawn plan; following it, every move is the best there
    (every plan of a TMECor is a best response to the other team's mixture) and its value is
    the plan's value given the view that query gives; leaving it is reported."""
    for seed in range(4):
        result, said = _play(run, 1, seed, follow=True)
        assert not result["abandoned"] and result["payoff"] in (-1.0, 1.0)
        assert any(x.startswith("S1 saw: ") for x in said)
        k = result["plans_drawn"][0]
        for row in result["review"]:
            assert row["followed"] and row["move"] == row["plan_move"]
            if row["value"] is None:
                continue
            assert row["loss"] <= 1e-9
            plans = {p["plan"]: p["value"] for p in team_query(run, 1, row["view"])["plans"]}
            assert row["plan_value"] == pytest.approx(plans[k], abs=1e-9)
    left = [_play(run, 0, seed, follow=False)[0] for seed in range(4)]
    rows = [r for res in left for r in res["review"]]
    assert any(not r["followed"] for r in rows)
    assert all(r["loss"] >= -1e-9 for r in rows if r["value"] is not None)


def test_play_cli_on_a_team_run(run, tmp_path):
    moves = tmp_path / "moves"
    moves.write_text("1\n" * 20)
    r = CliRunner().invoke(cli, ["play", str(run.path), "--seat", "S3", "--seed", "1",
                                 "--moves", str(moves), "--json"])
    assert r.exit_code == 0, r.output
    res = json.loads(r.output.strip().splitlines()[-1])
    assert res["seat"] == "S3" and res["team"] == 1 and res["seed"] == 1
    r = CliRunner().invoke(cli, ["play", str(run.path), "--seat", "P1"])
    assert isinstance(r.exception, SpycfrError) and "is a team run" in str(r.exception)
