"""The search agent's experiment options that the agent benchmarks share (agent_headtohead.py,
agent_replay.py, lbr_diagnose.py): one set of flags, parsed (:func:`leaf_settings`) and set on
an agent (:func:`set_up`: its rollout leaves by `spycfr.search.configure.configure_agent`, its
re-solves' depth by --turn-levels, the detection by `spycfr.search.styles.configure_detection`)
in one place each. The allowed values are the solver's own
(`spycfr.search.leafchoice.CHOICES`, ...), so a new one needs one edit."""

from __future__ import annotations

import argparse


def add_leaf_options(parser: argparse.ArgumentParser) -> None:
    """--opposing, --own, --reader-rounds, the rows' and choice's (:func:`add_row_options`),
    --turn-levels, --needs-only, --detect, --detect-none, --detect-by."""
    from spycfr.search.styles import BY

    parser.add_argument("--opposing", help="the agent's rollout leaves guard against these "
                        "rollout styles, comma-separated, instead of its game's opposing "
                        "continuations")
    parser.add_argument("--own", help="the agent's rollout leaves continue with the better "
                        "of these rollout styles, comma-separated, instead of its game's "
                        "continuations (Agent Avenue: heuristic,swapper)")
    parser.add_argument("--reader-rounds", type=int, help="with a range reader among "
                        "--opposing (ranger): solves after the first that read the range "
                        "again (default 1)")
    add_row_options(parser)
    parser.add_argument("--turn-levels", action="store_true",
                        help="the agent's re-solves (agent_replay.py: the shadow's) count a "
                        "seat's run of consecutive decisions as one decision level "
                        "(AgentConfig.turn_levels; an experiment)")
    parser.add_argument("--needs-only", action="store_true",
                        help="the agent makes only the moves its cards need by its game's "
                        "needed_moves hook (AgentConfig.needs_only; Agent Avenue: a discard "
                        "only where the swapper's rule finds one; an experiment)")
    parser.add_argument("--detect", action="store_true",
                        help="the agent re-solves with its leaves (as the options above set "
                        "them) while the opponent's moves say it plays one of the styles they "
                        "guard against, with the robust leaves (styles.ROBUST) once not "
                        "(spycfr.search.styles)")
    parser.add_argument("--detect-none", type=float, metavar="P",
                        help="with --detect: each opponent move's probability for a player "
                        "not among the styles (default styles.NONE_PROB)")
    parser.add_argument("--detect-by", choices=BY,
                        help="with --detect: what a player not among the styles plays alike, "
                        "each move (the default) or each move's kind, then any move of it "
                        "(the game's move_kinds hook: the prober's hand attacks keep it)")


def add_row_options(parser: argparse.ArgumentParser) -> None:
    """--focus-rows, --reader-range, --choice, --guesses and the guesses' options
    (:func:`add_guess_options`): the rows valued and the opposing continuation's choice (also
    agent_exact_walk.py's)."""
    from spycfr.search.continuation import READER_RANGES
    from spycfr.search.leafchoice import CHOICES

    parser.add_argument("--focus-rows", type=int, help="rows of the agent's range valued by "
                        "rollouts at each re-solve (Continuations.focus_rows; default 1)")
    parser.add_argument("--reader-range", choices=READER_RANGES,
                        help="where the range reader's (or the opposing decision's) rows come "
                        "from: the focus rows weighted by the agent's range (own, the "
                        "default) or --focus-rows - 1 rows drawn alike from its live rows "
                        "(public: spycfr.search.continuation_focus)")
    parser.add_argument("--choice", choices=CHOICES,
                        help="the opposing continuation chosen per row (max_a min_b, the "
                        "default), as the opponent's decision at each leaf, or at each leaf "
                        "and opposing private state (spycfr.search.leafchoice)")
    parser.add_argument("--guesses", action="store_true",
                        help="with --choice leaf or state: a guess continuation per valued "
                        "row at each leaf")
    add_guess_options(parser)


