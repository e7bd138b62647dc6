"""A game in the terminal against a run's strategy, then a review of the player's moves.

The program deals chance and samples its own moves from the run's strategy (seeded), and
shows the player only what that seat sees: its view of the record in the game's notation,
in words where the game has a record notation, else its information-state key. It runs on
the game's Python states (:mod:`spycfr.engine.states`), so it plays every game of the
registry. A tree run's strategy is read on its tree; a Monte-Carlo CFR run without a tree
plays its average strategy from its checkpoint (``MCCFRSolver.policy_at``).

The review is exact on a tree run: at each of the player's positions, every move's value
against the run's strategy (the game then going on at equilibrium, ``infoset_values``) and
the value the chosen move lost against the best one, ties judged as in ``spycfr query``.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from spycfr.analysis import views
from spycfr.analysis.markdown import num
from spycfr.engine.states import CHANCE_PLAYER, State
from spycfr.errors import SpycfrError
from spycfr.games import get_plugin, make_game
from spycfr.seeds import check_seed
from spycfr.tree import Tree
from spycfr.words import params_text

if TYPE_CHECKING:
    from spycfr.cfr.mccfr import MCCFRSolver
    from spycfr.runs.result import RunResult

SEATS = ("P1", "P2")
QUIT = ("quit", "q", "exit")
WHOLE_RECORD = "the whole record: "  # the line a game ends with (spycfr review reads it)
# after a token of a view that a later step rewrote (Agent Hunter's house attack, its answer
# and refill known at the opponent's next step): the move told again, what it led to added
COMPLETED = " (the move before, now with its result)"
HELP = ("?", "help", "h")


@dataclass
class Opponent:
    """The run's strategy, on its tree (``tree``/``strategy``) or from an MCCFR solver."""

    result: RunResult
    tree: Tree | None = None
    strategy: np.ndarray | None = None
    solver: MCCFRSolver | None = None
    agent: Any = None  # a search agent's run: an AgentOpponent (spycfr.analysis.agentplay)

    def policy(self, node: int, path: list[int], seat: int, k: int) -> np.ndarray:
        """The move distribution at the current decision (a sampled run's fallback where it
        never met it: uniform, or the game's heuristic; a search agent re-solves)."""
        if self.agent is not None:
            return self.agent.policy(path, seat, k)
        if self.tree is not None:
            assert self.strategy is not None
            return self.strategy[int(self.tree.node_infoset[node]), :k]
        assert self.solver is not None
        probs = self.solver.played_policy_at(path, seat)
        if len(probs) != k:
            raise RuntimeError(f"the run's row has {len(probs)} moves, the rules give {k}")
        return probs


@dataclass
class Decision:
    """One of the player's moves: where (tree node), what was chosen, and the view then."""

    view: str
    move: str
    index: int
    node: int
    path: list[int]
    labels: list[str] = field(default_factory=list)


def load_opponent(run_dir: str, progress: Callable[[str], None] | None = None) -> Opponent:
    """The strategy of a run directory: a tree run, or an MCCFR run from its checkpoint (a
    search agent's run: the agent, its long solves told to ``progress``)."""
    from spycfr.runs.agent_run import is_agent_run
    from spycfr.runs.store import load_run, read_run

    meta = read_run(run_dir)
    if is_agent_run(meta):
        from spycfr.analysis.agentplay import AgentOpponent

        return Opponent(meta, agent=AgentOpponent(run_dir, progress))
    if not meta.treeless:
        run = load_run(run_dir)
        return Opponent(run.result, run.tree, run.strategy)
    from spycfr.runs.sampled import load_sampled_solver

    solver = load_sampled_solver(run_dir)
    return Opponent(meta, solver=solver)


