"""`spycfr play`: seeded games against a run's strategy, read move by move from a file or
stdin, with hidden information kept hidden, bad input re-prompted, and an exact review of
the player's moves (the values `spycfr query` gives at the same positions)."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import numpy as np
import pytest

from cli_helpers import spycfr
from spycfr.compiling import COMPILING

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Small solved runs: Agent Hunter tiny, Agent Avenue tiny and Kuhn poker."""
    root = tmp_path_factory.mktemp("runs")
    out = {}
    for name, args in (("ah", ("agent-hunter", "--preset", "tiny")),
                       ("avenue", ("agent-avenue", "--preset", "tiny")),
                       ("kuhn", ("kuhn",))):
        code, _, err = spycfr("solve", *args, "--algorithm", "pcfr+",
                              "--target-exploitability", "1e-5", "-o", str(root / name), "-q")
        assert code == 0, err
        out[name] = str(root / name)
    return out


def play(tmp_path, run_dir: str, moves: list[str], *args: str) -> tuple[int, str, str]:
    path = tmp_path / "moves.txt"
    path.write_text("".join(f"{m}\n" for m in moves))
    return spycfr("play", run_dir, "--moves", str(path), *args)


def play_json(tmp_path, run_dir: str, moves: list[str], *args: str) -> tuple[dict, str]:
    code, out, err = play(tmp_path, run_dir, moves, "--json", *args)
    assert code == 0, err
    return json.loads(out), err


def test_a_seeded_game_is_reproducible_and_ends_with_a_result(runs, tmp_path):
    code, first, err = play(tmp_path, runs["ah"], ["1"] * 30, "--seed", "7")
    assert code == 0, err
    code, second, _ = play(tmp_path, runs["ah"], ["1"] * 30, "--seed", "7")
    assert first == second
    assert "you are P1" in first and "seed 7" in first
    assert re.search(r"^result: (you win|you lose|a draw) \(P1's payoff [+-]\d", first, re.M)
    assert "the whole record: place:" in first and "review of your moves" in first
    games = {json.dumps(play_json(tmp_path, runs["ah"], ["1"] * 30, "--seed", str(s))[0]
                        ["record"]) for s in range(6)}
    assert len(games) > 1  # the program's sampled moves depend on the seed


@pytest.mark.parametrize("seat", ["P1", "P2"])
def test_hidden_information_stays_hidden(runs, tmp_path, seat):
    other = "P2" if seat == "P1" else "P1"
    for seed in range(4):
        result, transcript = play_json(tmp_path, runs["ah"], ["1"] * 30, "--seat", seat,
                                       "--seed", str(seed))
        # up to the final board (which shows every card, as the whole record does)
        before_end = transcript.split("\nresult: ")[0].rsplit("\n\n", 1)[0]
        for line in before_end.splitlines():
            if line.startswith("record: "):
                assert f"(view of {seat})" in line
                tokens = line[len("record: "):].split("  (view")[0].split()
                hidden = 0 if seat == "P2" else 1  # the opponent's placement
                if len(tokens) > hidden and tokens != ["(empty)"]:
                    assert tokens[hidden] == "place:?"
            if line.startswith(f"{other}: "):
                assert "place:" not in line or "place:?" in line  # the placement is hidden
        # the opponent's hand is hidden once it has placed (before, it holds every card)
        assert "hand: ?" in before_end
        assert result["view"].split()[0 if seat == "P2" else 1] == "place:?"
        assert result["record"].split()[0] != "place:?"  # revealed at the end only


