"""The search agent's first plan saved with its run (plan.npz, recorded in run.json): read
back bit for bit, solved again (said in one line) where run.json's agent block no longer
matches it, a clear error where the file is damaged. Agent Hunter tiny: cheap plans."""

from __future__ import annotations

import gc
import json
import weakref
from pathlib import Path

import numpy as np
import pytest

from cli_helpers import spycfr
from spycfr.engine import protocol as P
from spycfr.errors import SpycfrError
from spycfr.games import make_variant
from spycfr.runs import agent_run
from spycfr.runs.agent_run import PLAN_FILE, check_agent_files, load_agent, write_agent_run
from spycfr.runs.store import check_run, read_run
from spycfr.search.agent import AgentConfig, SearchAgent, agent_strategies
from spycfr.search.saved_plan import _TREE, fits_model


def _make(out: Path, monkeypatch, **config) -> Path:
    monkeypatch.setattr(agent_run, "EXACT_NODES", 0)  # no exact walk: the plan is the test
    # the plan at the re-solves' 30 iterations (the game's default plan takes 300)
    write_agent_run(out, "agent-hunter", "tiny", {},
                    AgentConfig.default("agent-hunter", iterations=30,
                                        **{"plan_iterations": 0, **config}))
    return out


def _same_plan(a, b) -> None:
    for name in _TREE:
        x, y = getattr(a.tree, name), getattr(b.tree, name)
        assert x.dtype == y.dtype and np.array_equal(x, y), name
    for s in (0, 1):
        assert np.array_equal(a.tree.mask[s], b.tree.mask[s])
        for field in ("reach", "values", "best"):
            assert np.array_equal(getattr(a, field)[s], getattr(b, field)[s]), field
    assert np.array_equal(a.strategy, b.strategy) and a.iterations == b.iterations


@pytest.mark.parametrize("plan_endgame", [None, 0])  # the whole game; the placements, leaves
def test_a_saved_plan_plays_as_the_solved_one_bit_for_bit(tmp_path, monkeypatch, plan_endgame):
    extra = {} if plan_endgame is None else {"plan_endgame": plan_endgame}
    run = _make(tmp_path / "agent", monkeypatch, **extra)
    record = json.loads((run / "run.json").read_text())
    assert record["plan"]["file"] == PLAN_FILE and record["files"][PLAN_FILE] == \
        record["plan"]["sha256"] and record["plan"]["bytes"] == (run / PLAN_FILE).stat().st_size
    lines: list[str] = []
    loaded = load_agent(run, lines.append)
    fresh = SearchAgent("agent-hunter", record["variant"], loaded.config)
    _same_plan(loaded.plan(), fresh.plan())
    assert lines[-1].startswith(f"the agent's first plan read from {PLAN_FILE} (")
    assert not any("building" in x for x in lines)  # not solved
    assert bool(loaded.plan().tree.leaves.size) == (plan_endgame == 0)
    if plan_endgame is None:  # every decision of the game, re-solves included
        a, b = agent_strategies(loaded)[1], agent_strategies(fresh)[1]
        assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    for seat in (0, 1):  # real games: each decision's probabilities and values
        assert _game(loaded, seat) == _game(fresh, seat)


def test_an_agent_reading_its_saved_plan_is_freed_when_dropped(tmp_path, monkeypatch):
    """The plan-file hook is given the agent that asks, not holding it: an agent (with its
    plans, gigabytes on Agent Avenue mini) was in a reference cycle through the hook's
    closure and stayed resident until the cyclic GC ran (a pytest worker kept 5.5 GiB of
    them after one test, and the next file's solve was refused for its memory limit)."""
    run = _make(tmp_path / "agent", monkeypatch)
    agent = load_agent(run)
    plan = weakref.ref(agent.plan())
    assert agent.saved_plan is not None
    gone = weakref.ref(agent)
    gc.disable()  # freed by reference counting alone, as soon as the last name goes
    try:
        del agent
        assert gone() is None and plan() is None
    finally:
        gc.enable()


