"""Commands whose options depend on the game: each game's variant parameters become options
of every command that takes that game, generated from its plug-in record.

``spycfr solve kuhn`` offers no ``--cards``; ``spycfr solve agent-hunter --help`` lists
Agent Hunter's parameters. The command finds the game on its own command line (the GAME
argument, or ``--game NAME``) before parsing the rest.
"""

from __future__ import annotations

import functools
import math

import click

from spycfr.errors import SpycfrError
from spycfr.seeds import check_seed

PLUGIN_KEY = "spycfr.plugin"


def _variant_option(param) -> click.Option:
    return click.Option([param.flag, param.name], type=str, default=None, help=param.help)


class Choice(click.Choice):
    """A case-insensitive choice that names its choices as written (``P1``, not click's
    ``p1``) in its help and its error."""

    def __init__(self, choices: tuple[str, ...]) -> None:
        super().__init__(choices, case_sensitive=False)

    def get_metavar(self, param, ctx=None) -> str:
        return "[" + "|".join(map(str, self.choices)) + "]"

    def get_invalid_choice_message(self, value, ctx) -> str:
        return f"{value!r} is not one of {', '.join(map(str, self.choices))}"


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
        from spycfr.games import foreign_kind, get_plugin  # numba: loaded only when used

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
    from spycfr.games import make_game

    return make_game(game_name, preset, variant_params)


# --- one option vocabulary, shared by every command ---------------------------------------


def _with_aliases(f, dest: str, aliases: dict[str, str]):
    """Wrap a command callback so that hidden alias options (``alias dest -> flag``) fill
    ``dest`` when the canonical option was not given; giving both is an error."""

    @functools.wraps(f)
    def wrapper(*args, **kwargs):
        for alias_dest, flag in aliases.items():
            value = kwargs.pop(alias_dest)
            if value is None or value is False:
                continue
            if kwargs.get(dest) not in (None, False) and kwargs[dest] != value:
                raise SpycfrError(f"{flag} is another name of --{dest.replace('_', '-')}: "
                                  "give one of them")
            kwargs[dest] = value
        return f(*args, **kwargs)

    return wrapper


def output_option(help: str, required: bool = False, hidden_aliases: tuple[str, ...] = (),
                  **kwargs):
    """``-o/--output PATH`` (the one name of every command's output); older names of a
    command stay as hidden aliases so that existing commands keep working."""

    def decorate(f):
        aliases = {f"output_alias_{i}": flag for i, flag in enumerate(hidden_aliases)}
        if required and aliases:  # checked by hand, after an alias may have stood for it
            f = _require(f, "output", "-o/--output")
        wrapped = _with_aliases(f, "output", aliases) if aliases else f
        for alias_dest, flag in aliases.items():
            wrapped = click.option(flag, alias_dest, default=None, hidden=True,
                                   type=click.Path())(wrapped)
        return click.option("-o", "--output", "output", default=None, type=click.Path(),
                            required=required and not aliases, help=help, **kwargs)(wrapped)

    return decorate


def _require(f, dest: str, flag: str):
    @functools.wraps(f)
    def wrapper(*args, **kwargs):
        if kwargs.get(dest) is None:
            raise click.UsageError(f"Missing option '{flag}'.")
        return f(*args, **kwargs)

    return wrapper


def quiet_option(help: str = "No progress lines on stderr."):
    """``-q/--quiet``."""
    return click.option("-q", "--quiet", "quiet", is_flag=True, help=help)


SEAT_HELP = ("The seat: P1 or P2 (S1..S4 on a team run). --as and --player are older names "
             "of this option.")


def seat_option(help: str, required: bool = False, default: str | None = None,
                choices: tuple[str, ...] | None = None):
    """``--seat``: the one name of the seat a command plays or answers for (play, query,
    best-response); ``--as`` and ``--player`` stay as hidden aliases."""

    def decorate(f):
        aliases = {"seat_alias_as": "--as", "seat_alias_player": "--player"}
        if required:  # checked after an alias may have given it
            f = _require(f, "seat", "--seat")
        if default is not None:
            f = _default(f, "seat", default)
        wrapped = _with_aliases(f, "seat", aliases)
        kind = (Choice(choices) if choices is not None
                else click.STRING)
        for alias_dest, flag in aliases.items():
            wrapped = click.option(flag, alias_dest, default=None, hidden=True,
                                   type=kind)(wrapped)
        return click.option("--seat", "seat", default=None, type=kind, help=help)(wrapped)

    return decorate


def _default(f, dest: str, value):
    @functools.wraps(f)
    def wrapper(*args, **kwargs):
        if kwargs.get(dest) is None:
            kwargs[dest] = value
        return f(*args, **kwargs)

    return wrapper


def parse_number(name: str, text: str | None, kind: type, minimum: float, strict: bool):
    """``text`` as an int or float, at least (or above, if strict) ``minimum``; else SpycfrError."""
    if text is None:
        return None
    what = "an integer" if kind is int else "a number"
    bound = f"> {minimum:g}" if strict else f">= {minimum:g}"
    try:
        value = kind(text)
    except ValueError:
        raise SpycfrError(f"--{name} must be {what} {bound}, got {text!r}") from None
    if not math.isfinite(value) or value < minimum or (strict and value == minimum):
        raise SpycfrError(f"--{name} must be {what} {bound}, got {text!r}")
    return value


def parse_seed(text: str | int | None) -> int | None:
    """A --seed (None when not given): an integer 0 .. 2**63 - 1 (:func:`spycfr.seeds.check_seed`,
    the rule of every seed, the library's too); else SpycfrError naming the value and the
    range."""
    return None if text is None else check_seed(text, "--seed")


class _Seed(click.ParamType):
    """click's type of --seed: parse_seed's rule and its one-line error."""

    name = "integer"

    def convert(self, value, param, ctx) -> int | None:
        return parse_seed(value)


def seed_option(default: int | None, help: str = "Random seed (an integer >= 0)."):
    """``--seed``: an integer 0 .. 2**63 - 1 (parse_seed), the same rule in every command."""
    return click.option("--seed", "seed", type=_Seed(), default=default,
                        show_default=default is not None, help=help)


def parse_float(name: str, text: str | None) -> float | None:
    """``text`` as a finite float (None when not given); else SpycfrError."""
    if text is None:
        return None
    try:
        value = float(text)
    except ValueError:
        raise SpycfrError(f"--{name} must be a number, got {text!r}") from None
    if not math.isfinite(value):
        raise SpycfrError(f"--{name} must be a finite number, got {text!r}")
    return value


def parse_gib(text: str | None) -> float | None:
    """A --memory-limit in GiB (None when not given); one-line error if not a number > 0."""
    if text is None:
        return None
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise SpycfrError(f"--memory-limit must be a number of GiB > 0, got {text!r}")
    return value


MEMORY_HELP = ("Keep the process's peak resident memory under this many GiB (default: half "
               "the RAM): big allocations are refused before they are made, with a one-line "
               "error.")


def memory_limit_option(f):
    """``--memory-limit GIB``: the command runs under that memory budget
    (:func:`spycfr.memory.use_budget`), which the library checks before it builds trees and
    tables, and which a watchdog holds for what is not checked beforehand."""

    @functools.wraps(f)
    def wrapper(*args, memory_limit: str | None, **kwargs):
        from spycfr.memory import budget_for, use_budget

        budget = budget_for(parse_gib(memory_limit))
        with use_budget(budget, f"spycfr {click.get_current_context().info_name}"):
            return f(*args, **kwargs)

    return click.option("--memory-limit", "memory_limit", default=None, metavar="GIB",
                        help=MEMORY_HELP)(wrapper)
