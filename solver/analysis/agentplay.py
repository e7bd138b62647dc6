"""Games with a search agent (:mod:`spycfr.search.agent`) as one or both players: the
loop of :func:`spycfr.analysis.headtohead._play` in Python (an agent re-solves in Python
between numba calls), with the same seeded streams, so that a match with an agent is
reproducible and comparable to the numba players' matches."""

from __future__ import annotations

import copy
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from spycfr.analysis.bound import bound_words, measured_json
from spycfr.analysis.markdown import num
from spycfr.cfr.mccfr_kernels import advance_keys
from spycfr.engine import protocol as P
from spycfr.engine.rng import game_stream, root_key, sample, uniform
from spycfr.tree import CHANCE, TERMINAL

Watch = Callable[[np.ndarray, int, np.ndarray, np.ndarray, int, dict], bool]


def play_games(params, count: int, seed: int, a_first: bool, a: tuple, b: tuple,
               player_probs: Callable, progress: Callable[[str], None] | None = None,
               numbering: tuple[int, int] | None = None,
               watch: Watch | None = None) -> tuple[np.ndarray, int]:
    """Team 0's payoff in each of ``count`` games (A is team 0 when ``a_first``), and the
    decisions where a table player had no row; ``a`` and ``b`` are (Player, player_args),
    the players without an agent played by ``player_probs`` (headtohead's). ``progress``
    is told each game as game ``first + g + 1`` of ``total`` (``numbering``; default: of
    ``count``), so that a match played in parts counts its games once. ``watch`` (a
    replay's: benchmarks/agent_replay.py) is told each move before it is made: the state,
    the player to move (CHANCE at chance), the legal actions or outcomes, their
    probabilities, the one drawn and the agents' games by seat; False stops the game there
    (its payoff nan)."""
    first, total = numbering if numbering is not None else (0, count)
    impl = P.implementations(params)
    current, legal = impl["current_player"], impl["legal_actions"]
    chance, returns = impl["chance_outcomes"], impl["returns_p1"]
    max_act = max(int(impl["max_actions"](params)), 2)
    acts = np.empty(max_act, dtype=np.int32)
    probs = np.empty(max_act)
    rng = np.empty(1, dtype=np.uint64)
    payoff = np.empty(count)
    misses = 0
    seats = (a, b) if a_first else (b, a)
    for g in range(count):
        start = time.perf_counter()
        rng[0] = game_stream(np.int64(seed), np.int64(g))
        cur = impl["initial_state"](params)
        nxt = np.empty_like(cur)
        h = np.array([root_key(s) for s in range(2)], dtype=np.int64)
        games = {s: player.agent.game(s) for s, (player, _) in enumerate(seats)
                 if player.agent is not None}
        while True:
            p = int(current(cur, params))
            if p == TERMINAL:
                payoff[g] = returns(cur, params)
                break
            if p == CHANCE:
                k = chance(cur, params, acts, probs)
            else:
                k = legal(cur, params, acts)
                player, args = seats[p]
                if p in games:
                    probs[:k] = games[p].policy(cur)
                else:
                    misses += player_probs(args, cur, params, p, h, acts, k, probs)
            x = acts[sample(probs, k, uniform(rng))]
            if watch is not None and not watch(cur, p, acts[:k], probs[:k], int(x), games):
                payoff[g] = np.nan
                break
            advance_keys(params, cur, nxt, x, h)
            for agent_game in games.values():
                agent_game.observe(cur)
        if progress is not None:
            solves = sum(x.solves for x in games.values())
            progress(f"game {first + g + 1}/{total}: {payoff[g]:+g} for P1 ({solves} re-solves, "
                     f"{time.perf_counter() - start:.1f} s)")
    return payoff, misses