def test_review_values_are_the_exact_values_query_gives(runs, tmp_path):
    rng = np.random.default_rng(1)
    moves = [str(int(rng.integers(1, 7))) for _ in range(30)]
    result, _ = play_json(tmp_path, runs["ah"], moves, "--seed", "3")
    assert result["review"] and len(result["review"]) == len(result["moves"])
    for row in result["review"]:
        code, out, err = spycfr("query", runs["ah"], "--as", "P1", row["view"], "--json")
        assert code == 0, err
        q = json.loads(out)
        values = {m["move"]: m for m in q["moves"]}
        chosen = values[row["move"]]
        assert row["probability"] == chosen["probability"]
        if q["tolerance"] is not None:  # on the equilibrium path: equilibrium values
            assert row["basis"] == "equilibrium"
            assert row["value"] == pytest.approx(chosen["value"], abs=1e-12)
            assert row["best_value"] == pytest.approx(max(m["value"] for m in q["moves"]),
                                                      abs=1e-12)
            assert row["tie"] == chosen["tie"] and row["tolerance"] == q["tolerance"]
        else:  # off the path: best-reply values
            assert row["basis"] == "best reply"
            assert row["value"] == pytest.approx(chosen["br_value"], abs=1e-12)
        assert row["loss"] == pytest.approx(row["best_value"] - row["value"], abs=1e-12)
        assert row["loss"] >= -1e-12 and (row["tie"] or row["loss"] > row["tolerance"])


def test_no_value_is_a_negative_zero_in_the_terminal(tmp_path):
    """The review after a game, `spycfr query` and the run's header line write values as
    the workbench does (one function, ``analysis.markdown.num``): results/mini's value for
    P1 (-1.6e-6) and its openings' values read "-0.0000" in the review and "-0.00000" in
    query's header before."""
    mini = str(ROOT / "results" / "mini")
    code, out, err = play(tmp_path, mini, ["1"] * 30, "--seed", "1")
    assert code == 0, err
    review = out.split("review of your moves")[1]
    assert "  place:0-1  " in review and "+0.0000" in review
    code, answer, err = spycfr("query", mini, "--seat", "P1")
    assert code == 0, err
    for text in (out, answer):
        assert not re.search(r"-0\.0+(?![0-9])", text), text
    assert "value(P1) +0.00000" in answer

    from spycfr.analysis.markdown import num
    from spycfr.analysis.play import _signed
    from spycfr.cli.show import value_text

    assert value_text(-1.6e-6) == _signed(-1.6e-6).strip() == num(-1.6e-6) == "+0.0000"
    assert value_text(None) == value_text(float("nan")) == "-" and _signed(None) == f"{'-':>8}"

    # measure's and head-to-head's lines too (cli/match.py wrote them with :+.4f)
    from spycfr.cli.match import measured_lines

    tiny = -1e-6
    lines = measured_lines({
        "games": 2, "seed": 0,
        "head_to_head": [{"opponent": "uniform", "payoff": {"mean": tiny, "ci95": [tiny, 0.5]},
                          "wins": 0.5, "as_p1": tiny, "as_p2": tiny}],
        "local_best_response": {"games": 2, "rollouts": 1, "rollout_policy": "uniform",
                                "value": tiny, "ci95": [tiny, 0.5], "as_p1": {"mean": tiny},
                                "as_p2": {"mean": tiny}},
        "exploitability_lower_bound": {"value": 0.0, "ci95": [0.0, 0.5], "by": "LBR"}})
    text = "\n".join(lines)
    assert "+0.0000 [+0.0000, +0.5000]" in text and not re.search(r"-0\.0+(?![0-9])", text), text


def test_a_narrator_is_freed_by_reference_counting():
    """A Narrator kept no bound method of itself (its default view was one: a reference
    cycle, each narrator of the workbench's play pages left to the cyclic GC), and tells
    from the view it is given."""
    import gc
    import weakref

    from spycfr.analysis.play import Narrator
    from spycfr.games import get_plugin, make_game

    state = make_game("agent-hunter", "tiny", {}).new_initial_state()
    for view, want in ((None, state.information_state(1)), (_record_view, state.record())):
        narrator = Narrator(get_plugin("agent-hunter"), 1, [].append, view=view)
        assert narrator.view(state) == want
        gone = weakref.ref(narrator)
        gc.disable()
        try:
            del narrator
            assert gone() is None
        finally:
            gc.enable()


def _record_view(state) -> str:
    return state.record()


