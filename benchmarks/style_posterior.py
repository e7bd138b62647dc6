"""The detection's posterior along recorded games, without a re-solve (issue 22;
docs/search.md "Playing the opponent seen"): `spycfr.search.styles.StyleBelief` stepped on the
public tree along each game of Agent Hunter `standard`, watching one seat, and P("none of
them") printed after each of that seat's turn moves, for each `none_prob` asked. What sets
the detection's `none_prob` (and its `by`) on records, before any game is played with it.

The games: LBR's, from `lbr_diagnose.py` records (`moves` and `seat`; LBR watched), and
`--heuristic-games N` games of each heuristic style as P2 against the hunter (seeds 0 to
N-1; P2 watched). A record whose house attack's answer it cannot read is read up to it.

    python benchmarks/style_posterior.py --none 0.05,0.1,0.25 --by kind \\
        results/standard/lbr-diagnosis/public.jsonl --heuristic-games 5

Per game one line: its source, seat and index, then per watched move the P(none) of each
setting (a/b/c); then per setting and source, the watched moves made while a style explained
the play (P(none) below 1/2 after the move: the agent's next re-solve takes its own leaves).
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict

import numpy as np

from spycfr.errors import SpycfrError
from spycfr.games.agent_hunter import PLUGIN, make_variant
from spycfr.games.agent_hunter import rules as R
from spycfr.games.agent_hunter.heuristic import HEURISTIC_STYLES, styled_heuristic
from spycfr.games.agent_hunter.record import record_to_actions
from spycfr.search.agent import AgentConfig, SearchAgent
from spycfr.search.styles import BY, PRIOR, StyleBelief
from spycfr.search.tree import build

VARIANT = make_variant("standard")
PARAMS = VARIANT.to_params()


def walk(agent: SearchAgent, actions: list[int], opp: int, nones: list[float],
         by: str) -> list[list[float]]:
    """P(none) per setting after each of seat ``opp``'s turn moves along the rules'
    ``actions``, each belief stepped one public edge at a time (as the agent walks)."""
    styles = tuple(range(len(HEURISTIC_STYLES)))
    beliefs = [StyleBelief.start(PLUGIN, agent.model.params, agent.model.weights[opp], opp,
                                 styles, PRIOR, c, by) for c in nones]
    state = R.initial_state(PARAMS)
    nxt = np.empty_like(state)
    pub = agent.public(state)
    out = []
    for a in actions:
        if state[R.PHASE] == R.PH_OVER:
            break
        mover, turn = R.current_player(state), state[R.PHASE] == R.PH_TURN
        R.apply_action(state, PARAMS, a, nxt)
        state = nxt.copy()
        for step_to in agent.public_path(pub, agent.public(state)):
            t = build(agent.model, pub, depth=1)
            kids = [c for c in range(t.first[0], t.first[0] + t.count[0])
                    if np.array_equal(t.pub[c], step_to)]
            beliefs = [b.stepped(t, 0, kids[0] - int(t.first[0])) for b in beliefs]
            pub = step_to
        if mover == opp and turn:
            out.append([float(b.posterior()[-1]) for b in beliefs])
    return out


def record_tokens(game: dict) -> list[str]:
    """A lbr_diagnose.py game's record tokens with each attack's answer, up to the first
    house attack whose answer it does not show."""
    out = []
    for m in game["moves"]:
        move, seen = m["move"], m["seen"]
        if move.startswith("hand:") and move.count(":") < 2:
            move += ":" + seen.split(":")[2]
        elif move.startswith("house:"):
            if "?" in seen:
                break
            move = seen
        out.append(move)
    return out


def heuristic_game(style1: int, seed: int) -> list[int]:
    """The rules' actions of a game of the hunter (P1) against ``style1`` (P2), seeded."""
    rng = np.random.default_rng(seed)
    state = R.initial_state(PARAMS)
    nxt = np.empty_like(state)
    buf = np.empty(R.protocol_max_actions(PARAMS), np.int32)
    probs = np.empty(buf.size)
    actions = []
    while state[R.PHASE] != R.PH_OVER:
        k = R.legal_actions(state, PARAMS, buf)
        style = 0 if R.current_player(state) == 0 else style1
        styled_heuristic(state, PARAMS, np.int64(style), buf, k, probs)
        a = int(buf[rng.choice(k, p=probs[:k] / probs[:k].sum())])
        actions.append(a)
        R.apply_action(state, PARAMS, np.int32(a), nxt)
        state = nxt.copy()
    return actions


