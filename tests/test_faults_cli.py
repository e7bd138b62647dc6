"""The command line as a newcomer meets it (issue 26, items 5, 11 and 13): one option
vocabulary with the old names kept, usage errors on one line, --memory-limit on every
command that can grow, and openings that honour --top and say what a run holds."""

from __future__ import annotations

import io
import json
import re
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from cli_helpers import spycfr
from spycfr.memory import (
    MemoryBudget,
    MemoryLimitError,
    current_budget,
    rss_bytes,
    use_budget,
)
from test_faults import one_line_error

RESULTS = Path(__file__).resolve().parent.parent / "results"
TINY = str(RESULTS / "tiny")


@pytest.mark.parametrize("args,fragment", [
    (["solve", "kuhn", "--iterations"], "Option '--iterations' requires an argument"),
    (["query"], "Missing argument 'RUN_DIR'. (see `spycfr query --help`)"),
    (["openings", TINY, "--top", "0"], "Invalid value for '--top'"),
    (["play", TINY, "--seat", "P3"], "Invalid value for '--seat'"),
    (["nosuch"], "No such command 'nosuch'"),
    (["best-response", TINY], "Missing option '--seat'"),
    (["openings", TINY, "--csv", "--json"], "--json and --csv are two formats"),  # printed CSV
])
def test_usage_errors_are_one_line(args, fragment):
    one_line_error(args, fragment)


def test_one_seat_option_with_the_old_names_kept():
    """--seat everywhere; --as (query) and --player (best-response) still work, hidden."""
    def ok(*args):
        code, out, err = spycfr(*args)
        assert code == 0, err
        return json.loads(out)

    new = ok("query", TINY, "--seat", "P2", "place:?", "--json")
    assert ok("query", TINY, "--as", "P2", "place:?", "--json") == new
    br = ok("best-response", TINY, "--seat", "P1", "--json")
    assert ok("best-response", TINY, "--player", "P1", "--json") == br
    for command in (["query", TINY], ["best-response", TINY], ["play", TINY]):
        code, out, _ = spycfr(*command, "--help")
        assert code == 0 and re.search(r"^\s+--seat ", out, re.M), out
        assert not re.search(r"^\s+--(as|player) ", out, re.M)  # hidden aliases
    one_line_error(["query", TINY, "--seat", "P1", "--as", "P2"], "give one of them")


def test_output_iterations_and_quiet_are_one_vocabulary():
    for command in ("team", "sweep", "report", "export", "best-response", "export-efg"):
        code, out, _ = spycfr(command, *(["agent-avenue"] if command == "team" else []),
                              "--help")
        assert code == 0 and "-o, --output" in out, command
    code, out, _ = spycfr("team", "agent-avenue", "--help")
    assert "-q, --quiet" in out and not re.search(r"^\s+--out ", out, re.M)  # hidden
    code, out, _ = spycfr("sweep", "kuhn", "--help")
    assert "--iterations" in out and "-q, --quiet" in out


@pytest.mark.parametrize("command", ["info kuhn", "team agent-avenue", "report RUN",
                                     "export RUN --format csv", "export-efg kuhn -o x.efg",
                                     "best-response RUN --seat P1",
                                     "exploitability RUN"])
def test_every_command_that_grows_takes_a_memory_limit(command):
    args = [TINY if a == "RUN" else a for a in command.split()]
    code, out, _ = spycfr(*args, "--help")
    assert code == 0 and "--memory-limit" in out
    one_line_error([*args, "--memory-limit", "-1"], "--memory-limit must be")


def test_report_of_a_big_run_is_refused_before_it_grows(tmp_path):
    """`report results/small --memory-limit 1` peaked at 1.84 GiB; now refused at once."""
    limit = f"{(rss_bytes() + 2**29) / 2**30:.3f}"  # half a GiB above this process now
    line = one_line_error(["report", str(RESULTS / "small"), "-o", str(tmp_path / "r.md"),
                           "--memory-limit", limit], "5,633,245-node tree")
    assert f"--memory-limit {float(limit):.3g} GiB" in line and not (tmp_path / "r.md").exists()


def test_the_watchdog_stops_what_no_one_checked():
    """Growth that no check foresaw is stopped below the limit, in Python code."""
    limit = rss_bytes() + 96 * 2**20
    held = []
    with pytest.raises(MemoryLimitError, match="stopped before passing the limit"):
        with use_budget(MemoryBudget(limit, "--memory-limit test"), "the test"):
            assert current_budget().limit_bytes == limit
            for _ in range(10_000):
                held.append(np.ones(2**17))  # 1 MiB at a time
    assert rss_bytes() < limit and current_budget() is None
    del held


