"""Best move from a position: a player's view of a game record (in the game's notation) ->
every legal move with its equilibrium probability and its value against the opponent, and
advice in plain words that is honest about noise.

A solved run is an approximate equilibrium: values within its exploitability of each other
are ties (never "the best move"), the equilibrium's own mix is shown apart from the best
reply against the opponent, and a position the equilibrium (almost) never reaches is flagged
with its reach probability. Every move is listed as the record accepts it, appended to the
view (e.g. an Agent Hunter hand attack with each answer it may get).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np

from spycfr.analysis.bound import measured_json
from spycfr.analysis.markdown import num
from spycfr.engine.labels import state_at
from spycfr.errors import RecordError, SpycfrError
from spycfr.exact.best_response import best_response_values, infoset_values
from spycfr.formats.strategy_table import read_table, strategy_from_table
from spycfr.games import feature, game_of_tree, make_variant, tree_labels
from spycfr.runs.store import Run, load_run
from spycfr.tree import Tree
from spycfr.words import other_variant

PLAYERS = {"P1": 0, "P2": 1}
OFF_PATH = 1e-6  # below this reach probability a position is off the equilibrium path
SHOWN = 0.005  # moves played at least this often make "the equilibrium's mix" in words
MAX_NODES = 400  # histories of an infoset replayed to find how each move is written


def opponent_strategy(tree: Tree, source: str, run_fingerprint: dict | None = None) -> np.ndarray:
    """A profile from ``uniform``, a run directory or a strategy table file, on ``tree``."""
    if source == "uniform":
        return tree.uniform_strategy()
    path = Path(source)
    if path.is_dir():
        other = load_run(path)
        if other.tree.variant != tree.variant or other.tree.game != tree.game:
            raise SpycfrError(other_variant(source, other.tree.game, other.tree.variant,
                                            tree.game, tree.variant))
        return other.strategy
    if path.is_file():
        return strategy_from_table(tree, read_table(path))[0]
    raise SpycfrError(
        f"--against {source!r}: not 'uniform', a run directory or a strategy table file"
    )


def combine(own: np.ndarray, other: np.ndarray, tree: Tree, player: int) -> np.ndarray:
    """The profile where ``player`` plays ``own`` and the opponent plays ``other``."""
    profile = own.copy()
    rows = tree.infoset_player != player
    profile[rows] = other[rows]
    return profile


def infoset_index(tree: Tree) -> dict[tuple[int, str], int]:
    """(player, information-state key) -> infoset id."""
    keys, _ = tree_labels(tree)
    return {(int(p), k): i for i, (p, k) in enumerate(zip(tree.infoset_player, keys, strict=True))}


def query(run: Run, player: int, record: str, against: np.ndarray | None = None) -> dict:
    """Every legal move of ``player`` at the position its view ``record`` describes, with
    the advice in data (see :func:`advise`) and in words (``advice``)."""
    tree = run.tree
    records = feature(tree.game, "records", "record notation to name a position in")
    variant = make_variant(tree.game, None, tree.variant)
    key, position, name = _view_to_move(records, variant, record, player)
    infoset = infoset_index(tree).get((player, key))
    if infoset is None:
        raise SpycfrError(f"{name}'s position {key!r} is not in the solved tree of this variant")
    profile = run.strategy if against is None else combine(run.strategy, against, tree, player)
    cfv, reach, opp_reach = infoset_values(tree, profile)
    q, best, opp = best_response_values(tree, profile, player)
    eq_reach = reach if against is None else infoset_values(tree, run.strategy)[1]
    k = int(tree.infoset_num_actions[infoset])
    _, labels = tree_labels(tree)
    probs = run.strategy[infoset, :k]
    reachable = opp_reach[infoset] > 0
    values = cfv[infoset, :k] / opp_reach[infoset] if reachable else np.full(k, np.nan)
    br_values = q[infoset, :k] / opp[infoset] if reachable else np.full(k, np.nan)
    forms = record_forms(tree, infoset, records, variant, key)
    moves = [
        {"move": labels[infoset][a], "probability": float(probs[a]),
         "value": _num(values[a]), "br_value": _num(br_values[a]), "record": forms[a]}
        for a in range(k)
    ]
    eps = float(run.result.exploitability or 0.0)
    result = {
        "player": name,
        "information_state": key,
        "infoset": infoset,
        "reach_probability": float(reach[infoset]),
        "equilibrium_reach_probability": float(eq_reach[infoset]),
        "own_reach_probability": _own_reach(reach[infoset], opp_reach[infoset]),
        "opponent_reach_probability": float(opp_reach[infoset]),
        "opponent_reaches": bool(reachable),
        "position_value": _num(float(probs @ values)) if reachable else None,
        "best_response_move": labels[infoset][int(best[infoset])] if reachable else None,
        "moves": moves,
        "position": position,
    }
    # against another opponent the position's frequency is the one that opponent gives it
    tolerance = tie_tolerance(eps, float((reach if against is not None else eq_reach)[infoset]))
    # the best reply is against this opponent, its values exact: tied within the run's
    # NashConv (2 eps), as a frequent position's values are; with the position's
    # tolerance (2 eps / reach) a rare one called moves 1.0 apart "tied at +0.0000"
    result.update(advise(moves, tolerance, 2 * eps, against is not None, precision=2 * eps))
    result["warning"] = path_warning(result, name)
    result["advice"] = advice_words(result)
    return result


def tie_tolerance(eps: float, reach: float) -> float | None:
    """How far apart two moves' values may be and still tie, at a position reached with
    probability ``reach``: the run's NashConv (twice its exploitability ``eps``: both
    players' approximation errors) per visit, i.e. 2 eps / reach; None below ``OFF_PATH``
    (off the equilibrium path the run does not rank the moves)."""
    if reach < OFF_PATH:
        return None
    return 2.0 * eps / min(reach, 1.0)


def unranked(loss: float, tolerance: float | None, precision: float | None) -> bool:
    """Whether a move ``loss`` below the best is one the run does not rank: tied within
    ``tolerance`` (a rare position's 2 eps / reach) but more than ``precision`` (the run's
    NashConv, 2 eps, how far apart equal values may read where the position is frequent)
    below the best; neither "as good" nor lost. The rule of query's advice (:func:`advise`)
    and of a tree run's review (:func:`spycfr.analysis.play.review`); never where either is
    None (off the equilibrium path, or every tie a tie of equal values)."""
    return tolerance is not None and precision is not None and precision < loss <= tolerance


def advise(moves: list[dict], tolerance: float | None, br_tolerance: float,
           other_opponent: bool = False, precision: float | None = None) -> dict:
    """Ties, losses and the best reply of ``moves`` (dicts with move, probability, value,
    br_value); adds ``loss``, ``tie`` and ``best_reply`` to each move. Values within
    ``tolerance`` of the best tie (None: off the equilibrium path, values not ranked); best-
    reply values within ``br_tolerance``.

    ``precision``: how far apart the run's values may be and still be the same value where
    the position is frequent (its NashConv, 2 eps). A tie wider than that (a rare position:
    2 eps / reach, up to 1.0 and more on mini) only says the run cannot rank the moves:
    those moves (``unranked``, best first) are not "as good" as the best, nor the best
    "one of several equal moves"; None: every tie is a tie of equal values."""
    out: dict[str, Any] = {"tolerance": tolerance, "br_tolerance": br_tolerance,
                           "against_other": other_opponent, "precision": precision,
                           "unranked": []}
    mix = sorted((m for m in moves if m["probability"] >= SHOWN),
                 key=lambda m: -m["probability"])
    out["equilibrium_mix"] = [{"move": m["move"], "probability": m["probability"]} for m in mix]
    out.update(best_move=None, best_moves=[], as_good=[], losing=[], best_reply=[],
               best_reply_value=None)
    for m in moves:
        m.update(loss=None, tie=None, best_reply=None)
    if any(m["value"] is None for m in moves):
        return out
    top = max(m["value"] for m in moves)
    top_br = max(m["br_value"] for m in moves)
    for m in moves:
        m["loss"] = top - m["value"]
        m["best_reply"] = top_br - m["br_value"] <= br_tolerance
    out["best_reply"] = [m["move"] for m in sorted(moves, key=lambda m: -m["br_value"])
                         if m["best_reply"]]
    out["best_reply_value"] = top_br
    if tolerance is None:
        return out
    for m in moves:
        m["tie"] = m["loss"] <= tolerance
    best = [m["move"] for m in sorted(moves, key=lambda m: -m["value"]) if m["tie"]]
    out["best_moves"] = best
    out["best_move"] = best[0] if len(best) == 1 else None
    far = [unranked(m["loss"], tolerance, precision) for m in moves]  # the rule once a move
    same = [m for m, f in zip(moves, far, strict=True) if m["tie"] and not f]
    out["unranked"] = [m["move"] for m, f in sorted(zip(moves, far, strict=True),
                                                    key=lambda x: -x[0]["value"]) if f]
    out["as_good"] = [m["move"] for m in same if m["probability"] < SHOWN]
    out["losing"] = [{"move": m["move"], "loss": m["loss"]}
                     for m in sorted(moves, key=lambda m: m["loss"]) if not m["tie"]]
    return out


def path_warning(result: dict, name: str) -> str | None:
    """Words for a position off the equilibrium path (or never reached by the opponent)."""
    if not result["opponent_reaches"]:
        return ("the opponent's strategy never leads here: the values are undefined, and the "
                "equilibrium's move probabilities here were never trained against anything")
    r = result["equilibrium_reach_probability"]
    if r >= OFF_PATH:
        return None
    own = result["own_reach_probability"]
    who = (f"{name}'s own equilibrium moves never lead here" if own is not None and own < OFF_PATH
           else "the opponent (or the deal) almost never leads here")
    return (f"off the equilibrium path: this position arises in {r:.2g} of games at "
            f"equilibrium ({who}). The equilibrium's moves here are not certified by the "
            f"run's exploitability: follow the best reply against the equilibrium opponent")


def advice_words(result: dict) -> list[str]:
    """The advice of :func:`advise` in plain words, one sentence a line."""
    tol, eps = result["tolerance"], result["br_tolerance"]
    mix = result["equilibrium_mix"]
    lines = ["equilibrium: play " + ", ".join(
        f"{m['move']} {_pct(m['probability'])}" for m in mix) + (
        "" if len(mix) == len(result["moves"]) else " (other moves: never or almost never)")]
    if result["best_reply_value"] is None:
        return lines
    best, as_good = result["best_moves"], result["as_good"]
    within = f"within {tol:.2g}" if tol else "exactly"
    if len(result["moves"]) == 1:
        lines.append(f"the only legal move: {result['moves'][0]['move']}")
        return lines
    if tol is None:
        lines.append("the moves are not ranked by their equilibrium values here (off the "
                     "equilibrium path)")
    elif result["best_move"] is not None:
        lines.append(f"best move: {result['best_move']} (better than every other move by more "
                     f"than {tol:.2g})")
    elif result.get("unranked"):
        # ties wider than a frequent position's: the run's values here are too coarse to
        # rank these moves, which is all "within" says (not that they are worth the same)
        loss = {m["move"]: m["loss"] for m in result["moves"]}
        value = next(m["value"] for m in result["moves"] if m["move"] == best[0])
        lines.append(
            f"the run cannot rank these moves: at a position this rare its values may be off "
            f"by up to {tol:.2g} (2 x exploitability / how often the position arises), and "
            f"{len(best) - 1} other move{'s are' if len(best) > 2 else ' is'} within that of "
            f"the best; against the run's strategy {best[0]} is best (value {num(value)}), "
            "then " + ", ".join(f"{m} ({loss[m]:.4f} less)" for m in best[1:4])
            + (f" and {len(best) - 4} more" if len(best) > 4 else ""))
    elif len(best) == len(result["moves"]):
        lines.append(f"{'both' if len(best) == 2 else f'all {len(best)}'} moves are as good "
                     f"as each other ({within}): none is the best move")
    else:
        lines.append(f"{len(best)} moves tie as best ({within}): " + ", ".join(best))
    if as_good:
        lines.append(", ".join(as_good) + (" is" if len(as_good) == 1 else " are")
                     + " as good, though the equilibrium does not play "
                     + ("it" if len(as_good) == 1 else "them"))
    losing = result["losing"]
    if losing:
        shown = ", ".join(f"{m['move']} (loses {m['loss']:.4f})" for m in losing[:4])
        more = f" and {len(losing) - 4} more" if len(losing) > 4 else ""
        lines.append(f"losing value (then playing on at equilibrium): {shown}{more}")
    reply = result["best_reply"]
    opponent = "this opponent" if result["against_other"] else "the equilibrium opponent"
    value = num(result["best_reply_value"])
    if len(reply) == 1:
        lines.append(f"best reply against {opponent} (best play afterwards): {reply[0]} "
                     f"({value}; the next is more than {eps:.2g} below)")
    else:
        lines.append(f"best reply against {opponent} (best play afterwards): any of "
                     f"{len(reply)} moves tied at {value} (within {eps:.2g}): "
                     + ", ".join(reply[:6]) + (" ..." if len(reply) > 6 else ""))
    return lines


def record_forms(tree: Tree, infoset: int, records, variant, key: str) -> list[list[str]]:
    """How each move of ``infoset`` is written after the view ``key``: the move's label when
    the record accepts it, else every token it can become (e.g. ``hand:1>1:lo`` and
    ``hand:1>1:hi``: the answer is known only once given)."""
    seat = int(tree.infoset_seat[infoset])
    player = int(tree.infoset_player[infoset])
    game = game_of_tree(tree)
    parents = tree.parents()
    nodes = np.flatnonzero((tree.node_infoset == infoset) & (tree.node_player == player))
    k = int(tree.infoset_num_actions[infoset])
    after: list[set[str]] = [set() for _ in range(k)]
    label = [""] * k
    for n in nodes[:MAX_NODES]:
        path = []
        v = int(n)
        while v > 0:
            path.append(int(tree.node_action[v]))
            v = int(parents[v])
        state = state_at(game, path[::-1])
        for a, code in enumerate(tree.node_action[tree.first_child[n]:tree.first_child[n] + k]):
            after[a].add(state.child(int(code)).information_state(seat))
            label[a] = state.action_label(int(code))
    forms = []
    for a in range(k):
        views = sorted(after[a])
        written = [_suffix(key, v) for v in views]
        if len(views) == 1 and _parses(records, variant, _join(key, label[a]), seat, views[0]):
            written = [label[a]]
        forms.append(written)
    return forms


def written_alternatives(forms: list[str]) -> str:
    """A move's forms (:func:`record_forms`) in one token: ``hand:1>1:lo`` and
    ``hand:1>1:hi`` become ``hand:1>1:lo|hi`` (the common prefix, up to a separator of the
    notation, written once)."""
    if len(forms) == 1:
        return forms[0]
    common = os.path.commonprefix(forms)
    cut = max(common.rfind(c) for c in ":=+>") + 1  # at a separator of the notation
    return forms[0][:cut] + "|".join(f[cut:] for f in forms)


def _suffix(key: str, view: str) -> str:
    """What the view ``view`` adds to ``key``: the new tokens, or the whole record when the
    move rewrites the last token (e.g. a refill written at the end of the attack)."""
    if key == "":
        return view
    return view[len(key) + 1:] if view.startswith(key + " ") else view


def _join(key: str, token: str) -> str:
    return f"{key} {token}" if key else token


def _parses(records, variant, text: str, seat: int, expected: str) -> bool:
    try:
        return records.view_key(variant, text, seat)[0] == expected
    except (RecordError, SpycfrError):
        return False


def _own_reach(reach: float, opp_reach: float) -> float | None:
    return float(reach / opp_reach) if opp_reach > 0 else None


def _pct(p: float) -> str:
    return f"{100 * p:.0f}%" if p >= 0.095 else f"{100 * p:.1f}%"


def _num(x: float) -> float | None:
    return None if not np.isfinite(x) else float(x)


SAMPLED_SOURCE = ("the average strategy of a sampled run (Monte-Carlo CFR) in the game's "
                  "information abstraction: this position shares its row with every position "
                  "the seat cannot tell apart in the abstraction; no values (no tree), its "
                  "exploitability unknown")


def sampled_query(run_dir: str | Path, player: int, record: str) -> dict:
    """``player``'s moves at the position of its view ``record`` in a run sampled without a
    tree: the average strategy's probabilities, read by the information abstraction."""
    from spycfr.runs.sampled import load_sampled_solver
    from spycfr.runs.store import read_run

    meta = read_run(run_dir)
    if meta.config is None or not meta.config.abstraction:
        raise SpycfrError(f"run {str(run_dir)!r} was sampled without --abstraction: its table "
                          "is keyed by whole move histories, which a player's view does not "
                          "give; query a run solved with --abstraction")
    records = feature(meta.game, "records", "record notation to name a position in")
    if records.view_state is None:
        raise SpycfrError(f"{meta.game} cannot rebuild a position from a view: query "
                          "needs a run with a tree")
    variant = make_variant(meta.game, None, meta.variant)
    key, position, name = _view_to_move(records, variant, record, player)
    solver = load_sampled_solver(run_dir)
    state = records.view_state(variant, record, player)
    policy = solver.policy_at_state(state, player)
    labels = position["legal_moves"]
    seen = policy is not None
    if policy is None:  # what the run plays where its table has no row
        policy = solver.fallback_at(state)
    if len(policy) != len(labels):
        raise RuntimeError(f"the run's row has {len(policy)} moves, the rules give {len(labels)}")
    order = np.argsort(-policy, kind="stable")
    return {"player": name, "information_state": key, "seen": seen, "source": SAMPLED_SOURCE,
            "fallback": solver.fallback, "store_depth": solver.store_depth,
            "moves": [{"move": labels[i], "probability": float(policy[i])} for i in order],
            "iterations": meta.iterations, "exploitability": None,
            "measured": measured_json(meta.measured)}


