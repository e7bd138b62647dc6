"""Run directories written by `spycfr solve -o`: files, fields, values, resume, Ctrl-C, errors.

The numbers in a run directory are checked against a direct CFRSolver + best_response
computation and against plain-Python passes over the tree; resumed runs must be
bit-identical to uninterrupted ones.
"""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from cli_helpers import spycfr
from spycfr import __version__
from spycfr.cfr import CFRSolver
from spycfr.exact.best_response import best_response, expected_value
from spycfr.games import build_tree, make_game, tree_labels
from spycfr.tree import CHANCE, TERMINAL

RUN_FILES = ("run.json", "strategy.parquet", "strategy.csv", "convergence.csv",
             "checkpoint.npz", "strategy.npz")
TABLE_COLUMNS = ["player", "infoset", "action", "probability", "reach_probability",
                 "counterfactual_value"]
CASES = {
    "tiny": ("agent-hunter", ["--preset", "tiny"], ("agent-hunter", "tiny", {})),
    "kuhn": ("kuhn", [], ("kuhn", None, {})),
}


def solve(*args: str) -> dict:
    code, out, err = spycfr("solve", *args, "-q", "--json")
    assert code == 0, err
    return json.loads(out)


def one_line_error(args, fragment: str) -> str:
    code, out, err = spycfr(*args)
    assert code == 2, (code, out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert "Traceback" not in err
    fragments = (fragment,) if isinstance(fragment, str) else fragment
    assert any(f in lines[0] for f in fragments), lines[0]
    return lines[0]


def npz(path) -> dict:
    with np.load(path) as data:
        return {k: data[k] for k in data.files}


def make_tree(case: str):
    game, preset, params = CASES[case][2]
    return build_tree(make_game(game, preset, params))


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """One run directory per case: cfr+, 150 iterations, seed 7."""
    out = {}
    for case, (game, variant, _) in CASES.items():
        path = tmp_path_factory.mktemp("runs") / case
        res = solve(game, *variant, "--algorithm", "cfr+", "--iterations", "150", "--seed", "7",
                    "-o", str(path))
        out[case] = (path, res)
    return out


# --- files, fields and values ------------------------------------------------------------
@pytest.mark.parametrize("case", list(CASES))
def test_files_and_fields(runs, case):
    path, printed = runs[case]
    assert sorted(p.name for p in path.iterdir()) == sorted(RUN_FILES)  # no temporaries left
    meta = json.loads((path / "run.json").read_text())
    game = CASES[case][0]
    assert meta["game"] == game and meta["algorithm"] == "cfr+"
    assert meta["iterations"] == 150 and meta["seed"] == 7 and meta["version"] == __version__
    assert set(meta["algorithm_params"]) >= {"alpha", "beta", "gamma", "alternating"}
    assert meta["solve_seconds"] > 0 and meta["stopped_by"] == "iterations"
    if game == "agent-hunter":
        assert meta["variant"] == {"cards": 3, "houses": 2, "decoys": 1, "max_turns": 2,
                                   "decoy_rule": "any", "payoff": "win"}
    assert meta["nash_conv"] == meta["best_response_p1"] + meta["best_response_p2"]
    assert meta["exploitability"] == meta["nash_conv"] / 2 > 0
    for key in ("value_p1", "exploitability", "nash_conv", "iterations"):
        assert printed[key] == meta[key]  # what `solve --json` printed is what was saved
    tree = make_tree(case)
    n_rows = int(tree.infoset_num_actions.astype(int).sum())
    for name in ("strategy.csv", "strategy.parquet"):
        table = (pd.read_parquet(path / name) if name.endswith("parquet") else
                 pd.read_csv(path / name, dtype={"infoset": str}, keep_default_na=False,
                             na_values={"counterfactual_value": [""]}))
        assert list(table.columns) == TABLE_COLUMNS and len(table) == n_rows
    conv = pd.read_csv(path / "convergence.csv")
    assert list(conv.columns) == ["iteration", "seconds", "exploitability"]
    assert conv.iteration.iloc[-1] == 150
    assert conv.exploitability.iloc[-1] == meta["exploitability"]
    assert (np.diff(conv.iteration) > 0).all() and (np.diff(conv.seconds) >= 0).all()
    ckpt = npz(path / "checkpoint.npz")
    assert json.loads(str(ckpt["meta"]))["solver"]["iteration"] == 150


@pytest.mark.parametrize("case", list(CASES))
def test_values_equal_direct_solver(runs, case):
    """run.json and strategy.npz = CFRSolver(cfr+) x150 + exact best responses, exactly."""
    path, _ = runs[case]
    meta = json.loads((path / "run.json").read_text())
    tree = make_tree(case)
    solver = CFRSolver(tree, "cfr+")
    solver.iterate(150)
    avg = solver.average_strategy()
    assert np.array_equal(npz(path / "strategy.npz")["average"], avg)
    br1, br2 = best_response(tree, avg, 0)[0], best_response(tree, avg, 1)[0]
    assert meta["value_p1"] == expected_value(tree, avg)
    assert (meta["best_response_p1"], meta["best_response_p2"]) == (br1, br2)
    assert meta["exploitability"] == (br1 + br2) / 2
    assert meta["nodes"] == tree.num_nodes and meta["infosets"] == tree.num_infosets
    ckpt = npz(path / "checkpoint.npz")
    assert np.array_equal(ckpt["R"], solver.R) and np.array_equal(ckpt["S"], solver.S)


@pytest.mark.parametrize("case", list(CASES))
def test_table_columns_independently(runs, case):
    """Labels from a freshly built tree; probability exact; reach and conditional action
    values recomputed by plain-Python passes over the tree."""
    path, _ = runs[case]
    tree = make_tree(case)
    s = npz(path / "strategy.npz")["average"]
    keys, actions = tree_labels(tree)
    table = pd.read_parquet(path / "strategy.parquet")
    counts = tree.infoset_num_actions.astype(int)
    rows = np.repeat(np.arange(tree.num_infosets), counts)
    cols = np.concatenate([np.arange(k) for k in counts])
    assert table.player.tolist() == ["P1" if tree.infoset_player[i] == 0 else "P2" for i in rows]
    assert table.infoset.tolist() == [keys[i] for i in rows]
    assert table.action.tolist() == [actions[i][k] for i, k in zip(rows, cols, strict=True)]
    assert np.array_equal(table.probability.to_numpy(), s[rows, cols])

    fc, nc = tree.first_child.tolist(), tree.num_children.tolist()
    pl, inf = tree.node_player.tolist(), tree.node_infoset.tolist()
    u, cp = tree.utility.tolist(), tree.chance_prob.tolist()
    n = tree.num_nodes

    def prob(v: int, a: int) -> float:
        return cp[inf[v] + a] if pl[v] == CHANCE else float(s[inf[v], a])

    reach = [[1.0] * 3 for _ in range(n)]  # per node: P1's, P2's and chance's contributions
    for v in range(n):
        for a in range(nc[v]):
            c = fc[v] + a
            reach[c] = list(reach[v])
            reach[c][pl[v]] *= prob(v, a)
    value = [0.0] * n
    for v in range(n - 1, -1, -1):
        value[v] = u[v] if pl[v] == TERMINAL else sum(prob(v, a) * value[fc[v] + a]
                                                       for a in range(nc[v]))
    total_reach = np.zeros(tree.num_infosets)
    opp = np.zeros(tree.num_infosets)
    cfv = np.zeros((tree.num_infosets, tree.max_actions))
    for v in range(n):
        if pl[v] in (0, 1):
            i, p = inf[v], pl[v]
            total_reach[i] += reach[v][0] * reach[v][1] * reach[v][2]
            w = reach[v][1 - p] * reach[v][2]
            opp[i] += w
            for a in range(nc[v]):
                cfv[i, a] += w * value[fc[v] + a] * (1 if p == 0 else -1)
    assert table.reach_probability.to_numpy() == pytest.approx(total_reach[rows], abs=1e-13)
    expected = np.where(opp[rows] > 0, cfv[rows, cols] / np.where(opp[rows] > 0, opp[rows], 1),
                        np.nan)
    got = table.counterfactual_value.to_numpy()
    assert np.array_equal(np.isnan(got), np.isnan(expected))
    assert got[~np.isnan(got)] == pytest.approx(expected[~np.isnan(expected)], abs=1e-12)
    if pl[0] == 0:  # P1 decides at the root (Agent Hunter's placement): its value is the game's
        root = rows == inf[0]
        assert math.fsum(table.probability[root] * got[root]) == pytest.approx(
            expected_value(tree, s), abs=1e-12)


# --- resume ------------------------------------------------------------------------------
RESUME_CASES = [
    ("tiny", "cfr+", []),
    ("kuhn", "dcfr", ["--alpha", "2", "--beta", "-0.5", "--gamma", "3"]),
    ("kuhn", "pcfr+", []),
    ("kuhn", "lcfr", ["--simultaneous"]),
]


@pytest.mark.parametrize("case,algorithm,extra", RESUME_CASES,
                         ids=[f"{c}-{a}" for c, a, _ in RESUME_CASES])
def test_resume_equals_uninterrupted(tmp_path, case, algorithm, extra):
    game, variant, _ = CASES[case]
    common = [game, *variant, "--algorithm", algorithm, *extra]
    full = solve(*common, "--iterations", "100", "-o", str(tmp_path / "full"))
    part = tmp_path / "part"
    first = solve(*common, "--iterations", "40", "--checkpoint-every", "15", "-o", str(part))
    assert first["iterations"] == 40
    assert json.loads(str(npz(part / "checkpoint.npz")["meta"]))["solver"]["iteration"] == 40
    resumed = solve("--resume", str(part), "--iterations", "100", "--checkpoint-every", "25")
    assert resumed["iterations"] == 100 and resumed["algorithm"] == algorithm
    for key in ("value_p1", "exploitability", "best_response_p1", "best_response_p2",
                "algorithm_params", "variant"):
        assert resumed[key] == full[key], key
    assert np.array_equal(npz(part / "strategy.npz")["average"],
                          npz(tmp_path / "full" / "strategy.npz")["average"])
    a, b = npz(part / "checkpoint.npz"), npz(tmp_path / "full" / "checkpoint.npz")
    for key in ("R", "S", "sigma", "m"):
        assert np.array_equal(a[key], b[key]), key
    saved = json.loads((part / "run.json").read_text())
    assert saved["iterations"] == 100 and saved["value_p1"] == full["value_p1"]
    conv = pd.read_csv(part / "convergence.csv")
    assert conv.iteration.tolist()[:3] == [15, 30, 40] and conv.iteration.iloc[-1] == 100
    assert (pd.read_parquet(part / "strategy.parquet").probability.to_numpy()
            == pd.read_parquet(tmp_path / "full" / "strategy.parquet").probability.to_numpy()
            ).all()


def test_extend_a_finished_run(tmp_path):
    """A run saved without --checkpoint-every still keeps its final state: --resume to more
    iterations equals one longer run."""
    solve("kuhn", "--iterations", "30", "-o", str(tmp_path / "a"))
    longer = solve("kuhn", "--iterations", "70", "-o", str(tmp_path / "b"))
    extended = solve("--resume", str(tmp_path / "a"), "--iterations", "70")
    assert extended["iterations"] == 70 and extended["value_p1"] == longer["value_p1"]
    assert np.array_equal(npz(tmp_path / "a" / "strategy.npz")["average"],
                          npz(tmp_path / "b" / "strategy.npz")["average"])


def test_the_way_back_from_a_broken_strategy_gives_the_recorded_run(tmp_path):
    """A damaged strategy.npz is told `spycfr solve --resume DIR`; done, the run comes back as
    recorded. A run stopped by its target resumed a batch past it (agent-hunter mini,
    --target-exploitability 3e-5 --checkpoint-every 100: 200 iterations at 3.4e-8 where 100
    at 3.0e-6 were recorded); it stops where it met the target now."""
    import re

    run = tmp_path / "r"
    first = solve("kuhn", "--algorithm", "cfr+", "--target-exploitability", "0.01",
                  "--check-every", "10", "-o", str(run))
    assert first["stopped_by"] == "target"
    before = npz(run / "strategy.npz")["average"]
    data = bytearray((run / "strategy.npz").read_bytes())
    data[len(data) // 2] ^= 0xFF
    (run / "strategy.npz").write_bytes(bytes(data))
    line = one_line_error(["exploitability", str(run)], "strategy.npz")
    command = re.search(r"`spycfr solve (--resume [^`]+)`", line).group(1).split()
    again = solve(*command)
    for key in ("iterations", "stopped_by", "exploitability", "value_p1"):
        assert again[key] == first[key], key
    assert np.array_equal(npz(run / "strategy.npz")["average"], before)
    assert json.loads((run / "run.json").read_text())["iterations"] == first["iterations"]
    more = solve("--resume", str(run), "--target-exploitability", "0.001")  # a new target
    assert more["iterations"] > first["iterations"] and more["exploitability"] <= 0.001


def resume_said(*args: str) -> tuple[dict, str]:
    """`spycfr solve --resume ARGS --json`: (its result, its line saying what the resumed
    run does)."""
    code, out, err = spycfr("solve", "--resume", *args, "--json")
    assert code == 0, err
    said = [x for x in err.splitlines() if x.startswith("resumed at iteration")]
    assert len(said) == 1, err
    return json.loads(out), said[0]


def test_a_resumed_run_says_what_it_does_and_does_it(tmp_path):
    """A resumed run says where it stands against its limits: stays as it stopped (which
    limit, and which limit solves further) or solves on (to what). A run stopped by its
    target, resumed with only a larger --iterations, stopped at once without a word."""
    run = tmp_path / "t"
    first = solve("kuhn", "--algorithm", "cfr+", "--target-exploitability", "0.01",
                  "--check-every", "10", "-o", str(run))
    assert first["stopped_by"] == "target"
    again, said = resume_said(str(run), "--iterations", "100000")
    assert (again["iterations"], again["stopped_by"]) == (first["iterations"], "target")
    assert said.endswith("meets its target of 0.01: it stays as it is (a smaller target "
                         "solves further)"), said
    more, said = resume_said(str(run), "--target-exploitability", "0.001")
    assert more["iterations"] > first["iterations"] and more["stopped_by"] == "target"
    assert said.endswith(": it solves on to iteration 100,000 or exploitability 0.001, "
                         "whichever comes first"), said  # the limit given when resumed
    done = more["iterations"]
    again, said = resume_said(str(run), "--iterations", str(done))
    assert (again["iterations"], again["stopped_by"]) == (done, "iterations")
    assert said == (f"resumed at iteration {done:,}, its iterations limit ({done:,}): it "
                    "stays as it is (a larger iterations limit solves further)")


def test_a_resumed_run_gives_its_eta_by_its_own_limits(tmp_path, capsys, monkeypatch):
    """A run resumed with no limit given solves on to its checkpoint's (here its target), as
    its first line says; its progress lines said 'ETA unknown' (6dd9576: 'unknown (no
    iteration count, time limit or target)'), knowing only the command's limits (none). A run
    that stays did no iterations: its last line said that too, with nothing left to wait for."""
    from spycfr.cli import solve_progress
    from spycfr.cli.solve_progress import SolveProgress
    from spycfr.errors import Interrupted
    from spycfr.runs.config import SolveConfig
    from spycfr.runs.solve import solve_run

    clock = iter(range(0, 100_000, 5))  # every progress call prints
    monkeypatch.setattr(solve_progress.time, "monotonic", lambda: float(next(clock)))

    def stop_at_30(iteration, seconds, value, **_):  # Ctrl-C: the checkpoint at 20 kept
        if iteration >= 30:
            raise KeyboardInterrupt

    run = tmp_path / "k"
    with pytest.raises(Interrupted):
        solve_run(SolveConfig("kuhn", None, algorithm="cfr+", target_exploitability=1e-4,
                              check_every=10), out_dir=run, checkpoint_every=10,
                  progress=stop_at_30)
    progress = SolveProgress(None, None, quiet=False)  # `spycfr solve --resume RUN`
    out = solve_run(SolveConfig("", None), resume=run, progress=progress)
    said = capsys.readouterr().err.splitlines()
    assert said[0] == "resumed at iteration 20: it solves on to exploitability 0.0001", said
    assert out.stopped_by == "target" and out.iterations > 60
    etas = [line.split("ETA ")[1] for line in said[1:]]
    assert etas[:2] == ["after 2 more exploitability checks",
                        "after 1 more exploitability check"], said
    assert etas[2].startswith("~") and "unknown" not in etas[:3], said
    progress = SolveProgress(None, None, quiet=False)  # stays: a final line at once
    again = solve_run(SolveConfig("", None), resume=run, progress=progress)
    progress(again.iterations, again.solve_seconds, again.exploitability, final=True)
    said = capsys.readouterr().err.splitlines()
    assert said[-1].endswith(" ETA 0.0s") and "stays as it is" in said[0], said


def memory_stopped_run(run: Path, monkeypatch, limit: float) -> dict:
    """A sampled run (es-mccfr, Agent Hunter tiny) stopped by its memory limit ``limit``
    (GiB) at iteration 40, short of its 1,000 iterations (its tables made full there, as the
    solver says it), with its exploitability target (10) met too."""
    from spycfr.cfr.mccfr import MCCFRSolver
    from spycfr.errors import MemoryLimitReached

    real = MCCFRSolver._run

    def full_at_40(self, n):
        real(self, min(n, 40 - self.iteration))
        if self.iteration >= 40:
            raise MemoryLimitReached("the tables are full (test)")

    with monkeypatch.context() as patched:
        patched.setattr(MCCFRSolver, "_run", full_at_40)
        first = solve("agent-hunter", "--preset", "tiny", "--algorithm", "es-mccfr",
                      "--iterations", "1000", "--check-every", "40", "--memory-limit",
                      f"{limit:g}", "--target-exploitability", "10", "-o", str(run))
    assert (first["iterations"], first["stopped_by"]) == (40, "memory")
    assert first["exploitability"] <= 10  # the target met too: the memory stop comes first
    return first


def memory_limits() -> tuple[float, float]:
    """Two memory limits (GiB) above this process's peak so far (a run's limit is a promise
    about the process it runs in), the second larger; a machine whose half RAM (the most a
    limit may be) cannot hold them skips."""
    from spycfr.memory import peak_rss_bytes, physical_bytes

    low = math.ceil(peak_rss_bytes() / 2**30 * 10 + 5) / 10  # 0.5-0.6 GiB above the peak
    high = low + 0.5
    if high > physical_bytes() / 2**31:
        pytest.skip(f"limits of {low:g} and {high:g} GiB above this process's peak take more "
                    "than half this machine's RAM")
    return low, high


def test_a_memory_stopped_run_resumes_as_it_stopped_unless_given_more(tmp_path, monkeypatch):
    """A run stopped by its memory limit resumed as 'target' where its last value met the
    target, and otherwise solved on (the resumed process's memory is not the stopped one's):
    it stays as it stopped now, and solves on where the limit is larger. The limits are the
    process's own peak and more, so that the test does not ask for a machine of a size."""
    low, high = memory_limits()
    run = tmp_path / "m"
    memory_stopped_run(run, monkeypatch, low)
    again, said = resume_said(str(run))
    assert (again["iterations"], again["stopped_by"]) == (40, "memory")
    assert said == (f"resumed at iteration 40, where it stopped at its memory limit of {low:.3g} "
                    "GiB: it stays as it is (a larger memory limit, or tables that freeze when "
                    "full, solves further)")
    more, said = resume_said(str(run), "--memory-limit", f"{high:g}",
                             "--target-exploitability", "1e-9")
    assert (more["iterations"], more["stopped_by"]) == (1000, "iterations")
    assert said == (f"resumed at iteration 40, past the memory limit of {low:.3g} GiB it stopped "
                    f"at ({high:.3g} GiB now): it solves on to iteration 1,000 or exploitability "
                    "1e-09, whichever comes first")


def test_a_checkpoint_that_does_not_say_why_its_run_stopped_solves_on_only_when_told(
        tmp_path, monkeypatch):
    """A checkpoint written before the record of why a run stopped (41329e2) read as 'went
    on': a memory-stopped sampled run solved on past its stop, resumed by its own limits. Now
    such a run, short of its other limits, asks for the limits to solve on (the CLI's flags
    in one line); given one, it solves on and says it does not know why it stopped. A run at
    its iterations limit, or on the full tree (which does not stop at a memory limit once it
    runs), resumes as before."""
    low, _ = memory_limits()
    run = tmp_path / "m"
    memory_stopped_run(run, monkeypatch, low)

    def forget_why(run: Path, **config) -> None:  # as a checkpoint before the record
        data = npz(run / "checkpoint.npz")
        meta = json.loads(str(data["meta"]))
        del meta["stopped_by"]
        meta["config"].update(config)
        np.savez(run / "checkpoint.npz", **{**data, "meta": np.array(json.dumps(meta))})

    forget_why(run, target_exploitability=None)  # its target met would stop it as 'target'
    code, out, err = spycfr("solve", "--resume", str(run), "--json")
    assert code == 2 and out == "", err
    assert err.startswith("error: cannot resume at iteration 40 by its own limits: its "
                          "checkpoint, written before spycfr recorded why a run stopped, does "
                          "not say whether it stopped at its memory limit"), err
    assert err.endswith(": give --iterations, --time-limit or --target-exploitability to solve "
                        "on (or --memory-limit, --when-full)\n") and len(err.splitlines()) == 1
    more, said = resume_said(str(run), "--iterations", "80")
    assert (more["iterations"], more["stopped_by"]) == (80, "iterations")
    assert said == ("resumed at iteration 40 (its checkpoint does not say why it stopped): it "
                    "solves on to iteration 80")
    at_limit = solve("kuhn", "--algorithm", "es-mccfr", "--iterations", "40", "-o",
                     str(tmp_path / "k"))
    forget_why(tmp_path / "k")
    again, said = resume_said(str(tmp_path / "k"))
    assert again["iterations"] == at_limit["iterations"] == 40 and "stays as it is" in said
    tree = solve("kuhn", "--algorithm", "cfr+", "--iterations", "40", "-o", str(tmp_path / "t"))
    forget_why(tmp_path / "t", iterations=1000)  # as if interrupted at 40, short of 1,000
    on, said = resume_said(str(tmp_path / "t"))
    assert tree["iterations"] == 40 and on["iterations"] == 1000
    assert said == "resumed at iteration 40: it solves on to iteration 1,000"


def test_ctrl_c_keeps_the_checkpoint_and_resume_completes(tmp_path):
    run_dir = tmp_path / "mini"
    cmd = [sys.executable, "-m", "spycfr.cli.main", "solve", "agent-hunter", "--preset", "mini",
           "--algorithm", "cfr+", "--iterations", "1000000", "--checkpoint-every", "10", "-o",
           str(run_dir), "-q"]
    # A background job may inherit SIGINT as ignored: give the child the default disposition
    # so Python installs its KeyboardInterrupt handler, as in an interactive shell.
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        deadline = time.monotonic() + 180
        while not (run_dir / "checkpoint.npz").exists():
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "no checkpoint written"
            time.sleep(0.05)
        time.sleep(0.2)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode != 0
    assert "Traceback" not in err and "KeyboardInterrupt" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "interrupted" in lines[0] and "--resume" in lines[0], err
    assert not [p for p in run_dir.iterdir() if p.name.endswith(".tmp")]
    ckpt = npz(run_dir / "checkpoint.npz")
    meta = json.loads(str(ckpt["meta"]))
    done = meta["solver"]["iteration"]
    assert done >= 10 and done % 10 == 0
    assert ckpt["R"].shape == ckpt["S"].shape == (58636, 14)

    resumed = solve("--resume", str(run_dir), "--iterations", str(done + 5))
    assert resumed["iterations"] == done + 5 and resumed["stopped_by"] == "iterations"
    tree = build_tree(make_game("agent-hunter", "mini", {}))
    solver = CFRSolver(tree, "cfr+")
    solver.iterate(done + 5)
    assert np.array_equal(npz(run_dir / "strategy.npz")["average"], solver.average_strategy())
    assert json.loads((run_dir / "run.json").read_text())["iterations"] == done + 5


# --- refusals and one-line errors --------------------------------------------------------
def test_refuses_to_overwrite_a_run(runs):
    path, _ = runs["kuhn"]
    before = {p.name: p.read_bytes() for p in path.iterdir()}
    one_line_error(["solve", "kuhn", "--iterations", "5", "-o", str(path), "-q"],
                   "already holds a run")
    assert {p.name: p.read_bytes() for p in path.iterdir()} == before


def test_resume_errors(tmp_path, runs):
    one_line_error(["solve", "--resume", str(tmp_path / "none"), "-q"], "does not exist")
    one_line_error(["solve", "kuhn", "--resume", str(runs["kuhn"][0]), "-o", str(tmp_path)],
                   "--resume")
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "checkpoint.npz").write_bytes(b"not a zip file")
    one_line_error(["solve", "--resume", str(bad), "--iterations", "5", "-q"], "unreadable")
    one_line_error(["solve", "kuhn", "--checkpoint-every", "5", "-q"], "-o")


def copy_run(src: Path, dst: Path) -> Path:
    dst.mkdir()
    for p in src.iterdir():
        (dst / p.name).write_bytes(p.read_bytes())
    return dst


COMMANDS = [
    ["openings", "{d}"],
    ["query", "{d}", "--as", "P1", ""],
    ["export", "{d}", "--format", "csv", "-o", "{d}/x.csv"],
    ["exploitability", "{d}"],
    ["best-response", "{d}", "--player", "P1"],
]


@pytest.mark.parametrize("breakage,fragment", [
    ("missing_dir", ("does not exist", "neither a run directory")),
    ("not_a_run", "run.json is missing"),
    ("run_json_garbage", "corrupt"),
    ("run_json_list", "corrupt"),
    ("run_json_no_config", "corrupt"),
    ("run_json_empty_config", "corrupt"),
    ("strategy_missing", "strategy.npz"),
    ("strategy_garbage", "strategy.npz"),
    ("strategy_other_variant", "does not match"),
])
def test_broken_run_directories(tmp_path, runs, breakage, fragment):
    src = runs["tiny"][0]
    d = tmp_path / "run"
    if breakage == "missing_dir":
        pass
    elif breakage == "not_a_run":
        d.mkdir()
    else:
        copy_run(src, d)
        meta = d / "run.json"
        if breakage == "run_json_garbage":
            meta.write_text('{"game": "agent-hunter", ')
        elif breakage == "run_json_list":
            meta.write_text("[]")
        elif breakage == "run_json_no_config":
            meta.write_text(json.dumps({k: v for k, v in json.loads(meta.read_text()).items()
                                        if k != "config"}))
        elif breakage == "run_json_empty_config":
            meta.write_text(json.dumps({**json.loads(meta.read_text()), "config": {}}))
        elif breakage == "strategy_missing":
            (d / "strategy.npz").unlink()
        elif breakage == "strategy_garbage":
            (d / "strategy.npz").write_bytes(b"garbage")
        elif breakage == "strategy_other_variant":
            (d / "strategy.npz").write_bytes((runs["kuhn"][0] / "strategy.npz").read_bytes())
    for command in COMMANDS:
        one_line_error([a.format(d=d) for a in command], fragment)


def test_run_directory_of_another_variant_is_rebuilt_from_its_config(tmp_path):
    """run.json's config decides the tree: a margin-payoff run is not read as a win run."""
    d = tmp_path / "margin"
    res = solve("agent-hunter", "--preset", "tiny", "--payoff", "margin", "--iterations", "20",
                "-o", str(d))
    assert res["variant"]["payoff"] == "margin"
    code, out, err = spycfr("exploitability", str(d), "--json")
    assert code == 0, err
    assert json.loads(out)["exploitability"] == res["exploitability"]
    assert os.path.isfile(d / "strategy.csv")
