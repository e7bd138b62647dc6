"""Hostile .efg files and growing foreign games (issue 26, items 1-3): every one ends in a
one-line error, quickly, before the memory limit is passed; nothing builds 10^N exactly or
overflows a float, and perfect-recall bookkeeping stays linear in the depth."""

from __future__ import annotations

import time

import numpy as np
import pytest

from spycfr import memory
from spycfr.errors import SpycfrError
from spycfr.formats.efg_reader import bounded_number, parse_efg, tree_from_efg
from spycfr.memory import MemoryBudget, MemoryLimitError, peak_rss_bytes, rss_bytes
from test_faults import one_line_error

HEAD = 'EFG 2 R "x" { "A" "B" }\n'


def _one_decision(payoff: str, other: str = "0") -> str:
    return (HEAD + 'p "" 1 1 "" { "a" "b" } 0\n'
            f't "" 1 "" {{ {payoff}, -{payoff} }}\nt "" 2 "" {{ {other}, -{other} }}\n')


def chain(depth: int) -> str:
    """P1 and P2 alternate ``depth`` decisions, each ending the game or going on."""
    lines = [HEAD]
    for d in range(depth):
        lines.append(f'p "" {d % 2 + 1} {d + 1} "" {{ "a" "b" }} 0\nt "" 1 "" {{ 1, -1 }}\n')
    lines.append('t "" 2 "" { 0, 0 }\n')
    return "".join(lines)


@pytest.mark.parametrize("text,fragment", [
    (_one_decision("1e400"), "the number 1e400 is out of range"),
    (_one_decision("9" * 4001), "a number of 4,001 characters (at most 64)"),
    (_one_decision("1e999999999"), "the number 1e999999999 is out of range"),
    (_one_decision("1e-99999999"), "the number 1e-99999999 is out of range"),
    (_one_decision("1/0"), "divides by zero"),
    (HEAD + 'p "" 1 1 "" { "a" "b" } 1 "" { 1e308, -1e308 }\nt "" 2 "" { 1e308, -1e308 }\n'
     't "" 3 "" { 0, 0 }\n', "is out of range"),
    (HEAD + 'p "" 1 1 "" { "a" "b" } 1 "" { 1e200, -1e200 }\nt "" 2 "" { 1, -1 }\n'
     't "" 3 "" { 0, 0 }\n', "payoff 1e+200 is out of range (at most 1e+15 in magnitude)"),
    (HEAD + 'c "" 1 "" { "x" -1/2 "y" 3/2 } 0\nt "" 1 "" { 1, -1 }\nt "" 2 "" { 0, 0 }\n',
     "chance node 1 has a negative probability (-0.5)"),
    (HEAD + 'c "" 1 "" { "x" 2 "y" -1 } 0\nt "" 1 "" { 1, -1 }\nt "" 2 "" { 0, 0 }\n',
     "chance node 1 has a probability above 1 (2)"),
    (HEAD + 'p "" 1 ' + "9" * 30 + ' "" { "a" } 0\nt "" 1 "" { 1, -1 }\n',
     "at most 18 digits"),
])
def test_hostile_numbers_are_one_line_errors_at_once(tmp_path, text, fragment):
    path = tmp_path / "hostile.efg"
    path.write_text(text)
    start = time.perf_counter()
    for command in ("info", "solve"):
        args = [command, str(path)] + (["-o", str(tmp_path / "run"), "-q"]
                                       if command == "solve" else [])
        one_line_error(args, fragment)
    assert time.perf_counter() - start < 30  # no 10^999999999 built, no hang


def test_numbers_are_bounded_before_they_are_built():
    assert bounded_number("1/3") == pytest.approx(1 / 3)
    assert bounded_number("-2.5e-3") * 1000 == -2.5
    for tok in ("1e99999999999999", "1" * 65, "1e-400", "abc"):
        with pytest.raises(ValueError):
            bounded_number(tok)


def test_perfect_recall_bookkeeping_is_linear_in_depth():
    """A chain 20,000 decisions deep: the old bookkeeping held every node's whole move
    history (quadratic: gigabytes); now the tree costs a few MB more than its arrays."""
    text = chain(20_000)
    before = rss_bytes()
    tree = tree_from_efg(text, "chain.efg")
    assert tree.num_nodes == 40_001 and tree.num_infosets == 20_000
    assert int(tree.node_player[tree.first_child[0] + 1]) == 1  # the chain goes on to P2
    assert rss_bytes() - before < 200 * 2**20


