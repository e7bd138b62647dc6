"""Long runs of LBR against a search agent (:mod:`spycfr.analysis.lbr_agent`'s loop) on Dask,
resumable: each game is its own task (seat, index) seeded as in the table path, on a Dask
LocalCluster (or a cluster by address, or this process), and every finished game is
appended to ``RUN_DIR/lbr-games.jsonl`` at once, so a rerun of the same command keeps the
games already played and plays the rest. Each game records the code that played it
(:func:`spycfr.provenance.code_version`): the file's settings hold the agent's
configuration, not the code, so a rerun after a change that alters play appends to the
earlier agent's games, and the result's method says how many games each code played.
The entry: :func:`agent_lbr` (``spycfr measure``). A worker's numba compiling (minutes on
a cold cache) is told on the client (:func:`on_worker`, :func:`say_workers_compiling`).
"""


from __future__ import annotations

import functools
import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from spycfr.analysis.headtohead import payoff_bound, player_args, player_from
from spycfr.analysis.lbr import (
    BELIEF_CAP,
    COMPACTED,
    cap_words,
    check_lbr_options,
    check_particle_states,
    compacted_totals,
    seat_seed,
    summary,
    two_player_params,
)
from spycfr.analysis.lbr_agent import AgentOpponent, play_game
from spycfr.cluster import dask_client
from spycfr.compiling import COMPILING, saying_when_compiling
from spycfr.errors import SpycfrError
from spycfr.provenance import code_version, count_codes, played_by_words, same_code
from spycfr.seeds import check_seed
from spycfr.ticking import Ticker

GAMES_FILE = "lbr-games.jsonl"
# how LBR reads the agent's rows at its particles (recorded with the games: games read
# otherwise are not resumed)
PARTICLES = ("each private state's row re-solved with that state's own leaf games "
             "(Continuations.focus_each), not the rows of the agent's own re-solve")
Note = Callable[[str], None]
COMPILING_TOPIC = "spycfr-numba-compiling"  # a Dask worker's event: its numba compiles
UNTIL_FIRST = 30.0  # seconds between the lines that say no game has finished yet
KERNEL_TOPIC = "spycfr-numba-kernel"  # a worker's event: a kernel's compiling starts (+1), ends
WORKERS_COMPILING = "on the workers, " + COMPILING

_AGENTS: dict[str, tuple] = {}  # per process: run directory -> (agent, params, game)
_CACHES: dict[str, dict] = {}  # per process: run directory -> the particles' re-solves


def _agent_of(run_dir: str, progress: Note | None = None) -> tuple:
    """(the agent, the rules' two-player params, the game) of ``run_dir``, made once per
    process; the agent's long solves told to ``progress``."""
    if run_dir not in _AGENTS:
        from spycfr.runs.agent_run import load_agent

        game = _game_of(run_dir)
        _AGENTS[run_dir] = (load_agent(run_dir), two_player_params(game), game)
    _AGENTS[run_dir][0].progress = progress
    return _AGENTS[run_dir]


def agent_game_task(run_dir: str, settings: dict, me: int, g: int,
                    progress: Note | None = None) -> dict:
    """One LBR game against the agent of ``run_dir`` (a Dask task; the agent and its plan
    are made once per process; its long solves told to ``progress`` in this process)."""
    agent, params, game = _agent_of(run_dir, progress)
    start = time.perf_counter()
    opponent = AgentOpponent(agent, player_from(settings["opponent_rollout"], game),
                             settings.get("particle_states"),
                             _CACHES.setdefault(run_dir, {}))
    roll = player_args(player_from(settings["rollout"], game))
    seed = seat_seed(settings["seed"], me)
    cap = settings.get("belief_cap")
    counts: dict = {}
    try:
        payoff, largest, decisions = play_game(params, me, opponent, roll,
                                               settings["rollouts"], int(seed), g, cap=cap,
                                               counts=counts)
    except MemoryError:
        raise SpycfrError(f"LBR game {g} as P{me + 1} against the agent of {run_dir} ran out "
                          f"of memory: its belief (at most {cap} particles between moves, "
                          "each move's successors of all of them at once) outgrew this "
                          "machine; games finished before it are kept") from None
    view = opponent.last
    return {"seat": me, "game": g, "payoff": payoff, "largest": largest,
            "decisions": decisions, "seconds": time.perf_counter() - start,
            "particle_decisions": view.decisions, "particle_cached": view.cached,
            "particle_solves": view.solves, "approximate": view.approximate,
            "unvalued_mass": view.unvalued_mass, "belief_merged": counts.get("merged", 0),
            "belief_resampled": counts.get("resampled", 0),
            "belief_depleted": counts.get("depleted", 0), "code": code_version()}


