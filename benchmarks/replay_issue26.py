"""Replay issue 26's items 1-17 as written, each command in its own process, and print a
table of what happened (docs/issue-26-replay.md is its output on this project's machine).

Each command runs from the installed ``spycfr`` (this interpreter's environment), with
stdout on a pipe and stderr on a pseudo-terminal, as a user at a terminal sees it. For each:
the exit code, the first output line and when it came, the wall time, and the peak resident
memory of the command's process (``ru_maxrss`` from ``wait4``; the Dask workers of a sweep
are processes of their own, each under its own --memory-limit, and are not counted). A row
passes when the outcome is the one the issue asks for: a one-line error naming the fault
(exit 2), or a correct result, under the limit given.

    python benchmarks/replay_issue26.py [--output docs/issue-26-replay.md] [--only 1,2,17]

Items 7 (the quick start, on an empty numba cache) and 17 (three solves of a 208,757-node
tree) take minutes; the rest seconds each.
"""

from __future__ import annotations

import argparse
import json
import os
import pty
import re
import selectors
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "results"
SPYCFR = str(Path(sys.executable).with_name("spycfr"))
GIB = 2**30


@dataclass
class Outcome:
    code: int
    out: str
    err: str
    first_s: float | None  # seconds to the first output line (stdout or stderr)
    first_line: str
    wall_s: float
    peak_bytes: int

    @property
    def error_lines(self) -> list[str]:
        return [line for line in self.err.splitlines() if line.strip()]


def run(args: list[str], timeout: float = 900, env: dict | None = None,
        stdin: str | None = None) -> Outcome:
    """``spycfr ARGS`` with stderr on a pseudo-terminal; its exit code, output, first line,
    wall time and peak RSS."""
    master, slave = pty.openpty()
    start = time.perf_counter()
    proc = subprocess.Popen([SPYCFR, *args], stdout=subprocess.PIPE, stderr=slave,
                            stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                            env={**os.environ, **(env or {})}, cwd=ROOT)
    os.close(slave)
    if stdin is not None:
        proc.stdin.write(stdin.encode())
        proc.stdin.close()
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ, "out")
    sel.register(master, selectors.EVENT_READ, "err")
    chunks = {"out": [], "err": []}
    first_s = None
    first = b""
    open_ = 2
    while open_:
        if time.perf_counter() - start > timeout:
            proc.kill()
        for key, _ in sel.select(timeout=1.0):
            try:
                data = os.read(key.fd, 65536)
            except OSError:  # the pseudo-terminal's other side closed
                data = b""
            if not data:
                sel.unregister(key.fileobj)
                open_ -= 1
                continue
            if first_s is None and data.strip():
                first_s = time.perf_counter() - start
                first = data.strip().splitlines()[0]
            chunks[key.data].append(data)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - start
    os.close(master)
    text = {k: b"".join(v).decode(errors="replace").replace("\r\n", "\n")
            for k, v in chunks.items()}
    return Outcome(proc.returncode, text["out"], text["err"], first_s,
                   first.decode(errors="replace").strip(), wall, usage.ru_maxrss * 1024)


@dataclass
class Row:
    item: str
    command: str
    outcome: str
    ok: bool
    first_s: float | None = None
    wall_s: float | None = None
    peak_bytes: int | None = None
    limit: str = ""
    notes: list[str] = field(default_factory=list)


ROWS: list[Row] = []
TMP = ["/nonexistent"]  # the replay's scratch folder, written TMP in the table


def record(item: str, command: str, res: Outcome | None, ok: bool, outcome: str,
           limit_gib: float | None = None) -> None:
    if res is not None and limit_gib is not None and res.peak_bytes >= limit_gib * GIB:
        ok, outcome = False, outcome + f" (peak over the {limit_gib:g} GiB limit)"
    ROWS.append(Row(item, command, outcome, ok,
                    None if res is None else res.first_s,
                    None if res is None else res.wall_s,
                    None if res is None else res.peak_bytes,
                    "" if limit_gib is None else f"{limit_gib:g} GiB"))
    command, outcome = (re.sub(r"/tmp/replay26-\w*", "TMP", text.replace(TMP[0], "TMP"))
                        .replace(str(ROOT) + "/", "") for text in (command, outcome))
    ROWS[-1].command, ROWS[-1].outcome = command, outcome
    mark = "ok  " if ok else "FAIL"
    print(f"{mark} {item:>3}  {command}  ->  {outcome}", flush=True)