def agent_source(meta, to_end: bool = False, from_plan: bool = False,
                 from_table: bool = False, plan_row: bool = False) -> str:
    """The words for where an agent run's answers come from; ``to_end``: the subgame that
    gave them reached the end of the game (the endgame rule), so no leaf valued them;
    ``from_plan``: the values are the first plan's (``MoveInfo.from_plan``);
    ``from_table``: an opening the agent plays by its openings table (``MoveInfo.from_table``);
    ``plan_row``: the agent plays its first plan's row here, not a re-solve
    (``MoveInfo.plan_row``)."""
    from spycfr.games import get_plugin
    from spycfr.runs.agent_run import leaf_words

    a = meta.record.get("agent") or {}
    exploitability = ("exploitability unknown" if meta.exploitability is None else
                      f"exploitability {meta.exploitability:.4g} (exact)")
    if from_table:
        return ("the search agent's openings table (a matrix game over the openings, each "
                "pair valued by games played to the end by the game's heuristic players; "
                "`spycfr openings`): probabilities its equilibrium mixture, values each "
                "opening's expected payoff against the other seat's mixture, continuing "
                f"best; {exploitability}")
    deep = (f"{a.get('plan_depth')} decision level(s) deep" if plan_row else
            f"subgames {a.get('depth')} decision level(s) deep")
    how = ("solved to the end of the game, no leaves" if to_end else
           f"{deep}, the positions where it stops valued by {leaf_words(meta)} "
           f"({a.get('value_function')} leaf values)")
    if plan_row:  # nothing re-solved: the plan solved once from the game's start
        head = ("the search agent's first plan, solved once from the start of the game "
                f"({a.get('plan_iterations') or a.get('iterations')} CFR+ iterations, {how})")
        through = "its strategies"
    else:
        head = f"re-solved now by the search agent ({a.get('iterations')} CFR+ iterations, {how})"
        if a.get("needs_only"):  # AgentConfig.needs_only: the cut applies where it re-solves
            head += ("; at its own move it makes only the moves its cards need (needs_only: "
                     f"{get_plugin(meta.game).needed_moves_said()}), the re-solve offering its "
                     "cards no other")
        through = "the re-solved strategies"
    # the plan's values are the whole game's where the plan reaches its end (own_values)
    whole = from_plan and (to_end or not plan_row)
    by = ("both playing on by the agent's first plan (solved once over the whole game)"
          if whole else "playing on by them")
    return (f"{head}; values are the mover's expected payoff against the agent's model of the "
            f"opponent (its range through {through}), {by}; {exploitability}")


