"""The search agent's exact exploitability on an enumerable preset
(``spycfr.search.agent.agent_exploitability``: the agent's strategy at every public node,
re-solving where it would, then a full best response against each seat), with the agent's
config printed first, progress lines with the resident set size (now and peak) from the first
seconds, and one result line: BR_P1, BR_P2, exploitability, re-solves, wall seconds, peak RSS.

    python benchmarks/agent_exact_walk.py agent-hunter small --plan-endgame 200000000

Defaults are ``AgentConfig.default(GAME)`` (the game's leaves and depth, the endgame rule's
budgets); ``--bare`` starts from ``AgentConfig()`` instead (``scored-now`` leaves, depth 1,
plan depth 2, the plan at the re-solves' iterations, the endgame rule off: the configs of the
walks measured before the rule, e.g. ``--bare --depth 20 --plan-depth 20`` for exact leaves);
each option replaces one field. A plan budget over the whole game (``tree.work`` from the
deal) gives the exact-leaf agent: no value function's error, only the solves'.
``--plan-only``: that plan's own exploitability, no re-solve (what the re-solves start from).
``--committed-leaves N``: the leaves the committed blueprint's (``values.CommittedValues`` of
N CFR+ iterations on the whole game, as ``train_values_rounds.py``'s round 0 has them), each
seat played by its own agent (``SearchAgent.for_seat``: its first plan solved with its own
seat's values).

``--versus PLAYER --out OUT.jsonl --first SEED --pairs N``: instead of the walk, the same
agent head to head against PLAYER (``heuristic:hunter``, ...), a pair of games (one per seat)
per seed, one JSON line a pair appended to OUT as ``agent_headtohead.py`` writes them (its
``--summary`` and ``--compare`` read them): the other axis of the walk's figure, the agent
against a heuristic, on the preset the walk measures exactly.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time

from leaf_options import add_row_options  # this folder's (a script)


def _rss() -> str:
    """Resident set size now and the process's peak, in GB."""
    with open("/proc/self/statm") as f:
        now = int(f.read().split()[1]) * resource.getpagesize() / 1e9
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6  # kB on Linux
    return f"rss {now:.2f} GB, peak {peak:.2f} GB"