class Moves:
    """The player's input, line by line (a terminal, stdin or a file): EOF is an error."""

    def __init__(self, lines: Iterator[str], echo: bool) -> None:
        self.lines = lines
        self.echo = echo  # print what was read (input that is not typed at a terminal)
        self.read_lines = 0
        # the lines that named no move, by line number: a script's error says them (each
        # was asked again, so a script with a bad move runs out of moves later)
        self.rejected: list[tuple[int, str]] = []

    def read(self, say: Callable[[str], None], prompt: str) -> str:
        say(prompt)
        try:
            line = next(self.lines)
        except StopIteration:
            bad = ""
            if self.rejected:
                n, text = self.rejected[0]
                shown = repr(text) if len(text) <= 40 else repr(text[:40]) + "..."
                bad = (f" ({len(self.rejected)} line{'s' if len(self.rejected) > 1 else ''} "
                       f"named no move there, the first line {n}: {shown})")
            raise SpycfrError(f"the moves ran out before the game ended{bad}") from None
        self.read_lines += 1
        line = line.strip()
        if self.echo:  # what was read, cut to a screen line (a pasted file can be anything)
            say(f"  < {line if len(line) <= 80 else line[:80] + f'... ({len(line):,} characters)'}")
        return line


def choose(labels: list[str], text: str) -> int | None:
    """The move ``text`` names: its number in the list (1-based), its label (any case), or
    the label's part after its kind's ':' where only one move has that part ('0-1-2' for
    place:0-1-2, 'down' for take:down: a player typing Agent Hunter's placement without
    its 'place:' was refused)."""
    # ASCII digits only, and few: int() refuses other digits and very long numbers
    if text.isascii() and text.isdigit() and len(text) < 8 and 1 <= int(text) <= len(labels):
        return int(text) - 1
    wanted = text.lower()
    hits = [i for i, label in enumerate(labels) if label.lower() == wanted]
    if hits:
        return hits[0]
    if not wanted or ":" in wanted:
        return None
    hits = [i for i, label in enumerate(labels)
            if ":" in label and label.split(":", 1)[1].lower() == wanted]
    return hits[0] if len(hits) == 1 else None


def play_game(run_dir: str, seat: int, seed: int, moves: Moves, say: Callable[[str], None],
              opponent: Callable[[], Opponent] | None = None) -> dict:
    """Play one game as ``seat`` (0: P1) against the run's strategy; returns the result and
    the review (see :func:`review`). ``say`` prints a line; ``moves`` gives the input;
    ``opponent``: how to load the run's strategy (None: :func:`load_opponent`).

    The game's first lines (the run played and how to answer) are said from run.json
    before the strategy is loaded: a run's tree rebuilt, a search agent's first plan, or
    numba compiling can take minutes, and a player reading the output through a pipe saw
    nothing until then."""
    from spycfr.runs.agent_run import check_agent_files, is_agent_run, plan_to_end
    from spycfr.runs.store import check_run, read_run

    seed = check_seed(seed)
    # a broken run is the error alone, before the game's lines; an agent's own files in the
    # words its load uses (what to do about each), then every file run.json vouches for
    first = read_run(run_dir)
    checked = check_agent_files(run_dir, first) if is_agent_run(first) else ()
    meta = check_run(run_dir, checked)
    plugin = get_plugin(meta.game)
    me, them = SEATS[seat], SEATS[1 - seat]
    variant = meta.preset or params_text(meta.variant)
    variant = f" ({variant})" if variant and variant != "default" else ""
    eps = meta.exploitability
    if is_agent_run(meta):
        plays = ("it plays its first plan, solved to the end of the game, and re-solves "
                 "where the rest of the game fits its endgame budget" if plan_to_end(meta)
                 else "it re-solves at every decision")
        quality = ("exploitability unknown" if eps is None else
                   f"exploitability {eps:.2g}, exact")
        how = f"as the search agent of {run_dir} ({plays}; {quality})"
    else:
        quality = (f"exploitability {eps:.2g}" if eps is not None else
                   "sampled, exploitability unknown")
        how = f"with the strategy of {run_dir} ({meta.algorithm}, {quality})"
    say(f"{plugin.title}{variant}: you are {me}; the program plays {them} {how}; seed {seed}")
    say(how_to_answer(plugin))
    opp = load_opponent(run_dir, say) if opponent is None else opponent()
    meta = opp.result
    game = make_game(meta.game, None, meta.variant)
    rng = np.random.default_rng(seed)
    narrator = Narrator(plugin, seat, say)

    def decide(state, labels: list[str]) -> int | None:
        show_position(plugin, game, state.information_state(seat), seat, say)
        return ask_move(labels, moves, say, plugin.records.guide if plugin.records else ())

    state, decisions = run_game(game, opp, seat, rng, decide, narrator.observe)
    if state is None:
        say("game abandoned")
        return {"abandoned": True, "seat": me, "moves": [d.move for d in decisions]}
    narrator.close(state)
    return finish(plugin, game, state, seat, decisions, opp, say)