def test_a_long_label_costs_its_bytes_not_the_regex_engines_stack():
    """A quoted string of 4 MiB: the tokenizer's pattern repeated once per character, and
    Python's regex engine keeps a frame per repetition (561 MiB traced for these 4 MiB; a
    40 MiB label peaked at 5.6 GB, in one C call the memory checks cannot interrupt). Now
    a run of plain characters is one repetition; escapes read as before."""
    import tracemalloc

    label = "a" * 2**22
    text = (HEAD + f'p "" 1 1 "" {{ "{label}" "b\\"c\\\\" }} 0\n'
            't "" 1 "" { 1, -1 }\nt "" 2 "" { 0, 0 }\n')
    tracemalloc.start()
    try:
        tree = tree_from_efg(text, "g.efg")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert tree.action_labels[0] == [label, 'b"c\\']
    assert peak < 48 * 2**20, peak


def test_the_trees_check_bounds_what_its_pass_allocates(monkeypatch):
    """After the parse, the tree's pass is checked for tree_pass_bytes: what it allocates
    (tracemalloc: numpy's arrays and Python's objects) at most, within 2.5 times, on a
    chain where every decision is its own infoset (515 B a node; the old 130 B a node was
    a quarter of it); on a game of one decision, its fixed costs."""
    import tracemalloc

    from spycfr.formats import efg_reader

    for text in (chain(20_000), _one_decision("1")):
        efg = parse_efg(text)
        monkeypatch.setattr(efg_reader, "parse_efg", lambda *a, _efg=efg, **k: _efg)
        tracemalloc.start()
        try:
            base = tracemalloc.get_traced_memory()[0]
            tree_from_efg(text, "g.efg")
            peak = tracemalloc.get_traced_memory()[1] - base
        finally:
            tracemalloc.stop()
        need = efg_reader.tree_pass_bytes(efg)
        assert peak <= need, (peak, need)
        assert len(efg) < 10 or need <= 2.5 * peak, (peak, need)


def test_a_forgetful_player_is_still_caught():
    text = (HEAD + 'p "" 1 1 "first" { "L" "R" } 0\np "" 2 1 "" { "l" "r" } 0\n'
            'p "" 1 2 "second" { "x" "y" } 0\nt "" 1 "" { 1, -1 }\nt "" 2 "" { 0, 0 }\n'
            't "" 2\np "" 2 1 "" 0\nt "" 2\np "" 1 2 "second" 0\nt "" 1\nt "" 2\n')
    with pytest.raises(SpycfrError, match="does not have perfect recall"):
        tree_from_efg(text, "g.efg")


def test_the_budget_is_checked_before_and_while_reading():
    """Refused before parsing when the node lines alone say it will not fit, and while
    parsing when they do not (the nodes on one line): never after building the tree."""
    text = chain(100_000)
    tight = MemoryBudget(rss_bytes() + 8 * 2**20, "--memory-limit test")
    with pytest.raises(MemoryLimitError, match=r"reading g.efg \(about 200,00[12] nodes\)"):
        parse_efg(text, tight, "g.efg")
    one_line = text.replace("\n", " ")  # the estimate says 1 node: checked as it reads

    class Recording(MemoryBudget):
        def require(self, what, extra_bytes, advice=""):
            self.calls.append(what)
            if "(8,192 done)" in what:
                raise MemoryLimitError(f"stopped at {what}")

    budget = Recording(2**40, "--memory-limit test")
    budget.calls = []
    with pytest.raises(MemoryLimitError, match=r"stopped at reading g.efg \(8,192 done\)"):
        tree_from_efg(one_line, "g.efg", memory=budget)
    assert budget.calls[0] == "reading g.efg (about 1 nodes)"
    assert not any("the tree of" in c for c in budget.calls)  # refused before the tree


def test_a_growing_walk_is_stopped_before_the_limit():
    """The check used by OpenSpiel's walk (and the .efg reader): the growth per step is
    measured, so a walk whose steps are big (a chess state) is refused before the limit."""
    limit = rss_bytes() + 64 * 2**20
    growth = MemoryBudget(limit, "--memory-limit test").tracker("walking", every=64)
    held = []
    with pytest.raises(MemoryLimitError, match="walking"):
        for step in range(1, 100_000):
            held.append(np.ones(2**15))  # 256 KiB a step: 64 steps are 16 MiB
            growth.tick(step)
    assert rss_bytes() < limit
    del held


class _Recording(MemoryBudget):
    """A budget that records the needs its growth checks state (and refuses as its own)."""

    def require(self, what, extra_bytes, advice=""):
        if "done)" in what:
            self.needs.append(extra_bytes)
        super().require(what, extra_bytes, advice)