def one_line_error(item: str, args: list[str], fragment: str, shown: str | None = None,
                   limit_gib: float | None = None, within_s: float | None = None) -> Outcome:
    """The command must end in exactly one line, ``error: ...`` holding ``fragment``, exit 2."""
    res = run(args)
    lines = res.error_lines
    ok = (res.code == 2 and len(lines) >= 1 and lines[-1].startswith("error: ")
          and fragment in lines[-1] and "Traceback" not in res.err)
    # progress lines before the error are allowed; the error itself is one line
    outcome = (f"exit {res.code}: {lines[-1][:160]}" if lines else f"exit {res.code}, silent")
    if within_s is not None and res.wall_s > within_s:
        ok, outcome = False, outcome + f" (took {res.wall_s:.0f} s)"
    record(item, shown or "spycfr " + " ".join(args), res, ok, outcome, limit_gib)
    return res


def succeeds(item: str, args: list[str], check: Callable[[Outcome], str | None],
             shown: str | None = None, limit_gib: float | None = None, **kw) -> Outcome:
    """The command must exit 0 and ``check`` (None, or what is wrong) must pass."""
    res = run(args, **kw)
    wrong = None if res.code == 0 else f"exit {res.code}: {(res.error_lines or [''])[-1][:160]}"
    if wrong is None:
        try:
            wrong = check(res)
        except Exception as exc:  # a check that cannot read the output fails the row
            wrong = f"check failed: {exc!r}"
    ok = wrong is None
    outcome = wrong if wrong else "ok: " + _describe(res)
    record(item, shown or "spycfr " + " ".join(args), res, ok, outcome, limit_gib)
    return res


def _describe(res: Outcome) -> str:
    lines = [line for line in res.out.splitlines() if line.strip()]
    return (lines[0][:140] if lines else "(no stdout)")


# --- the items ----------------------------------------------------------------------------

HEAD = 'EFG 2 R "x" { "A" "B" }\n'


def _one_decision(payoff: str, other: str = "0") -> str:
    return (HEAD + 'p "" 1 1 "" { "a" "b" } 0\n'
            f't "" 1 "" {{ {payoff}, -{payoff} }}\nt "" 2 "" {{ {other}, -{other} }}\n')


def _write_chain(path: Path, depth: int) -> None:
    """P1 and P2 alternate ``depth`` decisions, each ending the game or going on."""
    with path.open("w") as fh:
        fh.write(HEAD)
        for d0 in range(0, depth, 10_000):
            fh.write("".join(f'p "" {d % 2 + 1} {d + 1} "" {{ "a" "b" }} 0\n'
                             't "" 1 "" { 1, -1 }\n' for d in range(d0, min(depth, d0 + 10_000))))
        fh.write('t "" 2 "" { 0, 0 }\n')


def item1(tmp: Path) -> None:
    cases = [("1e400", _one_decision("1e400"), "the number 1e400 is out of range"),
             ("a 4,001-digit integer", _one_decision("9" * 4001), "a number of 4,001 characters"),
             ("1e308 inner + 1e308 terminal",
              HEAD + 'p "" 1 1 "" { "a" "b" } 1 "" { 1e308, -1e308 }\nt "" 2 "" { 1e308, '
              '-1e308 }\nt "" 3 "" { 0, 0 }\n', "is out of range"),
             ("1e999999999", _one_decision("1e999999999"), "the number 1e999999999 is out of"),
             ("1e-99999999", _one_decision("1e-99999999"), "the number 1e-99999999 is out of")]
    for i, (what, text, fragment) in enumerate(cases):
        path = tmp / f"payoff{i}.efg"
        path.write_text(text)
        for command in ("info", "solve"):
            args = [command, str(path)] + (["-o", str(tmp / f"run{i}")] if command == "solve"
                                           else [])
            one_line_error("1", args, fragment, shown=f"spycfr {command} F.efg  (payoff {what})",
                           within_s=30)


