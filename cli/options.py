"""Commands whose options depend on the game: each game's variant parameters become options
of every command that takes that game, generated from its plug-in record.

``spycfr solve kuhn`` offers no ``--cards``; ``spycfr solve agent-hunter --help`` lists
Agent Hunter's parameters. The command finds the game on its own command line (the GAME
argument, or ``--game NAME``) before parsing the rest.
"""

from __future__ import annotations

import click

from spycfr.errors import SpycfrError
from spycfr.games import foreign_kind, get_plugin, make_game

PLUGIN_KEY = "spycfr.plugin"


def _variant_option(param) -> click.Option:
    return click.Option([param.flag, param.name], type=str, default=None, help=param.help)


class GameCommand(click.Command):
    """A click command taking ``--preset`` and the variant options of its game.

    ``game_option``: the game is named by an option (``--game``) rather than by the first
    positional argument. The callback receives ``variant_params`` (the variant options
    given, by parameter name) instead of one keyword per option.
    """

    def __init__(self, *args, game_option: str | None = None, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.game_option = game_option
        self.params.insert(0, click.Option(
            ["--preset"], default=None,
            help="A named variant of the game (see `spycfr games`)."))
        self.epilog = ((self.epilog or "") + "\n\nGame parameters are options too: "
                       "`spycfr games` lists them, and the help of a command given a game "
                       "(e.g. `spycfr solve agent-hunter --help`) shows them.").strip()

    def _game_in(self, ctx: click.Context, args: list[str]) -> str | None:
        """The game named on the command line, looking past options and their values."""
        flags = {opt for p in self.get_params(ctx) if isinstance(p, click.Option) and p.is_flag
                 for opt in p.opts + p.secondary_opts}
        i = 0
        while i < len(args):
            a = args[i]
            if self.game_option and a == self.game_option:
                return args[i + 1] if i + 1 < len(args) else None
            if self.game_option and a.startswith(self.game_option + "="):
                return a.split("=", 1)[1]
            if a == "--":
                return None if self.game_option or i + 1 >= len(args) else args[i + 1]
            if a.startswith("-") and len(a) > 1:
                i += 1 if ("=" in a or a in flags) else 2
                continue
            if not self.game_option:
                return a
            i += 1
        return None

    def get_params(self, ctx: click.Context) -> list[click.Parameter]:
        params = super().get_params(ctx)
        plugin = ctx.meta.get(PLUGIN_KEY)
        if plugin is None:
            return params
        # The game's options go after --preset and before the command's own.
        return params[:1] + [_variant_option(p) for p in plugin.parameters] + params[1:]

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        name = self._game_in(ctx, list(args))
        if name is not None and foreign_kind(name) is None:  # a foreign game has no options
            ctx.meta[PLUGIN_KEY] = get_plugin(name)  # an unknown game: one-line error here
        try:
            return super().parse_args(ctx, args)
        except click.NoSuchOption as exc:
            plugin = ctx.meta.get(PLUGIN_KEY)
            if plugin is None or not exc.option_name.startswith("--"):
                raise
            allowed = ", ".join(p.flag for p in plugin.parameters)
            raise SpycfrError(
                f"{plugin.name} has no option {exc.option_name}; its parameters: "
                f"{allowed or 'none (it takes no parameters)'}") from None

    def invoke(self, ctx: click.Context):
        plugin = ctx.meta.get(PLUGIN_KEY)
        names = [p.name for p in plugin.parameters] if plugin is not None else []
        given = {name: ctx.params.pop(name) for name in names}
        ctx.params["variant_params"] = {k: v for k, v in given.items() if v is not None}
        return super().invoke(ctx)


def game_command(name: str | None = None, game_option: str | None = None, **attrs):
    """``@click.command`` for a :class:`GameCommand`."""
    return click.command(name, cls=GameCommand, game_option=game_option, **attrs)


def build_game(game_name: str, preset: str | None, variant_params: dict):
    """Resolve a game from CLI options; errors surface as SpycfrError (one line, exit 2)."""
    return make_game(game_name, preset, variant_params)
