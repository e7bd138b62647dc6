"""A search agent as a run directory: what `spycfr solve` writes for a game too big to store
a strategy for (a plug-in's ``agent_presets``), and what every command reads like any run.

The directory holds no strategy for the whole game: ``run.json`` records the agent's
configuration (algorithm ``re-solving``, iterations per decision, depth, value function and
its file, seed, version) and the code that made it (``code``,
:func:`spycfr.provenance.code_version`: the agent is its configuration played by that code,
which the LBR games' own code is compared with), ``openings.csv`` its opening moves from its
first plan, and
``plan.npz`` that first plan, solved once (:func:`save_agent_plan`; run.json's ``plan``).
On a variant whose public tree is small enough (EXACT_NODES) the agent's exact
exploitability is measured when the directory is made (:func:`exact_measure`); elsewhere it
is unknown (recorded with what was measured instead). Every command that plays or values a
position builds the agent from the configuration, reads its first plan where the file
matches (:func:`read_agent_plans`), and re-solves as it goes.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from spycfr import __version__
from spycfr.errors import SpycfrError
from spycfr.games import get_plugin, make_game
from spycfr.io import write_json, write_text
from spycfr.provenance import code_version
from spycfr.runs.config import SolveConfig
from spycfr.runs.result import RunResult
from spycfr.runs.store import (
    OPENINGS_CSV,
    RUN_JSON,
    file_sha256,
    read_run,
    read_run_meta,
    verify_file,
)
from spycfr.search.agent import (
    ALGORITHM,
    NEEDS_ONLY_WALK,
    AgentConfig,
    SearchAgent,
    agent_exploitability,
)
from spycfr.search.agentgame import AgentGame
from spycfr.search.leafvalues import VALUE_FUNCTIONS
from spycfr.search.resolve import Solution
from spycfr.search.saved_plan import (
    PLAN_FORMAT,
    PlanFileError,
    load_plans,
    plan_key,
    plan_meta,
    plan_mismatch,
    save_plans,
    stale,
)

if TYPE_CHECKING:
    import pandas as pd

    from spycfr.search.openings import OpeningTable
    from spycfr.search.tree import GameModel

EXPLOITABILITY_NOTE = (
    "unknown: the agent re-solves at every decision and stores no strategy, and the game "
    "is too big for a best response; measured instead (`measured`): head to head against "
    "the heuristic players and other runs, and a local best response against it")


# the largest public tree on which an agent's exact exploitability is measured as its run
# directory is made: Agent Avenue mini (40,817 public nodes, about 2 minutes) and Agent Hunter
# mini (266,175, about 1.5 minutes) fit; small (over 1.3 M) would take hours
EXACT_NODES = 300_000
EXACT_NOTE = ("exact: the agent's strategy at every public node of the game, re-solved where "
              "a real game re-solves, then a full best response against each seat "
              "(spycfr.search.agent.agent_exploitability)")


def exact_measure(agent: SearchAgent, progress: Callable[[str], None] | None = None
                  ) -> dict[str, Any] | None:
    """The agent's exact exploitability where the game's public tree has at most EXACT_NODES
    nodes, as run.json fields (None: too big, unknown)."""
    from spycfr.search.tree import nodes_to_end

    if nodes_to_end(agent.model, agent.model.root(), EXACT_NODES) is None:
        return None
    if agent.config.needs_only:  # the walk cannot play it (agent_strategies refuses it)
        return {"exploitability": None, "exploitability_note": f"unknown: {NEEDS_ONLY_WALK}"}
    if progress is not None:
        progress("the agent's exact exploitability: re-solving at every public node, then a "
                 "best response against each seat")
    start = time.perf_counter()
    agent.plan()  # shared by every deal, unfocused in play too: not one of the walk's
    before = _unfocused(agent)
    value, br, solves = agent_exploitability(agent, progress)
    unplayed = _unfocused(agent) - before
    measure = {"br_p1": float(br[0]), "br_p2": float(br[1]), "re_solves": int(solves),
               "seconds": time.perf_counter() - start, "unplayed_re_solves": unplayed}
    if not unplayed:
        return {"exploitability": float(value), "exploitability_note": EXACT_NOTE,
                "exact_measure": measure}
    # the walk holds no actual cards: over their budget its rollout leaves were all scored
    # as they stand, where a real game plays games for its own cards; not this agent's figure
    note = (f"unknown: in the exact walk {unplayed:,} of {solves:,} re-solves had more "
            "rollouts than their budget and no actual cards to spend it on, so their leaves "
            "were scored as they stand, which a real game does not do; the walk's figure "
            f"({value:.4g}) is not this agent's")
    if progress is not None:
        progress(f"the agent's exploitability: {note}")
    return {"exploitability": None, "exploitability_note": note, "exact_measure": measure}


def _unfocused(agent: SearchAgent) -> int:
    """The re-solves so far whose rollout leaves were over their budget with no actual
    cards to focus on (``Continuations.unfocused``; 0 for other leaf values)."""
    values = getattr(agent.values, "inner", agent.values)
    return int(getattr(values, "unfocused", 0))


def is_agent_run(meta: RunResult | Mapping[str, Any]) -> bool:
    """Whether the run is a search agent's (run.json's algorithm ``re-solving``): ``meta``
    read (RunResult) or run.json's object as it is (the workbench's listing, which holds
    sweeps and team runs too)."""
    algorithm = meta.get("algorithm") if isinstance(meta, Mapping) else meta.algorithm
    return algorithm == ALGORITHM


# run.json's agent fields by AgentConfig's annotation: what each part of a (union) type may
# hold, in words; a field annotated otherwise is refused with a TypeError naming this table
_AGENT_KIND_PARTS: dict[str, tuple[tuple[type, ...], str]] = {
    "int": ((int,), "an integer"), "float": ((int, float), "a number"),
    "bool": ((bool,), "true or false"), "str": ((str,), "a string"),
    "None": ((type(None),), "null")}


def _agent_kind(name: str, annotation: object) -> tuple[tuple[type, ...], str]:
    """(the JSON types run.json's ``agent.name`` may hold, them in words) for AgentConfig's
    annotation of the field (a string under postponed annotations: "str | None"). A type
    this check does not know is a TypeError naming the field (a new AgentConfig field whose
    type needs an entry in _AGENT_KIND_PARTS), not a KeyError."""
    text = annotation.__name__ if isinstance(annotation, type) else str(annotation)
    parts = [p.strip() for p in text.split("|")]
    unknown = [p for p in parts if p not in _AGENT_KIND_PARTS]
    if unknown:
        raise TypeError(f"AgentConfig.{name} is annotated {text!r}: run.json's check of the "
                        f"agent's fields knows {', '.join(_AGENT_KIND_PARTS)} and unions of "
                        "them (add the type to agent_run._AGENT_KIND_PARTS)")
    kinds = tuple(t for p in parts for t in _AGENT_KIND_PARTS[p][0])
    return kinds, " or ".join(_AGENT_KIND_PARTS[p][1] for p in parts)


def agent_config(meta: RunResult, run_dir: str | Path | None = None) -> AgentConfig:
    """The agent's configuration as run.json records it, its fields' types checked (a
    damaged or hand-edited run.json: one line naming the field, what it must be and what it
    holds; ``run_dir`` names the file)."""
    record = dict(meta.record.get("agent") or {})
    fields = AgentConfig.__dataclass_fields__
    where = "run.json" if run_dir is None else repr(str(Path(run_dir) / RUN_JSON))
    for name, value in record.items():
        if name not in fields:
            continue
        kinds, words = _agent_kind(name, fields[name].type)
        if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
            raise SpycfrError(f"{where} is corrupt: agent.{name} must be {words}, got "
                              f"{json.dumps(value)[:60]}")
    return AgentConfig(**{k: v for k, v in record.items() if k in fields})


def plan_to_end(meta: RunResult) -> bool:
    """Whether the agent's first plan is solved to the end of the game (the endgame rule's
    ``plan_endgame``: no leaves), as recorded when the directory was made (False in
    directories made before the record, whose plans had leaves unless on a tiny game)."""
    return bool((meta.record.get("agent") or {}).get("plan_to_end"))


def replays_first_move(meta: RunResult) -> bool:
    """Whether the agent re-solves its first move in play, for its own cards (leaves played
    out for them: rollouts, without an openings table), so that the first plan's moves
    (openings.csv) are not what it plays there. Not where the plan reaches the end of the
    game: no leaf to spend on its cards, the plan's move stands (AgentGame._arrive); nor
    where it plays the plan's first decision levels (``plan_play``)."""
    a = meta.record.get("agent") or {}
    return (a.get("value_function") == "rollout" and not a.get("opening_file")
            and not plan_to_end(meta) and not a.get("plan_play"))


