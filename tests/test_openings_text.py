"""`spycfr openings` for players (issue 11): the columns explained, a ranking that treats
differences within the run's accuracy as ties, a summary in plain words per seat, and a
figure whose labels do not overlap."""

from __future__ import annotations

import json
import re
from itertools import combinations
from pathlib import Path

import pandas as pd
import pytest

from cli_helpers import spycfr
from spycfr.analysis.openings import openings_spec, openings_table, openings_words
from spycfr.games.agent_hunter.analysis import figures
from spycfr.runs import load_run


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("runs")
    out = {}
    for name, game in (("ah", "agent-hunter"), ("avenue", "agent-avenue")):
        code, _, err = spycfr("solve", game, "--preset", "tiny", "--algorithm", "pcfr+",
                              "--target-exploitability", "1e-5", "-o", str(root / name), "-q")
        assert code == 0, err
        out[name] = str(root / name)
    return out


def test_text_explains_columns_ranks_ties_and_says_it_in_words(runs):
    code, out, err = spycfr("openings", runs["ah"])
    assert code == 0, err
    flat = " ".join(out.split())
    assert out.count("Columns:") == 1 and "'tie'" in flat and "share a rank" in flat
    assert re.search(r"rank +placement +eq prob +BR value +eq value +loss", out)
    res = json.loads(spycfr("openings", runs["ah"], "--json")[1])
    for player in ("P1", "P2"):
        words = " ".join(res[player]["summary"])
        assert words.startswith(f"{player} uses the card sets ")
        paragraph = out.split(f"\n{player} placements")[1].split("In words: ")[1]
        assert " ".join(paragraph.split("\n\n")[0].split()) == words
        for cards in res[player]["card_sets"]:
            if cards["probability"] >= 0.005:
                assert f"{{{cards['cards']}}}" in words
        ranks = [r["rank"] for r in res[player]["placements"]]
        ties = [r for r in res[player]["placements"] if r["tie"]]
        assert ranks.count(1) == len(ties) >= 1  # every tie with the best shares rank 1
        table_ranks = re.findall(r"^\s+(\d+)\s+place:\S+\s", paragraph_table(out, player), re.M)
        assert [int(r) for r in table_ranks] == ranks


def paragraph_table(out: str, player: str) -> str:
    return out.split(f"\n{player} placements")[1].split("In words:")[0]


def test_losing_and_as_good_openings_are_named_with_their_cost(runs):
    run = load_run(runs["ah"])
    spec = openings_spec("agent-hunter")
    # a run pretending to be exact: every difference counts, so some placements lose value
    exact = openings_table(run.tree, run.strategy, 1e-12)
    for player in ("P1", "P2"):
        rows = exact[exact.player == player]
        words = " ".join(openings_words(rows, spec, player))
        losing = rows[~rows.tie]
        assert len(losing) >= 1 and "Losing value against the equilibrium opponent" in words
        for r in losing.nsmallest(3, "loss").itertuples():
            assert r.opening in words
        v, tol = rows.br_value.to_numpy(), rows.tolerance.to_numpy()
        assert sorted(rows["rank"]) == sorted(1 + (v[None, :] > v[:, None] + tol[:, None]).sum(1))
    # ties are judged with the run's own accuracy by default: NashConv at the root
    table = openings_table(run.tree, run.strategy, run.result.exploitability)
    assert table.tolerance.iloc[0] == pytest.approx(2 * run.result.exploitability)


def test_unplayed_ties_are_called_as_good():
    spec = openings_spec("agent-hunter")
    rows = pd.DataFrame({
        "player": "P1", "opening": ["place:0-1", "place:1-0", "place:0-2", "place:2-0"],
        "cards": ["0,1", "0,1", "0,2", "0,2"], "probability": [0.7, 0.3, 0.0, 0.0],
        "br_value": [0.1, 0.1, 0.0999, 0.05], "loss": [0.0, 0.0, 1e-4, 0.05],
        "tie": [True, True, True, False], "tolerance": 2e-4})
    words = openings_words(rows, spec, "P1")
    assert words[0] == "P1 uses the card sets {0,1} 100% (place:0-1 70%, place:1-0 30%)."
    assert words[1] == "As good, though the equilibrium does not play it: place:0-2."
    assert "place:2-0 (loses 0.0500)" in words[2]  # a loss, not a value ("(-0.0500)")