class Narrator:
    """Tells the player what each run of steps by one actor showed it (one line each), and
    its own moves: the ``observe`` of :func:`run_game`. ``view`` is what a step is told
    from: the seat's view (the default), or another, such as the whole record, to tell
    the same game with every card the end reveals (the workbench's play page)."""

    def __init__(self, plugin, seat: int, say: Callable[[str], None],
                 view: Callable[[Any], str] | None = None) -> None:
        self.plugin, self.seat, self.say = plugin, seat, say
        # the view as given (None: the seat's), not a bound method of self: that would be a
        # reference cycle (self -> method -> self), the narrator left to the cyclic GC
        self._view = view
        self.told: tuple[int | None, str] = (None, "")  # the actor since last told, the view
        self.last = ""  # the view before the step under way (told from a view given)

    def view(self, state) -> str:
        """What ``state`` is told from: the seat's view, or the ``view`` given."""
        return state.information_state(self.seat) if self._view is None else self._view(state)

    def observe(self, p: int, before: str, state, label: str | None) -> None:
        if label is None:  # before a step (``before``: the seat's view, as ``state`` is)
            now = None
            if p != self.told[0]:
                now = self.view(state)
                self.close_view(now)
                self.told = (p, now)
            if self._view is not None:
                self.last = self.view(state) if now is None else now
            return
        # after the player's own move: the move as chosen (take:up; what the record adds to
        # it, such as the card that went to the opponent, shows on the board); told from a
        # view given (the whole record, at the end), as that view writes it (hand:3>1:hi,
        # take:up=SA: the answer and the card the game gave it, which the end shows)
        now = self.view(state)
        written = (now[len(self.last):].strip() if self._view is not None
                   and now.startswith(self.last) else "")
        self.say(f"you: {written or label}")
        self.told = (None, now)

    def close_view(self, view: str) -> None:
        """Tell what the steps since the last line showed, the view being now ``view``."""
        _tell(self.plugin, self.told[0], self.seat, self.told[1], view, self.say)

    def close(self, state) -> None:
        now = self.view(state)
        self.close_view(now)
        self.told = (None, now)


def run_game(game, opp: Opponent, seat: int, rng: np.random.Generator,
             decide: Callable[[object, list[str]], int | None],
             observe: Callable[[int, str, object, str | None], None] | None = None
             ) -> tuple[State | None, list[Decision]]:
    """One game as ``seat`` against ``opp``: chance and the opponent sampled from ``rng``,
    the seat's moves from ``decide(state, labels)`` (an index, or None to abandon: the state
    returned is then None). ``observe(actor, view_before, state, label)`` is told before each
    step (label None) and after each of the seat's moves. Returns the final state and the
    seat's decisions."""
    state, node = game.new_initial_state(), 0
    path: list[int] = []
    decisions: list[Decision] = []
    while not state.is_terminal():
        p = state.current_player()
        before = state.information_state(seat)
        if observe is not None:
            observe(p, before, state, None)
        if p == CHANCE_PLAYER:
            codes, probs = zip(*state.chance_outcomes(), strict=True)
            a = int(codes[sample_index(rng, np.asarray(probs, dtype=float))])
        elif p == seat:
            actions = state.legal_actions()
            labels = [state.action_label(x) for x in actions]
            i = decide(state, labels)
            if i is None:
                return None, decisions
            a = actions[i]
            decisions.append(Decision(before, labels[i], i, node, list(path), labels))
        else:
            actions = state.legal_actions()
            a = int(actions[sample_index(rng, opp.policy(node, path, p, len(actions)))])
        node = _child_node(opp.tree, node, a)
        path.append(a)
        state = state.child(a)
        if p == seat and observe is not None:
            observe(p, before, state, decisions[-1].move)
    return state, decisions


