"""`spycfr record check`."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from click.testing import CliRunner

from spycfr.cli.main import cli
from spycfr.errors import RecordError, SpycfrError
from spycfr.games.agent_hunter.record import random_record
from spycfr.games.agent_hunter.variant import make_variant

SPYCFR = Path(sys.executable).parent / "spycfr"


def run(*args, input=None):
    return CliRunner().invoke(cli, ["record", "check", *args], input=input)


def test_text_position():
    r = run("agent-hunter", "--preset", "mini", "place:0-2 place:2-1 hand:1>1:lo")
    assert r.exit_code == 0, r.output
    assert "P2 to move" in r.output
    assert "houses 1:[0]  2:[2]" in r.output  # P1's houses
    assert "house:2=1>2" in r.output and "hand:0>1" in r.output  # P2's legal moves


def test_text_game_over():
    r = run("agent-hunter", "--preset", "mini",
            "place:0-2 place:2-1 house:2=2>1:eq>1 house:2=1>2:eq>0 house:1=0>2:eq")
    assert r.exit_code == 0, r.output
    assert "game over: P1 wins" in r.output


def test_moves_as_separate_arguments():
    r = run("agent-hunter", "--preset", "mini", "--json", "place:0-2", "place:2-1")
    assert json.loads(r.output)["record"] == "place:0-2 place:2-1"


def test_json_fields():
    r = run("agent-hunter", "--cards", "3", "--houses", "1", "--decoys", "0", "--max-turns", "2",
            "--json", "place:0 place:2 hand:1>1:lo hand:1>1:hi")
    assert r.exit_code == 0, r.output
    d = json.loads(r.output)
    assert d["valid"] is True and d["error"] is None and d["terminal"] is True
    assert d["turns"] == 2 and d["vp"] == [0, 0] and d["hand_sum"] == [3, 1]
    assert d["payoff"] == [1.0, -1.0] and d["to_move"] is None and d["legal_moves"] is None
    r = run("agent-hunter", "--preset", "standard", "--json", "place:4-6-1 place:0-2-6 "
            "house:2=6>3:eq")
    d = json.loads(r.output)
    assert d["terminal"] is False and d["payoff"] is None and d["to_move"] == "P1"
    assert d["pending_refill"] == {"player": "P1", "house": 2}
    assert d["legal_moves"] == [f"refill:{c}" for c in (0, 2, 3, 5, 7, 8, 9)]


def test_json_invalid_exit_1():
    r = run("agent-hunter", "--json", "place:5-0-1 place:2-3-4 hand:5>2:lo")
    assert r.exit_code == 1
    d = json.loads(r.output)
    assert d["valid"] is False and d["error"] == "move 3 `hand:5>2:lo`: card 5 is not in P1's hand"


def test_invalid_text_raises_record_error():
    r = run("agent-hunter", "place:5-0-1 place:2-3-4 hand:5>2:lo")
    assert isinstance(r.exception, RecordError)


def test_view_record():
    r = run("agent-hunter", "--json", "place:? place:0-2-6 house:2=6>3:eq>?")
    d = json.loads(r.output)
    assert d["valid"] and d["view"] == "P2" and d["to_move"] == "P2"
    assert d["players"][0]["houses"][0]["card"] == "?" and d["players"][0]["hand"] is None
    assert d["players"][0]["houses"][2]["status"] == "in play"
    assert d["players"][1]["houses"][2]["status"] == "eliminated"


def test_other_games_and_bad_variants():
    r = run("kuhn", "x")
    assert isinstance(r.exception, SpycfrError) and "agent-hunter" in str(r.exception)
    r = run("agent-hunter", "--cards", "4", "x")
    assert isinstance(r.exception, SpycfrError) and "2*houses-1" in str(r.exception)


def test_file_and_stdin(tmp_path):
    v = make_variant("small")
    rng = np.random.default_rng(3)
    recs = [random_record(v, rng) for _ in range(20)]
    f = tmp_path / "recs.txt"
    f.write_text("\n".join(recs) + "\n")
    r = run("agent-hunter", "--preset", "small", "--file", str(f))
    assert r.exit_code == 0
    lines = [json.loads(x) for x in r.output.splitlines()]
    assert [d["record"] for d in lines] == recs and all(d["terminal"] for d in lines)
    r = run("agent-hunter", "--preset", "small", "--file", "-",
            input=recs[0] + "\nhand:0>1:lo\n")
    assert r.exit_code == 1
    lines = [json.loads(x) for x in r.output.splitlines()]
    assert [d["valid"] for d in lines] == [True, False] and lines[1]["line"] == 2
    r = run("agent-hunter", "--file", str(tmp_path / "missing.txt"))
    assert isinstance(r.exception, SpycfrError)


def test_file_speed(tmp_path):
    """10,000 records must take well under a minute; 2,000 here, in-process."""
    v = make_variant("standard")
    rng = np.random.default_rng(4)
    f = tmp_path / "recs.txt"
    f.write_text("\n".join(random_record(v, rng) for _ in range(2000)) + "\n")
    t = time.perf_counter()
    r = run("agent-hunter", "--preset", "standard", "--file", str(f))
    elapsed = time.perf_counter() - t
    assert r.exit_code == 0 and len(r.output.splitlines()) == 2000
    assert elapsed < 12, elapsed


def test_subprocess_bad_record_exit_2_without_traceback():
    p = subprocess.run([str(SPYCFR), "record", "check", "agent-hunter", "place:1-2-3 hand:0>1:zz"],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 2
    assert p.stderr.startswith("error: move 2 `hand:0>1:zz`: not a move")
    assert "Traceback" not in p.stderr + p.stdout
