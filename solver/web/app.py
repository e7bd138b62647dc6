"""The workbench's web application (Bottle, WSGI): the routes of its pages.

Every page takes the entry by name (``?run=NAME``); bad input of any kind is answered with
a page that says what is wrong and a 4xx status, and an unexpected failure with a 500 page
that names the error without a traceback, the server serving on.
"""

from __future__ import annotations

import functools

import bottle  # type: ignore[import-untyped]  # bottle ships no type information

from spycfr.errors import SpycfrError
from spycfr.web import games, many, pages
from spycfr.web.bench import PageError, Workbench
from spycfr.web.catalog import Entry
from spycfr.web.html import error_body, page

ROUTES = [
    ("/", "GET", pages.index), ("/run", "GET", pages.run_page), ("/browse", "GET", pages.browse),
    ("/openings", "GET", pages.openings), ("/report", "GET", pages.report),
    ("/file", "GET", pages.file), ("/play", "GET", games.play),
    ("/thinking", "GET", games.thinking),
    ("/review", "GET", games.review_form), ("/review", "POST", games.review_post),
    ("/sweep", "GET", many.sweep), ("/team", "GET", many.team),
]


def make_app(entries: dict[str, Entry]) -> bottle.Bottle:
    """The WSGI application serving ``entries`` read-only."""
    bench = Workbench(entries)
    app = bottle.Bottle(catchall=True)

    def handle(render):
        @functools.wraps(render)
        def wrapper(*args, **kwargs):
            try:
                return render(bench, bottle.request, *args, **kwargs)
            except PageError as exc:
                return _error(exc.status, str(exc))
            except SpycfrError as exc:  # the analysis refused the input: say why
                return _error(400, str(exc))
            except bottle.HTTPResponse:
                raise
            except Exception as exc:  # noqa: BLE001 (a page, not a traceback)
                return _error(500, f"internal error ({type(exc).__name__}: "
                                   f"{str(exc)[:300]}); the server goes on serving")
        return wrapper

    for path, method, render in ROUTES:
        app.route(path, method, handle(render))

    @app.error(404)
    def not_found(err):
        bottle.response.content_type = "text/html; charset=utf-8"
        return page("not found", error_body(f"no page {bottle.request.path[:200]!r}"))

    @app.error(405)
    def not_allowed(err):
        bottle.response.content_type = "text/html; charset=utf-8"
        return page("not allowed", error_body("this page does not take that method"))

    @app.error(500)
    def failed(err):
        bottle.response.content_type = "text/html; charset=utf-8"
        return page("error", error_body("internal error; the server goes on serving"))

    return app


def _error(status: int, message: str) -> bottle.HTTPResponse:
    return bottle.HTTPResponse(page("error", error_body(message)), status=status,
                               headers={"Content-Type": "text/html; charset=utf-8"})
