"""`spycfr team`: the team equilibrium (TMECor) of a game with teams into a run directory."""

from __future__ import annotations

import time

import click

from spycfr.cli.options import (
    game_command,
    memory_limit_option,
    output_option,
    quiet_option,
)


@game_command()
@click.argument("game")
@output_option("Run directory for team.json, team_plans.npz, the checkpoint and report.md "
               "(default: print only).", hidden_aliases=("--out",))
@click.option("--algorithm", default="auto", show_default=True,
              type=click.Choice(["auto", "dag", "colgen"]),
              help="dag: predictive CFR+ on the team belief DAGs; colgen: column generation "
                   "with a MILP oracle; auto: dag, or colgen when the DAG does not fit.")
@click.option("--tolerance", default=1e-9, type=float, show_default=True,
              help="Stop when the certified interval is this narrow.")
@click.option("--time-limit", default=None, type=float,
              help="Stop after this many seconds (the interval stays certified).")
@click.option("--resume", is_flag=True, help="Continue the DAG solve checkpointed in the "
              "run directory.")
@quiet_option("No progress lines.")
@memory_limit_option
def team(game: str, preset: str | None, variant_params: dict, output: str | None,
         algorithm: str, tolerance: float, time_limit: float | None, resume: bool,
         quiet: bool) -> None:
    """Solve GAME's team variant (e.g. agent-avenue --teams 2v1) for a team equilibrium
    with ex-ante coordination (TMECor); print the value, its certified interval, the
    exploitability and the value when teammates could see each other's cards."""
    out_dir = output
    from spycfr.errors import SpycfrError

    if tolerance < 0 or (time_limit is not None and time_limit <= 0):
        raise SpycfrError("--tolerance must be >= 0 and --time-limit > 0")
    start = time.perf_counter()
    last = [0.0]

    def note(text: str) -> None:
        if not quiet:
            click.echo(f"[{time.perf_counter() - start:6.1f} s] {text}", err=True)

    def progress(it: int, lower: float, upper: float) -> None:
        # At most a line a second (the DAG solver checks every few iterations).
        now = time.perf_counter()
        if not quiet and (now - last[0] >= 1.0 or upper - lower <= tolerance):
            last[0] = now
            note(f"iteration {it}: value in [{lower:+.6f}, {upper:+.6f}] (certified), "
                 f"exploitability {(upper - lower) / 2:.2e}")

    note("starting: loading the solver (numba compiles it on first use)")
    from spycfr.runs.team import team_run  # seconds of imports: counted in the time limit

    left = None if time_limit is None else time_limit - (time.perf_counter() - start)
    meta = team_run(game, preset, variant_params, out_dir, tolerance, left, progress,
                    algorithm=algorithm, resume=resume, note=note)
    if out_dir is not None:
        from spycfr.analysis.team import load_team_run, write_team_report

        note("writing the report")
        write_team_report(load_team_run(out_dir))
        note("done")
    click.echo(f"{game}  team 0 seats {meta['teams'][0]}, team 1 seats {meta['teams'][1]}; "
               f"{meta['nodes']:,} nodes" + (f", belief DAGs {meta['dag_size']:,} beliefs "
                                              "and edges" if "dag_size" in meta else ""))
    click.echo(f"  TMECor value    {meta['value_team0']:+.6f} in [{meta['lower']:+.6f}, "
               f"{meta['upper']:+.6f}], exploitability {meta['exploitability']:.2e}")
    click.echo(f"  iterations      {meta['iterations']} in {meta['solve_seconds']:.1f} s "
               f"({meta['algorithm']})")
    if "pooled" in meta:
        click.echo(f"  pooled (teammates see each other's cards)  "
                   f"{meta['pooled']['value_team0']:+.6f}")
