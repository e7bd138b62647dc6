"""`spycfr serve`: the players' workbench in the browser."""

from __future__ import annotations

import click

from spycfr.cli.options import memory_limit_option


@click.command()
@click.argument("run_dirs", nargs=-1, type=click.Path())
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on (the default serves this machine only).")
@click.option("--port", type=click.IntRange(0, 65535), default=8765, show_default=True,
              help="Port (0: any free one).")
@click.option("--quiet", is_flag=True, help="Do not log each request.")
@memory_limit_option
def serve(run_dirs: tuple[str, ...], host: str, port: int, quiet: bool) -> None:
    """Serve the workbench over RUN_DIRS (run, sweep or team directories, or folders
    holding them; default: results): the strategy browser, openings, reports, play against
    a run, reviews of recorded games, sweeps and team runs. Read-only: no file outside the
    directories given is read, none is written."""
    from spycfr.errors import SpycfrError
    from spycfr.web.server import make_server_for

    try:
        server = make_server_for(list(run_dirs) or ["results"], host, port, quiet)
    except OSError as exc:
        raise SpycfrError(f"cannot listen on {host}:{port}: {exc.strerror}") from None
    address = f"http://{host}:{server.server_port}/"
    click.echo(f"spycfr workbench: {address} (Ctrl-C stops)", err=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