def test_the_plan_file_is_hashed_once_from_load_to_first_plan(tmp_path, monkeypatch):
    """The plan file's sha256 is checked when the run is loaded (a damaged file said before
    the player's first move) and not again when the agent first reads its plan: it was
    hashed twice (0.25 s for a 114 MiB file)."""
    run = _make(tmp_path / "agent", monkeypatch)
    hashed: list[Path] = []
    real = agent_run.file_sha256

    def counted(path):
        hashed.append(Path(path))
        return real(path)

    monkeypatch.setattr(agent_run, "file_sha256", counted)
    lines: list[str] = []
    agent = load_agent(run, lines.append)
    assert hashed.count(run / PLAN_FILE) == 1
    agent.plan()
    assert hashed.count(run / PLAN_FILE) == 1
    assert lines[-1].startswith(f"the agent's first plan read from {PLAN_FILE} (")


def _game(agent, seat: int, seed: int = 3) -> list:
    impl = P.implementations(agent.params)
    rng = np.random.default_rng(seed)
    state, g, seen = agent.initial(), agent.game(seat), []
    while impl["current_player"](state, agent.params) >= 0:
        acts = agent.legal(state)
        if impl["current_player"](state, agent.params) == seat:
            info = g.move_info(state, seat)
            seen.append((info.probs.tolist(), info.values.tolist()))
            a = acts[rng.choice(len(acts), p=info.probs)]
        else:
            a = acts[rng.integers(len(acts))]
        state = agent.after(state, int(a))
        g.observe(state)
    return seen


def test_an_edited_agent_block_solves_the_plan_again_and_says_so(tmp_path, monkeypatch):
    run = _make(tmp_path / "agent", monkeypatch)
    record = json.loads((run / "run.json").read_text())
    record["agent"]["iterations"] = 20
    (run / "run.json").write_text(json.dumps(record))
    lines: list[str] = []
    agent = load_agent(run, lines.append)
    assert agent.plan().iterations == 20
    said = [x for x in lines if "solved with another configuration" in x]
    assert len(said) == 1 and "iterations 30 -> 20" in said[0]
    # a re-solve's setting is no part of the plan: the saved one stands
    record["agent"]["iterations"], record["agent"]["endgame"] = 30, 0
    (run / "run.json").write_text(json.dumps(record))
    lines.clear()
    load_agent(run, lines.append).plan()
    assert lines[-1].startswith("the agent's first plan read from")
    plan = load_agent(run).plan()  # a model that changed at the root is seen
    assert fits_model(plan)
    plan.tree.mask[1][plan.tree.first[0]] *= 0.5
    assert not fits_model(plan)
    (run / PLAN_FILE).unlink()
    lines.clear()
    assert load_agent(run, lines.append).plan().iterations == 30
    assert "which is missing: solving the first plan again" in lines[0]
    # `spycfr play`'s checks: the generic one names the vouched file that is gone; the
    # agent's own checks took the missing plan (solved again) and say so to it
    with pytest.raises(SpycfrError, match=f"{PLAN_FILE}' is missing .run.json vouches"):
        check_run(run)
    checked = check_agent_files(run, read_run(run))
    assert PLAN_FILE in checked and check_run(run, checked).game == "agent-hunter"


def test_a_damaged_plan_file_is_a_clear_error(tmp_path, monkeypatch):
    run = _make(tmp_path / "agent", monkeypatch)
    good = (run / PLAN_FILE).read_bytes()
    (run / PLAN_FILE).write_bytes(good[:-100] + bytes(100))
    with pytest.raises(SpycfrError, match="does not match run.json .its sha256 differs"):
        load_agent(run).plan()
    code, out, err = spycfr("query", str(run), "--as", "P1", "place:0-1 place:?")
    assert code == 2 and "Traceback" not in err
    assert err.splitlines()[-1].startswith("error: the agent's saved plan")
    # the file run.json vouches for, but not a plan file: unreadable, said so
    record = json.loads((run / "run.json").read_text())
    (run / PLAN_FILE).write_bytes(b"not a zip file")
    from spycfr.runs.store import file_sha256

    record["plan"]["sha256"] = file_sha256(run / PLAN_FILE)
    (run / "run.json").write_text(json.dumps(record))
    with pytest.raises(SpycfrError, match="is unreadable"):
        load_agent(run).plan()