def load_agent(run_dir: str | Path, progress: Callable[[str], None] | None = None
               ) -> SearchAgent:
    """The agent of an agent run directory (its value function's and openings table's files
    relative to it)."""
    meta = read_run(run_dir)
    if not is_agent_run(meta):
        raise SpycfrError(f"{str(run_dir)!r} is not a search agent's run directory")
    config = agent_config(meta, run_dir)
    table = None if config.opening_file is None else opening_table(run_dir, meta)
    return load_agent_config(Path(run_dir), meta, config, progress, table)


def write_agent_run(out_dir: str | Path, game: str, preset: str | None, params: dict,
                    config: AgentConfig, seed: int = 0,
                    progress: Callable[[str], None] | None = None) -> RunResult:
    """Make the agent's run directory: its configuration, and its openings from the first
    plan (solved here, so a configuration that cannot play fails now)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    g = make_game(game, preset, params)
    variant = g.variant_obj.as_dict()
    start = time.perf_counter()
    agent = SearchAgent(game, variant, config, progress)
    table = agent_openings(agent, g)
    seconds = time.perf_counter() - start
    files = {}
    if table is not None:
        write_text(out / OPENINGS_CSV, table.to_csv(index=False))
        files[OPENINGS_CSV] = file_sha256(out / OPENINGS_CSV)
    solve_config = SolveConfig(game=game, preset=preset, params=dict(params),
                               algorithm=ALGORITHM, iterations=config.iterations, seed=seed)
    plan = save_agent_plan(out, agent, game, variant, config)
    files[PLAN_FILE] = plan["sha256"]
    record: dict[str, Any] = {
        "game": game, "variant": variant, "preset": preset, "algorithm": ALGORITHM,
        "iterations": config.iterations, "seed": seed,
        "agent": {**config.as_dict(),
                  "value_function_words": value_words(game, config.value_function),
                  "plan_to_end": not agent.plan().tree.leaves.size,
                  "iterations_per": "re-solve (CFR+ with DeepStack's gadget, at each "
                                    "decision)"},
        "exploitability": None, "exploitability_note": EXPLOITABILITY_NOTE,
        "value_p1": None, "tree_enumerated": False, "stopped_by": "iterations",
        "solve_seconds": seconds, "version": __version__, "code": code_version(),
        "created": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "files": files, "config": solve_config.as_dict(), "plan": plan,
    }
    record.update(exact_measure(agent, progress) or {})
    write_json(out / RUN_JSON, record)
    return RunResult.from_json(record)


def value_words(game: str, name: str) -> str:
    """The value function ``name`` in words, the game's own for its scored_now hook."""
    words = get_plugin(game).scored_now_words
    return words if name == "scored-now" and words else VALUE_FUNCTIONS[name]


