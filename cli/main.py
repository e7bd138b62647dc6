"""Entry point of the ``spycfr`` command: the group, error handling and `games`."""

from __future__ import annotations

import json
import os
import re
import sys
from typing import Any

import click

from spycfr import __version__
from spycfr.cli.analyse import best_response_cmd, exploitability, export, openings
from spycfr.cli.export_efg import export_efg
from spycfr.cli.match import head_to_head, measure
from spycfr.cli.play import play
from spycfr.cli.query import query
from spycfr.cli.record import record
from spycfr.cli.report import report
from spycfr.cli.review import review
from spycfr.cli.serve import serve
from spycfr.cli.solve import info, solve
from spycfr.cli.sweep import sweep
from spycfr.cli.team import team
from spycfr.cli.train_openings import train_openings
from spycfr.cli.train_values import train_values
from spycfr.errors import (
    Interrupted,
    ParameterError,
    SpycfrError,
    is_interrupt,
    wrapped_error,
)
from spycfr.memory import end_of_command
from spycfr.words import params_text


class _PipeClosed(Exception):
    """The reader of our output went away (``spycfr ... | head``); not an OSError, so that
    click does not turn it into exit code 1 on its own."""


class _Group(click.Group):
    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except BrokenPipeError:
            raise _PipeClosed from None
        except ParameterError as exc:  # the library's parameter names said as our flags
            command = self.get_command(ctx, ctx.invoked_subcommand or "")
            raise SpycfrError(exc.said(flags(command))) from None


def flags(command: click.Command | None) -> dict[str, str]:
    """Each option of ``command`` by its parameter name: its long flag (``--lbr-games``)."""
    out = {}
    for p in command.params if command is not None else ():
        opts = [o for o in p.opts if o.startswith("--")] if isinstance(p, click.Option) else []
        if p.name and opts:
            out[p.name] = opts[0]
    return out


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="spycfr")
def cli() -> None:
    """spycfr: solve and analyse two-player hidden-information espionage card games."""


@cli.command()
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def games(as_json: bool) -> None:
    """List the games, their parameters and presets."""
    from spycfr.games import game_names, get_plugin

    out: dict[str, dict[str, Any]] = {}
    for name in game_names():
        plugin = get_plugin(name)
        out[name] = {
            "title": plugin.title, "summary": plugin.summary,
            "parameters": {p.name: p.help for p in plugin.parameters},
            "presets": plugin.presets,
            "team_presets": plugin.team_presets,
            "records": plugin.records is not None, "openings": plugin.openings is not None,
            "heuristic_players": [f"heuristic:{h}" for h in plugin.heuristic_styles],
        }
    if as_json:
        click.echo(json.dumps(out, indent=2))
        return
    for name, entry in out.items():
        click.echo(f"{name}: {entry['title']}, {entry['summary']}")
        for p, desc in entry["parameters"].items():
            click.echo(f"  --{p.replace('_', '-'):<12} {desc}")
        for preset, params in entry["presets"].items():
            shown = params_text(params) or "(no parameters)"
            click.echo(f"  preset {preset:<10} {shown}")
        for preset, params in entry["team_presets"].items():
            shown = params_text(params)
            click.echo(f"  preset {preset:<10} {shown}  (spycfr team)")
        if entry["heuristic_players"]:
            click.echo("  head-to-head players: " + ", ".join(entry["heuristic_players"]))


# The commands live in one module per job; importing them is cheap (the solver loads lazily).
for _command in (record, solve, info, openings, query, best_response_cmd, exploitability, export,
                 export_efg, report, head_to_head, measure, play, sweep, team, serve,
                 review, train_values, train_openings):
    cli.add_command(_command)


# An error is one line: a message longer than this is cut (it quotes what the user gave).
MAX_ERROR_CHARS = 2000


def _fail(prefix: str, exc: BaseException | str, code: int) -> None:
    text = re.sub(r"[ \t]*\n[ \t]*|\t", " ", str(exc)).strip()
    if len(text) > MAX_ERROR_CHARS:
        text = text[:MAX_ERROR_CHARS] + f"... ({len(text) - MAX_ERROR_CHARS:,} more characters)"
    click.echo(f"{prefix}{text}", err=True)
    sys.exit(code)


def _preset_hint(exc: click.UsageError) -> str:
    """Where a command that takes GAME got an extra argument that is one of its presets
    (`spycfr info agent-hunter mini`, the README's `GAME [variant]` read as a word): how a
    preset is given."""
    from spycfr.games import game_names, get_plugin

    ctx, message = exc.ctx, exc.format_message()
    extra = re.fullmatch(r"Got unexpected extra arguments? \((\S+).*\)", message)
    game = ctx.params.get("game") if ctx is not None else None
    if extra is None or game not in game_names() or \
            extra.group(1) not in get_plugin(game).presets:
        return ""
    return f": a preset is an option, --preset {extra.group(1)}"


def main() -> None:
    """Run the CLI; user errors become one line on stderr and exit code 2."""
    try:
        cli.main(standalone_mode=False, prog_name="spycfr")
    except Interrupted as exc:
        _fail("interrupted: ", exc, 130)
    except SpycfrError as exc:
        _fail("error: ", exc, 2)
    except click.exceptions.Abort:
        _fail("", "aborted", 130)
    except click.UsageError as exc:  # one line like every other error, with where to look
        ctx = exc.ctx
        hint = f" (see `{ctx.command_path} --help`)" if ctx is not None else ""
        _fail("error: ", exc.format_message() + _preset_hint(exc) + hint, exc.exit_code)
    except click.ClickException as exc:
        _fail("error: ", exc.format_message(), exc.exit_code)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except (_PipeClosed, BrokenPipeError):  # nothing to say, and no one to say it to
        _quiet_stdout()
        sys.exit(141)  # as if killed by SIGPIPE, like other Unix tools
    except OSError as exc:  # a disk full, a file vanished: not a bug of ours
        where = f" ({exc.filename})" if exc.filename else ""
        _fail("error: ", f"{exc.strerror or exc}{where}", 1)
    except BaseException as exc:  # Ctrl-C or the memory watchdog, possibly wrapped by numba
        if is_interrupt(exc):
            _fail("", "interrupted", 130)
        inner = wrapped_error(exc)
        if inner is None:
            raise
        if isinstance(inner, Interrupted):
            _fail("interrupted: ", inner, 130)
        _fail("error: ", inner, 2)
    finally:
        end_of_command()


def _quiet_stdout() -> None:
    """Point stdout at /dev/null so that Python's final flush does not complain again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


if __name__ == "__main__":
    main()