def item2(tmp: Path) -> None:
    for depth, size in ((30_000, "1.2 MB"), (100_000, "4 MB")):
        path = tmp / f"chain{depth}.efg"
        _write_chain(path, depth)
        res = run(["solve", str(path), "--memory-limit", "1", "-o", str(tmp / f"chain{depth}")])
        lines = res.error_lines
        ok = (res.code == 0 or (res.code == 2 and lines and lines[-1].startswith("error: ")))
        outcome = (f"exit {res.code}: " + ("solved, " + _describe(res) if res.code == 0
                                           else (lines or [""])[-1][:160]))
        record("2", f"spycfr solve chain.efg --memory-limit 1  ({size}, {depth:,} decisions "
               "deep)", res, bool(ok), outcome, 1.0)
    big = tmp / "big.efg"
    _write_chain(big, 8_000_000)
    size = big.stat().st_size
    one_line_error("2", ["info", str(big), "--memory-limit", "2"], "",
                   shown=f"spycfr info big.efg --memory-limit 2  ({size / 1e6:.0f} MB; the "
                   "issue gave no limit: the default, half the RAM, would be 12 GiB here)",
                   limit_gib=2.0)
    big.unlink()
    path = tmp / "negative.efg"
    path.write_text(HEAD + 'c "" 1 "" { "x" -1/2 "y" 3/2 } 0\nt "" 1 "" { 1, -1 }\n'
                    't "" 2 "" { 0, 0 }\n')
    one_line_error("2", ["info", str(path)], "has a negative probability (-0.5)",
                   shown="spycfr info F.efg  (a chance probability -1/2)")


def item3(tmp: Path) -> None:
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        record("3", "spycfr info openspiel:chess --memory-limit 1", None, False,
               "not run: pyspiel missing (pip install -e '.[bench]')")
        return
    one_line_error("3", ["info", "openspiel:chess", "--memory-limit", "1"], "memory",
                   limit_gib=1.0)


AH_TINY = ["agent-hunter", "--preset", "tiny"]


def item4_9_10(tmp: Path) -> None:
    one_line_error("4", ["sweep", *AH_TINY, "--max-turns", "1,2", "--workers", "100000", "-o",
                         str(tmp / "s1")], "--workers 100,000: at most")
    one_line_error("4", ["sweep", *AH_TINY, "--cards", "0..100000000", "-o", str(tmp / "s2")],
                   "the grid has 100,000,001 variants; at most 10,000", limit_gib=0.5,
                   within_s=60)
    sweep_dir = tmp / "s3"
    args = ["sweep", *AH_TINY, "--max-turns", "1,2", "--algorithm", "cfr+", "--workers", "1",
            "-o", str(sweep_dir)]
    res = succeeds("7", args, lambda r: None if "2 of 2 variants solved" in r.out else r.out,
                   shown="spycfr " + " ".join(args) + "  (first line, a sweep)")
    row_path = sweep_dir / "variants" / "max-turns-1.json"
    if res.code == 0 and row_path.is_file():
        row = json.loads(row_path.read_text())
        row_path.write_text(json.dumps(dict(row, value_p1=0.9, exploitability=1e-12)))

        def not_reused(r: Outcome) -> str | None:
            import pandas as pd
            table = pd.read_csv(sweep_dir / "sweep.csv")
            value = table.loc[table["max_turns"] == 1, "value_p1"].iloc[0]
            if abs(value - 0.9) < 1e-9:
                return "the edited row was reused"
            if "1 already solved" not in r.err:
                return "expected the other variant reused, the edited one solved again"
            return None if (sweep_dir / "report.md").is_file() else "no report"
        succeeds("4", args, not_reused, shown="the same sweep again after a row edited on disk "
                 "(value 0.9, exploitability 1e-12)")
    one_line_error("9", ["sweep", *AH_TINY, "--max-turns", "2-4", "-o", str(tmp / "s4")],
                   "1 of 1 variants are invalid, nothing was solved: max_turns=2-4")
    one_line_error("9", ["sweep", *AH_TINY, "--cards", "3,11", "-o", str(tmp / "s5")],
                   "1 of 2 variants are invalid, nothing was solved: cards=11")
    item10(tmp)


