"""One rule of a random seed (spycfr.seeds.check_seed: an integer 0 .. 2**63 - 1) wherever
one is given: the CLI's --seed, the library's seed arguments and the workbench's games
refuse the same values with the same one-line message."""

from __future__ import annotations

import html
import io
from pathlib import Path
from urllib.parse import quote
from wsgiref.util import setup_testing_defaults

import numpy as np
import pytest

from cli_helpers import spycfr
from spycfr.errors import SpycfrError
from spycfr.seeds import SEED_MAX, check_seed

TINY = str(Path(__file__).resolve().parent.parent / "results" / "tiny")
# the text of bad seeds, and the values a library call gets for them
BAD = {"-5": -5, str(2**63): 2**63, "x": "x", "1.5": 1.5, "": ""}
RULE = f"must be an integer from 0 to {SEED_MAX} (2**63 - 1), got "


def test_the_rule_takes_an_int64_seed_from_an_int_a_numpy_int_or_its_text():
    assert SEED_MAX == 2**63 - 1 == np.iinfo(np.int64).max
    for value, expected in ((0, 0), (SEED_MAX, SEED_MAX), ("7", 7), (np.int64(3), 3),
                            (np.uint64(SEED_MAX), SEED_MAX), (str(SEED_MAX), SEED_MAX)):
        got = check_seed(value)
        assert got == expected and type(got) is int


@pytest.mark.parametrize("value", [-1, 2**63, np.uint64(2**63), True, 1.0, None, "1e3",
                                   "seven", [1]])
def test_the_rule_refuses_the_rest_in_one_line(value):
    with pytest.raises(SpycfrError) as exc:
        check_seed(value)
    assert str(exc.value) == f"seed {RULE}{value!r}"


def test_a_long_bad_seed_is_quoted_cut():
    with pytest.raises(SpycfrError) as exc:
        check_seed("9" * 5000, "--seed")
    assert str(exc.value) == f"--seed {RULE}{'9' * 40 + '...'!r}"


def _cli_error(text: str) -> str:
    code, out, err = spycfr("head-to-head", "uniform", "uniform", "--game", "kuhn",
                            "--games", "10", "--seed", text)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1, (code, out, err)
    return err.strip().removeprefix("error: ")


def _web_page(text: str) -> tuple[str, str]:
    """The workbench's answer to a game of results/tiny with seed ``text``: (status, page),
    through its WSGI application (no server, no browser)."""
    from spycfr.web.app import make_app
    from spycfr.web.catalog import discover

    app = make_app(discover([TINY]))
    environ: dict = {"PATH_INFO": "/play",
                     "QUERY_STRING": f"run=tiny&seat=P1&seed={quote(text)}"}
    setup_testing_defaults(environ)
    environ["wsgi.errors"] = io.StringIO()
    said: list[str] = []
    body = b"".join(app(environ, lambda status, headers, *_: said.append(status)))
    return said[0], body.decode()


@pytest.mark.parametrize("text", BAD)
def test_the_cli_the_library_and_the_workbench_refuse_the_same_seeds(text):
    """The same bad seed, given to a command (--seed), to library calls (an MCCFR solver,
    a head-to-head match) and to the workbench's game page: refused by each with the one
    message, naming the value; nothing is played."""
    from spycfr.analysis.headtohead import head_to_head, uniform_player
    from spycfr.cfr.mccfr import MCCFRSolver
    from spycfr.games import make_game

    value = BAD[text]
    cli = _cli_error(text)
    assert cli == f"--seed {RULE}{text!r}"
    game = make_game("kuhn", None, {})
    for call in (lambda: MCCFRSolver(game, seed=value),
                 lambda: head_to_head(game, uniform_player(), uniform_player(), 10,
                                      seed=value)):
        with pytest.raises(SpycfrError) as exc:
            call()
        assert str(exc.value) == f"seed {RULE}{value!r}"
    status, page = _web_page(text)
    assert status.startswith("400"), status
    assert html.escape(f"seed {RULE}{text!r}") in page and "Traceback" not in page



@pytest.mark.parametrize("value", [-5, 2**63, "x"])
def test_a_game_against_a_run_refuses_a_bad_seed_before_it_loads_the_run(value, tmp_path):
    """play.play_game and team_play.play_team_game (the library under `spycfr play`): the
    seed is checked first, so even a run directory that is not there answers with it."""
    from spycfr.analysis.play import play_game
    from spycfr.analysis.team_play import play_team_game

    for play in (play_game, play_team_game):
        with pytest.raises(SpycfrError) as exc:
            play(str(tmp_path / "no-run"), 0, value, iter(()), print)
        assert str(exc.value) == f"seed {RULE}{value!r}"


@pytest.mark.parametrize("value", [-5, 2**63, "x"])
def test_an_lbr_against_a_search_agent_refuses_a_bad_seed_before_it_loads_the_run(value,
                                                                                  tmp_path):
    """lbr_agent_dask.agent_lbr (the library under `spycfr measure --lbr-games` on an agent's
    run) follows the rule too, before it reads the run or its games file."""
    from spycfr.analysis.lbr_agent_dask import agent_lbr

    with pytest.raises(SpycfrError) as exc:
        agent_lbr(str(tmp_path / "no-run"), 4, value)
    assert str(exc.value) == f"seed {RULE}{value!r}"
    assert not (tmp_path / "no-run").exists()


def test_a_list_of_seeds_is_each_by_the_rule_and_none_twice():
    """The training scripts' --seeds (seeds.seed_list): a negative one was taken and failed
    in numpy, as a traceback, after the walk and the situations' solves."""
    from spycfr.seeds import seed_list

    assert seed_list("0,1,2") == [0, 1, 2] and seed_list(str(SEED_MAX)) == [SEED_MAX]
    for text in ("0,-1", "0,x", "", "0,,1", "1.5", "0,\u00b2"):
        with pytest.raises(SpycfrError) as exc:
            seed_list(text, "--seeds")
        assert str(exc.value) == (f"--seeds {text}: seeds are whole numbers from 0, "
                                  "comma-separated (0,1,2)")
    with pytest.raises(SpycfrError) as exc:
        seed_list(f"0,{2**63}", "--seeds")
    assert str(exc.value) == f"--seeds {RULE}{2**63!r}"
    with pytest.raises(SpycfrError, match=r"^--seeds 0,1,0: a seed twice"):
        seed_list("0,1,0", "--seeds")