def _view_to_move(records, variant, record: str, player: int) -> tuple[str, dict, str]:
    """(infoset key, position, "P1"/"P2") of ``player``'s view of ``record``; a one-line error
    when the game is over or it is the other player's move."""
    key, position = records.view_key(variant, record, player)
    name = "P1" if player == 0 else "P2"
    if position["terminal"]:
        paid = ", ".join(f"P{i + 1} {float(v):+g}" for i, v in enumerate(position["payoff"]))
        raise SpycfrError(f"the game is over after this record (payoffs: {paid}): query "
                          "takes a record that stops where a player is to move")
    if position["to_move"] is None:  # chance: the record stops before a deal or a draw
        hint = records.chance_next(variant, position) if records.chance_next else None
        raise SpycfrError(f"no player moves after this record: "
                          f"{hint or 'a deal or draw (chance) comes next'}; give the record "
                          f"up to {name}'s move, its cards included")
    if position["to_move"] != name:
        raise SpycfrError(f"it is {position['to_move']}'s move after this record, not {name}'s")
    return key, position, name


def view_of_full_record(game: str, params: dict, record: str, player: int
                        ) -> tuple[str, str | None]:
    """``player``'s view of ``record`` where it is a whole game's record (every card shown,
    e.g. pasted from ``spycfr play`` or from the opponent's side), with a one-line note
    saying so; ``(record, None)`` where it is not a legal full record (a view: its own replay
    answers it, errors included), or nothing of it is hidden from ``player``, or the game
    has no full-record notation. A record with no ``?`` that is neither a legal full record
    nor a legal view gets the full record's error: it was written as a whole game's."""
    from spycfr.games import foreign_kind, get_plugin

    if not record.strip() or foreign_kind(game) is not None:
        return record, None
    plugin = get_plugin(game)
    records = plugin.records
    if records is None or records.actions is None:
        return record, None
    variant = make_variant(game, None, params)
    try:  # a view fails at its first hidden token (a game's full records may have '?' too)
        codes = records.actions(variant, record)
    except RecordError as full:
        if "?" in record:
            return record, None
        try:
            records.view_key(variant, record, player)
        except RecordError:
            raise full from None
        return record, None
    state = plugin.python_game(variant).new_initial_state()
    for code in codes:
        state = state.child(int(code))
    view = state.information_state(player)
    if view == state.record():
        return record, None
    _view_to_move(records, variant, view, player)  # a position where the player moves, or
    # the one-line error alone (before the note is said)
    name = "P1" if player == 0 else "P2"
    return view, (f"the record shows what {name} cannot see (the opponent's hidden cards): "
                  f"answering {name}'s view of it, {view}")
