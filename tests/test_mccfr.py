"""Monte-Carlo CFR on Agent Hunter: exact exploitability on enumerable variants, unbiased
sampled regrets, reproducibility and bit-identical resume."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from spycfr.cfr.mccfr import MCCFRSolver, regrets_on_tree, strategy_on_tree
from spycfr.errors import SpycfrError
from spycfr.exact.best_response import counterfactual_values, exploitability
from spycfr.games import build_tree
from spycfr.games.agent_hunter import make_game

T3 = {"cards": 3, "houses": 1, "decoys": 1, "max_turns": 3}


@pytest.fixture(scope="module")
def t3():
    game = make_game(None, T3)
    return game, build_tree(game)


@pytest.fixture(scope="module")
def tiny():
    game = make_game("tiny")
    return game, build_tree(game)


@pytest.mark.parametrize(
    ("scheme", "checkpoints", "factor"),
    [("external", (1000, 10000), 0.15), ("outcome", (10000, 100000), 0.3)],
)
@pytest.mark.parametrize("game", ["t3", "tiny"])
def test_exact_exploitability_falls(game, scheme, checkpoints, factor, request):
    game, tree = request.getfixturevalue(game)
    uniform = exploitability(tree, tree.uniform_strategy())
    solver = MCCFRSolver(game, scheme, seed=3)
    values = []
    for n in checkpoints:
        solver.iterate(n - solver.iteration)
        values.append(exploitability(tree, strategy_on_tree(solver, tree)))
    assert values[-1] < factor * uniform
    assert values[-1] < 0.6 * values[0]


def test_infosets_match_the_enumerator(t3):
    """The observation-sequence keys are exactly the enumerator's infosets."""
    game, tree = t3
    solver = MCCFRSolver(game, "external", seed=0)
    assert np.allclose(strategy_on_tree(solver, tree), tree.uniform_strategy())  # nothing seen
    solver.iterate(2000)
    strategy_on_tree(solver, tree)  # raises if a tree infoset is split or two are merged
    assert solver.last_tree_coverage == 1.0
    assert solver.num_infosets == tree.num_infosets
    stats = solver.stats()
    assert stats["infosets_p1"] == len(tree.infosets_of(0))
    assert stats["infosets_p2"] == len(tree.infosets_of(1))


@pytest.mark.parametrize(("scheme", "runs"), [("external", 1000), ("outcome", 5000)])
def test_first_iteration_regrets_are_unbiased(tiny, scheme, runs):
    """P1's sampled regrets after one iteration average to the exact counterfactual regrets
    of the uniform profile (P1's traversal comes first, against uniform P2)."""
    game, tree = tiny
    uniform = tree.uniform_strategy()
    cfv, _ = counterfactual_values(tree, uniform)
    exact = cfv - (uniform * cfv).sum(axis=1, keepdims=True)
    total = np.zeros_like(exact)
    total_sq = np.zeros_like(exact)
    for seed in range(runs):
        solver = MCCFRSolver(game, scheme, seed=seed)
        solver.iterate(1)
        r = regrets_on_tree(solver, tree)
        total += r
        total_sq += r * r
    mean = total / runs
    se = np.sqrt(np.maximum(total_sq / runs - mean**2, 0.0) / runs)
    mask = (tree.infoset_player == 0)[:, None] & (uniform > 0)
    assert np.abs(exact[mask]).max() > 0.1  # the check is not vacuous
    assert np.all(np.abs(mean - exact)[mask] <= 5 * se[mask] + 0.02)


def _tables(solver: MCCFRSolver) -> dict:
    return {k: v for k, v in solver.state_dict().items() if isinstance(v, np.ndarray)}


@pytest.mark.parametrize("scheme", ["external", "outcome"])
def test_seeds_reproduce_and_differ(tiny, scheme):
    game, _ = tiny
    runs = []
    for seed in (5, 5, 6):
        solver = MCCFRSolver(game, scheme, seed=seed)
        solver.iterate(300)
        runs.append(_tables(solver))
    assert all(np.array_equal(runs[0][k], runs[1][k]) for k in runs[0])
    assert not (
        runs[0]["regret"].shape == runs[2]["regret"].shape
        and np.array_equal(runs[0]["regret"], runs[2]["regret"])
    )