def main(argv: list[str] | None = None) -> int:
    from spycfr.errors import SpycfrError
    from spycfr.games import make_variant
    from spycfr.search.agent import AgentConfig, SearchAgent, agent_exploitability
    from spycfr.search.configure import configure_agent
    from spycfr.search.resolve import GAME_NODES, best_response_value

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("game", help="agent-hunter or agent-avenue")
    parser.add_argument("preset", help="an enumerable preset: tiny, mini, small")
    parser.add_argument("--plan-endgame", type=int, help="the first plan's budget, node-states")
    parser.add_argument("--endgame", type=int, help="a re-solve's budget, node-states")
    parser.add_argument("--iterations", type=int, help="CFR+ iterations a re-solve")
    parser.add_argument("--plan-iterations", type=int,
                        help="CFR+ iterations of the first plan (0: --iterations)")
    parser.add_argument("--depth", type=int, help="decision levels a depth-limited re-solve")
    parser.add_argument("--plan-depth", type=int, help="decision levels of the first plan")
    parser.add_argument("--subgame-budget", type=int,
                        help="the depth rule: a depth-limited re-solve's subgame over this many "
                             "node-states is cut a decision level shallower (0: off)")
    parser.add_argument("--plan-play", type=int,
                        help="play the first plan's strategy at its decisions in its first this "
                             "many decision levels instead of re-solving them (0: off)")
    parser.add_argument("--value-function", help="the leaves' value function by name")
    parser.add_argument("--value-file", help="the value function's weights file")
    parser.add_argument("--committed-leaves", type=int, metavar="N",
                        help="the leaves the committed blueprint's of N CFR+ iterations of the "
                             "whole game (instead of --value-function)")
    parser.add_argument("--game-nodes", type=int, default=GAME_NODES,
                        help="--committed-leaves: the most public nodes of the whole game's "
                             "tree (Agent Hunter small has 2,308,847)")
    parser.add_argument("--bare", action="store_true",
                        help="start from AgentConfig() (the endgame rule off, scored-now "
                             "leaves) instead of the game's defaults")
    parser.add_argument("--plan-only", action="store_true",
                        help="the first plan's own exploitability instead (no re-solve; the "
                             "plan must be the whole game)")
    parser.add_argument("--rollout-budget", type=int, metavar="GAMES",
                        help="rollout leaves: the games every pair may take (Continuations."
                             "budget; forced low, only the focus rows are valued by games)")
    parser.add_argument("--focus-samples", type=int, help="rollout leaves: draws a focus row")
    add_row_options(parser)  # --focus-rows, --reader-range, --choice, --guesses, ...
    parser.add_argument("--versus", metavar="PLAYER",
                        help="play head to head against PLAYER instead of the walk")
    parser.add_argument("--out", help="--versus: the JSON lines file the pairs append to")
    parser.add_argument("--first", type=int, default=1000, help="--versus: the first seed")
    parser.add_argument("--pairs", type=int, default=100, help="--versus: pairs of games")
    parser.add_argument("--resolve-progress", action="store_true",
                        help="also each long re-solve's own progress (the plan's is always shown)")
    args = parser.parse_args(argv)
    start = time.time()

    def say(text: str) -> None:
        print(f"[{time.strftime('%H:%M:%S', time.gmtime())} +{time.time() - start:.0f}s "
              f"{_rss()}] {text}", flush=True)

    changes = {name: value for name, value in (
        ("plan_endgame", args.plan_endgame), ("endgame", args.endgame),
        ("iterations", args.iterations), ("plan_iterations", args.plan_iterations),
        ("depth", args.depth), ("plan_depth", args.plan_depth),
        ("subgame_budget", args.subgame_budget), ("plan_play", args.plan_play),
        ("value_function", args.value_function), ("value_file", args.value_file))
        if value is not None}
    try:
        config = (AgentConfig(**changes) if args.bare
                  else AgentConfig.default(args.game, **changes))
        config.check()
        variant = make_variant(args.game, args.preset).as_dict()
        say(f"{args.game} {args.preset} {variant}")
        which = ("AgentConfig()" if args.bare else "default") + (
            ", changed: " + ", ".join(changes) if changes else "") + (
            f"; leaves: the committed blueprint's of {args.committed_leaves} iterations, not "
            "the config's" if args.committed_leaves is not None else "")
        say(f"config {config.as_dict()} ({which})")
        leaf_flags = [flag for flag, value in (
            ("--focus-rows", args.focus_rows), ("--reader-range", args.reader_range),
            ("--choice", args.choice), ("--guesses", args.guesses or None),
            ("--guess-by", args.guess_by), ("--guess-draws", args.guess_draws),
            ("--guess-weight", args.guess_weight), ("--row-weight", args.row_weight),
            ("--rollout-budget", args.rollout_budget),
            ("--focus-samples", args.focus_samples)) if value is not None]
        if args.versus is not None and (not args.out or args.pairs < 1
                                        or args.committed_leaves is not None
                                        or args.plan_only):
            raise SpycfrError("--versus needs --out FILE and --pairs >= 1, without "
                              "--committed-leaves or --plan-only")
        if args.committed_leaves is not None and leaf_flags:
            raise SpycfrError(f"{', '.join(leaf_flags)}: set the rollout leaves, which "
                              "--committed-leaves replaces; give one or the other")
        say("building and solving the first plan (numba compiles on a cold cache)")
        agent = SearchAgent(args.game, variant, config, progress=say)
        try:  # the rollout leaves set up for an experiment (nothing asked, nothing done)
            configure_agent(agent, focus_rows=args.focus_rows, reader_range=args.reader_range,
                            choice=args.choice, guesses=args.guesses or None,
                            guess_by=args.guess_by, guess_draws=args.guess_draws,
                            guess_weight=args.guess_weight, row_weight=args.row_weight)
        except ValueError as error:
            raise SpycfrError(str(error)) from None
        inner = getattr(agent.values, "inner", agent.values)
        for field, value in (("budget", args.rollout_budget),
                             ("focus_samples", args.focus_samples)):
            if value is not None:
                if not hasattr(inner, field):
                    raise SpycfrError(f"--{field.replace('_', '-')}: the leaves are not "
                                      "rollout leaves (--value-function rollout)")
                setattr(inner, field, value)
        if args.committed_leaves is not None:
            agent.values = _committed(args.game, args.preset, args.committed_leaves,
                                      args.game_nodes, say)
        if args.versus is not None:
            _versus(agent, args.game, args.preset, args.versus, args.out, args.first,
                    args.pairs, say)
            return 0
        # as P1 and as P2: the agent twice, unless its leaves depend on the seat (committed)
        agents = (agent.for_seat(0), agent.for_seat(1))
        began = time.time()
        plan = agents[0].plan()  # the walk's own (a seat's copy solves its plan anew)
        leaves = plan.tree.leaves.size
        say(f"plan done in {time.time() - began:.0f} s: {plan.tree.size:,} public nodes, "
            f"{leaves:,} leaves ({'the whole game' if leaves == 0 else 'depth-limited'})")
        if args.plan_only:
            if leaves:
                raise SpycfrError("--plan-only needs a plan over the whole game: raise "
                                  "--plan-endgame over the game's node-states")
            br = (best_response_value(plan.tree, plan.strategy, 0),
                  best_response_value(plan.tree, plan.strategy, 1))
            value, solves = (br[0] + br[1]) / 2, 0
        else:
            if not args.resolve_progress:
                for each in agents:
                    each.progress = None  # the walk's own progress only
            value, br, solves = agent_exploitability(agents, progress=say)
    except SpycfrError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6
    print(f"RESULT {args.game} {args.preset} BR_P1 {br[0]!r} BR_P2 {br[1]!r} exploitability "
          f"{value!r} re-solves {solves} wall {time.time() - start:.0f} s peak RSS {peak:.2f} GB",
          flush=True)
    return 0


