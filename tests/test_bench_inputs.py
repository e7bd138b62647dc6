"""The benchmark scripts' wrong inputs: one `error:` line naming what is wrong, exit 2, no
traceback (agent_avenue_swapper.py, bench_subgame_build.py, agent_first_moves.py and
lbr_diagnose.py raised one for each below, style_posterior.py a traceback or nothing at
all, bench_subgame_build.py, bench_scored_now.py and bench_private_rows.py a traceback for
a game without a public-state model, bench_search_passes.py a traceback for each of its
wrong inputs, agent_headtohead.py --summary and lbr_diagnose.py --summary a JSON decoder's
words naming no file for a file not of games, nothing at all for an empty one;
agent_avenue_turn_sizes.py checked so from the start)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "benchmarks"
RESULTS = BENCH.parent / "results"


@pytest.mark.parametrize("script, args, message", [
    ("agent_avenue_swapper.py", ["--margins", "1,abc"], "'abc' is not a number"),
    ("agent_avenue_swapper.py", ["--games", "1"], "--games must be at least 2"),
    ("agent_avenue_swapper.py", ["--preset", "nope"], "unknown preset 'nope'"),
    ("agent_avenue_swapper.py", ["--preset", "advanced"], "not simple mode's"),
    ("bench_subgame_build.py", ["--game", "nope"], "unknown game 'nope'"),
    ("bench_subgame_build.py", ["--roots", "0"], "must be at least 1"),
    ("bench_subgame_build.py", ["--preset", "mini", "--old", "no-such-revision"],
     "--old no-such-revision"),
    ("bench_subgame_build.py", ["--max-nodes", "0"], "must be at least 1"),
    ("bench_scored_now.py", ["--game", "nope"], "unknown game 'nope'"),
    ("bench_scored_now.py", ["--iterations", "0"], "must be at least 1"),
    ("bench_scored_now.py", ["--game", "kuhn", "--preset", "default"],
     "kuhn has no scored_now hook"),
    ("bench_scored_now.py", ["--preset", "mini", "--old", "no-such-revision"],
     "--old no-such-revision"),
    ("bench_private_rows.py", ["--game", "nope"], "unknown game 'nope'"),
    ("bench_private_rows.py", ["--nodes", "0"], "must be at least 1"),
    *((script, ["--game", "agent-double-double-agent", "--preset", "tiny"],
       "agent-double-double-agent has no public-state model")
      for script in ("bench_subgame_build.py", "bench_scored_now.py", "bench_private_rows.py")),
    ("bench_search_passes.py", ["--game", "nope"], "unknown game 'nope'"),
    ("bench_search_passes.py", ["--variant", "nope"], "unknown preset 'nope'"),
    ("bench_search_passes.py", ["--game", "agent-double-double-agent", "--variant", "tiny"],
     "agent-double-double-agent has no public-state model"),
    ("bench_search_passes.py", ["--old", "no-such-revision"], "--old no-such-revision"),
    ("bench_search_passes.py", ["--repeat", "0"], "must be at least 1"),
    ("bench_check_run.py", ["/nonexistent"], "does not exist"),
    ("bench_check_run.py", [str(RESULTS / "tiny"), "--rounds", "0"], "must be at least 1"),
    ("bench_check_run.py", [str(RESULTS / "tiny"), "--old", "no-such-revision"],
     "--old no-such-revision"),
    ("avenue_needed_discards.py", ["--market", "NOPE.X.Y"], "NOPE is not a black market"),
    ("lbr_diagnose.py", ["/nonexistent", "OUT.jsonl"], "does not exist"),
    ("lbr_diagnose.py", ["--summary", "/nonexistent.jsonl"], "No such file"),
    ("lbr_diagnose.py", ["--summary", str(RESULTS / "standard" / "report.md")],
     "report.md line 1: not a JSON line"),
    ("lbr_diagnose.py", ["--summary", "/dev/null"], "/dev/null: no games in it"),
    ("lbr_diagnose.py", ["--summary", str(RESULTS / "standard" / "lbr-diagnosis" /
                                          "detect.jsonl"),
                         "--committed", str(RESULTS / "standard" / "report.md")],
     "report.md line 1: not a JSON line"),
    ("lbr_diagnose.py", [str(RESULTS / "standard"), "OUT.jsonl", "--detect-none", "0.2"],
     "--detect-none needs --detect"),
    ("agent_avenue_turn_sizes.py", ["/nonexistent"], "does not exist"),
    ("agent_avenue_turn_sizes.py", [str(RESULTS / "standard")], "Agent Avenue search agent"),
    ("agent_avenue_turn_sizes.py", [str(RESULTS / "agent-avenue" / "standard"), "--cap", "0"],
     "must be at least 1"),
    ("agent_headtohead.py", ["--summary", str(RESULTS / "standard" / "report.md")],
     "report.md line 1: not a JSON line"),
    ("agent_headtohead.py", ["--summary", "/dev/null"], "/dev/null: no games in it"),
    ("agent_headtohead.py", ["--summary", str(RESULTS / "agent-avenue" / "standard" /
                                              "headtohead-games.needs-only.jsonl"),
                             "--compare", "/dev/null"], "/dev/null: no games in it"),
    ("agent_first_moves.py", ["/nonexistent", "CB.CB.DD.SE"], "does not exist"),
    ("agent_first_moves.py", [str(RESULTS / "agent-avenue" / "mini"), "CB.CB"],
     "not a search agent"),
    ("agent_first_moves.py", [str(RESULTS / "standard"), "CB"], "plays agent-hunter"),
    ("agent_first_moves.py", [str(RESULTS / "agent-avenue" / "standard"), "XX.SE",
                              "--own", "heuristic"], "XX is not an agent code"),
    ("agent_first_moves.py", [str(RESULTS / "agent-avenue" / "advanced"), "CB.CB.DD.SE",
                              "--market", "DEVICE.WATCHTOWER"], "the supply is 3 different cards"),
    ("style_posterior.py", ["--none", "0.1,abc", "--heuristic-games", "1"],
     "'abc' is not a probability in (0, 1]"),
    ("style_posterior.py", ["--none", "0", "--heuristic-games", "1"], "'0' is not a probab"),
    ("style_posterior.py", ["/nonexistent.jsonl"], "No such file"),
    ("style_posterior.py", [str(RESULTS / "standard" / "report.md")],
     "report.md line 1: not a game of"),
    ("style_posterior.py", ["--heuristic-games", "-1"], "must be at least 0"),
    ("style_posterior.py", [], "no games to read"),
    ("train_values_pool.py", ["kuhn", "--out", "OUT", "--after-decisions", "-1"],
     "--after-decisions must be at least 0"),
    ("train_values_pool.py", ["kuhn", "--out", "OUT", "--after-decisions", "2", "--stage",
                              "2"], "--after-decisions makes stage 1 only"),
    ("train_values_pool.py", ["kuhn", "--out", "OUT", "--seeds", "0,x"],
     "--seeds 0,x: seeds are whole numbers from 0"),
    ("train_values_pool.py", ["kuhn", "--out", "OUT", "--seeds", "0,-1"],
     "--seeds 0,-1: seeds are whole numbers from 0"),
    ("train_values_pool.py", ["kuhn", "--out", "OUT", "--seed", "-1"],
     "--seed must be an integer from 0"),
    ("train_values_pool.py", ["kuhn", "--out", "OUT", "--seeds", "0,1,0"], "a seed twice"),
    ("train_values_pool.py", ["nope", "--out", "OUT"], "unknown game 'nope'"),
    ("train_values_pool.py", ["kuhn", "--out", "OUT", "--hidden", "64,x"],
     "layer widths are whole numbers"),
    ("train_values_pool.py", ["kuhn", "--out", "OUT", "--pack-mb", "0"],
     "--pack-mb must be more than 0"),
    ("train_values_rounds.py", ["kuhn", "--out", "OUT", "--seeds", "0,x"],
     "--seeds 0,x: seeds are whole numbers from 0"),
    ("train_values_rounds.py", ["kuhn", "--out", "OUT", "--seeds", "1,-1"],
     "--seeds 1,-1: seeds are whole numbers from 0"),
    ("train_values_rounds.py", ["kuhn", "--out", "OUT", "--seeds", f"0,{2**63}"],
     "--seeds must be an integer from 0 to"),
    ("train_values_rounds.py", ["kuhn", "--out", "OUT", "--seed", "-1"],
     "--seed must be an integer from 0"),
    ("train_values_rounds.py", ["kuhn", "--out", "OUT", "--hidden", "64,x"],
     "layer widths are whole numbers"),
    ("train_values_rounds.py", ["kuhn", "--out", "OUT", "--hidden", "64,0"],
     "layer widths are whole numbers from 1"),
    ("train_values_pool.py", ["kuhn", "--out", "OUT", "--hidden", "0"],
     "layer widths are whole numbers from 1"),
    ("train_values_rounds.py", ["kuhn", "--out", "OUT", "--rounds", "-1"],
     "--rounds must be at least 0"),
    ("train_values_rounds.py", ["kuhn", "--out", "OUT", "--seeds", "0,1,0"], "a seed twice"),
    ("train_values_rounds.py", ["kuhn", "--out", "OUT", "--workers", "-1"],
     "--workers must be at least 0"),
])
def test_a_wrong_input_is_one_error_line(tmp_path, script, args, message):
    proc = subprocess.run([sys.executable, str(BENCH / script), *args], capture_output=True,
                          text=True, cwd=tmp_path, timeout=300)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith("error:") and message in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


def test_the_hands_that_need_a_discard_are_counted_as_docs_say():
    """benchmarks/avenue_needed_discards.py counts docs/search.md's figure (advanced mode's
    first move on the openings' supply): the hands that need a discard by the hook's rule
    (advanced_heuristic.swap_choice) and by simple mode's gains (rules.swap_choice), each
    list what the two rules say of each hand, and the docs' counts and differing hands what
    the program finds (where the test pinned the four hands copied from its output)."""
    from cli_helpers import bench_script
    from spycfr.games.agent_avenue import advanced_heuristic as AH
    from spycfr.games.agent_avenue import rules as R
    from spycfr.games.agent_avenue.record import replay
    from spycfr.games.agent_avenue.variant import CODES, make_variant

    market = "DEVICE.WATCHTOWER.TWIN"
    got = bench_script("avenue_needed_discards").count(market)
    variant = make_variant("advanced")
    params = variant.to_params()

    def picks(hand: str) -> tuple[str, str]:  # each rule's card for P1's first move, '-'
        state = replay(variant, f"deal:{hand}|? market:{market}").state
        return tuple(CODES[p] if (p := rule(state.copy(), params, 0, R.SWAP_MARGIN)) >= 0
                     else "-" for rule in (AH.swap_choice, R.swap_choice))

    differ = {hand: (adv, simple) for hand, adv, simple in got["differ"]}
    for hand in sorted({*got["advanced"], *got["simple"]}):
        adv, simple = picks(hand)
        assert (hand in got["advanced"], hand in got["simple"]) == (adv != "-", simple != "-")
        assert (hand in got["same"]) == (adv == simple != "-")
        assert differ.get(hand) == (None if adv == simple else (adv, simple)), hand
    assert set(differ) == set(got["advanced"]) ^ set(got["simple"]) | {
        h for h in got["advanced"] if h in got["simple"] and h not in got["same"]}
    docs = (BENCH.parent / "docs" / "search.md").read_text()
    assert (f"At the first move on the\nopenings' supply {len(got['advanced'])} of the "
            f"{got['hands']} four-card hands need a discard by it; simple mode's gains\nwould "
            f"discard in {len(got['simple'])} too, {len(got['same'])} of them the same hands "
            "with the same card") in docs
    block = docs.split(f"python benchmarks/avenue_needed_discards.py --market {market}")[1]
    shown = re.findall(r"^  (\S+): advanced (\S+), simple (\S+)$",
                       block.split("```")[1], re.MULTILINE)
    assert [tuple(x) for x in shown] == got["differ"]
