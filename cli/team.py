"""`spycfr team`: the team equilibrium (TMECor) of a game with teams into a run directory."""

from __future__ import annotations

import click

from spycfr.cli.options import (
    game_command,
    memory_limit_option,
    output_option,
    quiet_option,
)


@game_command()
@click.argument("game")
@output_option("Run directory for team.json, team_plans.npz and report.md (default: print "
               "only).", hidden_aliases=("--out",))
@click.option("--tolerance", default=1e-9, type=float, show_default=True,
              help="Stop when the certified interval is this narrow.")
@click.option("--time-limit", default=None, type=float,
              help="Stop after this many seconds (the interval stays certified).")
@quiet_option("No progress lines.")
@memory_limit_option
def team(game: str, preset: str | None, variant_params: dict, output: str | None,
         tolerance: float, time_limit: float | None, quiet: bool) -> None:
    """Solve GAME's team variant (e.g. agent-avenue --teams 2v1) for a team equilibrium
    with ex-ante coordination (TMECor); print the value, its certified interval, the
    exploitability and the value when teammates could see each other's cards."""
    out_dir = output
    from spycfr.errors import SpycfrError
    from spycfr.runs.team import team_run

    if tolerance < 0 or (time_limit is not None and time_limit <= 0):
        raise SpycfrError("--tolerance must be >= 0 and --time-limit > 0")

    def progress(it: int, lower: float, upper: float) -> None:
        if not quiet:
            click.echo(f"iteration {it}: value in [{lower:+.6f}, {upper:+.6f}]", err=True)

    meta = team_run(game, preset, variant_params, out_dir, tolerance, time_limit, progress)
    if out_dir is not None:
        from spycfr.analysis.team import load_team_run, write_team_report

        write_team_report(load_team_run(out_dir))
    click.echo(f"{game}  team 0 seats {meta['teams'][0]}, team 1 seats {meta['teams'][1]}; "
               f"{meta['nodes']:,} nodes")
    click.echo(f"  TMECor value    {meta['value_team0']:+.6f} in [{meta['lower']:+.6f}, "
               f"{meta['upper']:+.6f}], exploitability {meta['exploitability']:.2e}")
    click.echo(f"  iterations      {meta['iterations']} in {meta['solve_seconds']:.1f} s")
    if "pooled" in meta:
        click.echo(f"  pooled (teammates see each other's cards)  "
                   f"{meta['pooled']['value_team0']:+.6f}")