def leaf_words(meta: RunResult) -> str:
    """How an agent run's leaves are valued, in today's words (:func:`value_words`): a run
    made earlier keeps the words of its day in run.json (read where the name is unknown)."""
    a = meta.record.get("agent") or {}
    name = a.get("value_function")
    return (value_words(meta.game, name) if name in VALUE_FUNCTIONS
            else a.get("value_function_words", ""))


def agent_openings(agent: SearchAgent, game) -> pd.DataFrame | None:
    """The agent's opening decisions (the plug-in's openings paths): each move's probability
    and value for the mover, from the agent's first plan, not re-solved (the table format of
    a sampled run's openings.csv, with values; Agent Avenue's 2,640 first recruits of P2
    would each be a re-solve of seconds)."""
    import pandas as pd

    spec = get_plugin(game.name).openings
    if spec is None:
        return None
    frames = []
    for player, path, context in spec.paths(game.variant_obj):
        state, array = game.new_initial_state(), agent.initial()
        view = AgentGame(agent, player, plan_only=True)
        for action in path:
            state, array = state.child(action), agent.after(array, action)
            view.observe(array)
        info = view.move_info(array, player)
        values = info.values
        if agent.openings is not None:  # each opening's value against the table's opponent
            table = agent.openings.private_values(player, agent.model.n[player])
            values = np.array([table[agent.private(agent.after(array, int(a)), player)]
                               for a in info.actions])
        frame = pd.DataFrame({
            "player": "P1" if player == 0 else "P2",
            "opening": [state.action_label(int(a)) for a in info.actions],
            "probability": info.probs, "value": values, "seen": True,
        })
        if spec.context_name:
            frame.insert(1, spec.context_name, context)
        frames.append(frame)
    return pd.concat(frames, ignore_index=True)