def test_a_narrator_told_from_a_view_given_makes_it_once_a_step():
    """Before a step whose actor differs from the last told, a Narrator told from a view
    given made that view twice (to tell the last actor's steps, then as the step's start):
    once now, the same lines told."""
    from spycfr.analysis.play import Narrator
    from spycfr.engine.states import CHANCE_PLAYER
    from spycfr.games import get_plugin, make_game

    game = make_game("agent-hunter", "tiny", {})
    made: list[str] = []

    def view(state) -> str:
        made.append(state.record())
        return state.record()

    said: list[str] = []
    narrator = Narrator(get_plugin("agent-hunter"), 0, said.append, view=view)
    state = game.new_initial_state()
    steps = 0
    while not state.is_terminal() and steps < 8:  # as run_game tells it, first moves
        p = state.current_player()
        before = len(made)
        narrator.observe(p, "", state, None)
        assert len(made) == before + 1  # one view before the step, whoever moves
        a = (state.chance_outcomes()[0][0] if p == CHANCE_PLAYER else state.legal_actions()[0])
        label = None if p == CHANCE_PLAYER else state.action_label(a)
        state = state.child(a)
        if p == 0:
            narrator.observe(p, "", state, label)
        steps += 1
    assert said and any(line.startswith("you: ") for line in said)


def test_bad_input_is_re_prompted_and_moves_can_be_typed(runs, tmp_path):
    code, out, err = play(tmp_path, runs["ah"], ["bogus", "0", "99", "", "PLACE:0-2"]
                          + ["1"] * 30, "--seed", "2")
    assert code == 0, err
    assert "'bogus' is not one of your moves: type a number 1..6" in out
    assert "'0' is not one of your moves" in out and "'99' is not one of your moves" in out
    assert "type a number 1..6 or a move as listed" in out
    assert "you: place:0-2" in out
    assert out.count("your move (1-6 or a move):") == 5  # asked again after each bad line
    assert "Traceback" not in out + err


def test_the_first_lines_say_that_help_explains_the_notation():
    """A move such as Agent Hunter's hand:8>1 is explained by 'help' (the game's guide to its
    notation), which the first lines did not say ('help' lists every move); a game without
    a notation says what 'help' does there."""
    from spycfr.analysis.play import how_to_answer
    from spycfr.games import get_plugin

    assert "'help' explains the notation and lists every move, 'quit' stops" in how_to_answer(
        get_plugin("agent-hunter"))
    assert "'help' lists every move, 'quit' stops" in how_to_answer(get_plugin("kuhn"))


def test_a_long_list_of_moves_is_shown_in_short_and_whole_on_help():
    """Agent Hunter standard's 720 placements (and its 72 switches later; Agent Double
    Double Agent's 360 loyalty assignments) were all listed at every prompt: a long kind of
    move is now one line (how many, numbered examples) with the guide's line for it; 'help'
    or '?' lists every move; a wrong entry is still a one-line re-prompt."""
    from spycfr.analysis.play import Moves, ask_move
    from spycfr.games import get_plugin, make_game

    state = make_game("agent-hunter", "standard", {}).new_initial_state()
    while state.current_player() < 0:  # the deal
        state = state.child(state.chance_outcomes()[0][0])
    labels = [state.action_label(a) for a in state.legal_actions()]
    assert len(labels) == 720
    guide = get_plugin("agent-hunter").records.guide
    said: list[str] = []
    choice = ask_move(labels, Moves(iter(["bogus", "?", "help", "place:0-1-3"]), echo=False),
                      said.append, guide)
    assert choice == 1
    first = said[:said.index("your move (1-720 or a move): ")]
    assert first == [
        "your moves (720):",
        f"  place: 720 moves: 1 {labels[0]}, 2 {labels[1]}, 3 {labels[2]}, ... 720 {labels[-1]}",
        "    place:A-B  your cards placed in your houses (card A in house 1, B in house 2, ...)",
        "  ('help' lists them all)"]
    rest = said[len(first) + 1:]
    assert rest[0] == ("'bogus' is not one of your moves: type a number 1..720 or a move "
                       f"such as {labels[0]} ('help' lists them all)")
    starts = [n for n, line in enumerate(rest) if line == "your moves (720):"]
    assert len(starts) == 2  # on '?' and on 'help': every move, numbered
    for n in starts:
        block = rest[n + 1:rest.index("your move (1-720 or a move): ", n)]
        assert re.findall(r"(\d+) (\S+)", " ".join(block)) == [
            (str(k), label) for k, label in enumerate(labels, 1)]
    # kinds of few moves are listed whole, the long ones in short
    mixed = [f"hand:{c}>{h}" for c in range(3) for h in (1, 2)] + [
        f"switch:{h}={c}>{d}@{g}" for h in (1, 2) for c in range(4) for d in range(4)
        for g in (1, 2)]
    said.clear()
    ask_move(mixed, Moves(iter(["1"]), echo=False), said.append, guide)
    assert said[1].split() == ["1", "hand:0>1", "2", "hand:0>2", "3", "hand:1>1", "4",
                               "hand:1>2", "5", "hand:2>1", "6", "hand:2>2"]
    assert said[2].startswith("  switch: 64 moves: 7 switch:1=0>0@1, ")
    assert said[3].startswith("    switch:H=V>C@D  ") and len(said) == 6
    # the kinds in the moves' order (Agent Hunter's hand attacks, switches, then house
    # attacks): the numbers rise down the list
    said.clear()
    ask_move(mixed + ["house:1=0>1", "house:1=0>2"], Moves(iter(["1"]), echo=False),
             said.append, guide)
    assert said[2].startswith("  switch: 64 moves: 7 switch:1=0>0@1, ")
    assert said[4].split() == ["71", "house:1=0>1", "72", "house:1=0>2"]