def test_a_cold_first_step_is_not_taken_for_every_steps():
    """An .efg whose first action is named by a 40 MiB label (a one-off cost of its first
    node), then a chain of 20,000 decisions (about 2 MB to read): the growth check took the
    first step's growth for every step's (40 MiB a node: 160 MiB asked at the second node,
    322 GiB at the 4,096th) and refused it under 192 MiB more; now the first step is resident
    but not extrapolated, and what the checks ask for stays near what the read grows."""
    label = "a" * (40 * 2**20)
    text = chain(20_000).replace('{ "a" "b" }', f'{{ "{label}" "b" }}', 1)
    budget = _Recording(rss_bytes() + 192 * 2**20, "--memory-limit test")
    budget.needs = []
    tree = tree_from_efg(text, "g.efg", memory=budget)
    assert tree.num_nodes == 40_001 and tree.action_labels[0][0] == label
    assert len(budget.needs) > 10 and max(budget.needs) < 16 * 2**20


def test_a_growth_check_extrapolates_the_steps_after_the_first(monkeypatch):
    """The resident memory pinned: 97 MB in the first step (numba compiling its kernels on a
    cold cache, as in a subgame's build), then 100 B a step. What each check asks for is
    twice the next stretch at the growth measured since the first step, and a grain: the old
    check asked for 740 GiB at step 4,096. A walk that starts growing faster later is still
    refused before the limit."""
    base, state = 2**30, {"rate": 100}
    grown = {"bytes": 0}

    def rss() -> int:
        return base + grown["bytes"]

    monkeypatch.setattr(memory, "rss_bytes", rss)
    budget = _Recording(base + 97e6 + 64 * 2**20, "--memory-limit test")
    budget.needs = []
    growth = budget.tracker("walking")
    for step in range(0, 100_001):
        growth.tick(step)
        grown["bytes"] += 97_000_000 if step == 0 else state["rate"]
    assert max(budget.needs) <= 2 * 4096 * 100 + memory.GRAIN + 1
    assert max(budget.needs) >= 2 * 4096 * 100  # an upper bound of the next stretch
    budget = _Recording(base + grown["bytes"] + 64 * 2**20, "--memory-limit test")
    budget.needs = []
    growth, state["rate"] = budget.tracker("walking"), 100
    with pytest.raises(MemoryLimitError, match="walking"):
        for step in range(0, 1_000_001):
            growth.tick(step)
            if step == 50_000:
                state["rate"] = 10_000  # 40 MiB a stretch from here
            grown["bytes"] += state["rate"]
    assert rss() < budget.limit_bytes


@pytest.mark.slow
def test_a_deep_efg_under_a_memory_limit_cli(tmp_path):
    """`spycfr solve chain.efg --memory-limit 1` either solves or refuses; its peak stays
    under the limit (measured in a child process: VmHWM)."""
    import subprocess
    import sys

    path = tmp_path / "chain.efg"
    path.write_text(chain(30_000))
    code = ("import sys\nfrom spycfr.cli.main import main\nfrom spycfr.memory import "
            "peak_rss_bytes\nsys.argv=['spycfr','info',sys.argv[1],'--memory-limit','1']\n"
            "try:\n    main()\nexcept SystemExit as e:\n    print('exit', e.code)\n"
            "print('peak', peak_rss_bytes())\n")
    out = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True,
                         text=True, timeout=600).stdout
    peak = int(out.split("peak ")[1])
    assert peak < 2**30, out
    assert "nodes           60,001" in out
    assert peak_rss_bytes() > 0


def test_openspiel_chess_is_refused_before_the_limit():
    """openspiel:chess grows by hundreds of KB a node (its states): the walk measures that
    and stops below the limit (the old fixed 200 B a node let it pass 1 GiB)."""
    pytest.importorskip("pyspiel")
    from spycfr.formats.openspiel import tree_from_openspiel

    limit = rss_bytes() + 256 * 2**20
    with pytest.raises(MemoryLimitError, match="enumerating openspiel:chess"):
        tree_from_openspiel("chess", memory=MemoryBudget(limit, "--memory-limit test"))
    assert rss_bytes() < limit


def test_openspiel_leduc_is_walked_under_a_limit_near_what_it_needs():
    """Leduc's walk grows about 1.6 MiB in 9,457 nodes; the old check took its first node's
    growth (a first state, about 0.1 MiB) for every node's and asked for 96 MiB every 1,024
    nodes (in a fresh process); now each check asks for about twice the next stretch."""
    pytest.importorskip("pyspiel")
    from spycfr.formats.openspiel import tree_from_openspiel

    budget = _Recording(rss_bytes() + 32 * 2**20, "--memory-limit test")
    budget.needs = []
    assert tree_from_openspiel("leduc_poker", memory=budget).num_nodes == 9457
    assert max(budget.needs) < 8 * 2**20
