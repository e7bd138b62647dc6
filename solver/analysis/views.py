"""How a seat's position looks: its private state in a few words, the position drawn (HTML)
and in lines, the notation explained, from the game's ``views`` module (its plug-in names
it) with generic defaults where a game gives none. Generic code asks here, never the
game's name."""

from __future__ import annotations

import importlib
from collections.abc import Callable

from spycfr.errors import RecordError, SpycfrError
from spycfr.games.plugin import GamePlugin


def module(plugin: GamePlugin):
    """The game's views module, or None."""
    return importlib.import_module(plugin.views) if plugin.views else None


def summary_of(plugin: GamePlugin, game, view: str, seat: int) -> dict | None:
    """The game's summary of ``seat``'s view (None: no record notation, or not replayable)."""
    if plugin.records is None:
        return None
    try:
        return plugin.records.view_key(game.variant_obj, view, seat)[1]
    except (RecordError, SpycfrError):
        return None


def delta(before: str, after: str) -> str:
    """What a step added to a view: the new text, or from the first token it rewrote."""
    if after == before:
        return ""
    if after.startswith(before) and (not before or after[len(before)] == " "):
        return after[len(before):].strip()
    i = next((i for i, (x, y) in enumerate(zip(before, after, strict=False)) if x != y),
             min(len(before), len(after)))
    return after[after.rfind(" ", 0, i) + 1:]


def default_private(view: str, public_tokens: list[str]) -> str:
    """A seat's private state in its view: the tokens where its view differs from the
    other's (``public_tokens``) and hides no more (``?``) than the other's does: its own
    moves and cards, not the other's that it cannot see; the whole view where the two do
    not align token by token. A token that hides the other's part and shows its own (Agent
    Avenue's deal, ``deal:?|EN.CB.DD`` against ``deal:DA.CB.DD|?``) is the seat's hand:
    dropped for its ``?``, a review said the opponent "likely held nothing hidden"."""
    toks = view.split()
    public = " ".join(public_tokens).split()
    if len(toks) != len(public):
        return view or "(start)"
    own = [t for t, u in zip(toks, public, strict=True)
           if t != u and t.count("?") <= u.count("?")]
    return " ".join(own) or "nothing hidden"


def private_namer(plugin: GamePlugin, game) -> Callable[[str, int, list[str]], str]:
    """``name(view, seat, public_tokens)``: a seat's private state in a few words (the
    game's ``private_state(summary, seat)``, else :func:`default_private`)."""
    hook = getattr(module(plugin), "private_state", None)
    cache: dict[tuple[str, int], str] = {}

    def name(view: str, seat: int, public_tokens: list[str]) -> str:
        key = (view, seat)
        if key not in cache:
            info = summary_of(plugin, game, view, seat) if hook else None
            named = hook(info, seat) if hook is not None and info is not None else None
            # the game's hook may decline (None: Agent Avenue's team variants)
            cache[key] = named if named is not None else default_private(view, public_tokens)
        return cache[key]

    return name


def draw(plugin: GamePlugin, game, view: str, seat: int) -> str | None:
    """The position as ``seat`` sees it after its ``view``, as HTML (None: the game draws
    nothing, or the view does not replay)."""
    hook = getattr(module(plugin), "draw", None)
    if hook is None:
        return None
    info = summary_of(plugin, game, view, seat)
    return hook(info, seat) if info is not None else None


def lines(plugin: GamePlugin, game, view: str, seat: int, full: bool = False) -> list[str]:
    """The position in words (the record notation's lines), or the view itself (``full``:
    ``view`` is the whole record, everything shown)."""
    info = summary_of(plugin, game, view, seat) if not full else _whole(plugin, game, view)
    if info is None or plugin.records is None:  # no notation: summary_of gave None
        return [f"you see: {view or '(nothing yet)'}"]
    return [x for x in plugin.records.lines(info, game.variant_obj)
            if not x.startswith("legal moves")]


def end(plugin: GamePlugin, game, record: str, seat: int
        ) -> tuple[str | None, list[str], list[str]]:
    """The end of a game from its whole ``record``, every card shown, from one replay of it
    (the workbench's last play page): the position drawn as HTML (None: the game draws
    nothing, or the record does not replay), its lines but the legal moves and the ending
    (as :func:`lines` with ``full``), and the game's own "game over: ..." line(s), how the
    game ended in the game's words (Agent Avenue's reason, the payoffs), as `spycfr play`
    prints them at the end (:func:`spycfr.analysis.play.show_position`; [] where the game
    has no notation or the record does not replay)."""
    info = _whole(plugin, game, record)
    if info is None or plugin.records is None:
        return None, [f"you see: {record or '(nothing yet)'}"], []
    every = plugin.records.lines(info, game.variant_obj)
    over = [x for x in every if x.startswith("game over")]
    shown = [x for x in every if not x.startswith("legal moves") and x not in over]
    hook = getattr(module(plugin), "draw", None)
    return (None if hook is None else hook(info, seat)), shown, over


def _whole(plugin: GamePlugin, game, record: str) -> dict | None:
    """The game's summary of a whole record (None: no notation, or not replayable)."""
    if plugin.records is None:
        return None
    try:
        return plugin.records.summary(game.variant_obj, record)
    except (RecordError, SpycfrError):
        return None


def held_legend(plugin: GamePlugin) -> str:
    """What the game's names of held states (``private_state``) mean, in a sentence, or ''
    (the default names are the seat's view itself)."""
    return getattr(module(plugin), "HELD", "")


def notation_help(plugin: GamePlugin) -> str:
    """The game's notation explained (HTML), or ''."""
    return getattr(module(plugin), "NOTATION", "")