def test_openings_honour_top_in_json_and_csv():
    code, out, err = spycfr("openings", TINY, "--top", "3", "--json")
    assert code == 0, err
    data = json.loads(out)
    assert all(len(data[p]["placements"]) == 3 for p in ("P1", "P2"))
    everything = json.loads(spycfr("openings", TINY, "--json")[1])
    assert len(everything["P1"]["placements"]) > 3
    csv = spycfr("openings", TINY, "--top", "2", "--csv")[1].strip().splitlines()
    assert len(csv) == 1 + 2 * 2  # a header, two rows a player


def test_openings_of_an_interrupted_run_say_how_to_finish_it(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    (run / "checkpoint.npz").write_bytes(b"")
    one_line_error(["openings", str(run)], f"finish it with `spycfr solve --resume {run}`")


def test_openings_of_a_sampled_run_show_its_measured_bound(tmp_path):
    code, out, err = spycfr("openings", str(RESULTS / "standard-placements"), "--top", "1")
    assert code == 0, err
    lbr = json.loads((RESULTS / "standard-placements" / "run.json").read_text())["measured"][
        "local_best_response"]
    assert (f"exploitability unknown: a local best response won {lbr['value']:+.3f} a game "
            f"[95%: {lbr['ci95'][0]:+.3f}, {lbr['ci95'][1]:+.3f}] in {lbr['games']:,} games, "
            f"so at least {lbr['ci95'][0]:.3f} at 95%") in " ".join(out.split())
    assert "not measured" not in out
    # the JSON outputs give the words' figures: value the 95% low end (it gave the mean)
    code, out, err = spycfr("openings", str(RESULTS / "standard-placements"), "--top", "1",
                            "--json")
    assert code == 0, err
    bound = json.loads(out)["exploitability_lower_bound"]
    assert (bound["value"], bound["low95"], bound["mean"], bound["games"]) == (
        lbr["ci95"][0], lbr["ci95"][0], lbr["value"], lbr["games"])
    assert bound["opponent"] == "local best response" and "at least 0.959" in bound["words"]
    code, out, err = spycfr("query", str(RESULTS / "standard-placements"), "--as", "P1", "",
                            "--json")
    assert code == 0, err
    assert json.loads(out)["measured"]["exploitability_lower_bound"] == bound


def test_team_out_is_kept_as_a_hidden_alias(tmp_path):
    one_line_error(["team", "agent-avenue", "--out", str(tmp_path / "t"), "-o",
                    str(tmp_path / "u")], "--out is another name of --output")


PLAY_RUNS = {"agent-hunter": RESULTS / "tiny",
             "agent-avenue": RESULTS / "agent-avenue" / "tiny",
             "agent-double-double-agent": RESULTS / "agent-double-double-agent" / "tiny"}


def _play(run: Path, tmp_path: Path, moves: list[str], seed: str = "3") -> str:
    path = tmp_path / "moves.txt"
    path.write_text("\n".join(moves) + "\n")
    code, out, err = spycfr("play", str(run), "--seed", seed, "--moves", str(path))
    assert code == 0, err
    return out


def test_play_on_agent_avenue_echoes_the_move_and_shows_every_card_at_the_end(tmp_path):
    out = _play(PLAY_RUNS["agent-avenue"], tmp_path, ["1"] * 40)
    mine = [line for line in out.splitlines() if line.startswith("you: ")]
    assert "you: take:up" in mine and not any("=" in line for line in mine)  # no hidden card
    board = out.split("\nresult: ")[0].rsplit("\n\n", 1)[1].splitlines()  # the final board
    record = next(line for line in board if line.startswith("record: "))
    assert "?" not in record and "(view of" not in record  # the final board shows all
    assert "P2  hand: ? " not in "\n".join(board)
    assert "1 cards" not in out


def test_one_card_is_singular():
    from spycfr.games.agent_avenue.position import _count

    assert (_count(1), _count(2), _count(0)) == ("1 card", "2 cards", "0 cards")


@pytest.mark.parametrize("game", list(PLAY_RUNS))
def test_play_ends_alike_and_help_explains_the_notation(tmp_path, game):
    from spycfr.games import get_plugin

    out = _play(PLAY_RUNS[game], tmp_path, ["help"] + ["1"] * 80)
    lines = out.splitlines()
    assert sum(line.startswith("result: ") for line in lines) == 1  # the same in every game
    # before it, the game's own end-of-game line, which says how the game ended (the
    # workbench's play page shows it; the terminal dropped it)
    over = [i for i, line in enumerate(lines) if line.startswith("game over: ")]
    assert len(over) == 1 and lines[over[0] + 1].startswith("result: "), out[-800:]
    assert "depends on" not in lines[over[0]]  # the whole record: every card shown
    if game == "agent-avenue":  # the reason the game ended, e.g. "(P1 caught the spy)"
        assert lines[over[0]].endswith(")"), lines[over[0]]
    guide = get_plugin(game).records.guide
    assert guide and all(f"  {line}" in out for line in guide)


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_long_load_says_what_it_does_at_a_terminal(monkeypatch):
    """Issue 26 item 7: a command that loads a run (openings, query, report, ...) says so after
    a second at a terminal (rebuilding results/small's tree took 70 s in silence), then every
    15 s; a quick one and a pipe say nothing."""
    from spycfr.cli import progress

    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    with progress.heartbeat("loading X", "still loading X ({:.0f} s)", delay=0.05):
        time.sleep(0.5)
    assert terminal.getvalue() == "loading X\n"
    with progress.heartbeat("quick", "again", delay=5.0):
        pass
    assert "quick" not in terminal.getvalue()
    pipe = io.StringIO()
    monkeypatch.setattr(sys, "stderr", pipe)
    with progress.heartbeat("piped", "again", delay=0.0):
        time.sleep(0.1)
    assert pipe.getvalue() == ""
    monkeypatch.setattr(sys, "stderr", terminal)
    monkeypatch.setattr(progress, "heartbeat",
                        lambda first, again: progress.contextlib.nullcontext(
                            terminal.write(first + "\n")))
    run = progress.load_run_saying(TINY)
    assert run.tree.num_nodes == 7_339
    assert f"loading {TINY}: rebuilding its tree of 7,339 nodes" in terminal.getvalue()


def test_compiling_is_said_only_when_numba_compiles():
    """query, play and solve --algorithm re-solving said "the first time compiles numba
    kernels" even with every kernel cached: now a kernel compiled in the block (a miss of
    numba's cache) is said, once, and one already compiled says nothing."""
    from numba import njit

    from spycfr.cli import progress

    @njit
    def twice(x):
        return 2 * x

    said: list[str] = []
    with progress.saying_when_compiling(said.append):
        assert twice(3) == 6  # compiles
        assert twice(4.5) == 9.0  # compiles another signature: said once all the same
    assert said == [progress.COMPILING]
    with progress.saying_when_compiling(said.append):
        assert twice(5) == 10  # compiled already
    assert said == [progress.COMPILING]
    assert twice(1j) == 2j  # outside the block: nothing said
    assert said == [progress.COMPILING]


def test_record_check_says_when_numba_compiles(monkeypatch):
    """`spycfr record check agent-avenue --preset tiny ...` (the README's example) took 77 s
    in a fresh clone with nothing said while numba compiled the game's kernels: it says so
    on stderr, as query does, and nothing when the kernels are cached; stdout is the same."""
    import dataclasses

    from click.testing import CliRunner
    from numba import njit

    import spycfr.games
    from spycfr.cli.main import cli
    from spycfr.cli.progress import COMPILING

    record = ["agent-hunter", "--preset", "tiny", "place:0-1 place:1-0"]
    cached = CliRunner().invoke(cli, ["record", "check", *record])
    assert cached.exit_code == 0 and COMPILING not in cached.stderr

    @njit
    def fresh(x):
        return x + 1

    real = spycfr.games.feature

    def feature(*args):  # the notation, its replay compiling a kernel the cache lacks
        notation = real(*args)

        def summary(*a):
            assert fresh(1) == 2
            return notation.summary(*a)
        return dataclasses.replace(notation, summary=summary)

    monkeypatch.setattr(spycfr.games, "feature", feature)
    said = CliRunner().invoke(cli, ["record", "check", *record])
    assert said.exit_code == 0 and said.stderr.splitlines() == [COMPILING]
    assert said.stdout == cached.stdout


def test_solve_says_it_is_preparing_at_a_terminal(monkeypatch):
    """Issue 26 item 7: the quick start was silent for 85-112 s while numba compiled; solve
    now says what it prepares at once at a terminal (the heartbeat goes on every 15 s)."""
    from spycfr.cli.solve_progress import SolveProgress

    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    progress = SolveProgress(None, None, quiet=False)
    progress.preparing()
    for _ in range(100):
        if terminal.getvalue():
            break
        time.sleep(0.02)
    progress.stop_preparing()
    assert terminal.getvalue().startswith("preparing the game and the solver")
    quiet = SolveProgress(None, None, quiet=True)
    quiet.preparing()
    assert getattr(quiet, "_timer", None) is None


def test_the_rulesheet_game_by_default_is_the_search_agent():
    """Issue 26 item 8: `spycfr solve agent-hunter --preset standard` with default options
    makes the search agent's run (no refusal); a setting of another algorithm keeps it off."""
    from spycfr.cli.solve_agent import plays_by_search

    assert plays_by_search("agent-hunter", "standard", "auto", (), (None, None))
    assert not plays_by_search("agent-hunter", "standard", "auto", (), (None, 1000))
    assert not plays_by_search("agent-hunter", "mini", "auto", (), (None, None))


def test_dask_is_pinned_past_its_cves():
    """Issue 26 item 6: CVE-2024-10096 (fixed in distributed 2024.9.0) and CVE-2026-23528
    (2026.1.1) are excluded by the requirement, and the installed version holds it."""
    from importlib.metadata import version

    text = (RESULTS.parent / "pyproject.toml").read_text()
    pin = re.search(r'"dask\[distributed\]>=([0-9.]+)"', text)
    assert pin is not None

    def key(v: str) -> tuple[int, ...]:
        return tuple(int(x) for x in re.findall(r"\d+", v)[:3])

    assert key(pin.group(1)) >= (2026, 1, 1)
    assert key(version("distributed")) >= key(pin.group(1))


def test_the_tutorial_quotes_what_openings_print():
    """Issue 26 item 15: the tutorial's openings of results/mini are what `spycfr openings
    results/mini` prints now (results/small's block is checked by
    benchmarks/replay_issue26.py: its tree takes 1.4 GiB and minutes to rebuild)."""
    tutorial = (RESULTS.parent / "docs" / "tutorial.md").read_text()
    quoted = tutorial.split("`results/mini` holds the same variant")[1].split("```")[1]
    code, out, err = spycfr("openings", str(RESULTS / "mini"))
    assert code == 0, err
    block = quoted.strip().splitlines()
    assert block[0].startswith("P2 placements")
    assert "\n".join(line.rstrip() for line in block) in "\n".join(
        line.rstrip() for line in out.splitlines())


# --- --seed: one rule in every command ----------------------------------------------------


SEED_COMMANDS = [
    ["head-to-head", "uniform", "uniform", "--game", "kuhn", "--games", "10"],
    ["measure", TINY], ["play", TINY], ["train-openings", TINY],
    ["train-values", "agent-hunter"],
    ["solve", "kuhn", "--algorithm", "es-mccfr", "--iterations", "10", "-q"],
    ["solve", "agent-hunter", "--algorithm", "re-solving", "-q"],
]


@pytest.mark.parametrize("args", SEED_COMMANDS, ids=lambda a: " ".join(a[:2]))
@pytest.mark.parametrize("seed", ["-5", str(2**63), "x"])
def test_seed_must_be_a_nonnegative_int64(args, seed):
    """numpy's SeedSequence takes integers >= 0 only, and the kernels take an int64: every
    --seed refuses the rest before any work, with one line naming the value and the range."""
    with pytest.raises(ValueError):
        np.random.SeedSequence(-5)
    line = one_line_error([*args, "--seed", seed], f"got {seed!r}")
    assert "--seed must be an integer from 0 to 9223372036854775807" in line


def test_seed_bounds_are_accepted():
    """0 and 2**63 - 1 are seeds: the second half of a head-to-head's games (seat swapped)
    draws from seed + 2**40, kept in range."""
    for seed in ("0", str(2**63 - 1)):
        code, out, err = spycfr("head-to-head", "uniform", "uniform", "--game", "kuhn",
                                "--games", "10", "--seed", seed, "--json")
        assert code == 0, err
        assert json.loads(out)["seed"] == int(seed)
        assert "overflow" not in err


def test_a_solve_to_a_target_says_when_its_eta_comes(capsys, monkeypatch):
    """The quick start (--target-exploitability alone: no iteration count to reach) printed
    'ETA ?' until its third exploitability check; it now says how many more checks the
    extrapolation needs, then the extrapolated ETA, and why there is none where the
    exploitability does not fall or nothing bounds the run."""
    from spycfr.cli import solve_progress
    from spycfr.cli.solve_progress import SolveProgress

    clock = iter(range(0, 1000, 5))
    monkeypatch.setattr(solve_progress.time, "monotonic", lambda: float(next(clock)))

    def lines(progress: SolveProgress, checks: list[float]) -> list[str]:
        progress(0, 0.0, None)  # the starting point
        for n, expl in enumerate(checks, 1):
            progress(100 * n, float(n), expl)
        return capsys.readouterr().err.splitlines()

    said = lines(SolveProgress(None, None, quiet=False, target=1e-4),
                 [1e-2, 5e-3, 2.5e-3, 1e-3])
    assert [x.split("ETA ")[1] for x in said[:3]] == [
        "after 2 more exploitability checks", "after 1 more exploitability check", "~16.7s"]
    # the slope of checks 2-3, ln(0.5)/ln(1.5): 300 (25^0.585 - 1) = 1,671 iterations at 100/s
    assert said[3].split("ETA ")[1].startswith("~") and "?" not in " ".join(said)
    said = lines(SolveProgress(None, None, quiet=False, target=1e-4), [1e-2, 1e-2, 2e-2])
    assert said[-1].endswith("ETA unknown (the exploitability is not falling)")
    # no limit given (a resumed run's are its checkpoint's): no reason claimed
    said = lines(SolveProgress(None, None, quiet=False), [1e-2])
    assert said[-1].endswith("ETA unknown")
    # a resumed run at its count (said 'no iteration count'): nothing left; not yet timed
    at_count = SolveProgress(100, None, quiet=False)
    at_count(100, 1.0, None)
    at_count(100, 1.0, 1e-7, final=True)
    assert capsys.readouterr().err.endswith("ETA 0.0s\n")
    untimed = SolveProgress(200, None, quiet=False)
    untimed(100, 1.0, None)
    untimed(100, 1.0, 1e-2)
    assert capsys.readouterr().err.endswith("ETA unknown (no iterations timed yet)\n")


def test_a_check_that_meets_the_target_says_nothing_is_left(capsys, monkeypatch):
    """The quick start's last line (pcfr+ on mini to 1e-4: 2.28e-05 at its second check)
    said 'ETA after 1 more exploitability check' where the run stopped at that check, and a
    target met after the trend's checks '~0.0s' (extrapolated, it was not): both say 0.0s."""
    from spycfr.cli import solve_progress
    from spycfr.cli.solve_progress import SolveProgress

    clock = iter(range(0, 1000, 5))
    monkeypatch.setattr(solve_progress.time, "monotonic", lambda: float(next(clock)))
    for checks in ([1.76e-4, 2.28e-5], [1e-2, 5e-3, 2.5e-3, 1e-3, 5e-5]):
        progress = SolveProgress(None, None, quiet=False, target=1e-4)
        progress(0, 0.0, None)
        for n, expl in enumerate(checks, 1):
            progress(100 * n, float(n), expl)
        etas = [line.split("ETA ")[1] for line in capsys.readouterr().err.splitlines()]
        assert etas[-1] == "0.0s" and "0.0s" not in etas[:-1], etas
    # an estimate below the target (sampled regret) does not stop the run: no claim it ends
    sampled = SolveProgress(None, None, quiet=False, target=1e-4)
    sampled(0, 0.0, None)
    sampled(100, 1.0, 5e-5, label="exploitability~ (sampled-regret estimate)")
    assert capsys.readouterr().err.endswith("ETA after 3 more exploitability checks\n")


def test_a_progress_line_without_timed_iterations_says_no_rate():
    """A resumed run that stays as it is did no iterations: its progress line said
    'inf it/s'; it says '-' (review2), and a timed rate as before."""
    from spycfr.cli.solve_progress import _rate

    assert _rate(float("inf")) == "-" and _rate(float("nan")) == "-"
    assert _rate(1234.4) == "1,234" and _rate(2.5) == "2.50"


def test_measure_refuses_compare_on_a_run_with_a_tree_before_any_game(tmp_path, monkeypatch):
    """`--compare` compares tree-less runs' openings: on a run with a tree it was ignored
    without a word after every game; now one error line before any game, run.json as it was."""
    import shutil

    from spycfr.analysis import measure
    from spycfr.errors import ParameterError

    run = tmp_path / "tiny"
    shutil.copytree(TINY, run)
    before = (run / "run.json").read_text()
    line = one_line_error(["measure", str(run), "--games", "2", "--compare", str(run)],
                          "--compare compares the openings of tree-less (sampled) runs")
    assert "has a tree" in line and (run / "run.json").read_text() == before

    def no_games(*args, **kwargs):
        raise AssertionError("a game was played before --compare was checked")

    monkeypatch.setattr(measure, "head_to_head", no_games)
    with pytest.raises(ParameterError, match="has a tree"):
        measure.measure_run(run, games=2, compare=(str(run),))