def test_help_lists_the_moves_again_and_quit_stops(runs, tmp_path):
    code, out, _ = play(tmp_path, runs["ah"], ["help", "quit"], "--seed", "0")
    assert code == 0 and out.count("your moves (6):") == 2 and "game abandoned" in out


@pytest.mark.parametrize("args,fragment", [
    ((), "the moves ran out before the game ended"),
    (("--seat", "P3"), "P3"),
])
def test_errors_are_one_line(runs, tmp_path, args, fragment):
    code, _, err = play(tmp_path, runs["ah"], ["1"], "--seed", "0", *args)
    assert code == 2 and "Traceback" not in err
    assert fragment in err.strip().splitlines()[-1]


def test_a_script_that_runs_out_after_bad_lines_names_them(runs, tmp_path):
    """Each line that names no move is asked again, so a script with a bad move runs out
    of moves later: the error names how many lines named no move and the first of them
    (blank lines are not counted)."""
    code, out, err = play(tmp_path, runs["ah"], ["1", "", "bogus", "99"], "--seed", "0")
    assert code == 2 and "Traceback" not in err
    assert err.strip().splitlines()[-1] == (
        "error: the moves ran out before the game ended (2 lines named no move there, the "
        "first line 3: 'bogus')")
    code, _, err = play(tmp_path, runs["ah"], ["1"], "--seed", "0")
    assert err.strip().splitlines()[-1] == "error: the moves ran out before the game ended"


def test_a_missing_run_or_moves_file_is_a_one_line_error(runs, tmp_path):
    code, _, err = spycfr("play", str(tmp_path / "nowhere"))
    assert code == 2 and err.startswith("error: ") and len(err.strip().splitlines()) == 1
    code, _, err = spycfr("play", runs["ah"], "--moves", str(tmp_path / "none.txt"))
    assert code == 2 and "cannot read --moves" in err


@pytest.mark.parametrize("damage", ["truncated", "another strategy"])
def test_a_broken_strategy_is_the_error_alone(runs, tmp_path, damage):
    """A strategy.npz cut short, or another strategy than run.json's: the error line alone,
    exit 2; the game's first lines (said before the strategy is loaded) came first."""
    import shutil

    run = tmp_path / "run"
    shutil.copytree(runs["ah"], run)
    path = run / "strategy.npz"
    if damage == "truncated":
        path.write_bytes(path.read_bytes()[:1000])
    else:
        with np.load(path) as data:
            arrays = dict(data)
        arrays["average"] = arrays["average"][:, ::-1].copy()
        np.savez(path, **arrays)
    code, out, err = play(tmp_path, str(run), ["1"] * 20, "--seed", "0")
    lines = [x for x in err.strip().splitlines() if x != COMPILING]
    assert code == 2 and out == "" and len(lines) == 1, (out, err)
    assert lines[0].startswith(f"error: {str(path)!r} ")