def finish(plugin, game, state, seat: int, decisions: list[Decision], opp: Opponent,
           say: Callable[[str], None]) -> dict:
    """The end of the game: the final position, the result, the full record, the review."""
    me = SEATS[seat]
    full = state.record() if hasattr(state, "record") else None
    # The final board with every card shown (the whole record) and the game's own "game
    # over:" line (how it ended); then every game's same "result:" line for the seat.
    show_position(plugin, game, full if full is not None else state.information_state(seat),
                  seat, say, final=True, whole=full is not None)
    u = state.returns()[seat]
    verdict = "you win" if u > 0 else "you lose" if u < 0 else "a draw"
    say(f"result: {verdict} ({me}'s payoff {num(u, '{:+g}')})")
    if full is not None:
        say(f"{WHOLE_RECORD}{full}")
    else:
        say(f"{SEATS[1 - seat]} saw: {state.information_state(1 - seat)}")
    rows = review(opp, seat, decisions)
    _say_review(rows, opp, say)
    return {"abandoned": False, "seat": me, "payoff": u, "result": verdict, "record": full,
            "view": state.information_state(seat), "moves": [d.move for d in decisions],
            "review": rows}


def review(opp: Opponent, seat: int, decisions: list[Decision]) -> list[dict]:
    """Each of the player's moves with its equilibrium probability and, on a tree run, its
    value against the run's strategy, the best move's, and what it lost (``tie`` when
    within the tolerance of ``spycfr query``; off the equilibrium path the best-reply values
    are compared instead, within the exploitability)."""
    if not decisions:
        return []
    if opp.agent is not None:  # as `spycfr query --seat` answers at each of them
        return opp.agent.review(decisions, seat)
    if opp.tree is None:
        return [{"move": d.move, "view": d.view, "probability": _sampled_prob(opp, d, seat)}
                for d in decisions]
    from spycfr.analysis.query import tie_tolerance, unranked
    from spycfr.exact.best_response import best_response_values, infoset_values

    tree, strategy = opp.tree, opp.strategy
    assert tree is not None and strategy is not None  # a run with a tree
    cfv, reach, opp_reach = infoset_values(tree, strategy)
    q, _, opp_br = best_response_values(tree, strategy, seat)
    eps = float(opp.result.exploitability or 0.0)
    rows = []
    for d in decisions:
        i = int(tree.node_infoset[d.node])
        k = int(tree.infoset_num_actions[i])
        values = cfv[i, :k] / opp_reach[i]
        tol = tie_tolerance(eps, float(reach[i]))
        basis = "equilibrium"
        if tol is None:  # off the equilibrium path: compare best replies instead
            values, tol, basis = q[i, :k] / opp_br[i], 2 * eps, "best reply"
        best = [j for j in range(k) if values.max() - values[j] <= tol]
        loss = float(values.max() - values[d.index])
        rows.append({
            "move": d.move, "view": d.view, "probability": float(strategy[i, d.index]),
            "value": float(values[d.index]), "best_value": float(values.max()),
            "loss": loss, "tie": loss <= tol, "tolerance": tol, "basis": basis,
            # within a rare position's tolerance but more than the run's NashConv below
            # the best: not ranked, not "as good" (query's rule)
            "unranked": unranked(loss, tol, 2 * eps),
            "best_moves": [d.labels[j] for j in sorted(best, key=lambda j: -values[j])],
            "reach_probability": float(reach[i]),
        })
    return rows


def probability_label(rows: list[dict]) -> str:
    """The name of a review's probability column, by what gave the rows: a search agent's
    re-solve ("agent prob": the agent's own probability there, no equilibrium's), else the
    run's average strategy ("eq prob")."""
    return "agent prob" if rows and rows[0].get("basis") == "agent" else "eq prob"


