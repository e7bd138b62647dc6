"""`spycfr review`: recorded games reviewed against a run, bad input named in one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from spycfr.analysis.query import OFF_PATH
from spycfr.cli.main import cli
from spycfr.errors import SpycfrError

TINY = str(Path(__file__).resolve().parent.parent / "results" / "tiny")


def test_a_game_is_reviewed_move_by_move_and_a_bad_record_is_named(tmp_path):
    games = tmp_path / "games.txt"
    games.write_text("place:0-2 place:2-0 house:2=2>2:hi+h1>1 switch:2=0>0@1\n\n"
                     "place:0-2 hand:9>1:lo\n")
    result = CliRunner().invoke(cli, ["review", TINY, "--file", str(games), "--json"])
    # main() prints a SpycfrError as one line, exit status 2
    assert isinstance(result.exception, SpycfrError)
    assert str(result.exception).startswith("1 of 2 records could not be replayed")
    out = json.loads(result.stdout)
    first, second = out["games"]
    assert "error" not in first and second["error"].startswith("move 2")
    p1 = first["seats"]["P1"]["moves"]
    # the costliest first: the house attack into P2's house 2 loses to a switch
    assert [m["move"] for m in p1] == ["house:2=2>2", "place:0-2"]
    assert not p1[0]["tie"] and p1[0]["loss"] > 0.5 and p1[1]["tie"]
    assert "P2 saw house:2=2>2:hi+h1" in p1[0]["words"]
    assert out["summary"]["P1"] == {"moves": 2, "valued": 2, "lost_value": 1,
                                    "total_loss": p1[0]["loss"],
                                    "largest_loss": p1[0]["loss"]}


def test_a_missing_or_empty_file_is_an_error(tmp_path):
    empty = tmp_path / "empty.txt"
    empty.write_text("\n\n")
    for path, says in [(str(tmp_path / "none.txt"), "cannot read --file"),
                       (str(empty), "holds no record")]:
        result = CliRunner().invoke(cli, ["review", TINY, "--file", path])
        assert isinstance(result.exception, SpycfrError) and says in str(result.exception)


def test_one_record_is_reviewed_from_the_command_line_as_from_a_file(tmp_path):
    """A record pasted as the argument (the one `spycfr play` printed) is reviewed as the
    same line in --file; neither or both is a one-line error saying what review takes."""
    record = "place:0-2 place:2-0 house:2=2>2:hi+h1>1 switch:2=0>0@1"
    games = tmp_path / "games.txt"
    games.write_text(record + "\n")
    by_file = CliRunner().invoke(cli, ["review", TINY, "--file", str(games), "--json"])
    by_arg = CliRunner().invoke(cli, ["review", TINY, record, "--json"])
    assert by_arg.exit_code == 0 and json.loads(by_arg.stdout) == json.loads(by_file.stdout)
    text = CliRunner().invoke(cli, ["review", TINY, record]).stdout
    assert text.count("the costliest first (move, eq prob, value, loss)") == 2, text
    for args, says in [([], "not neither"), ([record, "--file", str(games)], "not both"),
                       ([""], "RECORD is empty")]:
        result = CliRunner().invoke(cli, ["review", TINY, *args])
        assert isinstance(result.exception, SpycfrError), result.output
        assert says in str(result.exception)


def test_a_played_game_pasted_whole_is_reviewed_as_its_record(tmp_path):
    """A `spycfr play` game saved or pasted whole (boards, prompts, its review) gave an
    error for each of its lines, and its "the whole record: ..." line one for its label:
    review reads the record of that line, and reviews the player's moves as play did."""
    moves = tmp_path / "moves.txt"
    moves.write_text("1\n" * 20)
    played = CliRunner().invoke(cli, ["play", TINY, "--seed", "7", "--moves", str(moves)])
    assert played.exit_code == 0, played.output
    game = tmp_path / "game.txt"
    game.write_text(played.stdout)
    line = next(x for x in played.stdout.splitlines() if x.startswith("the whole record: "))
    record = line.split(": ", 1)[1]
    wanted = json.loads(CliRunner().invoke(cli, ["review", TINY, record, "--json"]).stdout)
    for args in (["--file", str(game)], [line]):
        result = CliRunner().invoke(cli, ["review", TINY, *args, "--json"])
        assert result.exit_code == 0, result.output
        assert json.loads(result.stdout) == wanted
    mine = [r["move"] for r in wanted["games"][0]["seats"]["P1"]["moves"]]
    review = played.stdout.split("review of your moves")[1]
    assert all(move in review for move in mine) and mine