def _versus(agent, game_name: str, preset: str, versus: str, out: str, first: int,
            pairs: int, say) -> None:
    """``agent`` head to head against the player ``versus``, a pair of games per seed from
    ``first``: one JSON line a pair appended to ``out`` (``agent_headtohead.py``'s, by its
    loop)."""
    from agent_headtohead import play_pairs  # this folder's (a script)

    from spycfr.analysis.headtohead import AGENT, Player, player_from
    from spycfr.games import make_game

    game = make_game(game_name, preset, {})
    a = Player("agent", AGENT, agent=agent)
    total = 0.0
    for n, line in enumerate(play_pairs(game, a, {versus: player_from(versus, game)}, out,
                                        first, pairs), 1):
        total += line["p1"] + line["p2"]
        if n % 25 == 0:
            say(f"{n} pairs: mean {total / (2 * n):+.3f}")


def _committed(game_name: str, preset: str, iterations: int, max_nodes: int, say):
    """The committed blueprint's leaf values (``train_values_rounds.py``'s round 0's)."""
    from spycfr.errors import SpycfrError
    from spycfr.search.resolve import committed_blueprint
    from spycfr.search.situations import game_model
    from spycfr.search.tree import build

    if iterations < 1:
        raise SpycfrError(f"--committed-leaves must be >= 1 CFR+ iteration, got {iterations}")
    game = game_model(game_name, preset, {})
    try:
        full = build(game, max_nodes=max_nodes)
    except ValueError as exc:  # build's one line: the tree has more than max_nodes nodes
        raise SpycfrError(f"the committed blueprint's whole-game tree: {exc}; give a larger "
                          "--game-nodes") from None
    say(f"the committed blueprint: {iterations} CFR+ iterations on {full.size:,} public nodes")
    return committed_blueprint(game, iterations, full)


if __name__ == "__main__":
    sys.exit(main())