class ViewWalk:
    """The run's search agent in ``player``'s seat, walked along that player's view of a game
    (a record in the game's notation, '?' hidden), as `spycfr query --seat` walks it: from the
    game's start (the agent observes the initial state, as in a game it plays: its first
    move's re-solve where it makes one), then one record token at a time, the rules state
    there taken from the view, the agent re-solving where it would have. :meth:`to` walks on
    to a longer view of the same game, so that the views of a seat's decisions in one game
    cost one walk; what it answers at a view is what a walk made for that view alone answers
    (the agent's value function starts as a loaded agent's: ``forget``).

    The state after each token is the view's replay a token at a time where the game's
    records give ``view_steps`` (the same states as ``view_state`` of each prefix, in one
    pass); else ``view_state`` of each prefix, which replays the view from its start at
    every token: a cost that grows with the square of the game's length."""

    def __init__(self, agent, records, variant, player: int) -> None:
        if records.view_state is None:
            from spycfr.errors import SpycfrError

            raise SpycfrError(f"{agent.plugin.name} cannot rebuild a position from a view")
        self.agent, self.records, self.variant, self.player = agent, records, variant, player
        self.restart()

    def restart(self) -> None:
        """Start the walk again at the game's start: the agent's leaf values as a loaded
        agent's (what other walks of this agent left in them, its detection's robust leaves
        too: gone, :meth:`SearchAgent.forget`), a new game of the agent that has observed the
        initial state, no token walked, the records' steps anew."""
        self.agent.forget()
        self.game = self.agent.game(self.player)
        self.state = self.agent.initial()
        self.game.observe(self.state)
        self.tokens: list[str] = []
        self.steps = (self.records.view_steps(self.variant, self.player)
                      if getattr(self.records, "view_steps", None) is not None else None)

    def extends_to(self, record: str) -> bool:
        """Whether the view ``record`` is the walked one or goes on from it."""
        tokens = record.split()
        return tokens[:len(self.tokens)] == self.tokens

    def amends(self, record: str) -> bool:
        """Whether the view ``record`` completes the walked view's last token (Agent
        Hunter's attack ``...:eq``, the view of a refill decision, then ``...:eq>8`` in the
        next view of the game) and may go on from there: where the records' steps can
        take the completion as a step of its own (``amend``), the walk goes on through it
        instead of starting again (:meth:`to`)."""
        tokens, n = record.split(), len(self.tokens)
        return (n > 0 and self.steps is not None and hasattr(self.steps, "amend")
                and len(tokens) >= n and tokens[:n - 1] == self.tokens[:-1]
                and tokens[n - 1] != self.tokens[-1]
                and tokens[n - 1].startswith(self.tokens[-1]))

    def goes_on_to(self, record: str) -> bool:
        """Whether :meth:`to` walks on to the view ``record`` (it extends or amends the
        walked one) rather than from the game's start."""
        return self.extends_to(record) or self.amends(record)

    def to(self, record: str) -> np.ndarray:
        """Walk on to the view ``record`` (the walked view, one going on from it, or one
        completing its last token: :meth:`amends`); the rules state there (one consistent
        with the view).

        A completed token (a refill written in its attack's token) is one more public step
        for the agent, the one a walk for that view alone takes through the same decision
        (the attack, its answer, the refill: the same steps, re-solves and leaf values),
        so the walk goes on where it was; where the records' steps cannot take it as such,
        the walk starts again from the game's start."""
        from spycfr.games.plugin import check_record_text

        tokens = record.split()
        if self.amends(record):
            n = len(self.tokens)
            check_record_text(" ".join(tokens))
            assert self.steps is not None
            state = self.steps.amend(tokens[n - 1], last=n == len(tokens))
            if state is None:  # the replay's own error, or another token: from the start
                self.restart()
            else:
                self.state, self.tokens = np.asarray(state), tokens[:n]
                self.game.observe(self.state)
        if not self.extends_to(record):
            raise ValueError("a view walk goes on along one game: this view does not")
        if self.steps is not None:
            check_record_text(" ".join(tokens))  # what view_state checks of each prefix
            for k, token in enumerate(tokens[len(self.tokens):], len(self.tokens) + 1):
                # the view's last token read as its last (a swap without its draw): as
                # view_state reads each view
                self.state = np.asarray(self.steps.push(token, last=k == len(tokens)))
                self.tokens = tokens[:k]  # a token that fails is not walked
                self.game.observe(self.state)
            return self.state
        for k in range(len(self.tokens) + 1, len(tokens) + 1):
            self.state = np.asarray(self.records.view_state(self.variant,
                                                            " ".join(tokens[:k]), self.player))
            self.game.observe(self.state)
        self.tokens = tokens
        return self.state


# A both-seat review of an agent run values each seat's moves by the agent in that seat
# (query --seat's values): P1's +0.74 and P2's +0.91 two moves apart in the 14-token Agent
# Hunter standard game of docs/search.md. Not a sign: the seats' opening values are
# opposite (-0.0161/+0.0161, the openings table, nothing private yet) and P2's last values
# are its own loss (-1.0); each is that seat's expectation given its own cards, against
# its own model of the other, and those need not be opposite (at an exact equilibrium
# neither: each seat conditions on what it alone knows).
SEATS_APART = ("the two seats' values are not each other's negatives: each is that seat's "
               "own estimate, from what that seat knows (its own cards) and its own model of "
               "the other seat, so both can be above 0 at the same point of a game; only the "
               "result is zero-sum")


def agent_review_words(meta, both: bool = False) -> str:
    """What a review's numbers on an agent run are, in one line (`spycfr play`, `spycfr
    review`): query's values at each decision, an estimate, with the agent's exploitability
    (exact where measured, else the lower bound measured as `spycfr query` says it, else
    unknown); ``both``: both seats reviewed, whose values are not opposite
    (:data:`SEATS_APART`)."""
    if meta.exploitability is not None:
        strength = f"the agent is {meta.exploitability:.4g} exploitable (exact)"
    else:
        bound = bound_words(meta.measured, meta.record.get("code"), brief=True)
        strength = "the agent's exploitability is unknown" + (f"; {bound}" if bound else "")
    return ("each move valued as `spycfr query --seat` values it there: the search agent in "
            "that seat, the seat's expected payoff against the agent's model of the opponent "
            f"(an estimate, not an equilibrium's value: {strength}); loss below the best move, "
            f"'tie' within {AGENT_TIE:g}, the re-solve's precision"
            + (f"; {SEATS_APART}" if both else ""))


