"""benchmarks/leaf_options.py: the agent benchmarks' experiment options, their allowed values
the solver's own, parsed and set on an agent in one place."""

from __future__ import annotations

import argparse

import pytest

from cli_helpers import bench_script
from spycfr.search import continuation, leafchoice, styles


@pytest.fixture
def one_more(monkeypatch):
    """The solver's tuples of allowed values, each with a value "new" added (as a new choice
    would be, in one edit)."""
    for module, name in ((leafchoice, "CHOICES"), (continuation, "READER_RANGES"),
                         (continuation, "GUESS_BY"), (styles, "BY")):
        monkeypatch.setattr(module, name, (*getattr(module, name), "new"))


def test_the_options_allow_the_solvers_values(one_more):
    """--choice, --reader-range, --guess-by and --detect-by offer the solver's tuples: a
    value added there is allowed, one outside them is argparse's error, exit 2. Fails where
    a flag keeps a hand-written list."""
    options = bench_script("leaf_options")
    parser = argparse.ArgumentParser()
    options.add_leaf_options(parser)
    for flag, key in (("--choice", "choice"), ("--reader-range", "reader_range"),
                      ("--guess-by", "guess_by"), ("--detect-by", "detect_by")):
        assert options.leaf_settings(parser.parse_args([flag, "new"]))[key] == "new"
        with pytest.raises(SystemExit) as stop:
            parser.parse_args([flag, "nobody"])
        assert stop.value.code == 2


def test_the_exact_walk_allows_the_solvers_choices(one_more, capsys):
    """agent_exact_walk.py's own --choice and --reader-range (and --guess-by): the solver's
    tuples, which its parser names when told a value outside them."""
    walk = bench_script("agent_exact_walk")
    for flag in ("--choice", "--reader-range", "--guess-by"):
        with pytest.raises(SystemExit) as stop:
            walk.main(["agent-hunter", "tiny", flag, "nobody"])
        assert stop.value.code == 2
        err = capsys.readouterr().err
        assert "'new'" in err and "nobody" in err, err


def test_turn_levels_is_one_option_set_in_one_place():
    """--turn-levels is among the shared options (agent_headtohead.py, agent_replay.py and
    lbr_diagnose.py take it from leaf_options): parsed into the settings, it alone asks
    something of the agent, and set_up sets AgentConfig.turn_levels (the rest of the
    config and the leaves as they were); nothing given, nothing changes. --needs-only
    likewise (AgentConfig.needs_only), refused where the game has no needed_moves hook."""
    from types import SimpleNamespace

    from spycfr.search.agent import AgentConfig

    options = bench_script("leaf_options")
    parser = argparse.ArgumentParser()
    options.add_leaf_options(parser)
    plain, turns = parser.parse_args([]), parser.parse_args(["--turn-levels"])
    assert not options.asks_anything(options.leaf_settings(plain))
    settings = options.leaf_settings(turns)
    assert settings["turn_levels"] is True and options.asks_anything(settings)
    config = AgentConfig(depth=3)
    agent = SimpleNamespace(config=config, values=None)  # no rollout leaves: none asked
    options.set_up(agent, **options.leaf_settings(plain))
    assert agent.config is config
    options.set_up(agent, **settings)
    assert agent.config.turn_levels and agent.config.depth == 3 and not config.turn_levels
    with pytest.raises(ValueError, match="not rollouts"):  # configure_agent's check
        options.set_up(agent, focus_rows=2)
    # --needs-only likewise sets AgentConfig.needs_only, refused for a game without the hook
    needs = options.leaf_settings(parser.parse_args(["--needs-only"]))
    assert needs["needs_only"] is True and options.asks_anything(needs)
    agent = SimpleNamespace(config=config, values=None,
                            plugin=SimpleNamespace(needed_moves=lambda *a: None))
    options.set_up(agent, **needs)
    assert agent.config.needs_only and not agent.config.turn_levels and not config.needs_only
    agent.plugin = SimpleNamespace(name="agent-hunter", needed_moves=None)
    with pytest.raises(ValueError, match="--needs-only: agent-hunter has no needed_moves hook "
                       r"\(.*\); games with one: agent-avenue") as refused:
        options.set_up(agent, **needs)
    # the flag is the script's, put before the library's words (which said it too)
    assert str(refused.value).count("--needs-only") == 1, refused.value
    # --own is parsed into its styles and given to configure_agent (its check again)
    own = options.leaf_settings(parser.parse_args(["--own", "heuristic,swapper"]))
    assert own["own"] == ["heuristic", "swapper"] and options.asks_anything(own)
    with pytest.raises(ValueError, match="not rollouts"):
        options.set_up(agent, **own)


def test_detect_none_is_checked_before_anything_is_set():
    """--detect-none without --detect, or outside (0, 1], --detect-by without --detect, and
    --needs-only for a game without the needed_moves hook are a ValueError naming the flag
    (the scripts' one error line), the agent unchanged: 2 gave configure_detection's words,
    naming a prior the user never set; --needs-only was refused after --turn-levels was
    set."""
    from types import SimpleNamespace

    from spycfr.search.agent import AgentConfig

    options = bench_script("leaf_options")
    parser = argparse.ArgumentParser()
    options.add_leaf_options(parser)
    config = AgentConfig(depth=3)
    agent = SimpleNamespace(config=config, values=None,
                            plugin=SimpleNamespace(name="agent-hunter", needed_moves=None))
    for argv, words in ((["--detect-none", "0.1"], "--detect-none needs --detect"),
                        (["--detect", "--detect-none", "2"], r"--detect-none 2: a probability"),
                        (["--detect", "--detect-none", "0"], r"--detect-none 0: a probability"),
                        (["--detect-by", "kind"], "--detect-by needs --detect"),
                        (["--needs-only"], "--needs-only: agent-hunter has no needed_moves")):
        settings = options.leaf_settings(parser.parse_args([*argv, "--turn-levels"]))
        with pytest.raises(ValueError, match=words):
            options.set_up(agent, **settings)
        assert agent.config is config and agent.values is None


def test_time_solves_times_each_solve_by_the_clock_given():
    """agent_headtohead.time_solves (play_pairs', bench_agent_resolve_cpu.py's and
    agent_first_resolves_cpu.py's, which each wrapped the solve again): each solve's
    result as before, its seconds by the clock given appended as it ends."""
    from types import SimpleNamespace

    headtohead = bench_script("agent_headtohead")
    ticks = iter(range(0, 100, 5))  # a clock that moves 5 a reading
    agent = SimpleNamespace(solve=lambda what, tree=None: (what, tree))
    seconds = headtohead.time_solves(agent, lambda: next(ticks))
    assert seconds == []
    assert agent.solve("a", tree=1) == ("a", 1) and agent.solve("b") == ("b", None)
    assert seconds == [5, 5]