def _say_review(rows: list[dict], opp: Opponent, say: Callable[[str], None]) -> None:
    if not rows:
        return
    say("")
    if opp.agent is not None:
        from spycfr.analysis.agentplay import agent_review_words

        # wrapped as the lines below it (the leaves in words made it 250 characters)
        say(textwrap.fill(f"review of your moves (values from {_agent_basis(rows, opp)})",
                          100, subsequent_indent="  "))
        say(textwrap.fill(agent_review_words(opp.result), 100, initial_indent="  ",
                          subsequent_indent="  "))
        cut = next((r["cut"] for r in rows if r.get("cut")), None)
        if cut:  # a move the agent's re-solve cut (needs_only): why it has no value
            say(textwrap.fill(f"'cut' (no value): {cut}", 100, initial_indent="  ",
                              subsequent_indent="  "))
    elif opp.tree is None:
        say("review (a sampled run: move values need a tree; here is how often the run "
            "plays each of your moves):")
        for n, r in enumerate(rows, 1):
            p = r["probability"]
            say(f"  {n:>3}  {r['move']:<22} " + ("the run never met this position"
                                                 if p is None else f"run plays it {100 * p:.1f}%"))
        return
    else:
        say("review of your moves")
        say("  value: your expected payoff from that position against the program, the game "
            "then going on at equilibrium")
        say("  loss: how far below the best move there ('tie': within what the run's "
            "exploitability allows there)")
        if any(r.get("unranked") for r in rows):
            say("  '~': within that, at a position so rare that the run does not rank the "
                "move (a loss against its strategy, not counted as lost)")
    lost = [r for r in rows if r["tie"] is not None and not r["tie"]]
    if lost:  # the costliest first, as `spycfr review` and the workbench list them
        say("  the costliest first, then the rest in the game's order (#: the move's number in "
            "the game)")
    say(f"  {'#':>3}  {'move':<22} {probability_label(rows):>10} {'value':>8} {'best':>8} "
        f"{'loss':>8}")
    numbered = list(enumerate(rows, 1))
    if lost:
        numbered = sorted(numbered, key=lambda nr: _cost(nr[1]))
    for n, r in numbered:
        # a search agent's re-solve may leave a move without a value: its loss is unknown
        loss = loss_text(r, "-")
        note = ""
        if r["tie"] is not None and not r["tie"]:
            others = ", ".join(r["best_moves"][:3]) + (" ..." if len(r["best_moves"]) > 3
                                                       else "")
            note = f"  better: {others}"
        if r["basis"] == "best reply":
            note += "  (off the equilibrium path: best-reply values)"
        say(f"  {n:>3}  {r['move']:<22} {100 * r['probability']:>9.1f}% {_signed(r['value'])} "
            f"{_signed(r['best_value'])} {loss:>8}{note}")
    unknown = sum(r["loss"] is None for r in rows)
    if not lost:
        say(f"every one of your {len(rows) - unknown} moves was as good as the best move there"
            + (f" ({unknown} more without a value)" if unknown else ""))
    else:
        worst = max(lost, key=lambda r: r["loss"])
        say(f"{len(lost)} of your {len(rows)} moves lost value; the costliest: "
            f"{worst['move']} (lost {worst['loss']:.4f} against {worst['best_moves'][0]})")


def _cost(row: dict) -> float:
    """A review row's sort key, the costliest first: minus the value it lost; 0 for a tie or
    a row without a loss (stable sorts keep those in the game's order)."""
    return 0.0 if row.get("tie") else -(row.get("loss") or 0.0)


def costliest_first(rows: list[dict]) -> list[dict]:
    """The rows by the value each lost, the largest first; the ties (and rows without a
    loss) after them in the game's order (sorted by their losses below the tolerance, a
    review listed a game's moves 4, 6, 2, 3, 5, 7)."""
    return sorted(rows, key=_cost)


def loss_text(row: dict, none: str = "–") -> str:
    """A review row's loss as its column shows it: ``none`` without a value, 'tie' within
    the tolerance, '~' before a loss within a rare position's tolerance but more than the
    run's precision (``unranked``: the run does not rank it), 'cut' for a move a search
    agent's re-solve cut (AgentConfig.needs_only: never valued), else the loss."""
    if row.get("cut"):
        return "cut"
    if row.get("loss") is None:
        return none
    if row.get("unranked"):
        return f"~{row['loss']:.4f}"
    return "tie" if row["tie"] else f"{row['loss']:.4f}"


def _signed(x: float | None) -> str:
    """A review's value in its column (8 wide, signed); "-" where a move has none."""
    return f"{num(x, none='-'):>8}"