def walk_view(agent, records, variant, record: str, player: int) -> tuple:
    """A new game of ``agent`` as ``player`` along its view ``record`` (:class:`ViewWalk`).
    Returns (the agent's game, the rules state at the record's end)."""
    walk = ViewWalk(agent, records, variant, player)
    state = walk.to(record)
    return walk.game, state


def agent_query(run_dir: str, player: int, record: str,
                progress: Callable[[str], None] | None = None) -> dict:
    """``player``'s moves at its view ``record`` as the run's search agent would play them
    there: the agent follows the record from the game's start (:class:`ViewWalk`,
    re-solving where it would have), then each move's probability and value for the
    player's actual cards, and the agent's posterior over the opponent's private state. A
    review of the player's moves on an agent run answers each as this does
    (:meth:`AgentOpponent.review`)."""
    from spycfr.analysis.query import _view_to_move
    from spycfr.errors import SpycfrError
    from spycfr.games import feature, get_plugin, make_variant
    from spycfr.runs.agent_run import load_agent
    from spycfr.runs.store import read_run

    meta = read_run(run_dir)
    records = feature(meta.game, "records", "record notation to name a position in")
    if records.view_state is None:
        raise SpycfrError(f"{meta.game} cannot rebuild a position from a view")
    variant = make_variant(meta.game, None, meta.variant)
    key, position, name = _view_to_move(records, variant, record, player)
    agent = load_agent(run_dir, progress)
    game, state = walk_view(agent, records, variant, record, player)
    info = game.move_info(state, player)
    labels = position["legal_moves"]
    if len(labels) != len(info.actions):
        raise RuntimeError(f"the agent sees {len(info.actions)} moves, the record "
                           f"{len(labels)}")
    post = game.posterior(state)
    plugin = get_plugin(meta.game)
    names = (plugin.private_names(variant, agent.public(state), 1 - player)
             if plugin.private_names else None)
    top = np.argsort(-post, kind="stable")[:8]
    # by probability as shown (4 decimals), then by value: the moves the agent never plays
    # best first (a long list is cut after 20)
    values = np.where(np.isnan(info.values), -np.inf, info.values)
    order = np.lexsort((-values, -np.round(info.probs, 4)))
    # moves within the re-solve's precision of the best are ties (as play's review says):
    # the agent's mix among them is not a ranking
    _, losses = agent_losses(info.values)
    solved, apart = (game.solved_values(state, player) if not info.from_table
                     else (np.full(len(labels), np.nan), float("nan")))
    return {
        "player": name, "information_state": key,
        "source": agent_source(meta, info.to_end, info.from_plan, info.from_table,
                               info.plan_row),
        "moves": [{"move": labels[i], "probability": float(info.probs[i]),
                   "value": None if np.isnan(info.values[i]) else float(info.values[i]),
                   "loss": losses[i], "tie": agent_tie(losses[i]),
                   "value_as_solved": None if np.isnan(solved[i]) else float(solved[i]),
                   "cut": info.cut is not None and bool(info.cut[i])}
                  for i in order],
        # what the cut moves (no value: AgentConfig.needs_only) are, in words; None: none
        "cut_words": None if info.cut is None or not info.cut.any() else cut_words(plugin),
        "tolerance": AGENT_TIE,
        # the opponent's range the probabilities were solved against, apart from the model
        # the values are against (total variation; None: the values are an openings
        # table's)
        "solved_range_apart": None if np.isnan(apart) else apart,
        "best_moves": [labels[i] for i in order if agent_tie(losses[i])],
        "value": info.value,
        "opponent_posterior": [{"private_state": names[j] if names else int(j),
                                "probability": float(post[j])} for j in top if post[j] > 0],
        # the states not shown: how many the posterior holds beside them, and their mass (a
        # flat posterior's first eight, 0.0048 each, read as the likely ones)
        "opponent_posterior_rest": {"states": max(int((post > 0).sum()) - len(top), 0),
                                    "probability": float(post.sum() - post[top].sum())},
        "re_solves": game.solves, "iterations": meta.iterations,
        "exploitability": meta.exploitability,
        "measured": measured_json(meta.measured),
    }


