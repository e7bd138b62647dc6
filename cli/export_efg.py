"""`spycfr export-efg`: write a game's tree in Gambit's .efg format (readable by OpenSpiel)."""

from __future__ import annotations

from pathlib import Path

import click

from spycfr.cli.options import build_game, game_command, memory_limit_option
from spycfr.errors import SpycfrError
from spycfr.io import check_output_file
from spycfr.words import params_text


@game_command("export-efg")
@click.argument("game")
@click.option(
    "-o", "--output", "output", required=True, type=click.Path(dir_okay=False),
    help="The .efg file to write (replaced atomically).",
)
@click.option("--title", default=None, help="Game title in the file (default: game and variant).")
@memory_limit_option
def export_efg(
    game: str, preset: str | None, variant_params: dict, output: str, title: str | None
) -> None:
    """Export GAME's full tree as a Gambit extensive-form (.efg) file."""
    from spycfr.cli.progress import heartbeat
    from spycfr.formats.efg import write_efg
    from spycfr.games import build_tree

    check_output_file(output, "-o")  # before the tree is built
    with heartbeat(f"building the tree of {game} (after installing, the first run also "
                   "compiles the game's rules)", "still building the tree ({:.0f} s)"):
        tree = build_tree(build_game(game, preset, variant_params))
    try:
        size = write_efg(tree, output, title=title)
    except OSError as exc:
        raise SpycfrError(f"cannot write {output}: {exc.strerror or exc}") from None
    s = tree.summary()
    click.echo(
        f"wrote {output}: {game}{_variant(tree.variant)}, {s['nodes']:,} nodes "
        f"({s['terminal_nodes']:,} terminal, "
        f"{s['chance_nodes']:,} chance), {s['infosets']:,} infosets "
        f"(P1 {s['infosets_p1']:,}, P2 {s['infosets_p2']:,}), {size:,} bytes",
        err=not Path(output).is_file(),  # -o /dev/stdout: the file alone on stdout
    )


def _variant(variant: dict) -> str:
    return f" ({params_text(variant)})" if variant else ""