def test_damaged_plan_says_what_the_load_stops_at_and_nothing_else(tmp_path, monkeypatch):
    """damaged_plan (openings, report and the workbench's warning) makes the load's own
    checks: where run.json's plan record is of another format or was solved with another
    configuration the agent solves its plan again, so a changed file is no damage (it said
    loading stops: it checked the sha256 alone); a file run.json vouches for whose own
    record is unreadable is (it said nothing, and the load stopped). An intact file is
    checked without the configuration's inputs (the value and opening files not hashed);
    run.json as the RunResult a command holds gives the same words."""
    from spycfr.runs.agent_run import damaged_plan
    from spycfr.runs.store import file_sha256, read_run

    run = _make(tmp_path / "agent", monkeypatch)
    meta = json.loads((run / "run.json").read_text())
    with monkeypatch.context() as m:  # an intact file: its own checks, no inputs hashed
        m.setattr(agent_run, "plan_inputs", lambda *a: pytest.fail("inputs hashed"))
        assert damaged_plan(run, meta) is None and damaged_plan(run, read_run(run)) is None
    good = (run / PLAN_FILE).read_bytes()
    (run / PLAN_FILE).write_bytes(good[:-100] + bytes(100))
    words = damaged_plan(run, meta)
    assert words is not None and "its sha256 differs" in words
    assert damaged_plan(run, read_run(run)) == words  # the RunResult a command holds
    with pytest.raises(SpycfrError) as err:
        load_agent(run)
    assert str(err.value) == words  # the load's words
    for change in ({"format": -1}, {"solved_with": {**meta["plan"]["solved_with"],
                                                    "iterations": 31}}):
        changed = {**meta, "plan": {**meta["plan"], **change}}
        assert damaged_plan(run, changed) is None, change
        (run / "run.json").write_text(json.dumps(changed))
        lines: list[str] = []
        load_agent(run, lines.append).plan()  # solved again, said
        assert any("solving the first plan again" in x for x in lines), change
    (run / PLAN_FILE).write_bytes(b"not a zip file")
    meta["plan"]["sha256"] = file_sha256(run / PLAN_FILE)
    (run / "run.json").write_text(json.dumps(meta))
    words = damaged_plan(run, meta)
    assert words is not None and "is unreadable" in words
    with pytest.raises(SpycfrError, match="is unreadable"):
        load_agent(run)