def cut_words(plugin) -> str:
    """What a move that the agent's re-solve cut (AgentConfig.needs_only) is, and why it has
    no value: the game's words for its rule of needed moves (``needed_moves_words``)."""
    return ("a move these cards do not need: the agent makes only the moves its cards need "
            f"(needs_only: {plugin.needed_moves_said()}), so its re-solve here offers these "
            "cards no other and values none")


# A move of the player within this of the best move's value is a tie in the review: the
# values come from a re-solve of a few hundred iterations, not an exact equilibrium.
AGENT_TIE = 0.01


def agent_losses(values: np.ndarray) -> tuple[float | None, list[float | None]]:
    """The best of a search agent's move values (NaN where a move has none) and each move's
    loss below it: None for a move without a value, and for every move where none has one
    (an unknown loss is neither a tie nor the largest loss). The one rule of `spycfr query`
    and of the review of a game against the agent."""
    valued = ~np.isnan(values)
    if not valued.any():
        return None, [None] * len(values)
    best = float(values[valued].max())
    return best, [best - float(v) if ok else None for v, ok in zip(values, valued, strict=True)]


def agent_tie(loss: float | None) -> bool | None:
    """Whether a move whose loss is ``loss`` ties with the best move (within AGENT_TIE, the
    re-solve's precision); None where its loss is unknown."""
    return None if loss is None else bool(loss <= AGENT_TIE)


def ties_words(result: dict) -> str:
    """:func:`agent_query`'s loss column in words, and which moves tie for the best: values
    within the re-solve's precision of each other are not a ranking, whatever the mix."""
    tol, best = result["tolerance"], result["best_moves"]
    words = (f"loss: below the best move's value (tie: within {tol:g}, the re-solve's "
             "precision)")
    if len(best) > 1:
        named = ", ".join(best[:6]) + (f" and {len(best) - 6} more" if len(best) > 6 else "")
        words += (f"; {len(best)} moves tie for the best within {tol:g} ({named}): the agent's "
                  "probabilities among them are one mix, not a ranking")
    return words + mix_apart_words(result)


def mix_apart_words(result: dict) -> str:
    """Where the agent's most played move loses more than the tie tolerance against its
    model, why (a sentence to append, '' elsewhere): its probabilities were solved against
    the opponent's range as its re-solve holds it, its values are against its model; the
    move's value and the best value against the solve's range say which it optimised."""
    moves = [m for m in result["moves"] if m["loss"] is not None]
    if not moves or result.get("solved_range_apart") is None:
        return ""
    top = max(moves, key=lambda m: m["probability"])
    if top["tie"] or top["probability"] < 0.5 or top.get("value_as_solved") is None:
        return ""
    solved = [m["value_as_solved"] for m in moves if m.get("value_as_solved") is not None]
    best_there = top["value_as_solved"] >= max(solved) - result["tolerance"]
    rank = ("the best there: the two ranges, not the re-solve's imprecision, part them"
            if best_there else f"the best there is worth {num(max(solved))}")
    return (f". The agent plays {top['move']} {100 * top['probability']:.1f}% though it is "
            f"{top['loss']:.4f} below the best against its model: its probabilities come from "
            "its re-solve, against the opponent's range as that solve holds it, where "
            f"{top['move']} is worth {num(top['value_as_solved'])} ({rank}); the values here "
            "are against its model of the opponent (the posterior below), "
            f"{result['solved_range_apart']:.2f} apart from that range in total variation")