def nones_of(text: str) -> list[float]:
    """--none's comma-separated probabilities; ValueError naming the one not in (0, 1]."""
    out = []
    for c in text.split(","):
        try:
            p = float(c)
        except ValueError:
            p = None
        if p is None or not 0 < p <= 1:
            raise ValueError(f"--none: {c!r} is not a probability in (0, 1] (comma-separated "
                             "none_prob settings, e.g. --none 0.05,0.1)")
        out.append(p)
    return out


def recorded_games(paths: list[str]) -> list[tuple]:
    """(file name, seat, index, the rules' actions) of each game with moves in the
    lbr_diagnose.py records ``paths``; OSError for a file missing, ValueError naming the
    file and line that is not such a record."""
    games = []
    for path in paths:
        with open(path) as f:
            for n, line in enumerate(f, 1):
                try:
                    g = json.loads(line)
                    if "moves" in g:
                        games.append((path.rsplit("/", 1)[-1], g["seat"], g["game"],
                                      record_to_actions(VARIANT,
                                                        " ".join(record_tokens(g)))))
                except (ValueError, KeyError, TypeError, SpycfrError) as e:
                    what = f"no {e}" if isinstance(e, KeyError) else str(e)
                    raise ValueError(f"{path} line {n}: not a game of lbr_diagnose.py's "
                                     f"records ({what})") from None
    return games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("records", nargs="*", help="lbr_diagnose.py games (LBR watched)")
    parser.add_argument("--none", default="0.1", help="none_prob settings, comma-separated")
    parser.add_argument("--by", choices=BY, default="move")
    parser.add_argument("--heuristic-games", type=int, default=0, metavar="N")
    args = parser.parse_args()
    if args.heuristic_games < 0:
        parser.exit(2, "error: --heuristic-games must be at least 0\n")
    if not args.records and not args.heuristic_games:
        parser.exit(2, "error: no games to read: give lbr_diagnose.py records, "
                    "--heuristic-games N, or both\n")
    try:  # a probability refused, a records file missing or unreadable: one line
        nones = nones_of(args.none)
        games = recorded_games(args.records)  # (source, seat, index, actions)
    except (OSError, ValueError) as e:
        parser.exit(2, f"error: {e}\n")
    agent = SearchAgent("agent-hunter", VARIANT.as_dict(), AgentConfig.default("agent-hunter"))
    for style in range(len(HEURISTIC_STYLES)):
        games += [(HEURISTIC_STYLES[style], 1, seed, heuristic_game(style, seed))
                  for seed in range(args.heuristic_games)]
    explained: dict = defaultdict(lambda: np.zeros((len(nones), 2), int))
    for source, seat, index, actions in games:
        history = walk(agent, actions, seat, nones, args.by)
        print(source, seat, index, " ".join("/".join(f"{p:.2f}" for p in h) for h in history))
        group = "heuristic " + source if source in HEURISTIC_STYLES else "LBR"
        for h in history:
            explained[group][:, 0] += np.array(h) < 0.5
            explained[group][:, 1] += 1
    for group, counts in explained.items():
        print(f"{group}, by {args.by}: moves after which a style explains the play: "
              + ", ".join(f"none {c:g}: {e} of {n}" for c, (e, n) in zip(nones, counts,
                                                                        strict=True)))


if __name__ == "__main__":
    main()
