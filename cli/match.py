"""`spycfr head-to-head A B`: sampled games between two players, with confidence intervals."""

from __future__ import annotations

import json
from pathlib import Path

import click

from cli.options import build_game, game_command
from solver.errors import SpycfrError


@game_command("head-to-head", game_option="--game")
@click.argument("player_a")
@click.argument("player_b")
@click.option("--game", default=None,
              help="The game, when neither player is a run directory (which names its own).")
@click.option("--games", default=10_000, show_default=True, type=int,
              help="Games to play (half with A as P1).")
@click.option("--seed", default=0, show_default=True, type=int, help="Random seed.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def head_to_head(player_a: str, player_b: str, game: str | None, preset: str | None,
                 variant_params: dict, games: int, seed: int, as_json: bool) -> None:
    """Play PLAYER_A against PLAYER_B: each is `uniform`, `heuristic` (the game's simple
    heuristic player) or a run directory (its strategy). Prints A's mean payoff per game with
    a 95% confidence interval, per seat, and A's win rate."""
    from solver.analysis.headtohead import head_to_head as match
    from solver.analysis.headtohead import player_from
    from solver.runs.store import read_run_meta

    runs = [p for p in (player_a, player_b) if Path(p).is_dir()]
    if runs:
        if game is not None or preset is not None or variant_params:
            raise SpycfrError("a run directory names its own game and variant: drop --game, "
                              "--preset and the variant options")
        meta = read_run_meta(runs[0])
        g = build_game(meta["config"]["game"], meta["config"]["preset"],
                       meta["config"]["params"])
    else:
        if game is None:
            raise SpycfrError("give --game (and its variant) when neither player is a run "
                              "directory")
        g = build_game(game, preset, variant_params)
    a, b = player_from(player_a, g), player_from(player_b, g)
    out = match(g, a, b, games, seed)
    if as_json:
        click.echo(json.dumps(out))
        return
    click.echo(f"{g.name}  {g.variant_obj.describe()}")
    click.echo(f"A = {a.name}, B = {b.name}: {out['method']}")
    for label, key in (("A's payoff per game", "a_payoff"), ("  as P1", "a_as_p1"),
                       ("  as P2", "a_as_p2")):
        r = out[key]
        click.echo(f"{label:<20} {r['mean']:+.4f}  (95% interval {r['ci95'][0]:+.4f} .. "
                   f"{r['ci95'][1]:+.4f}, {r['games']} games)")
    click.echo(f"A wins {100 * out['a_wins']:.1f}%, draws {100 * out['draws']:.1f}%, loses "
               f"{100 * out['a_losses']:.1f}%")
    if out["table_misses"]:
        click.echo(f"({out['table_misses']} decisions met an infoset a table player never "
                   "visited: played uniformly)")
