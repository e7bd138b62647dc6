"""The rollout leaves' experiment options that the agent benchmarks share (agent_headtohead.py,
lbr_diagnose.py): one set of flags, given to `spycfr.search.configure.configure_agent`. The
allowed values are the solver's own (`spycfr.search.leafchoice.CHOICES`, ...), so a new one
needs one edit."""

from __future__ import annotations

import argparse


def add_leaf_options(parser: argparse.ArgumentParser) -> None:
    """--opposing, --focus-rows, --reader-rounds, --reader-range, --choice, --guesses,
    --guess-by, --guess-draws, --guess-weight, --row-weight."""
    from spycfr.search.continuation import READER_RANGES
    from spycfr.search.leafchoice import CHOICES

    parser.add_argument("--opposing", help="the agent's rollout leaves guard against these "
                        "rollout styles, comma-separated, instead of its game's opposing "
                        "continuations")
    parser.add_argument("--focus-rows", type=int, help="rows of the agent's range valued by "
                        "rollouts at each re-solve (Continuations.focus_rows; default 1)")
    parser.add_argument("--reader-rounds", type=int, help="with a range reader among "
                        "--opposing (ranger): solves after the first that read the range "
                        "again (default 1)")
    parser.add_argument("--reader-range", choices=READER_RANGES,
                        help="with a range reader among --opposing: the focus rows weighted by "
                        "the agent's range (own, the default) or --focus-rows - 1 rows drawn "
                        "alike from its live rows (public: spycfr.search.continuation)")
    parser.add_argument("--choice", choices=CHOICES,
                        help="the opposing continuation chosen per row (max_a min_b, the "
                        "default), as the opponent's decision at each leaf, or at each leaf "
                        "and opposing private state (spycfr.search.continuation)")
    parser.add_argument("--guesses", action="store_true",
                        help="with --choice leaf or state: a guess continuation per valued "
                        "row at each leaf")
    add_guess_options(parser)


def add_guess_options(parser: argparse.ArgumentParser) -> None:
    """--guess-by, --guess-draws, --guess-weight, --row-weight (also agent_exact_walk.py's)."""
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
    """The parsed options as the keywords of agent_headtohead.play and lbr_diagnose's games:
    --opposing split into its styles."""
    return {"opposing": args.opposing.split(",") if args.opposing else None,
            "focus_rows": args.focus_rows, "reader_rounds": args.reader_rounds,
            "reader_range": args.reader_range, "choice": args.choice,
            "guesses": args.guesses, "guess_by": args.guess_by,
            "guess_draws": args.guess_draws, "guess_weight": args.guess_weight,
            "row_weight": args.row_weight}