def item10(tmp: Path) -> None:
    """The committed sweep's figures redrawn: lines per panel and the value axis's span."""
    import matplotlib
    matplotlib.use("Agg")
    import pandas as pd
    from matplotlib.figure import Figure

    from spycfr.sweep.report import write_report

    seen: list[tuple[int, float]] = []
    save = Figure.savefig

    def spy(fig, *a, **k):
        for ax in fig.axes:
            if ax.get_ylabel().startswith("value"):
                low, high = ax.get_ylim()
                seen.append((len(ax.containers), high - low))  # a series: an errorbar
        return save(fig, *a, **k)

    source = RESULTS / "sweeps" / "agent-hunter-decoys"
    Figure.savefig = spy
    try:
        summary = json.loads((source / "sweep.json").read_text())
        write_report(summary, pd.read_parquet(source / "sweep.parquet"), tmp / "figures")
    finally:
        Figure.savefig = save
    most = max(n for n, _ in seen)
    span = min(s for _, s in seen)
    record("10", "the report of results/sweeps/agent-hunter-decoys redrawn", None,
           most <= 6 and span >= 0.1 - 1e-12,
           f"{len(seen)} value panels, at most {most} series in one, value axes span "
           f">= {span:.3g}")


def item5(tmp: Path) -> None:
    one_line_error("5", ["report", str(RESULTS / "small"), "-o", str(tmp / "r.md"),
                         "--memory-limit", "1"], "5,633,245-node tree", limit_gib=1.0,
                   shown="spycfr report results/small -o r.md --memory-limit 1")
    one_line_error("5", ["export", str(RESULTS / "small"), "--format", "csv", "-o",
                         str(tmp / "s.csv"), "--memory-limit", "1"], "5,633,245-node tree",
                   limit_gib=1.0, shown="spycfr export results/small --format csv -o s.csv "
                   "--memory-limit 1")
    succeeds("5", ["team", "agent-avenue", "--preset", "team-tiny", "--memory-limit", "1",
                   "--tolerance", "1e-6", "-o", str(tmp / "team")],
             lambda r: None if "TMECor value" in r.out else r.out, limit_gib=1.0,
             shown="spycfr team agent-avenue --preset team-tiny --memory-limit 1 "
                   "--tolerance 1e-6 -o DIR")


def item6(tmp: Path) -> None:
    from importlib.metadata import version

    text = (ROOT / "pyproject.toml").read_text()
    pinned = re.search(r'"dask\[distributed\]>=([0-9.]+)"', text)
    have = version("distributed")
    ok = bool(pinned) and tuple(map(int, pinned.group(1).split("."))) >= (2026, 1, 1)
    record("6", "pyproject.toml's dask pin; the installed distributed", None, ok,
           f"dask[distributed]>={pinned.group(1) if pinned else '?'} (CVE-2024-10096 fixed in "
           f"2024.9.0, CVE-2026-23528 in 2026.1.1); installed {have}")


def item7(tmp: Path) -> None:
    cache = tmp / "numba-cache"
    cache.mkdir()
    args = ["solve", "agent-hunter", "--preset", "mini", "--algorithm", "pcfr+",
            "--target-exploitability", "1e-4", "-o", str(tmp / "mini"), "--overwrite"]
    res = run(args, env={"NUMBA_CACHE_DIR": str(cache)})
    ok = res.code == 0 and res.first_s is not None and res.first_s < 10
    silences = _longest_silence(res)
    record("7", "spycfr " + " ".join(args).replace(str(tmp), "TMP")
           + "  (quick start, empty numba cache)", res, ok,
           f"exit {res.code}; first line at {res.first_s:.1f} s: {res.first_line[:90]!r}; "
           f"done at {res.wall_s:.0f} s" + silences)
    if res.code == 0:
        succeeds("7", ["openings", str(tmp / "mini")],
                 lambda r: None if "In words" in r.out else "no openings",
                 shown="spycfr openings runs/mini  (quick start, second command)")


def _longest_silence(res: Outcome) -> str:
    # stderr is one stream: the pty gives no times per line, so report the count of lines
    lines = [line for line in res.err.splitlines() if line.strip()]
    return f"; {len(lines)} progress lines"


def item8(tmp: Path) -> None:
    out = tmp / "standard-agent"
    succeeds("8", ["solve", "agent-hunter", "--preset", "standard", "-o", str(out)],
             lambda r: None if (out / "run.json").is_file() else "no run.json",
             shown="spycfr solve agent-hunter --preset standard -o DIR  (default options)",
             timeout=600)