def test_a_wrong_seat_names_the_choices_as_written():
    result = CliRunner().invoke(cli, ["review", TINY, "x", "--seat", "P3"])
    assert result.exit_code == 2
    assert "'P3' is not one of both, P1, P2" in result.output
    result = CliRunner().invoke(cli, ["query", TINY, "--seat", "p3", ""])
    assert result.exit_code == 2 and "'p3' is not one of P1, P2, S1, S2, S3, S4" in result.output
    assert "[both|P1|P2]" in CliRunner().invoke(cli, ["review", "--help"]).output


def test_the_text_review_counts_moves_in_words_and_summarises_only_games_replayed():
    """A seat with no move says so (no column header over nothing), one move is '1 move',
    and a review where no record replayed prints the error, not a summary of nothing."""
    text = CliRunner().invoke(cli, ["review", TINY, "place:0-2"]).stdout
    assert "  P1: 1 move, 0 lost value" in text and "1 moves" not in text
    assert "  P2: no move in this record" in text
    assert "summary over all games:\n  P1: 1 move, 0 lost value" in text
    result = CliRunner().invoke(cli, ["review", TINY, "place:0-2 hand:9>1:lo"])
    assert isinstance(result.exception, SpycfrError)
    assert "error: move 2" in result.stdout and "summary" not in result.stdout


def test_off_the_equilibrium_path_a_review_gives_no_reading_of_the_cards():
    """Agent Double Double Agent small, seed 11 of `spycfr play` (P1 played file:P>1, which
    the run plays 0.02% of the time): the review said P1 'then likely held loyal:1-2-1 ...
    (92%)' holding loyal:1-1-2, a posterior the run does not define off its path. There it
    now says it has no reading (and that the values are best replies'); on the path the
    reading stays."""
    small = str(Path(TINY).parent / "agent-double-double-agent" / "small")
    record = ("loyal:1-1-2 loyal:1-1-2 deal:P deal:P file:P>1 counter:1 draw:1 file:P>3 "
              "counter:2 draw:1 file:1>1 deliver:1:1-1:1,P|>P1 draw:?=2 file:1>3 "
              "deliver:3:2-2:|1,P>P2")
    result = CliRunner().invoke(cli, ["review", small, "--json", record])
    assert result.exit_code == 0, result.output
    moves = json.loads(result.stdout)["games"][0]["seats"]
    p2 = {m["move"]: m for m in moves["P2"]["moves"]}
    last = p2["file:1>3"]
    assert last["likely"] == [] and last["unread"]
    assert "no reading of what P1 held: the run (almost) never plays" in last["words"]
    assert "best-reply values" in last["words"]
    assert not any("92%" in m["words"] for m in p2.values())
    first = p2["loyal:1-1-2"]  # P1's loyalty tokens, read on the path
    assert not first["unread"] and [k for k, _ in first["likely"]] == [
        "loyal 1-1-2", "loyal 1-2-1", "loyal 2-1-1"]
    p1 = {m["move"]: m for m in moves["P1"]["moves"]}
    # P1's file:P>1 itself: the position before it is on the path, its reading defined
    assert p1["file:P>1"]["likely"] and "no reading" not in p1["file:P>1"]["words"]


def test_after_the_seats_own_off_path_move_the_opponents_cards_are_still_read():
    """Agent Double Double Agent tiny: P1's rare loyal:2-1 (0.001%), then its file (4.5%),
    put P1's counter decision off the equilibrium path (reached in 2e-7 of games), and the
    review gave no reading of P2's cards there. P2's range is conditioned on P2's moves
    and chance alone (P2's loyalty, chosen unseeing of P1's: trained; P2 has not moved
    since), so the reading stands there as at the file before it: P2's loyalty and first
    card, each pair 1/6 by the run; the three not named are said to be half of it (three
    named read as if P2 surely held loyal 2-1)."""
    tiny = str(Path(TINY).parent / "agent-double-double-agent" / "tiny")
    record = "loyal:2-1 loyal:1-2 deal:0/7=7 deal:1 file:0/7=7>2 counter:2"
    result = CliRunner().invoke(cli, ["review", tiny, "--seat", "P1", "--json", record])
    assert result.exit_code == 0, result.output
    p1 = {m["move"]: m for m in json.loads(result.stdout)["games"][0]["seats"]["P1"]["moves"]}
    assert p1["counter:2"]["reach_probability"] < OFF_PATH  # off the path by P1's own moves
    for move in ("file:0/7=7>2", "counter:2"):
        row = p1[move]
        assert not row["unread"] and len(row["likely"]) == 3, row
        assert all(p == pytest.approx(1 / 6, abs=1e-3) for _, p in row["likely"])
        assert "no reading" not in row["words"] and "then likely held loyal " in row["words"]
    assert p1["counter:2"]["likely"] == p1["file:0/7=7>2"]["likely"]
    # three of six holdings named: the rest said, not read as the only ones
    assert ", or another (50% in all)" in p1["counter:2"]["words"]