OPENING_TABLE = "openings-table.npz"


def opening_table(run_dir: str | Path, meta: RunResult) -> OpeningTable:
    """The openings table the agent of ``run_dir`` opens with (run.json's
    ``agent.opening_file``, relative to the run directory), checked as the other files of a
    run are: it must be the file run.json vouches for (its sha256 in ``files``, which `spycfr
    train-openings` records) and be for the run's game and variant. A table changed since,
    made again elsewhere or copied from another run is a one-line error naming the file and
    how to make it again, not openings that the agent does not play."""
    from spycfr.search.openings import OpeningTable

    name = (meta.record.get("agent") or {}).get("opening_file")
    if not isinstance(name, str):
        raise SpycfrError(f"{str(run_dir)!r}: the agent opens with no openings table")
    run = Path(run_dir)
    path = _in_run(run, AgentConfig(opening_file=name)).opening_file
    assert path is not None
    again = (f"make it again with `spycfr train-openings {run}`, or put back the file the "
             "run was made with")
    if Path(path).is_file() and not verify_file(run, meta, name, required=False):
        raise SpycfrError(f"the openings table {path!r} is not the one {RUN_JSON} records "
                          f"(its sha256 differs: the file changed since, or is another "
                          f"run's): {again}")
    table = OpeningTable.load(path)
    table.check_for(meta.game, get_plugin(meta.game).make_variant(None, dict(meta.variant))
                    .as_dict(), path, again)
    return table


def train_openings(run_dir: str | Path, games: int, seed: int, opening_range: str,
                   progress: Callable[[str], None] | None = None) -> dict:
    """Solve an agent run's openings as a matrix game (:mod:`spycfr.search.openings`): the
    table in ``run_dir/openings-table.npz`` (games saved as they go in
    ``openings-table.partial.npz``: a rerun with the same settings resumes), the agent
    configured to open with it (run.json) and its openings.csv rewritten. Returns the table's
    summary."""
    from spycfr.search.openings import OpeningGame, OpeningTable

    run = Path(run_dir)
    meta = read_run(run)
    if not is_agent_run(meta):
        raise SpycfrError(f"{str(run_dir)!r} is not a search agent's run directory")
    config = AgentConfig(**{**agent_config(meta, run).as_dict(), "opening_file": OPENING_TABLE,
                            "opening_range": opening_range})
    config.check()
    og = OpeningGame.of(meta.game, meta.variant, config.plan_depth)
    partial = run / "openings-table.partial.npz"
    table = OpeningTable.make(og, games, seed, partial, progress)
    table.save(run / OPENING_TABLE)
    partial.unlink(missing_ok=True)
    if progress is not None:
        progress("the agent's openings from the table (its first plan: numba compiles)")
    agent = load_agent_config(run, meta, config, progress)
    frame = agent_openings(agent, make_game(meta.game, None, meta.variant))
    written = [OPENING_TABLE]
    if frame is not None:
        write_text(run / OPENINGS_CSV, frame.to_csv(index=False))
        written.append(OPENINGS_CSV)
    record = read_run_meta(run)
    record["agent"] = {**record["agent"], **config.as_dict()}
    record["code"] = code_version()  # the agent opens otherwise: the code that made it now
    record["plan"] = save_agent_plan(run, agent, meta.game, meta.variant, config)
    record["files"] = {**(record.get("files") or {}), PLAN_FILE: record["plan"]["sha256"],
                       **{name: file_sha256(run / name) for name in written}}
    # the agent now opens otherwise: an exact figure is measured again, or is no longer known
    record.pop("exact_measure", None)
    record.update(exact_measure(agent, progress) or {"exploitability": None,
                                                     "exploitability_note": EXPLOITABILITY_NOTE})
    write_json(run / RUN_JSON, record)
    return table.summary()