def item11(tmp: Path) -> None:
    tiny = str(RESULTS / "tiny")
    for command, wanted in ((["team", "agent-avenue"], ("-o, --output", "-q, --quiet")),
                            (["sweep", "kuhn"], ("-o, --output", "--iterations", "-q, --quiet")),
                            (["play", tiny], ("--seat",)), (["query", tiny], ("--seat",)),
                            (["best-response", tiny], ("--seat", "-o, --output")),
                            (["solve", "kuhn"], ("-o, --output", "--iterations", "-q, --quiet"))):
        succeeds("11", [*command, "--help"],
                 lambda r, w=wanted: None if all(x in r.out for x in w) else f"missing {w}",
                 shown=f"spycfr {command[0]} --help  (has {', '.join(wanted)})")
    one_line_error("11", ["solve", "kuhn", "--iterations"], "requires an argument")
    one_line_error("11", ["query"], "Missing argument 'RUN_DIR'")


def item12(tmp: Path) -> None:
    succeeds("12", ["games"], lambda r: None if all(
        f"preset {p}" in r.out for p in ("team-tiny", "team-duo", "team-price")) else
        "team presets missing")
    one_line_error("12", ["openings", str(RESULTS / "agent-avenue" / "team-tiny")],
                   "is a team run", shown="spycfr openings results/agent-avenue/team-tiny")
    one_line_error("12", ["team", "agent-hunter"], "agent-hunter has no teams")


def item13(tmp: Path) -> None:
    tiny = str(RESULTS / "tiny")

    def three(r: Outcome) -> str | None:
        data = json.loads(r.out)
        counts = [len(data[p]["placements"]) for p in ("P1", "P2")]
        return None if counts == [3, 3] else f"placements per player {counts}"
    succeeds("13", ["openings", tiny, "--top", "3", "--json"], three,
             shown="spycfr openings results/tiny --top 3 --json")
    run_dir = tmp / "interrupted"
    run_dir.mkdir()
    (run_dir / "checkpoint.npz").write_bytes(b"")
    one_line_error("13", ["openings", str(run_dir)], "spycfr solve --resume",
                   shown="spycfr openings RUN  (an interrupted run: a checkpoint, no run.json)")
    succeeds("13", ["openings", str(RESULTS / "standard-placements"), "--top", "1"],
             lambda r: None if "exploitability unknown: " in r.out and " at 95%" in r.out
             and "not measured" not in r.out else "no measured bound",
             shown="spycfr openings results/standard-placements --top 1  (a sampled run)")


def item14(tmp: Path) -> None:
    from spycfr.games import get_plugin

    moves = tmp / "moves.txt"
    moves.write_text("\n".join(["help"] + ["1"] * 60) + "\n")

    def check(r: Outcome) -> str | None:
        mine = [line for line in r.out.splitlines() if line.startswith("you: ")]
        board = r.out.split("\nresult: ")[0].rsplit("\n\n", 1)[1]
        problems = []
        if any("=" in line for line in mine if line.startswith("you: take:")):
            problems.append("a take echoes a hidden card")
        if "?" in next(line for line in board.splitlines() if line.startswith("record: ")):
            problems.append("the final board hides cards")
        if "1 cards" in r.out:
            problems.append("'1 cards'")
        if sum(line.startswith("result: ") for line in r.out.splitlines()) != 1:
            problems.append("no single result line")
        guide = get_plugin("agent-avenue").records.guide
        if not guide or not all(f"  {line}" in r.out for line in guide):
            problems.append("help does not explain the notation (the game's guide)")
        return "; ".join(problems) or None
    succeeds("14", ["play", str(RESULTS / "agent-avenue" / "tiny"), "--seed", "3", "--moves",
                    str(moves)], check,
             shown="spycfr play results/agent-avenue/tiny --seed 3 --moves F  (help, then 1s)")


def _block(text: str, start: str) -> str:
    """The lines of ``text`` from the one starting with ``start`` to the next blank or fence."""
    lines = text.splitlines()
    i = next(k for k, line in enumerate(lines) if line.strip().startswith(start))
    out = []
    for line in lines[i:]:
        if not line.strip() or line.startswith("```"):
            break
        out.append(line.strip())
    return " ".join(out)


def item15(tmp: Path) -> None:
    tutorial = (ROOT / "docs" / "tutorial.md").read_text()
    small = tutorial.split("`results/small` (cards 0-3):")[1]
    mini = tutorial.split("`results/mini` holds the same variant")[1]
    for run_dir, section, start in (("small", small, "In words"), ("mini", mini, "P2 placements")):
        quoted = _block(section, start)
        succeeds("15", ["openings", str(RESULTS / run_dir)],
                 lambda r, q=quoted, s=start: None if q in " ".join(
                     line.strip() for line in r.out.splitlines()[
                         next(k for k, line in enumerate(r.out.splitlines())
                              if line.strip().startswith(s)):]) else "differs from the tutorial",
                 shown=f"spycfr openings results/{run_dir}  (the tutorial's quoted block)")