def default_rollout(game) -> str:
    """The game's heuristic where it has one (LBR plays on with it), else uniform play."""
    try:
        player_from("heuristic", game)
    except SpycfrError:
        return "uniform"
    return "heuristic"


def _read_games(path: Path, settings: dict) -> dict[tuple[int, int], dict]:
    """The finished games of ``path`` (a last line cut short by a crash is ignored); a file
    made with other settings is refused."""
    if not path.exists():
        return {}
    lines = path.read_text().splitlines()
    done: dict[tuple[int, int], dict] = {}
    made: dict | None = None
    for k, line in enumerate(lines):
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            if k == len(lines) - 1:
                break
            raise SpycfrError(f"{path}: line {k + 1} is not JSON") from None
        if k == 0:
            made = row.get("settings")
            if made != settings and made != _before_cap(settings):
                raise SpycfrError(f"{path} holds LBR games with other settings "
                                  f"({made}); move it away or measure with those settings "
                                  "to resume")
            continue
        done[(row["seat"], row["game"])] = row
    if made != settings and any(r["largest"] > settings["belief_cap"] for r in done.values()):
        raise SpycfrError(f"{path} holds LBR games played before the belief had a cap, some "
                          f"with more than {settings['belief_cap']} particles; move it away "
                          "or measure with a larger cap to resume")
    return done


OTHER_AGENT_FILE = "lbr-games.other-agent.jsonl"


def set_aside_other_agents_games(run_dir: str | Path) -> Path | None:
    """Move ``run_dir``'s LBR games to OTHER_AGENT_FILE when any was played against another
    agent than the one this code remade (results/regenerate.sh, after remaking the
    directory): against another configuration than its run.json's agent, or by other code
    than this process's (:func:`spycfr.provenance.same_code`: one version and one git
    commit; a game that records no code or no commit counts as other code, and so does
    every game where this process has no commit, outside a checkout: there every remake
    starts afresh, the code that played the games not being known), so that the
    measurement starts afresh instead of appending the remade agent's games to an earlier
    agent's (the settings record the configuration, not the code: a change that alters
    play left them equal).
    Games of this agent and code stay and are resumed. Returns where they went (None:
    nothing moved). An older set-aside file is replaced. `spycfr measure` itself resumes
    and merges every game of the same settings whatever code played it (games from other
    machines), its method counting each code's games."""
    from spycfr.runs.store import read_run

    path = Path(run_dir) / GAMES_FILE
    if not path.exists():
        return None
    with path.open() as f:
        first = f.readline()
        rows = f.read().splitlines()
    try:
        made = json.loads(first)["settings"]["agent"]
    except (ValueError, KeyError, TypeError):
        raise SpycfrError(f"{path}: its first line is not the games' settings") from None
    if made == read_run(run_dir).record.get("agent") and all(
            _this_code(line) for line in rows):
        return None
    return path.replace(path.with_name(OTHER_AGENT_FILE))


def _this_code(line: str) -> bool:
    """Whether the game of a games file's ``line`` is known to have been played by this
    process's code (:func:`spycfr.provenance.same_code`: one version and one git commit; a
    game or a process without a commit, outside a checkout, is not known to be any); a line
    cut short by a crash counts as this code's (it is not read)."""
    try:
        code = json.loads(line).get("code")
    except ValueError:
        return True
    return same_code(code, code_version())


def _before_cap(settings: dict) -> dict:
    """The settings of games played before the belief had a cap: the same games wherever
    the belief stayed within it (nothing was compacted then), as their "largest" says."""
    return {k: v for k, v in settings.items() if k != "belief_cap"}


def _append(path: Path, row: dict) -> None:
    with path.open("a") as f:
        f.write(json.dumps(row) + "\n")
        f.flush()
        os.fsync(f.fileno())