def load_agent_config(run: Path, meta: RunResult, config: AgentConfig,
                      progress: Callable[[str], None] | None,
                      openings: OpeningTable | None = None) -> SearchAgent:
    """The agent of run directory ``run`` with ``config`` (its files relative to ``run``),
    its first plan read from the run's plan file where run.json records one solved with the
    same configuration (:func:`read_agent_plans`), a damaged file said here
    (:func:`plan_to_read`) rather than when the agent first needs its plan. ``openings``:
    its openings table already loaded and checked (:func:`opening_table`), else the agent
    loads config's."""
    agent = SearchAgent(meta.game, meta.variant, _in_run(run, config), progress, openings)
    record = meta.record.get("plan")
    if isinstance(record, dict):
        solved_with = plan_inputs(run, meta.game, meta.variant, config)
        # a damaged plan file is said now (its sha256, its own record), not at the agent's
        # first move, after the player's first; the file is checked (hashed) here only, and
        # what else the check says (why the agent solves its plan instead) is said then
        notes: list[str] = []
        path = plan_to_read(run, record, solved_with, agent.model, notes.append)
        read: list[dict[bytes, Solution] | None] = []  # the file's plans, read once

        def saved(root, asking: SearchAgent) -> Solution | None:
            if not read:
                for note in notes:
                    (asking.progress or (lambda _: None))(note)
                read.append(None if path is None else read_agent_plans(path, asking))
            return None if read[0] is None else _plan_from(read[0], root, record, asking)

        agent.saved_plan = saved
    return agent


def _in_run(run: Path, config: AgentConfig) -> AgentConfig:
    """``config`` with its files' relative paths made relative to the run directory."""
    files = {}
    for name in ("value_file", "opening_file"):
        path = getattr(config, name)
        if path is not None and not Path(path).is_absolute():
            files[name] = str(run / path)
    return AgentConfig(**{**config.as_dict(), **files})


# --- the first plan, saved with the run ----------------------------------------------------

PLAN_FILE = "plan.npz"
# what the first plan depends on (SearchAgent.plan): the rest of the configuration (the
# re-solves' depth and endgame, the opponent's opening range) is only the walk's
PLAN_FIELDS = ("iterations", "plan_iterations", "plan_depth", "plan_endgame", "value_function",
               "value_file", "opening_file")


def plan_name(record: Mapping[str, Any]) -> str:
    """The plan file, relative to the run directory, that run.json's plan ``record`` names
    (:data:`PLAN_FILE` where it names none)."""
    return str(record.get("file") or PLAN_FILE)


def plan_inputs(run: Path, game: str, variant: dict, config: AgentConfig) -> dict[str, Any]:
    """What the agent's first plan is solved from, as recorded with its saved plan: the game,
    variant, the configuration's PLAN_FIELDS and the sha256 of its files (a retrained value
    function or openings table makes another plan)."""
    inputs: dict[str, Any] = {"game": game, "variant": variant,
                              **{k: getattr(config, k) for k in PLAN_FIELDS}}
    for name in ("value_file", "opening_file"):
        path = _in_run(run, config).as_dict()[name]
        if path is not None and Path(path).is_file():
            inputs[f"{name}_sha256"] = file_sha256(Path(path))
    return inputs


