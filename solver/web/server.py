"""Serving the workbench: a threaded WSGI server from the standard library, bound to one
address, each request logged in one line (or not at all)."""

from __future__ import annotations

import sys
from socketserver import ThreadingMixIn
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from spycfr.web.app import make_app
from spycfr.web.catalog import discover


class _Server(ThreadingMixIn, WSGIServer):
    daemon_threads = True


class _Quiet(WSGIRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 (the standard library's name)
        pass


class _Logged(WSGIRequestHandler):
    def log_message(self, format, *args):  # noqa: A002
        sys.stderr.write(f"{self.address_string()} {format % args}\n")


def make_server_for(paths: list[str], host: str = "127.0.0.1", port: int = 0,
                    quiet: bool = True) -> WSGIServer:
    """A server of the entries under ``paths`` on ``host``:``port`` (0: any free port), not
    yet serving (``serve_forever``)."""
    problems: list[str] = []
    app = make_app(discover(paths, problems))
    for line in problems:
        sys.stderr.write(f"spycfr serve: {line}\n")
    return make_server(host, port, app, server_class=_Server,
                       handler_class=_Quiet if quiet else _Logged)