def agent_lbr(run_dir: str | Path, games: int, seed: int = 1, rollouts: int = 16,
              rollout: str | None = None, scheduler: str | None = None,
              workers: int | None = None, progress: Note | None = None,
              belief_cap: int = BELIEF_CAP, particle_states: int | None = None) -> dict:
    """LBR against the search agent of ``run_dir`` in ``games`` games (half in each seat),
    each game a task (on a Dask LocalCluster of ``workers`` processes, default 2; the
    cluster at ``scheduler``; or this process with ``workers=0``), finished games kept in
    RUN_DIR/lbr-games.jsonl so that the same command resumes (every game of the same
    settings there counts, also games appended by other machines at other indices, so the
    result may hold more than ``games``). LBR's belief is compacted past ``belief_cap``
    particles (``lbr_agent.compact``). ``particle_states`` K (None: every state): at each of the
    agent's decisions only the K private states of the agent that LBR's belief weighs most
    are re-solved with their own leaf games (:class:`AgentOpponent`'s ``max_states``), the
    others take that re-solve's rows (their leaves scored as the value function's fallback
    scores them: still independent of the agent's cards, so still a bound, LBR's belief
    only coarser); K is recorded with the games (a file of another K is not resumed), and
    the largest belief mass left unvalued in a game is reported. Where a re-solve for every
    state is out of reach (Agent Avenue's advanced mode: some 1,000 states at its first
    decisions, 2,641 hands a seat) this makes the games affordable. Returns the result as
    :func:`spycfr.analysis.lbr.local_best_response` does, with the cost per game."""
    check_lbr_options(games, rollouts, belief_cap)
    check_particle_states(particle_states)
    seed = check_seed(seed)
    say = progress or (lambda text: None)
    run_dir = str(run_dir)
    game = _game_of(run_dir)
    rollout = rollout or default_rollout(game)
    player_from(rollout, game)  # a bad name fails now
    from spycfr.runs.store import read_run

    # the agent's configuration too: games against another agent (the directory remade with
    # other options) are not resumed
    settings = {"seed": seed, "rollouts": rollouts, "rollout": rollout,
                "opponent_rollout": rollout, "agent": read_run(run_dir).record.get("agent"),
                "particles": PARTICLES, "belief_cap": belief_cap}
    if particle_states is not None:  # absent when every state is re-solved: older files
        settings["particle_states"] = particle_states  # of that setting still resume
    path = Path(run_dir) / GAMES_FILE
    done = _read_games(path, settings)
    if not path.exists():
        _append(path, {"settings": settings})
    halves = (games // 2, games - games // 2)
    # games finished anywhere count (other machines may add games of other indices to the
    # file); each seat's lowest free indices are played, the seats alternating, so that a
    # run stopped early holds as many games of each
    free = []
    for me in (0, 1):
        have = sum(1 for m, _ in done if m == me)
        free.append([g for g in range(halves[me] + len(done)) if (me, g) not in done]
                    [:max(0, halves[me] - have)])
    todo = [(me, seat[k]) for k in range(max(map(len, free))) for me, seat in enumerate(free)
            if k < len(seat)]
    say(f"local best response against the agent: {games - len(todo):,} of {games:,} games "
        f"already in {path}, {len(todo):,} to play" + (
            " (each agent process first solves its opening plan)" if todo else ""))
    start = time.perf_counter()

    def finished(row: dict, count: int) -> None:
        _append(path, row)
        done[(row["seat"], row["game"])] = row
        elapsed = time.perf_counter() - start
        left = (len(todo) - count) * elapsed / count
        say(f"local best response: {games - len(todo) + count:,} of {games:,} games "
            f"(game {row['game']} as P{row['seat'] + 1}: {row['payoff']:+g} for LBR, "
            f"{row['seconds']:.1f} s; {elapsed:.0f} s elapsed, about {left:.0f} s to go)")

    _run_tasks(run_dir, settings, todo, scheduler, workers, finished, say)
    rows = [[done[key] for key in sorted(k for k in done if k[0] == me)] for me in (0, 1)]
    payoffs = [np.array([r["payoff"] for r in seat]) for seat in rows]
    every = rows[0] + rows[1]
    out = summary(payoffs, payoff_bound(game), seed, rollouts, rollout,
                  max(r["largest"] for r in every), sum(r["decisions"] for r in every),
                  "weighted by the agent's re-solved strategy (its probability of each move "
                  "for the particle's private state, at the public state where it "
                  "re-solved, as the agent holding that state computes it: "
                  f"{PARTICLES}{_bounded_words(particle_states)})"
                  + cap_words(_per_game(every), belief_cap),
                  f"{rollout} for both seats afterwards: the agent cannot re-solve in "
                  "thousands of playouts")
    seconds = [r["seconds"] for r in every]
    out.update(particle_decisions={k: sum(r.get(f"particle_{k}", 0) for r in every)
                                   for k in ("decisions", "cached", "solves")},
               approximate_decisions=sum(r.get("approximate", 0) for r in every),
               belief_cap=belief_cap,
               belief_compacted=compacted_totals(_per_game(every)))
    if particle_states is not None:
        out.update(particle_states=particle_states,
                   unvalued_mass_largest=max(r.get("unvalued_mass", 0.0) for r in every))
    codes = count_codes(every)
    out["method"] += ". " + played_by_words(codes)
    out.update(code=codes, opponent="search agent", games_file=GAMES_FILE,
               seconds_per_game={"mean": float(np.mean(seconds)),
                                 "median": float(np.median(seconds))},
               seconds_all_games=float(np.sum(seconds)))
    return out


def _bounded_words(particle_states: int | None) -> str:
    """The method's words for ``particle_states`` (None: every state re-solved)."""
    if particle_states is None:
        return ""
    return (f"; at each decision only the {particle_states} private states LBR's belief "
            "weighs most, the others with the rows of that re-solve, their leaves scored "
            "as the value function's fallback scores them (independent of the agent's "
            "cards: a coarser belief, still a bound)")


def _per_game(rows: list[dict]) -> np.ndarray:
    """The games' merges, resamplings and depletions of the belief (as the table path
    counts them) from their rows of the games file."""
    return np.array([[r.get(f"belief_{k}", 0) for k in COMPACTED] for r in rows],
                    dtype=np.int64).reshape(-1, len(COMPACTED))


def _game_of(run_dir: str):
    from spycfr.games import make_game
    from spycfr.runs.store import read_run

    config = read_run(run_dir).config
    assert config is not None  # read_run requires it
    return make_game(config.game, config.preset, config.params)


def _run_tasks(run_dir: str, settings: dict, todo: list[tuple[int, int]],
               scheduler: str | None, workers: int | None,
               finished: Callable[[dict, int], None], say: Note) -> None:
    if not todo:
        return
    if workers == 0 and scheduler is None:
        for count, (me, g) in enumerate(todo, 1):
            finished(agent_game_task(run_dir, settings, me, g, say), count)
        return
    from distributed import as_completed

    with dask_client(scheduler, workers or 2) as (client, text):
        say(f"on {text}")
        compiling = say_workers_compiling(client, say)
        path = str(Path(run_dir).resolve())
        futures = [client.submit(on_worker, agent_game_task, path, settings, me, g,
                                 pure=False) for me, g in todo]
        waiting = Ticker(functools.partial(_until_first, say, compiling), UNTIL_FIRST)
        try:
            waiting.start()
            for count, fut in enumerate(as_completed(futures), 1):
                waiting.stop(join=False)
                finished(fut.result(), count)
        finally:
            waiting.stop(join=False)


def on_worker(task: Callable[..., Any], *args: Any) -> Any:
    """``task(*args)`` as a Dask task, numba compiling in it told to the client (the first
    run on a cold cache is otherwise minutes of silence): :func:`say_workers_compiling`."""
    from distributed import get_worker

    worker = get_worker()
    with saying_when_compiling(functools.partial(worker.log_event, COMPILING_TOPIC),
                               WORKERS_COMPILING,
                               functools.partial(worker.log_event, KERNEL_TOPIC)):
        return task(*args)


class WorkersCompiling:
    """What the client knows of the workers' numba compiling (:func:`on_worker`'s events):
    the kernels whose compiling started and has not ended, and when the last event came."""

    def __init__(self) -> None:
        self.open, self.last = 0, -float("inf")

    def kernel(self, event: tuple[float, int]) -> None:
        self.open, self.last = max(self.open + int(event[1]), 0), time.perf_counter()

    def now(self, within: float) -> bool:
        """Whether a worker compiles now, or did within the last ``within`` seconds (numba
        compiles kernels one after another as the code first calls them)."""
        return self.open > 0 or time.perf_counter() - self.last < within


def say_workers_compiling(client: Any, say: Note) -> WorkersCompiling:
    """Say once, on the client, that a worker's numba compiles (:func:`on_worker`), and
    follow its kernels' compiling (the state returned)."""
    told: list[str] = []
    state = WorkersCompiling()

    def compiling(event: tuple[float, str]) -> None:
        if not told:
            told.append(event[1])
            say(event[1])

    client.subscribe_topic(COMPILING_TOPIC, compiling)
    client.subscribe_topic(KERNEL_TOPIC, state.kernel)
    return state


def _until_first(say: Note, compiling: WorkersCompiling | None, seconds: float) -> None:
    """The line said every UNTIL_FIRST seconds (a Ticker) until the first game finishes:
    that none has yet after ``seconds``, and why: numba compiling on the workers (its
    kernels' events in the last UNTIL_FIRST seconds), else the agent's opening plan."""
    spent = f"no game finished yet after {seconds:.0f} s"
    if compiling is not None and compiling.now(UNTIL_FIRST):
        say(f"{spent}: numba is still compiling kernels on the workers (a cold cache, after "
            "installing or a kernel source changed: minutes); the games start after")
    else:
        say(f"{spent} (each worker first solves or reads the agent's opening plan: minutes "
            "on a big game)")
