"""`spycfr head-to-head A B`: sampled games between two players, with confidence intervals."""

from __future__ import annotations

import json
from pathlib import Path

import click

from spycfr.analysis.bound import lbr_games_note, lower_bound
from spycfr.analysis.markdown import num
from spycfr.cli.options import build_game, game_command, memory_limit_option, seed_option
from spycfr.errors import SpycfrError


@game_command("head-to-head", game_option="--game")
@click.argument("player_a")
@click.argument("player_b")
@click.option("--game", default=None,
              help="The game, when neither player is a run directory (which names its own).")
@click.option("--games", default=10_000, show_default=True, type=int,
              help="Games to play (half with A as P1).")
@seed_option(0)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@memory_limit_option
def head_to_head(player_a: str, player_b: str, game: str | None, preset: str | None,
                 variant_params: dict, games: int, seed: int, as_json: bool) -> None:
    """Play PLAYER_A against PLAYER_B: each is `uniform`, `heuristic` (the game's simple
    heuristic player), `heuristic:STYLE` (another of the game's heuristic players, see
    `spycfr games`) or a run directory (its strategy). Prints A's mean payoff per game with
    a 95% confidence interval, per seat, and A's win rate."""
    from spycfr.analysis.headtohead import check_player_name, player_from
    from spycfr.analysis.headtohead import head_to_head as match
    from spycfr.cli.progress import heartbeat, saying_when_compiling
    from spycfr.runs.store import read_run

    for player in (player_a, player_b):
        check_player_name(player)
    runs = [p for p in (player_a, player_b) if Path(p).is_dir()]
    if runs:
        if game is not None or preset is not None or variant_params:
            raise SpycfrError("a run directory names its own game and variant: drop --game, "
                              "--preset and the variant options")
        config = read_run(runs[0]).config
        assert config is not None  # read_run requires it
        g = build_game(config.game, config.preset, config.params)
    else:
        if game is None:
            raise SpycfrError("give --game (and its variant) when neither player is a run "
                              "directory")
        g = build_game(game, preset, variant_params)

    def say(text: str) -> None:  # a search agent's games and long solves (stderr)
        click.echo(text, err=True)

    with saying_when_compiling(say):  # loading, the games, a search agent's re-solves
        with heartbeat(f"loading the players {player_a} and {player_b} (a run's tree "
                       "rebuilt; after installing, the first run also compiles the game's "
                       "rules)", "still loading the players ({:.0f} s)"):
            a, b = player_from(player_a, g), player_from(player_b, g)
        for p in (a, b):
            if p.agent is not None:
                p.agent.progress = say
        out = match(g, a, b, games, seed, say)
    if as_json:
        click.echo(json.dumps(out))
        return
    click.echo(f"{g.name}  {g.variant_obj.describe()}")
    click.echo(f"A = {a.name}, B = {b.name}: {out['method']}")
    for label, key in (("A's payoff per game", "a_payoff"), ("  as P1", "a_as_p1"),
                       ("  as P2", "a_as_p2")):
        r = out[key]
        click.echo(f"{label:<20} {num(r['mean'])}  (95% interval {num(r['ci95'][0])} .. "
                   f"{num(r['ci95'][1])}, {r['games']} games)")
    click.echo(f"A wins {100 * out['a_wins']:.1f}%, draws {100 * out['draws']:.1f}%, loses "
               f"{100 * out['a_losses']:.1f}%")
    if out["table_misses"]:
        click.echo(f"({out['table_misses']:,} decisions met an infoset a table player has no "
                   "row for (never visited, or below its --store-depth): it played its "
                   "fallback, uniform or the heuristic)")


@click.command()
@click.argument("run_dir", type=click.Path())
@click.option("--games", default=None, type=int,
              help="Games against each opponent (half with the run as P1; 0: none). "
                   "Default 20,000; 0 for a search agent (about half a minute a game).")
@seed_option(1)
@click.option("--compare", multiple=True, type=click.Path(),
              help="Another sampled run of the same variant (another seed or length): the "
                   "openings' total variation distance to it (repeatable).")
@click.option("--lbr-games", default=0, show_default=True, type=int,
              help="Games of a local best response against the run (half in each seat; 0: "
                   "none): a stronger lower bound on its exploitability.")
@click.option("--lbr-rollouts", default=16, show_default=True, type=int,
              help="Sampled playouts per legal action at each of LBR's decisions.")
@click.option("--lbr-rollout", default=None,
              help="How LBR plays in its playouts after the action valued: uniform, "
                   "heuristic, heuristic:STYLE (default: as the run; against a search agent "
                   "the game's heuristic, for both seats).")