def save_agent_plan(run: Path, agent: SearchAgent, game: str, variant: dict,
                    config: AgentConfig) -> dict[str, Any]:
    """Write the agent's first plans (those it holds: one from the game's root, or one for
    each first public chance's outcome that its games reached; solved here if none is yet)
    to ``run/plan.npz``, atomically, and return run.json's record of them: file, bytes,
    sha256, format, and what they were solved from (:func:`plan_inputs`)."""
    inputs = plan_inputs(run, game, variant, config)
    plans = agent.plans() or [agent.plan()]
    if agent.progress is not None:
        agent.progress(f"saving the first plan ({sum(p.tree.size for p in plans):,} public "
                       f"nodes) to {run / PLAN_FILE}")
    save_plans(run / PLAN_FILE, plans, {"solved_with": inputs})
    return {"file": PLAN_FILE, "bytes": (run / PLAN_FILE).stat().st_size,
            "sha256": file_sha256(run / PLAN_FILE), "format": PLAN_FORMAT,
            "solved_with": inputs}


def read_agent_plans(path: Path, agent: SearchAgent) -> dict[bytes, Solution]:
    """The plans of the run's plan file ``path``, as :func:`plan_to_read` checked it when the
    agent was loaded (its sha256 against run.json, its own record; not hashed again), by their
    root (:func:`~spycfr.search.saved_plan.plan_key`). Unreadable: SpycfrError."""
    say = agent.progress or (lambda _: None)
    name = path.name
    say(f"reading the agent's first plan from {name} ({path.stat().st_size / 2 ** 20:.1f} MB "
        "compressed)")
    try:
        with agent.beating(f"reading the agent's first plan from {name}"):
            return load_plans(path, agent.model)
    except PlanFileError as exc:
        raise SpycfrError(f"{exc}: {_plan_fix(path)}") from None


def plan_to_read(run: Path, record: dict[str, Any], solved_with: dict[str, Any],
                 model: GameModel, say: Callable[[str], None]) -> Path | None:
    """The run's plan file that the agent reads its first plan from (run.json's ``record``
    of it), checked: None (said in one line) where the file is missing, of another format,
    or solved from other inputs than ``solved_with`` (the agent solves its plan instead); a
    file that is not the one recorded (sha256) or whose own record is unreadable:
    SpycfrError (:func:`_plan_checked`, which :func:`damaged_plan` shares). Its arrays are
    not read (:func:`read_agent_plans` reads them, unchecked: this is the one check, made
    when the agent is loaded)."""
    path, why, meta = _plan_checked(run, record, solved_with)
    if why is None:  # the file's own record against this spycfr's game model
        why = stale(meta, model, solved_with)
        why = None if why is None else f"the agent's saved plan {plan_name(record)} {why}"
    if why is not None:
        say(f"{why}: solving the first plan again (as a run without a saved plan does)")
        return None
    return path


def _plan_checked(run: Path, record: Mapping[str, Any], solved_with: dict[str, Any]
                  ) -> tuple[Path, str | None, dict[str, Any]]:
    """The checks of run.json's plan ``record`` that need no game model, in the order the
    agent's load makes them: (the plan file, why the agent solves its plan instead where it
    will: the file missing, of another format, or solved from other inputs than
    ``solved_with``; else None, the file's own record). SpycfrError where loading stops: a
    file that is not the one recorded (its sha256) or whose own record is unreadable."""
    name = plan_name(record)
    path = run / name
    if not path.is_file():
        return path, f"run.json records the agent's first plan in {name}, which is missing", {}
    if record.get("format") != PLAN_FORMAT:
        return path, (f"the agent's saved plan {name} is of format {record.get('format')}, "
                      f"this spycfr reads format {PLAN_FORMAT}"), {}
    if record.get("solved_with") != solved_with:
        was = record.get("solved_with") or {}
        changed = [f"{k} {was.get(k)!r} -> {v!r}" for k, v in solved_with.items()
                   if was.get(k) != v] or ["its record"]
        return path, (f"the agent's saved plan {name} was solved with another configuration "
                      f"than run.json's ({'; '.join(changed)})"), {}
    if file_sha256(path) != record.get("sha256"):
        raise SpycfrError(f"the agent's saved plan {str(path)!r} does not match run.json (its "
                          f"sha256 differs: a changed or damaged file): {_plan_fix(path)}")
    try:  # the file's own record (a file of other code or settings than run.json says)
        return path, None, plan_meta(path)
    except PlanFileError as exc:
        raise SpycfrError(f"{exc}: {_plan_fix(path)}") from None