class AgentOpponent:
    """A search agent's run as the program's side of `spycfr play`: it follows the game
    (the path of actions so far), re-solves as it goes and plays its seat; and it reviews a
    seat's moves as `spycfr query --seat` answers at each of them (:meth:`review`)."""

    def __init__(self, run_dir: str, progress: Callable[[str], None] | None = None) -> None:
        from spycfr.runs.agent_run import load_agent

        self.agent = load_agent(run_dir, progress)
        self.game: Any = None  # the AgentGame, made at the first call (its seat known)
        self.state = self.agent.initial()
        self.path: list[int] = []  # the actions followed
        # the agent's move probabilities by the path they were given at; the review's
        # answers by (seat, view): what query answers there, whatever walk found it
        self.probs: dict[tuple[int, ...], np.ndarray] = {}
        self.infos: dict[tuple[int, str], Any] = {}

    def _start(self) -> None:
        """A new walk from the game's start, the answers given so far kept."""
        self.game, self.state, self.path = None, self.agent.initial(), []

    def fresh(self) -> AgentOpponent:
        """The same loaded agent (its first plans kept, nothing read again) for a new game:
        the walk, the state and the answers start again. The workbench replays a game from
        its start at every page: it keeps a walk per game (seat and seed), whose answers
        the replay's earlier steps reuse, the page's new steps walking on."""
        new = copy.copy(self)
        new.infos, new.probs = {}, {}
        new._start()
        return new

    def _follow(self, path: list[int], agent_seat: int) -> None:
        if self.path != path[:len(self.path)]:  # another line than the one walked: again
            self._start()
        if self.game is None:
            self.game = self.agent.game(agent_seat)
        for action in path[len(self.path):]:
            self.state = self.agent.after(self.state, action)
            self.game.observe(self.state)
        self.path = list(path)

    def policy(self, path: list[int], seat: int, k: int) -> np.ndarray:
        key = tuple(path)
        probs = self.probs.get(key)
        if probs is None:
            self._follow(path, seat)
            probs = self.probs[key] = self.game.policy(self.state)
        if len(probs) != k:
            raise RuntimeError(f"the agent sees {len(probs)} moves, the rules give {k}")
        return probs

    def _values(self, decisions: list, seat: int) -> None:
        """Value ``seat``'s moves at each of ``decisions`` not valued yet: the agent in that
        seat walked along the seat's view (:class:`ViewWalk`, one walk along the game while
        the views go on from each other), :meth:`AgentGame.move_info` at each, as
        :func:`agent_query` answers there (each walk starts by resetting the agent's leaf
        values: the play walk's re-solves, or another seat's walk, leave nothing in them)."""
        todo = [d for d in decisions if (seat, d.view) not in self.infos]
        if not todo:
            return
        a = self.agent
        records = a.plugin.records
        if records is None:
            from spycfr.errors import SpycfrError

            raise SpycfrError(f"{a.plugin.name} has no record notation: no review of the "
                              "agent's moves")
        walk = None
        for d in todo:
            if walk is None or not walk.goes_on_to(d.view):
                walk = ViewWalk(a, records, a.variant, seat)
            state = walk.to(d.view)
            self.infos[(seat, d.view)] = walk.game.move_info(state, seat)

    def review(self, decisions: list, seat: int) -> list[dict]:
        """``seat``'s moves at ``decisions`` as `spycfr query --seat` values them there:
        each move's probability and value by the agent in that seat (its re-solve, or its
        first plan where that reaches the end of the game; against its model of the
        opponent), the best value and each move's loss below it, ties within AGENT_TIE."""
        self._values(decisions, seat)
        rows = []
        for d in decisions:
            info = self.infos[(seat, d.view)]
            if len(d.labels) != len(info.actions):
                raise RuntimeError(f"the agent sees {len(info.actions)} moves, the record "
                                   f"{len(d.labels)}")
            best, losses = agent_losses(info.values)
            value = info.values[d.index]
            by_value = np.argsort(-np.nan_to_num(info.values, nan=-np.inf), kind="stable")
            rows.append({
                "move": d.move, "view": d.view, "probability": float(info.probs[d.index]),
                "value": None if np.isnan(value) else float(value), "best_value": best,
                "loss": losses[d.index], "tie": agent_tie(losses[d.index]),
                "tolerance": AGENT_TIE, "basis": "agent", "to_end": info.to_end,
                "from_plan": info.from_plan, "from_table": info.from_table,
                # a move the re-solve cut (needs_only): why it has no value, in words
                "cut": (cut_words(self.agent.plugin)
                        if info.cut is not None and info.cut[d.index] else None),
                "best_moves": [d.labels[j] for j in by_value if agent_tie(losses[j])],
            })
        return rows