def test_moves_from_stdin(runs, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO("1\n" * 30))
    code, out, err = spycfr("play", runs["ah"], "--seed", "4", "--moves", "-")
    assert code == 0, err
    assert "result: " in out
    monkeypatch.setattr("sys.stdin", io.StringIO("1\n" * 30))
    code, plain, _ = spycfr("play", runs["ah"], "--seed", "4")
    assert code == 0 and plain == out


def test_the_first_lines_are_said_before_the_run_is_loaded(runs, monkeypatch):
    """The game's first lines (the run played, how to answer) are on stdout before the run
    is loaded: a tree rebuilt, a search agent's first plan or numba compiling can take
    minutes, and through a pipe (no heartbeat on a terminal) the player saw nothing."""
    import sys

    from spycfr.analysis import play as play_module

    seen: list[str] = []
    load = play_module.load_opponent

    def loading(run_dir, progress=None):
        seen.append(sys.stdout.getvalue())  # the command's stdout so far (cli_helpers)
        return load(run_dir, progress)

    monkeypatch.setattr(play_module, "load_opponent", loading)
    monkeypatch.setattr("sys.stdin", io.StringIO("1\n" * 30))
    code, out, err = spycfr("play", runs["ah"], "--seed", "4")
    assert code == 0, err
    assert len(seen) == 1 and seen[0] == out[:len(seen[0])]
    assert "you are P1; the program plays P2 with the strategy of" in seen[0]
    assert "type a move's number" in seen[0] and "your move" not in seen[0]