def add_guess_options(parser: argparse.ArgumentParser) -> None:
    """--guess-by, --guess-draws, --guess-weight, --row-weight."""
    from spycfr.search.continuation import GUESS_BY

    parser.add_argument("--guess-by", choices=GUESS_BY,
                        help="with --guesses: a guess per row (the default) or per label of a "
                        "feature of the game's guess_features hook (Agent Hunter: a house's "
                        "card; spycfr.search.continuation)")
    parser.add_argument("--guess-draws", type=int, metavar="N",
                        help="with --guesses: the guess games play at most N of a row's draws "
                        "(default 0: all)")
    parser.add_argument("--guess-weight", type=float, metavar="W",
                        help="with --guesses: the opposing decision puts at most W (0 to 1) of "
                        "its mass on the guesses (default 1; spycfr.search.leafchoice)")
    parser.add_argument("--row-weight", type=float, metavar="LAM",
                        help="with --choice leaf: each row's value LAM (0 to 1) times its "
                        "per-row max_a min_b plus 1 - LAM times its value under the decision "
                        "(default 0; spycfr.search.leafchoice)")


def leaf_settings(args: argparse.Namespace) -> dict:
    """The parsed options as the keywords of :func:`set_up`: --opposing and --own split
    into their styles."""
    return {"opposing": args.opposing.split(",") if args.opposing else None,
            "own": args.own.split(",") if args.own else None,
            "focus_rows": args.focus_rows, "reader_rounds": args.reader_rounds,
            "reader_range": args.reader_range, "choice": args.choice,
            "guesses": args.guesses, "guess_by": args.guess_by,
            "guess_draws": args.guess_draws, "guess_weight": args.guess_weight,
            "row_weight": args.row_weight, "turn_levels": args.turn_levels,
            "needs_only": args.needs_only, "detect": args.detect,
            "detect_none": args.detect_none, "detect_by": args.detect_by}


def asks_anything(settings: dict) -> bool:
    """Whether :func:`leaf_settings` asks anything of the agent (every option given)."""
    return any(v not in (None, False) for v in settings.values())


def set_up(agent, opposing: list[str] | None = None, own: list[str] | None = None,
           focus_rows: int | None = None,
           reader_rounds: int | None = None, reader_range: str | None = None,
           choice: str | None = None, guesses: bool = False, guess_by: str | None = None,
           guess_draws: int | None = None, guess_weight: float | None = None,
           row_weight: float | None = None, turn_levels: bool = False,
           needs_only: bool = False, detect: bool = False,
           detect_none: float | None = None, detect_by: str | None = None) -> None:
    """The options (:func:`leaf_settings`) set on the search agent ``agent``: its rollout
    leaves by `configure_agent` (--opposing guards against these instead of its game's
    opposing continuations, --own continues with the better of these, --focus-rows values
    that many rows of its range, --reader-rounds and --reader-range are the range
    reader's, --choice and --guesses the opposing continuation's choice; nothing asked,
    nothing done) and, with --turn-levels, its
    re-solves' depth in runs of one seat's decisions (AgentConfig.turn_levels), with
    --needs-only its own moves those its cards need (AgentConfig.needs_only); with
    --detect, the detection over those leaves (spycfr.search.styles.configure_detection,
    --detect-none its none_prob, --detect-by its ``by``). ValueError as configure_agent's and
    configure_detection's, and for --detect-none or --detect-by without --detect,
    --detect-none outside (0, 1], or --needs-only for a game without the needed_moves hook
    (before anything is set)."""
    from dataclasses import replace

    from spycfr.search.agent import no_needed_moves
    from spycfr.search.configure import configure_agent

    if detect_none is not None and not detect:
        raise ValueError("--detect-none needs --detect")
    if detect_by is not None and not detect:
        raise ValueError("--detect-by needs --detect")
    if detect_none is not None and not 0 < detect_none <= 1:
        raise ValueError(f"--detect-none {detect_none:g}: a probability in (0, 1] (each "
                         "opponent move's for a player not among the styles)")
    if needs_only and agent.plugin.needed_moves is None:
        raise ValueError(f"--needs-only: {no_needed_moves(agent.plugin.name)}")
    configure_agent(agent, opposing, focus_rows, reader_rounds, reader_range, choice,
                    guesses or None, guess_by, guess_draws, guess_weight, row_weight, own)
    if turn_levels:
        agent.config = replace(agent.config, turn_levels=True)
    if needs_only:
        agent.config = replace(agent.config, needs_only=True)
    if detect:
        from spycfr.search.styles import NONE_PROB, configure_detection

        configure_detection(agent, none_prob=NONE_PROB if detect_none is None else detect_none,
                            by=detect_by or "move")