def _agent_basis(rows: list[dict], opp: Opponent) -> str:
    """What valued an agent's review: its first plan where that reaches the end of the game
    (``from_plan``), its subgames solved to the end of the game (the endgame rule: no
    leaves), its leaves' value function, or each at some of the moves; an opening the agent
    plays by its openings table, by the table."""
    assert opp.agent is not None
    rest = [r for r in rows if not r.get("from_table")]
    planned = sum(bool(r.get("from_plan")) for r in rest)
    solved = [r for r in rest if not r.get("from_plan")]
    parts = []
    if planned:
        parts.append("its first plan, solved over the whole game"
                     + ("" if planned == len(rest) else f", at {planned} of them"))
    exact = sum(r["to_end"] for r in solved)
    if solved and exact == len(solved):
        parts.append("its subgames solved to the end of the game (no leaf values)")
    elif solved:
        from spycfr.runs.agent_run import leaf_words

        # the leaves in words: 'their leaves valued by rollout' named the value function
        leaves = f"its re-solves, the positions where they stop valued by {leaf_words(opp.result)}"
        parts.append(leaves if exact == 0 else
                     f"solved to the end of the game at {exact} of them, elsewhere {leaves}")
    if len(rest) < len(rows):
        parts.append("your opening by its openings table (against the table's mixture, "
                     "continuing best)")
    return "; ".join(parts)


def show_position(plugin, game, view: str, seat: int, say: Callable[[str], None],
                  final: bool = False, whole: bool = False) -> None:
    """The position as ``seat`` sees it (``whole``: ``view`` is the full record, every card
    shown): in words where the game has a record notation (legal moves left out: the caller
    lists them), else the information state (``final``: named as the final view). The
    game's own "game over: ..." line, which an ended game's position has, stays: it says how
    the game ended (Agent Avenue's reason, the payoffs), which the caller's "result:" line
    does not; the workbench's play page shows it too."""
    say("")
    shown = views.lines(plugin, game, view, seat, full=whole)
    key = f"you see: {view or '(nothing yet)'}"  # views.lines' line where the notation fails
    for line in shown:
        say(f"your final view: {view or '(nothing yet)'}" if final and shown == [key] else line)


def ask_move(labels: list[str], moves: Moves, say: Callable[[str], None],
             guide: tuple[str, ...] = ()) -> int | None:
    """The player's move (its index), asked until one is given; None: the player quits.
    The moves are listed (a long list in short: :func:`_list_moves`); 'help' or '?' lists
    every one of them, after the game's guide to its notation."""
    _list_moves(labels, say, guide)
    while True:
        span = "1" if len(labels) == 1 else f"1-{len(labels)}"
        text = moves.read(say, f"your move ({span} or a move): ")
        if text.lower() in QUIT:
            return None
        if text.lower() in HELP:
            for line in guide:
                say(f"  {line}")
            _list_moves(labels, say, full=True)
            continue
        i = choose(labels, text)
        if i is not None:
            return i
        if text:
            moves.rejected.append((moves.read_lines, text))
        shown = repr(text) if len(text) <= 40 else repr(text[:40]) + "..."
        if len(labels) <= LIST_ALL:
            how = ("a move exactly as listed ('help' lists them)" if text else
                   "a move as listed")
        else:
            how = f"a move such as {labels[0]} ('help' lists them all)"
        say(f"{shown} is not one of your moves: type a number 1..{len(labels)} or {how}"
            if text else f"type a number 1..{len(labels)} or {how}")


def how_to_answer(plugin) -> str:
    """The game's first line on how to answer: 'help' explains the notation too where the
    game has a guide to it (the prompt explains only the kinds of move it lists in short:
    Agent Hunter's hand:8>1 was explained nowhere a player would look)."""
    guide = plugin.records.guide if plugin.records else ()
    helps = "explains the notation and lists every move" if guide else "lists every move"
    return f"type a move's number or the move as listed; 'help' {helps}, 'quit' stops"


# Up to LIST_ALL moves are all listed at each prompt; a longer list (Agent Hunter standard's
# 720 placements, then up to 72 switches a turn; Agent Double Double Agent's 360 loyalty
# assignments) lists each kind of move (the label's text before ':') of up to LIST_KIND
# moves, and the longer kinds in short: how many, the game's guide line for the kind, and
# a few numbered examples.
LIST_ALL = 40
LIST_KIND = 30