@click.option("--lbr-particle-states", default=None, type=int,
              help="Against a search agent: at each of its decisions LBR re-solves only the "
                   "K private states its belief weighs most, each with its own leaf games, "
                   "the others read from that re-solve (default: every state; a coarser "
                   "belief, still a bound, for games where every state is out of reach).")
@click.option("--scheduler", default=None,
              help="A search agent's LBR games on the Dask cluster at this address "
                   "(default: a LocalCluster).")
@click.option("--workers", default=None, type=int,
              help="Worker processes of the LocalCluster for a search agent's LBR games "
                   "(default 2; 0: in this process).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@memory_limit_option
def measure(run_dir: str, games: int | None, seed: int, compare: tuple[str, ...],
            lbr_games: int, lbr_rollouts: int, lbr_rollout: str | None,
            lbr_particle_states: int | None, scheduler: str | None,
            workers: int | None, as_json: bool) -> None:
    """Measure a sampled run's strength where its exploitability cannot be computed: head to
    head against the uniform and heuristic players (95% intervals), with --lbr-games a local
    best response (LBR) against it, the lower bound on its exploitability these imply, and
    its openings' stability against --compare runs. Recorded in RUN_DIR/run.json
    (`measured`), shown by `spycfr report`. Against a search agent the LBR's games are kept
    in RUN_DIR/lbr-games.jsonl as they finish: the same command resumes."""
    from spycfr.analysis.measure import measure_run
    from spycfr.cli.progress import saying_when_compiling
    from spycfr.runs.agent_run import is_agent_run
    from spycfr.runs.store import read_run

    if workers is not None and workers < 0:
        raise SpycfrError(f"--workers must be >= 0, got {workers}")
    if games is None:
        games = 0 if is_agent_run(read_run(run_dir)) else 20_000

    def say(text: str) -> None:
        if not as_json:
            click.echo(text, err=True)

    with saying_when_compiling(say):  # this process; Dask workers tell theirs (lbr_agent_dask)
        out = measure_run(run_dir, games, seed, compare, lbr_games, lbr_rollouts, lbr_rollout,
                          progress=say, scheduler=scheduler, workers=workers,
                          lbr_particle_states=lbr_particle_states)
    if as_json:
        click.echo(json.dumps(out))
        return
    for line in measured_lines(out, read_run(run_dir).record.get("code")):
        click.echo(line)


def measured_lines(m: dict, run_code: dict | None = None) -> list[str]:
    """A run's measured figures (run.json ``measured``) as text lines; the lower bound with,
    where its games were another agent's than the run's (``run_code``: run.json's ``code``),
    which (:func:`spycfr.analysis.bound.lbr_games_note`, as the report says it)."""
    lines = [f"head to head, {m['games']:,} games each (half in each seat), seed {m['seed']}; "
             "the run's payoff per game, 95% interval:" if m["head_to_head"] else
             "head to head: not measured (--games 0)"]
    for r in m["head_to_head"]:
        lo, hi = r["payoff"]["ci95"]
        lines.append(f"  vs {r['opponent']:<20} {num(r['payoff']['mean'])} [{num(lo)}, {num(hi)}]"
                     f"  wins {100 * r['wins']:.1f}%  (as P1 {num(r['as_p1'])}, as P2 "
                     f"{num(r['as_p2'])})")
    r = m.get("local_best_response")
    if r:
        lo, hi = r["ci95"]
        lines.append(f"local best response, {r['games']:,} games ({r['rollouts']} playouts per "
                     f"action, then {r['rollout_policy']}): its payoff per game "
                     f"{num(r['value'])} [{num(lo)}, {num(hi)}] (as P1 {num(r['as_p1']['mean'])}, "
                     f"as P2 {num(r['as_p2']['mean'])})")
        if "seconds_per_game" in r:
            lines.append(f"  against the search agent: {r['seconds_per_game']['mean']:.1f} s "
                         f"a game (mean), games kept in {r['games_file']}")
    else:
        lines.append("local best response: unknown (not measured: --lbr-games N)")
    bound = lower_bound(m)
    note = lbr_games_note(m, run_code, bound)
    lines.append("exploitability: unknown; " + (
        f"{bound.words()} (an opponent's mean payoff against the run is at most its "
        "exploitability; not a best response)" + ("" if note is None else f"; {note}")
        if bound else "no opponent measured"))
    s = m.get("openings_stability")
    if s:
        u = s["against_uniform"]
        lines.append("openings: total variation distance to uniform play " + ", ".join(
            f"{p} {u[p]['tvd']:.3f}" for p in sorted(u)))
        for o in s["against_runs"]:
            lines.append(f"  to {o['run']} (seed {o['seed']}, {o['iterations']:,} iterations): "
                         + ", ".join(f"{p} {o[p]['tvd']:.3f} (top 5 shared {o[p]['top5_shared']})"
                                     for p in ("P1", "P2") if p in o))
    return lines