@pytest.mark.parametrize("scheme", ["external", "outcome"])
def test_resume_is_bit_identical(tiny, scheme, tmp_path):
    game, tree = tiny
    straight = MCCFRSolver(game, scheme, seed=11)
    straight.iterate(700)

    first = MCCFRSolver(game, scheme, seed=11)
    first.iterate(250)
    first.iterate(150)
    state = first.state_dict()
    # Through a checkpoint file: arrays in an .npz, scalars in JSON (as run directories do).
    arrays = {k: v for k, v in state.items() if isinstance(v, np.ndarray)}
    scalars = json.loads(json.dumps({k: v for k, v in state.items() if k not in arrays}))
    np.savez(tmp_path / "ck.npz", **arrays)
    with np.load(tmp_path / "ck.npz") as data:
        loaded = {k: data[k] for k in data.files}
    loaded.update(scalars)

    resumed = MCCFRSolver(game, scheme, seed=11)
    resumed.load_state_dict(loaded)
    assert resumed.iteration == 400
    resumed.iterate(300)
    assert resumed.iteration == straight.iteration == 700
    a, b = _tables(straight), _tables(resumed)
    assert all(np.array_equal(a[k], b[k]) for k in a)
    assert np.array_equal(strategy_on_tree(straight, tree), strategy_on_tree(resumed, tree))


def test_checkpoint_of_other_settings_is_refused(tiny):
    game, _ = tiny
    solver = MCCFRSolver(game, "outcome", seed=1)
    solver.iterate(10)
    other = MCCFRSolver(game, "outcome", seed=2)
    with pytest.raises(SpycfrError, match="seed"):
        other.load_state_dict(solver.state_dict())


def test_regret_bound_is_labelled_and_shrinks(t3):
    game, _ = t3
    solver = MCCFRSolver(game, "external", seed=0)
    solver.iterate(500)
    early = solver.regret_bound()
    solver.iterate(9500)
    late = solver.regret_bound()
    assert "not an exact" in late["kind"]
    assert 0 <= late["nash_conv_bound_estimate"] < 0.5 * early["nash_conv_bound_estimate"]
    assert late["exploitability_bound_estimate"] == pytest.approx(
        late["nash_conv_bound_estimate"] / 2
    )


# Run in a process of its own, as `spycfr solve` runs: the promise is on the process's peak
# resident memory, which a test worker's other files would count.
_MEMORY_LIMIT_RUN = """
import numpy as np
import pytest
from spycfr.cfr.mccfr import MCCFRSolver
from spycfr.engine.rng import root_key
from spycfr.errors import SpycfrError
from spycfr.games.agent_hunter import make_game
from spycfr.memory import peak_rss_bytes, rss_bytes

game = make_game("standard")
# Compiled (or loaded from the cache) first, by a limited solver like the one measured
# (a fresh cache costs MiBs), so the room below is the solver's own.
MCCFRSolver(game, "outcome", seed=0, memory_limit=2**40).iterate(2)
# A big process's history, as a test worker's (its limit was passed by 130 MiB there): an
# array of 30 MiB freed raises glibc's mmap threshold to 30 MiB, so the solver's smaller
# arrays live in the heap, where growing one may copy it and leave the old one resident.
np.ones(30 * 2**20 // 8).sum()
# The limit is on the process's resident memory: leave the solver 120 MiB of room (it keeps
# a margin of 64 MiB of it free), and count the peak from here.
with open("/proc/self/clear_refs", "w") as fh:
    fh.write("5")
limit = rss_bytes() + 120 * 2**20
solver = MCCFRSolver(game, "outcome", seed=0, memory_limit=limit)
with pytest.raises(SpycfrError, match="memory limit"):
    solver.iterate(100_000)
stats = solver.stats()
assert 0 < solver.iteration < 100_000
# The promise is on resident memory. What the tables hold may exceed the 120 MiB of room
# measured above: the process can give memory back before the solver starts.
assert 0 < stats["bytes_allocated"] < limit
assert peak_rss_bytes() <= limit, (peak_rss_bytes(), limit)
assert stats["infosets_p1"] > 0 and stats["infosets_p2"] > 0
# A placement row holds all 720 = 10*9*8 placements.
assert len(solver.average_policy(root_key(0))) == 720
# The state is consistent after the refusal: a checkpoint restores and runs on.
again = MCCFRSolver(game, "outcome", seed=0)
again.load_state_dict(solver.state_dict())
again.iterate(10)
assert again.iteration == solver.iteration + 10
print("ok", solver.iteration)
"""