def item16(tmp: Path) -> None:
    pattern = re.compile(r"iteration (\d+): value in \[([-+0-9.]+), ([-+0-9.]+)\]")
    for preset, algorithm in (("team-tiny", "colgen"), ("team-price", "dag")):
        def monotone(r: Outcome) -> str | None:
            bounds = [(float(a), float(b)) for _, a, b in pattern.findall(r.err)]
            if len(bounds) < 2:
                return f"{len(bounds)} interval lines"
            widened = [k for k in range(1, len(bounds)) if bounds[k][0] < bounds[k - 1][0]
                       or bounds[k][1] > bounds[k - 1][1]]
            return (f"widened at lines {widened[:5]}" if widened else None)
        succeeds("16", ["team", "agent-avenue", "--preset", preset, "--algorithm", algorithm,
                        "--tolerance", "1e-6", "--time-limit", "120"], monotone,
                 shown=f"spycfr team agent-avenue --preset {preset} --algorithm {algorithm} "
                       "--tolerance 1e-6 --time-limit 120  (the printed intervals)")


def item17(tmp: Path) -> None:
    shapes = {"4/1/1/6 (deep, narrow)": ["--cards", "4", "--houses", "1", "--decoys", "1",
                                         "--max-turns", "6"],
              "8/2/1/1 (wide, shallow)": ["--cards", "8", "--houses", "2", "--decoys", "1",
                                          "--max-turns", "1"]}
    for shape, params in shapes.items():
        times = {}
        for algorithm in ("auto", "lp", "pdcfr+"):
            out = tmp / f"t17-{algorithm}"
            args = ["solve", "agent-hunter", *params, "--algorithm", algorithm,
                    "--target-exploitability", "1e-6", "-o", str(out), "--overwrite", "-q"]
            if algorithm == "pdcfr+":
                args += ["--time-limit", "60"]
            res = run(args)
            meta = json.loads((out / "run.json").read_text()) if res.code == 0 else {}
            reached = meta.get("exploitability", 1.0) <= 1e-6
            times[algorithm] = (res.wall_s if reached else float("inf"), meta)
            record("17", f"spycfr solve agent-hunter {' '.join(params)} --algorithm "
                   f"{algorithm} --target-exploitability 1e-6", res, res.code == 0,
                   f"exit {res.code}: {meta.get('algorithm', '?')}, exploitability "
                   f"{meta.get('exploitability', float('nan')):.2g}, solve "
                   f"{meta.get('solve_seconds', float('nan')):.2f} s, wall {res.wall_s:.1f} s")
        best = min(times["lp"][0], times["pdcfr+"][0])
        ratio = times["auto"][0] / best
        record("17", f"{shape}: auto's wall time against the faster of lp and pdcfr+", None,
               ratio <= 1.5, f"{ratio:.2f}x")


ITEMS = {"1": item1, "2": item2, "3": item3, "4": item4_9_10, "5": item5, "6": item6,
         "7": item7, "8": item8, "11": item11, "12": item12, "13": item13, "14": item14,
         "15": item15, "16": item16, "17": item17}