def _list_moves(labels: list[str], say: Callable[[str], None], guide: tuple[str, ...] = (),
                full: bool = False) -> None:
    """The moves, numbered from 1; more than :data:`LIST_ALL` (and not ``full``): the long
    kinds of move in short, each with its line of ``guide`` (the line that starts with the
    kind and ':'), so that the prompt stays a screenful. The kinds come in the order of
    their first move, so the numbers rise down the list."""
    say(f"your moves ({len(labels)}):")
    numbered = list(enumerate(labels, 1))
    if full or len(labels) <= LIST_ALL:
        _grid(numbered, say)
        return
    kinds: dict[str, list[tuple[int, str]]] = {}
    for n, label in numbered:
        kinds.setdefault(label.split(":", 1)[0], []).append((n, label))
    for kind, group in kinds.items():  # in the moves' order, so the numbers rise
        if len(group) <= LIST_KIND:
            _grid(group, say)
            continue
        examples = ", ".join(f"{n} {label}" for n, label in group[:3])
        n, label = group[-1]
        say(f"  {kind}: {len(group)} moves: {examples}, ... {n} {label}")
        for line in guide:
            if line.startswith(f"{kind}:"):
                say(f"    {line}")
    say("  ('help' lists them all)")


def _grid(cells: list[tuple[int, str]], say: Callable[[str], None]) -> None:
    """Numbered moves, as many to a line as fit in 88 characters."""
    if not cells:
        return
    width = max(len(label) for _, label in cells) + 6
    per_line = max(1, 88 // width)
    texts = [f"{n:>3} {label}".ljust(width) for n, label in cells]
    for start in range(0, len(texts), per_line):
        say("".join(texts[start:start + per_line]).rstrip())


def _tell(plugin, p: int | None, seat: int, before: str, after: str,
          say: Callable[[str], None]) -> None:
    """Say what the steps of actor ``p`` showed the player: what they added to its view."""
    if p is None:
        return
    who = "you" if p == seat else "chance" if p == CHANCE_PLAYER else SEATS[p]
    if after == before:
        say(f"{who}: (hidden from you)")
    elif plugin.records is None:  # a bare information-state key: show it whole
        say(f"{who}: you now see {after}")
    else:
        say(f"{who}: {news_since(before, after)}")


def news_since(before: str, after: str) -> str:
    """What a run of steps added to a view: the new tokens, the rewritten last one first
    (marked) when a step completed it. Agent Hunter's refill after the player's house attack
    and the opponent's next move came as one run: only the last token was told, marked as
    completing the player's move (``P2: house:1=2>1:eq``); now the rewritten token comes
    first, marked :data:`COMPLETED`."""
    if after == before:
        return ""
    if before and after.startswith(before + " "):
        return after[len(before) + 1:]
    if not before:
        return after
    old, new = before.split(), after.split()
    same = 0
    while same < min(len(old), len(new)) and old[same] == new[same]:
        same += 1
    if same != len(old) - 1 or same >= len(new):  # not the last token rewritten: all of it
        return " ".join(new[same:])
    return " ".join([f"{new[same]}{COMPLETED}", *new[same + 1:]])


def sample_index(rng: np.random.Generator, probs: np.ndarray) -> int:
    """An index drawn by the weights ``probs`` (negatives as 0; uniform where none is left)."""
    p = np.clip(np.asarray(probs, dtype=float), 0.0, None)
    total = p.sum()
    p = p / total if total > 0 else np.full(len(p), 1.0 / len(p))
    return int(rng.choice(len(p), p=p))


def _child_node(tree: Tree | None, node: int, action: int) -> int:
    if tree is None:
        return -1
    s, k = int(tree.first_child[node]), int(tree.num_children[node])
    hits = np.flatnonzero(tree.node_action[s:s + k] == action)
    return s + int(hits[0])


def _sampled_prob(opp: Opponent, d: Decision, seat: int) -> float | None:
    assert opp.solver is not None
    probs = opp.solver.policy_at(d.path, seat)
    return float(probs[d.index]) if probs is not None and len(probs) > d.index else None