def test_standard_outcome_sampling_runs_and_memory_limit():
    done = subprocess.run([sys.executable, "-c", _MEMORY_LIMIT_RUN], capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.startswith("ok ")


# A whole run, as `spycfr solve -o DIR --memory-limit` makes it: the peak counts what the run
# allocates after the solver stops (the checkpoint, written 16 MiB at a time through zlib, and
# the openings table: 23.4 MiB past the stop on standard, which a margin of 1/32 of 0.5 GiB
# let through).
_MEMORY_LIMIT_WHOLE_RUN = """
import tempfile
from spycfr.memory import peak_rss_bytes, rss_bytes
from spycfr.runs import SolveConfig
from spycfr.runs.solve import solve_run

config = SolveConfig(game="agent-hunter", preset="standard", algorithm="os-mccfr",
                     iterations=100_000)
with tempfile.TemporaryDirectory() as tmp:
    solve_run(config.replace(iterations=2), out_dir=f"{tmp}/warm")  # every step once
    with open("/proc/self/clear_refs", "w") as fh:
        fh.write("5")  # the peak from here
    limit = rss_bytes() + 120 * 2**20
    run = solve_run(config.replace(memory_limit=limit / 2**30), out_dir=f"{tmp}/run")
    assert run.stopped_by == "memory", run.stopped_by
    assert peak_rss_bytes() <= limit, (peak_rss_bytes(), limit)
print("ok")
"""


def test_a_whole_runs_peak_stays_under_the_memory_limit():
    done = subprocess.run([sys.executable, "-c", _MEMORY_LIMIT_WHOLE_RUN], capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.startswith("ok")


def test_bad_input():
    with pytest.raises(SpycfrError, match="outcome sampling"):
        MCCFRSolver(make_game("standard"), "external")  # ~1e14 nodes per iteration
    with pytest.raises(SpycfrError, match="scheme"):
        MCCFRSolver(make_game("tiny"), "chance")
    with pytest.raises(SpycfrError, match="epsilon"):
        MCCFRSolver(make_game("tiny"), "outcome", epsilon=0.0)
    with pytest.raises(SpycfrError, match="seed"):
        MCCFRSolver(make_game("tiny"), "outcome", seed=-1)
    with pytest.raises(SpycfrError, match="max-turns"):
        MCCFRSolver(make_game("tiny", {"max_turns": "inf"}), "outcome")


def test_solve_reports_what_it_measured(t3):
    game, tree = t3
    solver = MCCFRSolver(game, "outcome", seed=2)
    exact = solver.solve(iterations=3000, check_every=1000, tree=tree)
    assert exact.kind == "exact" and exact.iterations == 3000 and len(exact.log) == 3
    assert exact.value == exploitability(tree, strategy_on_tree(solver, tree))
    estimate = solver.solve(iterations=1000)
    assert "not an exact" in estimate.kind
    assert estimate.value == solver.regret_bound()["exploitability_bound_estimate"]
    with pytest.raises(SpycfrError, match="target"):
        solver.solve(iterations=10, target_exploitability=0.1)
    table = solver.average_table()
    sums = np.add.reduceat(table["policy"], table["offset"])
    assert np.allclose(sums, 1.0) and len(sums) == solver.num_infosets == tree.num_infosets


LEAK_CHECK = """
import gc
from numba.core.runtime import rtsys
from spycfr.cfr.mccfr import MCCFRSolver
from spycfr.cfr.mccfr_kernels import C_FROZEN
from spycfr.games.agent_hunter import make_game

game = make_game("tiny")
for scheme in ("external", "outcome"):
    MCCFRSolver(game, scheme, seed=1).iterate(2)  # compiled (or loaded) first
gc.collect()
before = rtsys.get_allocation_stats()
unstored = 0
for scheme in ("external", "outcome"):
    solver = MCCFRSolver(game, scheme, seed=1, fallback="heuristic")
    solver.iterate(5)  # the tables grow, in the kernel (external) and between iterations
    solver._counts[C_FROZEN] = solver.iteration + 1  # then frozen: unstored infosets met
    solver.iterate(300)
    unstored += solver.stats()["unstored_decisions"]
    del solver
gc.collect()
after = rtsys.get_allocation_stats()
print(after.alloc - before.alloc, after.alloc - after.free - (before.alloc - before.free),
      after.mi_alloc - after.mi_free - (before.mi_alloc - before.mi_free), unstored)
"""


def test_kernels_free_what_they_allocate():
    """The kernels' helpers compiled without reference counting (``_nrt=False``) neither
    leak nor free early: after MCCFR runs whose tables grow inside the kernel, every array
    numba allocated is freed (numba's allocation statistics, in a fresh process)."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    env = {**os.environ, "NUMBA_NRT_STATS": "1"}
    out = subprocess.run([sys.executable, "-c", LEAK_CHECK], env=env, check=True,
                         capture_output=True, text=True, cwd=Path(__file__).parent.parent)
    allocated, live, live_meminfos, unstored = (int(x) for x in out.stdout.split())
    assert allocated > 0 and unstored > 0  # statistics on; the kernels allocated; frozen run
    assert live == 0 and live_meminfos == 0