# Where the fault suite holds each item (tests/), so that it cannot come back.
FAULT_SUITE = {
    "1": "test_faults_efg.py: test_hostile_numbers_are_one_line_errors_at_once, "
         "test_numbers_are_bounded_before_they_are_built",
    "2": "test_faults_efg.py: test_perfect_recall_bookkeeping_is_linear_in_depth, "
         "test_the_budget_is_checked_before_and_while_reading, "
         "test_a_deep_efg_under_a_memory_limit_cli (slow), the negative probability in "
         "test_hostile_numbers_are_one_line_errors_at_once",
    "3": "test_faults_efg.py: test_a_growing_walk_is_stopped_before_the_limit, "
         "test_openspiel_chess_is_refused_before_the_limit (with the bench extra)",
    "4": "test_faults_sweep.py: test_workers_are_bounded_by_cores_and_memory, "
         "test_a_huge_range_is_counted_not_expanded, test_an_edited_row_or_run_is_not_reused, "
         "test_the_report_draws_odd_values",
    "5": "test_faults_cli.py: test_every_command_that_grows_takes_a_memory_limit, "
         "test_report_of_a_big_run_is_refused_before_it_grows, "
         "test_the_watchdog_stops_what_no_one_checked",
    "6": "test_faults_cli.py: test_dask_is_pinned_past_its_cves",
    "7": "test_faults_cli.py: test_solve_says_it_is_preparing_at_a_terminal, "
         "test_a_long_load_says_what_it_does_at_a_terminal",
    "8": "test_faults_cli.py: test_the_rulesheet_game_by_default_is_the_search_agent; "
         "test_auto.py: test_the_rulesheet_game_is_sampled_with_its_measured_settings",
    "9": "test_faults_sweep.py: test_every_cell_is_validated_before_dask, "
         "test_failed_variants_exit_non_zero_saying_why",
    "10": "test_faults_sweep.py: test_the_committed_sweep_is_drawn_as_small_multiples, "
          "test_a_fair_game_is_not_drawn_at_a_1e16_scale",
    "11": "test_faults_cli.py: test_usage_errors_are_one_line, "
          "test_one_seat_option_with_the_old_names_kept, "
          "test_output_iterations_and_quiet_are_one_vocabulary, "
          "test_team_out_is_kept_as_a_hidden_alias",
    "12": "test_team_dag.py: test_team_refuses_games_without_teams, "
          "test_games_lists_team_presets_and_openings_names_a_team_run",
    "13": "test_faults_cli.py: test_openings_honour_top_in_json_and_csv, "
          "test_openings_of_an_interrupted_run_say_how_to_finish_it, "
          "test_openings_of_a_sampled_run_show_its_measured_bound",
    "14": "test_faults_cli.py: test_play_on_agent_avenue_echoes_the_move_and_shows_every_card_"
          "at_the_end, test_one_card_is_singular, test_play_ends_alike_and_help_explains_the_"
          "notation",
    "15": "test_faults_cli.py: test_the_tutorial_quotes_what_openings_print (results/mini; "
          "results/small's block only here: its tree takes 1.4 GiB and minutes)",
    "16": "test_team_dag.py (the printed interval never widens, both solvers); "
          "test_agent_avenue_team.py",
    "17": "test_auto.py: test_a_target_races_pdcfr_plus_before_the_lp",
}


def table() -> str:
    lines = ["| item | command | outcome | first line | wall | peak RSS | limit | |",
             "|---|---|---|---|---|---|---|---|"]
    for r in ROWS:
        first = "" if r.first_s is None else f"{r.first_s:.1f} s"
        wall = "" if r.wall_s is None else f"{r.wall_s:.1f} s"
        peak = "" if r.peak_bytes is None else f"{r.peak_bytes / 2**20:,.0f} MiB"
        cell = r.outcome.replace("|", "\\|")
        lines.append(f"| {r.item} | `{r.command}` | {cell} | {first} | {wall} | {peak} | "
                     f"{r.limit} | {'ok' if r.ok else 'FAIL'} |")
    lines += ["", "Where the fault suite holds each item:", "", "| item | tests |", "|---|---|"]
    lines += [f"| {item} | {tests} |" for item, tests in FAULT_SUITE.items()]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", help="write the table (markdown) here")
    parser.add_argument("--only", help="items to replay, e.g. 1,2,17 (item 4 covers 9, 10)")
    args = parser.parse_args()
    chosen = args.only.split(",") if args.only else list(ITEMS)
    with tempfile.TemporaryDirectory(prefix="replay26-") as tmp:
        TMP[0] = tmp
        for item in chosen:
            ITEMS[item](Path(tmp))
    text = table()
    print(text)
    if args.output:
        load = os.getloadavg()[0]
        text = (f"# Issue 26 replayed\n\nEvery item of issue 26 as written, replayed on "
                f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} by `python "
                f"benchmarks/replay_issue26.py --output {args.output}"
                + (f" --only {args.only}" if args.only else "")
                + f"` (load average {load:.1f} at the end, on this project's 2-core machine "
                "shared with other sessions). Columns: what happened; when the first line "
                "came (stderr on a terminal); wall time; the command's peak resident memory "
                "(`ru_maxrss`); the limit given; ok when the outcome is the one the issue "
                "asks for.\n\n" + text)
    print(f"{sum(r.ok for r in ROWS)} of {len(ROWS)} rows as the issue asks")
    if args.output:
        Path(args.output).write_text(text)


if __name__ == "__main__":
    main()