def damaged_plan(run: str | Path, meta: RunResult | Mapping[str, Any]) -> str | None:
    """The error that loading the agent of run directory ``run`` (its run.json: the
    RunResult where the caller holds one, else its object) would stop at because of its
    saved plan file, for the pages and commands that do not load the agent (openings,
    report, the workbench) to say too: the checks of the load itself (:func:`_plan_checked`,
    from the same inputs), so a file the agent would solve again (missing, of another format,
    solved with another configuration) is none, and one whose own record is unreadable is
    one. None where run.json records no plan or loading would not stop at it. The file's own
    checks come first, as if solved from the inputs it records: an intact file needs no
    more (the value and opening files, which the configuration's inputs hash, are hashed only
    for a damaged one). Not checked here: the file's game model (a stale plan is solved
    again, said when the agent loads)."""
    record = (meta.record if isinstance(meta, RunResult) else meta).get("plan")
    if not isinstance(record, dict):
        return None
    run = Path(run)
    try:
        result = meta if isinstance(meta, RunResult) else RunResult.from_json(meta)
        try:
            _plan_checked(run, record, record.get("solved_with") or {})
        except SpycfrError:  # damaged: the load stops at it unless it solves its plan again
            _plan_checked(run, record, plan_inputs(run, result.game, result.variant,
                                                   agent_config(result, run)))
    except SpycfrError as exc:
        return str(exc)
    return None


def check_agent_files(run: str | Path, meta: RunResult) -> tuple[str, ...]:
    """The agent run's own files, checked as loading the agent checks them and in its words
    (what to do about each): its openings table and its saved plan; SpycfrError otherwise.
    For a command that says things before its long load (`spycfr play`) to check first,
    before :func:`spycfr.runs.store.check_run`'s generic hashes, which it gives the names
    of the files checked here (a missing plan is no error: the agent solves it again)."""
    checked = []
    if agent_config(meta, run).opening_file is not None:  # its settings checked first
        opening_table(run, meta)
        checked.append(meta.record["agent"]["opening_file"])
    damage = damaged_plan(run, meta)
    if damage is not None:
        raise SpycfrError(damage)
    if isinstance(plan := meta.record.get("plan"), dict):
        checked.append(plan_name(plan))
    return tuple(checked)


def _plan_fix(path: Path) -> str:
    """What to do about a damaged plan file (the end of its error)."""
    return (f"delete {str(path)!r} (the agent then solves its first plan again) or remake "
            "the run with `spycfr solve`")


def _plan_from(plans: dict[bytes, Solution], root, record: dict[str, Any],
               agent: SearchAgent) -> Solution | None:
    """The saved plan from public state ``root``, where the file holds one and it starts as
    the game's model does now, its tree counted again
    (:func:`~spycfr.search.saved_plan.plan_mismatch`); else None,
    said in one line (the agent solves that plan)."""
    say = agent.progress or (lambda _: None)
    name = plan_name(record)
    plan = plans.get(plan_key(root))
    if plan is None:
        # a game that starts with public chance (Agent Avenue advanced's black market) has
        # a plan per outcome: the file holds those the run's own games reached
        say(f"the agent's saved plan {name} holds {len(plans)} first plan(s), none from this "
            "public state (an outcome of the game's first public chance that the run did not "
            "reach): solving the first plan from here")
        return None
    why = plan_mismatch(plan, agent.config.plan_depth)
    if why is not None:
        say(f"the agent's saved plan {name} {why}: solving the first plan again (as a run "
            "without a saved plan does)")
        return None
    say(f"the agent's first plan read from {name} ({plan.tree.size:,} public nodes)")
    return plan