def test_situations_get_their_own_words(runs):
    res = json.loads(spycfr("openings", runs["avenue"], "--json")[1])
    summary = res["P1"]["summary"]
    situations = {r["situation"] for r in res["P1"]["first moves"]}
    assert len(summary) == len(situations)
    assert all(line.startswith("situation ") and " P1 plays " in line for line in summary)


def test_openings_figure_labels_do_not_overlap(runs, monkeypatch):
    run = load_run(runs["ah"])
    table = openings_table(run.tree, run.strategy, run.result.exploitability)
    table = table.assign(cards=table.opening.map(openings_spec("agent-hunter").group))
    captured = {}
    original = figures.save_figure

    def keep(fig, path):
        captured["fig"] = fig
        return original(fig, path)

    monkeypatch.setattr(figures, "save_figure", keep)
    v = run.result.value_p1
    eps = run.result.exploitability
    # make one placement lose visibly, to see a red bar and its label
    table.loc[3, ["loss", "tie"]] = [0.02, False]
    path = figures.openings_figure(table, {"P1": v, "P2": -v}, eps, run.path / "f.png")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    fig = captured["fig"]
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    renderer = FigureCanvasAgg(fig).get_renderer()
    fig.draw(renderer)
    for ax in fig.axes:
        texts = [t for t in ax.texts] + [t for t in ax.get_yticklabels() if t.get_text()]
        boxes = [t.get_window_extent(renderer) for t in texts]
        for (a, ta), (b, tb) in combinations(zip(boxes, texts, strict=True), 2):
            assert not a.overlaps(b), (ta.get_text(), tb.get_text())
        for t, box in zip(ax.texts, boxes, strict=False):  # value labels inside the axes
            assert ax.get_window_extent(renderer).contains(box.x0, box.y0), t.get_text()
    right = fig.axes[1]
    assert right.get_xlim()[1] >= 0.02  # the costliest placement fits


def test_the_quick_start_agrees_with_the_committed_mini_run(tmp_path):
    """The README's quick start (mini by PCFR+ to exploitability 1e-4) gives openings whose
    values agree with results/mini within the two runs' exploitabilities (the mixes may
    differ: in mini every placement ties, and many mixes are equilibria)."""
    run_dir = tmp_path / "mini"
    code, _, err = spycfr("solve", "agent-hunter", "--preset", "mini", "--algorithm", "pcfr+",
                          "--target-exploitability", "1e-4", "-o", str(run_dir), "-q")
    assert code == 0, err
    quick = json.loads(spycfr("openings", str(run_dir), "--json")[1])
    committed = json.loads(spycfr("openings", "results/mini", "--json")[1])
    eps = quick["run"]["exploitability"] + committed["run"]["exploitability"]
    assert quick["run"]["exploitability"] <= 1e-4
    assert abs(quick["run"]["value_p1"] - committed["run"]["value_p1"]) <= eps
    for player in ("P1", "P2"):
        mine = {r["opening"]: r for r in quick[player]["placements"]}
        for r in committed[player]["placements"]:
            assert abs(mine[r["opening"]]["br_value"] - r["br_value"]) <= 2 * eps
            assert mine[r["opening"]]["tie"] == r["tie"]
        for res in (quick, committed):  # the same advice in words: every placement ties
            assert res[player]["summary"][-1].startswith("Every placement is as good")


def test_an_unmeasured_sampled_run_points_to_measure():
    """A sampled run whose exploitability nothing measured (Agent Avenue standard-sampled):
    the caveat names the command that bounds it, `spycfr measure` (it pointed to
    head-to-head, which measures a match, not the run's exploitability)."""
    from spycfr.analysis.openings import sampled_caveat

    run = Path(__file__).resolve().parent.parent / "results" / "agent-avenue" / "standard-sampled"
    meta = json.loads((run / "run.json").read_text())
    assert not meta.get("measured")
    words = sampled_caveat(meta.get("measured"), None, meta.get("code"))
    assert "unknown (`spycfr measure` on this run bounds it from below" in words
    assert "head-to-head" not in words
    code, out, err = spycfr("openings", str(run))
    assert code == 0, err
    assert words in out
