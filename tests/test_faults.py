"""Fault injection: mutated game records, tampered and half-written run directories, two
writers, unwritable targets and a full disk each get a one-line error naming the problem,
never a traceback, and never lose what was already written."""

from __future__ import annotations

import errno
import hashlib
import importlib
import io
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cli_helpers import spycfr
from spycfr.errors import RecordError, SpycfrError
from spycfr.games import get_plugin, make_variant, tree_labels
from spycfr.games.plugin import MAX_MOVE_CHARS, MAX_RECORD_CHARS
from spycfr.runs import solve as solve_module
from spycfr.runs.lock import LOCK, RunLock
from spycfr.runs.solve import SolveConfig, solve_run
from spycfr.runs.store import RUN_JSON, STRATEGY_NPZ, file_sha256, load_run

AH = "agent-hunter"
# The games with a record notation, a preset each, and their record modules (random
# legal records to mutate).
RECORD_GAMES = {
    "agent-hunter": ("small", "spycfr.games.agent_hunter.record"),
    "agent-avenue": ("advanced", "spycfr.games.agent_avenue.record"),
    "agent-double-double-agent": ("small", "spycfr.games.agent_double_double_agent.record"),
}


def one_line_error(args: list[str], fragment: str, code: int = 2) -> str:
    got, out, err = spycfr(*args)
    assert got == code, (got, out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert fragment in lines[0], lines[0]
    return lines[0]


# --- records ----------------------------------------------------------------------------


def _random_record(game: str, seed: int) -> str:
    preset, module = RECORD_GAMES[game]
    rec = importlib.import_module(module)
    variant = make_variant(game, preset)
    return rec.format_record(variant, rec.random_playout(variant, seed))


MUTATIONS = st.sampled_from(["insert", "delete", "duplicate", "swap", "replace", "truncate"])


@st.composite
def mutated_records(draw, game: str) -> str:
    """A random legal record of ``game`` with a few random edits (any characters)."""
    tokens = _random_record(game, draw(st.integers(0, 2**16))).split()
    for _ in range(draw(st.integers(1, 3))):
        op = draw(MUTATIONS)
        i = draw(st.integers(0, max(len(tokens) - 1, 0)))
        if not tokens or op == "insert":
            tokens.insert(i, draw(st.text(min_size=1, max_size=12)))
        elif op == "delete":
            del tokens[i]
        elif op == "duplicate":
            tokens.insert(i, tokens[i])
        elif op == "swap":
            j = draw(st.integers(0, len(tokens) - 1))
            tokens[i], tokens[j] = tokens[j], tokens[i]
        elif op == "replace":
            t = tokens[i]
            k = draw(st.integers(0, len(t)))
            tokens[i] = t[:k] + draw(st.text(max_size=4)) + t[k + 1:]
        else:
            tokens = tokens[:i]
    return " ".join(tokens)


@pytest.mark.parametrize("game", list(RECORD_GAMES))
def test_random_records_are_legal(game):
    """The mutations start from legal records (else the test below proves little)."""
    notation = get_plugin(game).records
    variant = make_variant(game, RECORD_GAMES[game][0])
    for seed in range(5):
        assert notation.summary(variant, _random_record(game, seed))["valid"]


@pytest.mark.parametrize("game", list(RECORD_GAMES))
def test_mutated_records_get_a_record_error_or_a_position(game):
    notation = get_plugin(game).records
    variant = make_variant(game, RECORD_GAMES[game][0])

    @settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
    @given(text=mutated_records(game))
    def check(text):
        for call in (lambda: notation.summary(variant, text),
                     lambda: notation.view_key(variant, text, 0),
                     lambda: notation.view_key(variant, text, 1)):
            try:
                out = call()
            except RecordError as exc:
                assert "\n" not in str(exc) and len(str(exc)) < 1000, str(exc)[:300]
            else:
                assert out is not None

    check()


@pytest.mark.parametrize("text,fragment", [
    ("place:0-1\x00", "U+0000"),
    ("place:0-1\nplace:1-2", "U+000A"),
    ("place:0-1\u00a0place:1-2", "U+00A0"),
    ("x" * (MAX_MOVE_CHARS + 1), f"at most {MAX_MOVE_CHARS}"),
    ("a " * (MAX_RECORD_CHARS // 2 + 1), f"at most {MAX_RECORD_CHARS:,}"),
])
def test_records_are_short_printable_text(text, fragment):
    for game in RECORD_GAMES:
        variant = make_variant(game, RECORD_GAMES[game][0])
        with pytest.raises(RecordError, match=re.escape(fragment)):
            get_plugin(game).records.summary(variant, text)


RECORD_FILE = (b"place:0-1\r\n"  # CRLF
               b"\xff\xfe\n"  # not UTF-8
               b"place:0-1 \x01\n"  # a control character
               + b"a" * (4 * MAX_RECORD_CHARS + 10) + b"\n"  # overlong
               b"\n"  # empty: the initial position
               b"place:0-1")  # no final newline


def test_record_files_and_stdin_are_read_alike(tmp_path, monkeypatch):
    path = tmp_path / "records.txt"
    path.write_bytes(RECORD_FILE)
    code, from_file, err = spycfr("record", "check", AH, "--preset", "tiny", "--file", str(path))
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(RECORD_FILE)))
    code2, from_stdin, err2 = spycfr("record", "check", AH, "--preset", "tiny", "--file", "-")
    assert (code, err) == (code2, err2) == (1, "")
    assert from_file == from_stdin
    rows = [json.loads(line) for line in from_file.splitlines()]
    assert [r["line"] for r in rows] == [1, 2, 3, 4, 5, 6]
    assert [r["valid"] for r in rows] == [True, False, False, False, True, True]
    assert "UTF-8" in rows[1]["error"] and "U+0001" in rows[2]["error"]
    assert "bytes long" in rows[3]["error"]


def test_long_error_messages_are_clipped():
    line = one_line_error(["solve", "x" * 5000, "-q"], "unknown game")
    assert len(line) < 2200 and line.endswith("more characters)")


# --- run directories ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def good_run(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("faults") / "run"
    solve_run(SolveConfig(game=AH, preset="tiny", params={}, iterations=20), out_dir=d,
              checkpoint_every=10)
    return d


def copy_run(src: Path, dst: Path) -> Path:
    dst.mkdir(parents=True)
    for p in src.iterdir():
        (dst / p.name).write_bytes(p.read_bytes())
    return dst


def _rewrite_strategy(d: Path, change, vouch: bool) -> None:
    """Replace the strategy by ``change(strategy)``; with ``vouch`` run.json is updated to
    match (a consistent forgery that only the probability checks can catch)."""
    with np.load(d / STRATEGY_NPZ) as data:
        arrays = {k: data[k] for k in data.files}
    arrays["average"] = change(arrays["average"].copy())
    np.savez_compressed(d / STRATEGY_NPZ, **arrays)
    if vouch:
        meta = json.loads((d / RUN_JSON).read_text())
        meta["files"][STRATEGY_NPZ] = file_sha256(d / STRATEGY_NPZ)
        meta["strategy_sha256"] = hashlib.sha256(arrays["average"].tobytes()).hexdigest()
        (d / RUN_JSON).write_text(json.dumps(meta))


def _nan(s):
    s[3, 0] = np.nan
    return s


def _negative(s):
    s[3, :2] = [-0.5, 1.5]
    return s


def _nested(d):
    (d / RUN_JSON).write_text("[" * 100_000 + "]" * 100_000)


def _huge(d):
    (d / RUN_JSON).write_text(json.dumps({"pad": "x" * (70 * 2**20)}))


def _truncate(name):
    def apply(d):
        data = (d / name).read_bytes()
        (d / name).write_bytes(data[: len(data) // 2])
    return apply


def _set(key, value):
    def apply(d):
        meta = json.loads((d / RUN_JSON).read_text())
        meta[key] = value
        (d / RUN_JSON).write_text(json.dumps(meta))
    return apply


@pytest.mark.parametrize("tamper,fragment", [
    (lambda d: _rewrite_strategy(d, _nan, vouch=False), "does not match run.json"),
    (lambda d: _rewrite_strategy(d, _nan, vouch=True), "not finite"),
    (lambda d: _rewrite_strategy(d, _negative, vouch=True), "negative"),
    (lambda d: _rewrite_strategy(d, lambda s: s[:, :1].copy(), vouch=True), "shape"),
    (_truncate(STRATEGY_NPZ), "does not match run.json"),
    (_truncate(RUN_JSON), "is corrupt"),
    (_nested, "is corrupt"),
    (_huge, "is corrupt"),
    (_set("iterations", "many"), "iterations must be an integer"),
    (_set("value_p1", None), "value_p1 is missing"),
    (_set("exploitability", float("nan")), "exploitability is nan"),
    (_set("files", [1, 2]), "files must be an object"),
    (lambda d: (d / RUN_JSON).write_bytes(b"\xff\xfe\x00garbage"), "is corrupt"),
])
def test_tampered_run_files_are_named(tmp_path, good_run, tamper, fragment):
    d = copy_run(good_run, tmp_path / "run")
    tamper(d)
    for args in (["openings", str(d)], ["exploitability", str(d)],
                 ["export", str(d), "--format", "csv", "-o", str(tmp_path / "x.csv")]):
        one_line_error(args, fragment)
    assert not (tmp_path / "x.csv").exists()


def test_a_corrupt_run_json_says_the_way_back(tmp_path, good_run):
    """A truncated run.json was named with the parser's words and nothing to do: the line
    now ends with the way back, from the checkpoint when the run keeps one (`spycfr solve
    --resume` rewrites run.json), else solving again."""
    d = copy_run(good_run, tmp_path / "run")
    _truncate(RUN_JSON)(d)
    line = one_line_error(["openings", str(d)], "is corrupt")
    assert f"`spycfr solve --resume {d}` (the run's last state" in line, line
    assert line.endswith("comes back as recorded; or solve again)"), line
    (d / "checkpoint.npz").unlink()
    line = one_line_error(["openings", str(d)], "is corrupt")
    assert line.endswith(": solve again"), line


@pytest.mark.parametrize("name,way_back", [
    ("convergence.csv", "`spycfr solve --resume"),
    ("strategy.csv", "write it again with `spycfr export {d} --format csv`"),
    (STRATEGY_NPZ, "`spycfr solve --resume"),
])
def test_a_vouched_file_that_is_gone_is_named(tmp_path, good_run, name, way_back):
    """A file run.json vouches for that is gone passed check_run's hashes silently (only a
    missing strategy.npz was said, as unreadable): it is named now, with the way back (a
    strategy table by `spycfr export`, the others from the checkpoint), `spycfr play`'s one
    error line."""
    from spycfr.runs.store import check_run, verify_run_files

    d = copy_run(good_run, tmp_path / "run")
    assert name in json.loads((d / RUN_JSON).read_text())["files"]
    (d / name).unlink()
    for check in (check_run, verify_run_files):
        with pytest.raises(SpycfrError, match=f"{name}' is missing .run.json vouches for it"):
            check(d)
    line = one_line_error(["play", str(d), "--moves", "/dev/null"], f"{name}' is missing")
    assert way_back.format(d=d) in line, line
    assert check_run(d, checked=(name,)).game == AH  # a file the caller checked itself


def test_a_shuffled_table_is_not_trusted_for_labels(tmp_path, good_run):
    """The Parquet table is only a cache of labels: changed, it is ignored (labels are
    replayed), never a wrong label."""
    import pandas as pd

    d = copy_run(good_run, tmp_path / "run")
    table = pd.read_parquet(d / "strategy.parquet")
    table.sample(frac=1.0, random_state=0).to_parquet(d / "strategy.parquet", index=False)
    run = load_run(d)
    reference = load_run(good_run)
    assert run.tree.infoset_keys is None  # not taken from the changed table
    assert tree_labels(run.tree) == tree_labels(reference.tree)
    assert reference.tree.infoset_keys is not None  # the intact table is used


@pytest.mark.parametrize("tamper,fragment", [
    (_truncate("checkpoint.npz"), "unreadable or incomplete"),
    ("nan", "non-finite"),
    ("config", "corrupt"),
])
def test_tampered_checkpoints_are_named(tmp_path, good_run, tamper, fragment):
    d = copy_run(good_run, tmp_path / "run")
    if callable(tamper):
        tamper(d)
    else:
        with np.load(d / "checkpoint.npz") as data:
            arrays = {k: data[k] for k in data.files}
        if tamper == "nan":
            name = next(k for k, v in arrays.items() if v.dtype.kind == "f" and v.size)
            arrays[name] = arrays[name].copy()
            arrays[name].flat[0] = np.nan
        else:
            meta = json.loads(str(arrays["meta"]))
            meta["config"]["no_such_setting"] = 1
            arrays["meta"] = np.array(json.dumps(meta))
        np.savez_compressed(d / "checkpoint.npz", **arrays)
    one_line_error(["solve", "--resume", str(d), "--iterations", "30", "-q"], fragment)


def test_a_run_killed_between_its_final_writes_is_detected(tmp_path, good_run, monkeypatch):
    """Resuming rewrites the strategy, then run.json last: killed in between, the old run.json
    no longer vouches for the new strategy, and loading says so; resuming again repairs it."""
    d = copy_run(good_run, tmp_path / "run")
    real = solve_module.write_json

    def killed(target, obj):
        if Path(target).name == RUN_JSON:
            raise KeyboardInterrupt
        real(target, obj)

    monkeypatch.setattr(solve_module, "write_json", killed)
    with pytest.raises(KeyboardInterrupt):
        solve_run(SolveConfig(game="", preset=None, params={}, iterations=30), resume=d)
    monkeypatch.undo()
    with pytest.raises(SpycfrError, match="does not match run.json"):
        load_run(d)
    assert not list(d.glob(".*.tmp")) and not (d / LOCK).exists()
    solve_run(SolveConfig(game="", preset=None, params={}, iterations=40), resume=d)
    assert load_run(d).result.iterations == 40


def test_a_second_writer_is_refused(tmp_path, good_run):
    d = copy_run(good_run, tmp_path / "run")
    before = {p.name: p.read_bytes() for p in d.iterdir()}
    with RunLock(d):
        one_line_error(["solve", "--resume", str(d), "--iterations", "30", "-q"],
                       "another spycfr")
        one_line_error(["solve", AH, "--preset", "tiny", "-o", str(d), "--overwrite", "-q"],
                       "another spycfr")
    assert {p.name: p.read_bytes() for p in d.iterdir()} == before  # the lock file is gone


def test_stale_temporaries_are_cleared(tmp_path, good_run):
    d = copy_run(good_run, tmp_path / "run")
    (d / ".strategy.npz.abc123.tmp").write_bytes(b"half a file")
    solve_run(SolveConfig(game="", preset=None, params={}, iterations=30), resume=d)
    assert not list(d.glob(".*.tmp"))


def test_unwritable_targets_fail_before_the_work(tmp_path, good_run):
    a_file = tmp_path / "file"
    a_file.write_text("x")
    one_line_error(["solve", AH, "--preset", "tiny", "-o", str(a_file), "-q"], "is a file")
    one_line_error(["solve", AH, "--preset", "tiny", "-o", str(a_file / "run"), "-q"],
                   "is a file")
    one_line_error(["export", str(good_run), "--format", "csv", "-o", str(tmp_path)],
                   "is a directory")
    one_line_error(["export", str(good_run), "--format", "csv", "-o", str(a_file / "x.csv")],
                   "is a file")
    one_line_error(["best-response", str(good_run), "--player", "P1", "-o",
                    str(tmp_path / "br.txt")], "unknown table format")
    one_line_error(["best-response", str(good_run), "--player", "P1", "-o",
                    str(a_file / "br.csv")], "is a file")
    one_line_error(["report", str(good_run), "-o", str(tmp_path)], "is a directory")
    one_line_error(["export-efg", AH, "--preset", "tiny", "-o", str(a_file / "t.efg")],
                   "is a file")
    assert a_file.read_text() == "x"


def _disk_full(*args, **kwargs):
    raise OSError(errno.ENOSPC, "No space left on device")


def test_a_full_disk_is_one_line_and_keeps_the_old_files(tmp_path, good_run, monkeypatch):
    d = copy_run(good_run, tmp_path / "run")
    before = {p.name: p.read_bytes() for p in d.iterdir()}
    monkeypatch.setattr("spycfr.io.os.fsync", _disk_full)  # every atomic write fails
    one_line_error(["solve", "--resume", str(d), "--iterations", "30", "-q"],
                   "No space left on device", code=1)
    monkeypatch.undo()
    assert {p.name: p.read_bytes() for p in d.iterdir()} == before


def test_a_disk_full_midway_leaves_a_loadable_run(tmp_path, good_run, monkeypatch):
    """The checkpoint is written, the strategy is not: the run still loads as it was (its
    run.json and strategy untouched), and resuming goes on from the newer checkpoint."""
    d = copy_run(good_run, tmp_path / "run")
    before = {name: (d / name).read_bytes() for name in (RUN_JSON, STRATEGY_NPZ)}
    monkeypatch.setattr("spycfr.io.np.savez_compressed", _disk_full)
    one_line_error(["solve", "--resume", str(d), "--iterations", "30", "-q"],
                   "No space left on device", code=1)
    monkeypatch.undo()
    assert {name: (d / name).read_bytes() for name in before} == before
    assert not list(d.glob(".*.tmp"))
    assert load_run(d).result.iterations == 20
    solve_run(SolveConfig(game="", preset=None, params={}, iterations=30), resume=d)
    assert load_run(d).result.iterations == 30


def test_too_little_free_space_is_refused_before_solving(tmp_path, monkeypatch):
    from collections import namedtuple

    usage = namedtuple("usage", "total used free")
    monkeypatch.setattr("spycfr.io.shutil.disk_usage", lambda path: usage(10**9, 10**9, 1000))
    line = one_line_error(["solve", AH, "--preset", "tiny", "-o", str(tmp_path / "run"), "-q"],
                          "GiB of disk")
    assert "GiB free" in line and not list((tmp_path / "run").iterdir())
    monkeypatch.undo()
    code, _, err = spycfr("solve", AH, "--preset", "tiny", "-o", str(tmp_path / "run"), "-q")
    assert code == 0, err


def test_export_checks_the_free_space_first(tmp_path, good_run, monkeypatch):
    """export (a full-tree run and a sampled one) refuses a folder without room for the table,
    writing nothing; with room it writes."""
    from collections import namedtuple

    sampled = tmp_path / "sampled"
    assert spycfr("solve", AH, "--preset", "tiny", "--algorithm", "es-mccfr", "--iterations",
                  "50", "-o", str(sampled), "-q")[0] == 0
    usage = namedtuple("usage", "total used free")
    monkeypatch.setattr("spycfr.io.shutil.disk_usage", lambda path: usage(10**9, 10**9, 1000))
    for run, fmt in ((good_run, "csv"), (sampled, "parquet"), (good_run, "json")):
        target = tmp_path / f"out-{run.name}.{fmt}"
        line = one_line_error(["export", str(run), "--format", fmt, "-o", str(target)],
                              "GiB of disk")
        assert f"the table 'out-{run.name}.{fmt}'" in line and not target.exists()
    monkeypatch.undo()
    target = tmp_path / "out.csv"
    assert spycfr("export", str(good_run), "--format", "csv", "-o", str(target))[0] == 0
    assert target.stat().st_size > 0


def test_outputs_follow_links_and_never_replace_devices(tmp_path, good_run):
    """-o through a symbolic link writes the file it points to (the link stays); -o a FIFO
    (like /dev/stdout) writes into it rather than replacing it with a file."""
    import os
    import threading

    real = tmp_path / "real.csv"
    real.write_text("old")
    link = tmp_path / "link.csv"
    link.symlink_to(real)
    code, _, err = spycfr("export", str(good_run), "--format", "csv", "-o", str(link))
    assert code == 0, err
    assert link.is_symlink() and real.read_text().startswith("player,infoset,action")

    fifo = tmp_path / "pipe.csv"
    os.mkfifo(fifo)
    received = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    code, out, err = spycfr("export", str(good_run), "--format", "csv", "-o", str(fifo))
    reader.join(timeout=60)
    assert code == 0, err
    assert received and received[0].startswith(b"player,infoset,action")
    assert "wrote" in err and out == ""  # the table alone goes down the pipe
    assert not fifo.is_file() and fifo.exists()


def test_a_closed_pipe_ends_quietly_with_141(tmp_path):
    """`spycfr ... | head -1`: exit 141 (as if killed by SIGPIPE), nothing on stderr."""
    path = tmp_path / "many.txt"
    path.write_text("place:0-1 place:0-2\n" * 20000)
    proc = subprocess.Popen([sys.executable, "-m", "spycfr.cli.main", "record", "check", AH,
                             "--preset", "tiny", "--file", str(path)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=Path(__file__).resolve().parent.parent)
    proc.stdout.readline()
    proc.stdout.close()
    assert proc.wait(timeout=120) == 141
    assert proc.stderr.read() == b""


def test_check_run_hashes_each_file_once_and_leaves_the_strategy_to_the_load(
        tmp_path, good_run, monkeypatch):
    """check_run hashed strategy.npz twice (every vouched file, then again to read it) and
    loaded it, its array hashed, which `spycfr play`'s load then did again: each vouched file
    is hashed once now, the strategy loaded by the load alone, its array not hashed where
    the file's hash vouches for it. A run.json that vouches for no files (an older run) still
    has the array hashed: a changed strategy is said."""
    from types import SimpleNamespace

    from spycfr.runs import store

    d = copy_run(good_run, tmp_path / "run")
    hashed, loaded, arrays = [], [], []
    real_hash, real_load = store.file_sha256, np.load

    def file_hash(path):
        hashed.append(Path(path).name)
        return real_hash(path)

    def load(path, *args, **kwargs):
        loaded.append(Path(path).name)
        return real_load(path, *args, **kwargs)

    def sha256(*data):
        arrays.extend(data)  # an array's bytes (a file's hash starts empty)
        return hashlib.sha256(*data)

    monkeypatch.setattr(store, "file_sha256", file_hash)
    monkeypatch.setattr(store.np, "load", load)
    monkeypatch.setattr(store, "hashlib", SimpleNamespace(sha256=sha256))
    vouched = json.loads((d / RUN_JSON).read_text())["files"]
    assert STRATEGY_NPZ in vouched
    store.check_run(d)
    assert sorted(hashed) == sorted(vouched) and not loaded and not arrays
    hashed.clear()
    store.load_run(d)
    assert hashed.count(STRATEGY_NPZ) == 1 and loaded.count(STRATEGY_NPZ) == 1 and not arrays
    hashed.clear()
    meta = json.loads((d / RUN_JSON).read_text())
    del meta["files"]  # an older run: only the array's hash
    (d / RUN_JSON).write_text(json.dumps(meta))
    store.check_run(d)
    assert not hashed and loaded.count(STRATEGY_NPZ) == 2 and len(arrays) == 1
    _rewrite_strategy(d, _nan, vouch=False)
    with pytest.raises(SpycfrError, match="not the strategy it was written with"):
        store.check_run(d)