@pytest.mark.parametrize("damage", ["truncated", "altered"])
def test_a_damaged_plan_file_is_said_when_the_run_is_loaded(tmp_path, monkeypatch, damage):
    """A damaged plan.npz (cut short; one byte changed) is a one-line error when the run is
    loaded, naming the file and what is wrong: it was said only when the agent first needed
    its plan, in `spycfr play` after the player's first move, and on the workbench's play
    page at the page after it. query, play and the workbench's play page."""
    from spycfr.web.app import make_app
    from spycfr.web.catalog import discover

    run = _make(tmp_path / "agent", monkeypatch)
    good = bytearray((run / PLAN_FILE).read_bytes())
    if damage == "truncated":
        bad = good[:len(good) // 2]
    else:
        bad = good.copy()
        bad[len(bad) // 2] ^= 0xFF
    (run / PLAN_FILE).write_bytes(bytes(bad))
    words = (f"the agent's saved plan {str(run / PLAN_FILE)!r} does not match run.json (its "
             "sha256 differs: a changed or damaged file): delete")
    with pytest.raises(SpycfrError) as err:
        load_agent(run)  # no move asked of it
    assert str(err.value).startswith(words)
    (tmp_path / "moves").write_text("1\n" * 20)
    for args in (["query", str(run), "--as", "P1", "place:0-1 place:?"],
                 ["play", str(run), "--seat", "P1", "--seed", "1", "--moves",
                  str(tmp_path / "moves")]):
        code, out, err_text = spycfr(*args)
        assert code == 2 and "Traceback" not in err_text, err_text
        assert err_text.splitlines()[-1].startswith("error: " + words), err_text
        assert "your move" not in out, out  # play: before the player's first move
    from test_web_pages import _ask  # the workbench's play page of the same game

    code, page = _ask(make_app(discover([str(run)])), "/play", "run=agent&seat=P1&seed=1")
    assert code == 400 and "does not match run.json" in page, page[-500:]
    assert 'class="moves"' not in page


def test_a_plan_file_holds_plans_by_their_root(tmp_path):
    """Several plans in one file (an agent that plans from each outcome of a first public
    chance), each read back by its root public state, with the caller's meta."""
    from spycfr.search.saved_plan import load_plans, plan_key, plan_meta, save_plans

    agent = SearchAgent("agent-hunter", make_variant("agent-hunter", "tiny").as_dict(),
                        AgentConfig(iterations=5))
    a = agent.plan()
    first = int(a.tree.first[0])
    kid = a.tree.pub[first]
    b = agent.solve("a second plan", agent.subgame(kid, 1), (a.reach[0][first],
                                                             a.reach[1][first]))
    save_plans(tmp_path / "plans.npz", [a, b], {"note": "two"})
    got = load_plans(tmp_path / "plans.npz", agent.model)
    assert set(got) == {plan_key(a.tree.pub[0]), plan_key(kid)}
    _same_plan(got[plan_key(a.tree.pub[0])], a)
    _same_plan(got[plan_key(kid)], b)
    meta = plan_meta(tmp_path / "plans.npz")
    assert meta["note"] == "two" and meta["plans"] == 2


def test_the_first_plan_takes_its_own_iterations(tmp_path, monkeypatch):
    """plan_iterations solves the first plan (once, saved), iterations the re-solves; an
    edit of either in run.json solves the plan again."""
    run = _make(tmp_path / "agent", monkeypatch, plan_iterations=50)
    record = json.loads((run / "run.json").read_text())
    assert record["agent"]["plan_iterations"] == 50 and record["agent"]["iterations"] == 30
    assert load_agent(run).plan().iterations == 50
    record["agent"]["plan_iterations"] = 0  # 0: the re-solves' iterations, as before it
    (run / "run.json").write_text(json.dumps(record))
    assert load_agent(run).plan().iterations == 30
    assert AgentConfig.default("agent-hunter").plan_iterations == 300
    assert AgentConfig.default("agent-avenue").plan_iterations == 0
    with pytest.raises(SpycfrError, match="^plan_iterations must be >= 0"):
        AgentConfig(plan_iterations=-1).check()


def test_reading_a_plan_inflates_its_nonzero_entries_not_the_dense_arrays(tmp_path):
    """The arrays that are mostly zeros (the padded strategy and row tables, reaches and
    values where a private state is never reached, 0/1 masks) are stored sparse, so reading
    a plan inflates far fewer bytes than the dense arrays (Agent Hunter small's whole-game
    plan took 41 s to inflate 4-5 GiB at format 1); the entries round-trip by their bits."""
    import zipfile

    from spycfr.search.saved_plan import load_plans, save_plans

    agent = SearchAgent("agent-hunter", make_variant("agent-hunter", "tiny").as_dict(),
                        AgentConfig.default("agent-hunter", iterations=5, plan_iterations=0))
    plan = agent.plan()  # the whole game: 3,023 public nodes
    save_plans(tmp_path / "plan.npz", [plan], {})
    t = plan.tree
    dense = sum(getattr(t, name).nbytes for name in _TREE) + plan.strategy.nbytes + sum(
        x[s].nbytes for x in (t.mask, plan.reach, plan.values, plan.best) for s in (0, 1))
    with zipfile.ZipFile(tmp_path / "plan.npz") as z:
        inflated = sum(info.file_size for info in z.infolist())
    assert inflated < dense / 4, (inflated, dense)  # 0.82 of 3.73 MB
    _same_plan(next(iter(load_plans(tmp_path / "plan.npz", agent.model).values())), plan)

    from spycfr.search.saved_plan import _pack, _unpack

    class Opened(dict):  # what _unpack reads: an opened npz's names and arrays
        files = property(lambda self: list(self))

    odd = np.zeros((40, 3))
    odd[1, 1], odd[2, 0], odd[7, 2], odd[9, 1] = -0.0, np.nan, 0.25, 1.0
    for a in (odd, np.where(np.arange(90).reshape(30, 3) % 7 == 0, 1.0, 0.0),
              np.zeros((0, 4)), np.arange(12, dtype=np.uint8), np.zeros(5, np.int16)):
        stored = _pack("a", a)
        b = _unpack(Opened(stored), "a")
        assert b.dtype == a.dtype and b.shape == a.shape and b.tobytes() == a.tobytes()
    assert "a~bits" in _pack("a", odd) and _pack("a", odd)["a~vals"].size == 4


def _edit_meta(run: Path, **changes) -> None:
    """Rewrite the run's plan file with its meta changed (and run.json's record of its
    sha256, as older code or a copied file would leave them: consistent, yet stale)."""
    from spycfr.io import save_npz
    from spycfr.runs.store import file_sha256

    with np.load(run / PLAN_FILE) as data:
        arrays = {name: data[name] for name in data.files}
    meta = json.loads(str(arrays["meta"]))
    for key, value in changes.items():
        if isinstance(value, dict):
            meta[key] = {**meta[key], **value}
        else:
            meta[key] = value
    arrays["meta"] = np.asarray(json.dumps(meta))
    save_npz(run / PLAN_FILE, **arrays)
    record = json.loads((run / "run.json").read_text())
    record["plan"]["sha256"] = record["files"][PLAN_FILE] = file_sha256(run / PLAN_FILE)
    (run / "run.json").write_text(json.dumps(record))


@pytest.mark.parametrize("edit, said", [
    ({"solved_with": {"plan_depth": 5}}, "was solved with other settings than the agent's "
                                         "(plan_depth 5 -> 2)"),
    ({"model": {"private_states": [9, 9]}}, "was solved for another game model than this "
                                            "spycfr's (private_states [9, 9] -> [7, 7])"),
    ({"format": 1}, "is of format 1, this spycfr reads format 2")])
def test_a_plan_file_of_other_settings_or_model_is_solved_again_and_said(
        tmp_path, monkeypatch, edit, said):
    """The plan file carries what it was solved with (the settings, the model's sizes):
    one that run.json vouches for (its sha256) but that differs from what the agent would
    solve now is solved again, the mismatch named in one line."""
    run = _make(tmp_path / "agent", monkeypatch)
    _edit_meta(run, **edit)
    lines: list[str] = []
    agent = load_agent(run, lines.append)
    agent.plan()
    hit = [x for x in lines if x.startswith(f"the agent's saved plan {PLAN_FILE} ")]
    assert len(hit) == 1 and said in hit[0], lines
    assert hit[0].endswith("solving the first plan again (as a run without a saved plan does)")
    assert any("building its public tree" in x for x in lines)  # solved


def test_a_plan_whose_tree_the_model_no_longer_makes_is_solved_again(tmp_path, monkeypatch):
    """A rules change below the root: the plan's public nodes counted again (to the end of
    the game, or its decision levels where it has leaves) differ from its tree's."""
    from spycfr.search import saved_plan
    from spycfr.search.saved_plan import plan_mismatch

    run = _make(tmp_path / "agent", monkeypatch)
    plan = load_agent(run).plan()
    assert plan.tree.leaves.size == 0 and plan_mismatch(plan) is None
    monkeypatch.setattr(saved_plan, "nodes_to_end", lambda game, root, most: None)
    lines: list[str] = []
    load_agent(run, lines.append).plan()
    hit = [x for x in lines if "public nodes where this spycfr's game model makes" in x]
    assert len(hit) == 1 and f"has {plan.tree.size:,} public nodes where this spycfr's game " \
        f"model makes more than {plan.tree.size:,} from its root" in hit[0]
    monkeypatch.undo()
    leafy = load_agent(_make(tmp_path / "leafy", monkeypatch, plan_endgame=0)).plan()
    assert leafy.tree.leaves.size and plan_mismatch(leafy, 2) is None
    assert "where this spycfr's game model makes" in plan_mismatch(leafy, 1)


# saved_plan.PLAN_FORMAT is raised by hand. What a plan file of each format holds (its fields
# and the sparse arrays' parts) and what Agent Hunter tiny's whole-game plan is (30 CFR+
# iterations: the strategy's and the seat 1 best-response values' absolute sums, seat 0's
# value): a change to either that leaves PLAN_FORMAT as it was fails here, since files of
# that format would be read as plans of the changed code. Raise PLAN_FORMAT and add its line
# (only where the plan changed with the agent's default configuration or the rules, which a
# file records and checks apart, update the figures instead).
PLAN_FORMATS = {
    2: ({"best0", "best1", "count", "first", "iterations", "kind", "label", "leaves", "mask0",
         "mask1", "parent", "payoff", "prob", "pub", "reach0", "reach1", "row", "row_count",
         "row_kid", "row_next", "row_prob", "strategy", "term", "values0", "values1"},
        {"~bits", "~shape", "~vals"}, (30, 3023, 3731.0, 98.26787567426743,
                                          -0.0009432490777341001)),
}


def test_plan_format_is_raised_when_a_plan_or_its_file_changes(tmp_path):
    from spycfr.search.saved_plan import PLAN_FORMAT, save_plans

    assert PLAN_FORMAT in PLAN_FORMATS, "record the new format's fields and plan here"
    fields, parts, figures = PLAN_FORMATS[PLAN_FORMAT]
    agent = SearchAgent("agent-hunter", make_variant("agent-hunter", "tiny").as_dict(),
                        AgentConfig.default("agent-hunter", iterations=30, plan_iterations=0))
    plan = agent.plan()
    save_plans(tmp_path / "plan.npz", [plan], {})
    with np.load(tmp_path / "plan.npz") as data:
        names = [n.split(".", 1)[1] for n in data.files if n != "meta"]
    assert {n.split("~")[0] for n in names} == fields, "the plan file's fields changed"
    assert {n[n.index("~"):] for n in names if "~" in n} == parts, "the sparse arrays changed"
    got = (plan.iterations, plan.tree.size, float(np.abs(plan.strategy).sum()),
           float(np.abs(plan.best[1]).sum()),
           float(plan.values[0][0] @ agent.model.weights[0]))
    assert got[:2] == figures[:2] and np.allclose(got[2:], figures[2:], rtol=1e-9,
                                                   atol=1e-12), \
        f"the plan changed ({got}): raise saved_plan.PLAN_FORMAT (see PLAN_FORMATS)"


def test_a_plan_files_own_errors_keep_their_lines(tmp_path):
    """load_plans' guard (memory.reading) makes a damaged file's error one line naming the
    file, and lets the reader's own lines through as they are (not 'unreadable (...)')."""
    from spycfr.search.saved_plan import PlanFileError, load_plans

    model = SearchAgent("agent-hunter", make_variant("agent-hunter", "tiny").as_dict(),
                        AgentConfig(iterations=3)).model
    path = tmp_path / "plan.npz"
    np.savez(path, meta=np.array(json.dumps({"plans": 1, "trees": []})))
    with pytest.raises(PlanFileError) as err:
        load_plans(path, model)
    assert str(err.value) == "the agent's plan file lacks p0.pub"
    path.write_bytes(b"not a zip file")
    with pytest.raises(PlanFileError) as err:
        load_plans(path, model)
    assert str(err.value).startswith("the agent's plan file 'plan.npz' is unreadable (")
    assert err.value.__cause__ is None and err.value.__suppress_context__