def test_through_a_pipe_the_first_lines_and_prompt_come_before_any_input(runs):
    """`printf ... | spycfr play RUN` as a program driving it sees it: stdin and stdout
    pipes, stdin left open and empty, the first lines and the first prompt arrive (each
    line flushed as it is said), then 'quit' ends the game."""
    import os
    import select
    import subprocess
    import sys
    import time

    proc = subprocess.Popen(
        [sys.executable, "-c", "from spycfr.cli.main import main; main()", "play", runs["ah"],
         "--seed", "4"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL)
    got, deadline = b"", time.monotonic() + 300
    try:
        assert proc.stdout is not None and proc.stdin is not None
        while b"your move" not in got and time.monotonic() < deadline:
            ready, _, _ = select.select([proc.stdout], [], [], 1.0)
            if ready:
                chunk = os.read(proc.stdout.fileno(), 65536)
                if not chunk:
                    break
                got += chunk
        text = got.decode()
        assert "you are P1; the program plays P2" in text and "your move" in text, text
        proc.stdin.write(b"quit\n")
        proc.stdin.close()
        assert proc.wait(timeout=120) == 0
    finally:
        proc.kill()
        proc.wait()


def test_random_games_from_both_seats_all_end(runs, tmp_path):
    rng = np.random.default_rng(5)
    for game in range(8):
        seat = ("P1", "P2")[game % 2]
        moves = [str(int(rng.integers(1, 20))) for _ in range(80)]  # some out of range
        result, transcript = play_json(tmp_path, runs["ah"], moves, "--seat", seat,
                                       "--seed", str(game))
        assert result["seat"] == seat and result["payoff"] in (-1.0, 0.0, 1.0)
        assert len(result["review"]) == len(result["moves"]) >= 2
        assert "review of your moves" in transcript


def test_agent_avenue_deals_and_hides_the_other_hand(runs, tmp_path):
    result, transcript = play_json(tmp_path, runs["avenue"], ["1"] * 40, "--seed", "1")
    assert re.search(r"^chance: deal:[A-Z.]+\|\?$", transcript, re.M)
    assert "P2  hand: ? " in transcript
    assert result["review"] and all(r["basis"] in ("equilibrium", "best reply")
                                    for r in result["review"])


def test_a_game_without_record_notation_shows_the_information_state(runs, tmp_path):
    result, transcript = play_json(tmp_path, runs["kuhn"], ["2"] * 5, "--seat", "P2",
                                   "--seed", "0")
    assert "you see: " in transcript and "chance: you now see " in transcript
    assert result["record"] is None and result["review"]
    assert "P1 saw: " in transcript


def test_a_sampled_run_without_a_tree_plays_its_average_strategy(tmp_path):
    run_dir = tmp_path / "std"
    code, _, err = spycfr("solve", "agent-hunter", "--preset", "standard", "--algorithm",
                          "os-mccfr", "--iterations", "300", "-o", str(run_dir), "-q")
    assert code == 0, err
    result, transcript = play_json(tmp_path, str(run_dir), ["1"] * 40, "--seed", "0")
    assert "sampled, exploitability unknown" in transcript
    assert "move values need a tree" in transcript
    assert len(result["review"]) == len(result["moves"])
    first = result["review"][0]  # P1's placement: the run met the root, a distribution
    assert 0.0 <= first["probability"] <= 1.0 and "value" not in first
    (run_dir / "checkpoint.npz").unlink()
    code, _, err = play(tmp_path, str(run_dir), ["1"])
    assert code == 2 and "has no checkpoint.npz" in err


def test_a_run_of_steps_that_completes_the_last_move_and_adds_one_is_told_whole():
    """Agent Hunter mini, seed 3: P2's refill completed P1's house attack and P2 then
    attacked, one run of P2's steps; the line told only the attack, marked as completing
    P1's move, and P1 never read its attack's answer ('hi') in the story."""
    from spycfr.analysis.play import news_since

    before = "place:2-1 place:? house:2=1>2"
    after = "place:2-1 place:? house:2=1>2:hi+h1>? house:1=2>1:eq"
    assert news_since(before, after) == ("house:2=1>2:hi+h1>? (the move before, now with its "
                                    "result) house:1=2>1:eq")
    assert news_since(before, "place:2-1 place:? house:2=1>2:hi") == (
        "house:2=1>2:hi (the move before, now with its result)")
    assert news_since(before, before + " hand:0>1:lo") == "hand:0>1:lo"
    assert news_since("", "place:?") == "place:?"
    assert news_since(before, before) == ""


def test_a_move_may_be_typed_without_its_kind_where_that_names_one_move():
    """'0-1-2' for Agent Hunter's place:0-1-2 was refused ('not one of your moves'); the part
    after the kind's ':' names the move where only one move has it, else nothing."""
    from spycfr.analysis.play import choose

    labels = ["place:0-1-2", "place:0-2-1", "take:up", "swap:CB", "play:CB/SA", "refill:1",
              "hand:3>1:lo", "house:3>1:lo"]
    assert choose(labels, "0-2-1") == 1 and choose(labels, "UP") == 2
    assert choose(labels, "cb") == 3 and choose(labels, "CB/SA") == 4
    assert choose(labels, "2") == 1  # a number is the move's number, never a suffix
    assert choose(labels, "3>1:lo") is None  # two moves end so: ambiguous
    assert choose(labels, "") is None and choose(labels, "1-2") is None
    assert choose(labels, "x:0-1-2") is None  # a wrong kind is not dropped


def test_the_review_lists_the_costliest_move_first_as_its_summary_names_it(tmp_path):
    """Agent Double Double Agent small, seed 11, the first listed move each time: the
    review listed the moves in the game's order (1 loyal:1-1-2 tie, 2 file:P>1 lost 0.1560,
    ...) while its last line named 'the costliest: file:P>1'; it lists it first now (as
    `spycfr review` and the workbench do), says so, and keeps each move's number."""
    small = str(ROOT / "results" / "agent-double-double-agent" / "small")
    code, out, err = play(tmp_path, small, ["1"] * 30, "--seed", "11")
    assert code == 0, err
    review = out.split("review of your moves")[1].splitlines()
    assert "the costliest first, then the rest in the game's order" in " ".join(review)
    table = review[review.index(next(x for x in review if x.split()[:2] == ["#", "move"])) + 1:]
    assert [line.split()[:2] for line in table[:-1]] == [
        ["2", "file:P>1"], ["1", "loyal:1-1-2"], ["3", "counter:1"], ["4", "file:1>1"]]
    assert table[-1].startswith("1 of your 4 moves lost value; the costliest: file:P>1")
