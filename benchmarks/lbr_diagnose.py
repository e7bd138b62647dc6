"""Why the local best response beats the search agent: LBR games against an agent run
directory (issue 22), each recorded move by move with what LBR's belief knew of the agent's
private state (its houses) after every move, beside a belief from public information alone
tracked along the same game.

One JSON line per game: seat, index, payoff, the game's payoff bound (the range of the
summary's intervals), the record (full information, with each attack's answer), both seats'
VP and hand sums at the end, turns played, and per move the belief's entropy over the
agent's private states (bits) and its probability of the agent's actual private state, for
LBR's belief and for the public one (every history consistent with LBR's observations
weighted alike). ``--belief public`` makes LBR itself play from the
public belief (the agent's re-solves are then never read at the particles), to tell
whether LBR wins by what the agent's moves reveal or by playing better. The games are those
of ``spycfr measure RUN --lbr-games N --lbr-rollouts 16 --lbr-rollout heuristic:hunter``
(the same seeds: with ``--belief agent`` the same games as the committed file).

    nice -n 10 python benchmarks/lbr_diagnose.py results/standard OUT.jsonl --belief public \
        --seat 0 --games 0 1 2
    python benchmarks/lbr_diagnose.py --summary OUT.jsonl
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
from games_file import json_lines  # this folder's
from leaf_options import add_leaf_options, leaf_settings, set_up  # this folder's (a script)
from numba import njit

from spycfr.engine import protocol as P


@njit(cache=True)
def _successor(params, state, target, acts):
    """The legal action of ``state`` that leads to ``target`` (-1 if none)."""
    k = P.legal_actions(state, params, acts)
    nxt = np.empty_like(state)
    for j in range(k):
        P.apply_action(state, params, acts[j], nxt)
        if (nxt == target).all():
            return acts[j]
    return -1


def entropy_and_truth(privates: np.ndarray, weights: np.ndarray, truth: int,
                      size: int) -> tuple[float, float, int]:
    """(entropy in bits, probability of ``truth``, states with mass) of the belief's mass
    per private state."""
    mass = np.bincount(privates, weights=weights, minlength=size)
    mass = mass / mass.sum()
    live = mass[mass > 0]
    return float(-(live * np.log2(live)).sum()), float(mass[truth]), int(live.size)


class PublicBelief:
    """Particles weighted by consistency with LBR's observations alone, updated along the
    game from each step's state (the move found by matching successors)."""

    def __init__(self, params, me: int, state: np.ndarray, width: int) -> None:
        from spycfr.analysis.lbr_agent import _setup
        from spycfr.engine.rng import root_key

        _, self.bs, self.bh, self.bw, work = _setup(params)
        self.params, self.me, self.width = params, me, width
        self.ns, self.nh, self.nw = (np.empty_like(self.bs), np.empty_like(self.bh),
                                     np.empty_like(self.bw))
        self.acts, self.probs, self.nxt = work[3], work[4], np.empty_like(state)
        self.bs[0], self.bh[0], self.bw[0], self.n = state, [root_key(s) for s in (0, 1)], 1.0, 1
        self.prev = state.copy()

    def step(self, state: np.ndarray) -> tuple[int, int]:
        """Advance to ``state``; returns (the move's action, its observation code for LBR)."""
        from spycfr.analysis.lbr import update_belief
        from spycfr.analysis.lbr_agent import _observation

        a = _successor(self.params, self.prev, state, self.acts)
        if a < 0:
            raise RuntimeError("no move leads to the observed state")
        obs = _observation(self.params, self.prev, a, np.int64(self.me))
        ones = np.ones((self.n, self.width))
        self.ns, self.nh, self.nw, self.n = update_belief(
            self.params, np.int64(self.me), _DUMMY[0], ones, obs, self.bs, self.bh, self.bw,
            np.int64(self.n), self.ns, self.nh, self.nw, self.acts, self.probs, self.nxt)
        self.bs, self.ns = self.ns, self.bs
        self.bh, self.nh = self.nh, self.bh
        self.bw, self.nw = self.nw, self.bw
        if self.ns.shape[0] < self.bs.shape[0]:
            self.ns, self.nh, self.nw = (np.empty_like(self.bs), np.empty_like(self.bh),
                                         np.empty_like(self.bw))
        self.prev = state.copy()
        return int(a), int(obs)


_DUMMY: list = []  # the numba player args update_belief wants (unused: rows are given)


def play(run_dir: str, seat: int, g: int, belief: str, **settings) -> dict:
    """One LBR game as ``seat`` (0 or 1), index ``g``, LBR's belief ``belief``; the agent
    set up by ``settings`` (leaf_options.set_up's keywords: its rollout leaves, its
    re-solves' depth)."""
    from spycfr.analysis.headtohead import payoff_bound, player_args, player_from
    from spycfr.analysis.lbr import SECOND_SEAT_SEED
    from spycfr.analysis.lbr_agent import AgentOpponent, _privates, _setup, play_game
    from spycfr.analysis.lbr_agent_dask import _agent_of
    from spycfr.games.agent_hunter import rules as R
    from spycfr.games.agent_hunter.record import action_label, format_obs_token, refill_suffix

    agent, params, game = _agent_of(run_dir)
    set_up(agent, **settings)
    detection = agent.detection  # --detect (spycfr.search.styles), or None
    before = dict(detection.counts) if detection is not None else {}
    hunter = player_from("heuristic:hunter", game)
    if not _DUMMY:
        _DUMMY.append(player_args(hunter))

    class Public(AgentOpponent):
        def game(self, seat: int) -> AgentOpponent:
            out = super().game(seat)
            out.__class__ = Public
            return out

        def particle_rows(self, params, bs, bw, n, width):
            return np.ones((n, width))

    opponent = (Public if belief == "public" else AgentOpponent)(agent, hunter)
    roll = player_args(hunter)
    seed = int(np.int64(1) + np.int64(seat * SECOND_SEAT_SEED))
    them = 1 - seat
    size = int(agent.model.n[them])
    moves: list[dict] = []
    box: dict = {}

    init, _, _, _, work = _setup(params)
    box["public"] = PublicBelief(params, seat, init, work[3].shape[0])

    def seen(obs: int) -> str:
        try:
            return format_obs_token(obs, int(params[R.P_HOUSES]))
        except ValueError:  # a refill's observation completes the attack's token
            return "refill" + refill_suffix(obs)

    def watch(view, bs, bw, n, state):
        pub = box["public"]
        prev = pub.prev.copy()
        mover = int(prev[R.TO_MOVE])
        action, obs = pub.step(state)
        truth = int(_privates(params, np.int64(them), state[None], np.int64(1))[0])
        lbr = entropy_and_truth(_privates(params, np.int64(them), bs, np.int64(n)), bw[:n],
                                truth, size)
        public = entropy_and_truth(_privates(params, np.int64(them), pub.bs,
                                             np.int64(pub.n)), pub.bw[:pub.n], truth, size)
        moves.append({"turn": int(prev[R.TURN]), "mover": "LBR" if mover == seat else "agent",
                      "move": action_label(prev, params, action),
                      "seen": seen(obs),
                      "lbr_bits": round(lbr[0], 3), "lbr_truth": round(lbr[1], 4),
                      "lbr_states": lbr[2], "public_bits": round(public[0], 3),
                      "public_truth": round(public[1], 4), "public_states": public[2]})

    start = time.perf_counter()
    payoff, largest, decisions = play_game(params, seat, opponent, roll, 16, seed, g,
                                           watch=watch)
    final = box["public"].prev
    own = agent.values if detection is None else detection.own
    inner = getattr(own, "inner", own)
    return {"seat": seat, "game": g, "belief": belief, "opposing": settings.get("opposing"),
            "focus_rows": getattr(inner, "focus_rows", None),
            "reader_rounds": getattr(inner, "reader_rounds", None)
            if getattr(inner, "reads_range", False) else None,
            "reader_range": getattr(inner, "reader_range", None)
            # (the opposing decision reads the public rows with or without guesses)
            if getattr(inner, "reads_range", False) or getattr(inner, "choice", "row") != "row"
            else None,
            "choice": getattr(inner, "choice", "row"),
            "guesses": bool(getattr(inner, "guessing_rows", False)),
            "guess_by": getattr(inner, "guess_by", "row")
            if getattr(inner, "guessing_rows", False) else None,
            "guess_draws": (getattr(inner, "guess_draws", 0) or None)
            if getattr(inner, "guessing_rows", False) else None,
            "guess_weight": getattr(inner, "guess_weight", 1.0)
            if getattr(inner, "guessing_rows", False) else None,
            "row_weight": getattr(inner, "row_weight", 0.0)
            if getattr(inner, "choice", "row") != "row" else None,
            # with --detect: none_prob, and the game's re-solves with each leaves
            "detect": None if detection is None else detection.none_prob,
            "detect_by": None if detection is None else detection.by,
            "leaves": None if detection is None else
            {k: v - before[k] for k, v in detection.counts.items()},
            "payoff": payoff, "bound": payoff_bound(game),
            "seconds": round(time.perf_counter() - start, 1), "largest": largest,
            "decisions": decisions, "turns": int(final[R.TURN]),
            "vp": [int(R.vp(final, 0)), int(R.vp(final, 1))],
            "hand_sum": [int(R.hand_sum(final, 0)), int(R.hand_sum(final, 1))],
            "moves": moves}


GAME_LINE = "a game as this script or `spycfr measure` writes them"


def summarize(path: str, committed: str | None = None) -> None:
    """Per belief and guard: LBR's payoff, how games end, and the belief's sharpness by
    turn; with ``committed`` (a games file of the same seeds), its payoff beside each. 95%
    intervals as LBR's own (:func:`~spycfr.analysis.headtohead.seats_ci`; game by game,
    :func:`~spycfr.analysis.headtohead.mean_ci` over twice the payoff range)."""
    from spycfr.analysis.headtohead import mean_ci, seats_ci

    rows = json_lines(path, GAME_LINE)
    if not rows:
        raise ValueError(f"{path}: no games in it")
    # the payoff range: the game's bound, which each line records (lines written before it
    # did: 1, that of Agent Hunter's win variant, the only one they were played on)
    bound = max(float(r.get("bound", 1.0)) for r in rows)
    before = {}
    if committed:
        for r in json_lines(committed, GAME_LINE):
            if "payoff" in r:  # not the settings line that a measure's games file begins with
                before[(r["seat"], r["game"])] = r["payoff"]
    def kind_of(r: dict) -> tuple:
        return (r["belief"], ",".join(r.get("opposing") or []), r.get("focus_rows") or 1,
                r.get("reader_rounds") or 0, r.get("reader_range") or "own",
                r.get("choice") or "row", bool(r.get("guesses")), r.get("guess_by") or "row",
                r.get("guess_draws") or 0,
                1.0 if r.get("guess_weight") is None else r["guess_weight"],
                r.get("row_weight") or 0.0, r.get("detect") or 0.0,
                r.get("detect_by") or "move")

    for kind in sorted({kind_of(r) for r in rows}):
        mine = [r for r in rows if kind_of(r) == kind]
        pay = np.array([r["payoff"] for r in mine])
        seats = [np.array([r["payoff"] for r in mine if r["seat"] == s]) for s in (0, 1)]
        mean, (low, high) = seats_ci(seats, bound)
        means = [f"{x.mean():+.3f}" if x.size else "-" for x in seats]
        print(f"belief {kind[0]}, agent guarding against {kind[1] or 'its default'}"
              + (f", {kind[2]} focus rows" if kind[2] > 1 else "")
              + (f", {kind[3]} reading rounds" if kind[3] else "")
              + (f", the reader's range {kind[4]}" if kind[4] != "own" else "")
              + (f", the opposing continuation chosen per {kind[5]}" if kind[5] != "row" else "")
              + (", with guesses" if kind[6] else "")
              + (f" by {kind[7]}" if kind[6] and kind[7] != "row" else "")
              + (f", {kind[8]} draws a guess" if kind[6] and kind[8] else "")
              + (f", at most {kind[9]:g} on the guesses" if kind[6] and kind[9] < 1 else "")
              + (f", row weight {kind[10]:g}" if kind[10] else "")
              + (f", detecting the styles (none {kind[11]:g} a "
                 f"{'kind' if kind[12] == 'kind' else 'move'})" if kind[11] else "")
              + ": "
              f"{len(mine)} games, LBR {mean:+.3f} [{low:+.3f}, {high:+.3f}] "
              f"(as P1 {means[0]}, as P2 {means[1]}), "
              f"wins {int((pay > 0).sum())}, draws {int((pay == 0).sum())}, "
              f"losses {int((pay < 0).sum())}")
        pairs = [(r["payoff"], before[(r["seat"], r["game"])]) for r in mine
                 if (r["seat"], r["game"]) in before]
        if committed and not pairs:
            print(f"  the same seeds in {committed}: none")
        elif pairs:
            new_, old = np.array(pairs).T
            diff = mean_ci(new_ - old, 2 * bound)
            low, high = diff["ci95"]
            print(f"  the same seeds in {committed}: {old.mean():+.3f} ({old.size} games); "
                  f"these less those, game by game: {diff['mean']:+.3f} "
                  f"[{low:+.3f}, {high:+.3f}]")
        for r in mine:
            lbr_vp, agent_vp = r["vp"][r["seat"]], r["vp"][1 - r["seat"]]
            tie = " (hand sums)" if lbr_vp == agent_vp else ""
            was = before.get((r["seat"], r["game"]))
            switches = [m["move"] for m in r["moves"]
                        if m["mover"] == "agent" and m["move"].startswith("switch")]
            print(f"  P{r['seat'] + 1} game {r['game']}: {r['payoff']:+g}"
                  + (f" (committed {was:+g})" if was is not None else "")
                  + f", VP LBR {lbr_vp} agent {agent_vp}{tie}, {r['turns']} turns, "
                  f"agent switches {len(switches)} (back {sum(map(_back, switches))}), "
                  f"{r['seconds']:.0f} s")
        if kind[0] == "agent":
            print("  the agent's moves: what each told LBR of its private state beyond public "
                  "information (log2 P(actual) gained by LBR's belief minus the public one's)")
            for what, bits in sorted(_revealed(mine).items()):
                # below -3 bits: LBR's model of the agent gave the move its actual cards
                # made an eighth or less of what it gave the rest of its belief
                print(f"    {what}: {len(bits)} moves, mean {np.mean(bits):+.2f} bits, "
                      f"median {np.median(bits):+.2f}, "
                      f"{int((np.array(bits) < -3).sum())} below -3 bits")
        by_turn: dict[int, list] = {}
        for r in mine:
            for m in r["moves"]:
                by_turn.setdefault(m["turn"], []).append(m)
        print("  turn: mean bits LBR / public, mean P(actual) LBR / public")
        for t in sorted(by_turn):
            ms = by_turn[t]
            print(f"  {t:>4}: {np.mean([m['lbr_bits'] for m in ms]):6.2f} / "
                  f"{np.mean([m['public_bits'] for m in ms]):6.2f}   "
                  f"{np.mean([m['lbr_truth'] for m in ms]):.3f} / "
                  f"{np.mean([m['public_truth'] for m in ms]):.3f}")


def _revealed(rows: list[dict]) -> dict[str, list[float]]:
    """Per kind of the agent's move (a switch putting the card back counted apart): the
    bits of its actual private state that LBR's belief gained at the move beyond what the
    public belief gained (placements left out: LBR knows the openings table's mixture)."""
    out: dict[str, list[float]] = {}
    for r in rows:
        before = None
        for m in r["moves"]:
            # LBR's probability recorded as 0 (under 5e-5, its rounding) counts as 5e-5: the
            # gain is then at most the one computed
            now = (max(m["lbr_truth"], 5e-5), m["public_truth"])
            if (m["mover"] == "agent" and not m["move"].startswith("place")
                    and before is not None and min(*now, *before) > 0):
                what = m["move"].split(":")[0] + (" back" if _back(m["move"]) else "")
                gain = (np.log2(now[0] / before[0]) - np.log2(now[1] / before[1]))
                out.setdefault(what, []).append(float(gain))
            before = (m["lbr_truth"], m["public_truth"])  # a gain from 0 is not counted
    return out


def _back(move: str) -> bool:
    """Whether a switch label (switch:1=4>4@2) puts the card shown back."""
    if not move.startswith("switch:"):
        return False
    shown, rest = move[len("switch:"):].split("=")[1].split(">")
    return shown == rest.split("@")[0]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("run_dir", nargs="?")
    p.add_argument("out", nargs="?")
    p.add_argument("--belief", choices=("agent", "public"), default="agent")
    p.add_argument("--seat", type=int, choices=(0, 1), nargs="+", default=[0, 1])
    p.add_argument("--games", type=int, nargs="+", default=[0])
    add_leaf_options(p)
    p.add_argument("--summary")
    p.add_argument("--committed", help="with --summary: a games file of the same seeds")
    args = p.parse_args()
    if not args.summary and not (args.run_dir and args.out):
        p.error("give RUN_DIR and OUT.jsonl to play, or --summary OUT.jsonl")
    from spycfr.errors import SpycfrError
    try:  # a run or games file missing or unreadable, an option refused: one line
        if args.summary:
            summarize(args.summary, args.committed)
            return
        for g in args.games:
            for seat in args.seat:
                row = play(args.run_dir, seat, g, args.belief, **leaf_settings(args))
                with open(args.out, "a") as f:
                    f.write(json.dumps(row) + "\n")
                print(f"P{seat + 1} game {g} ({args.belief}): {row['payoff']:+g} for LBR, "
                      f"{row['seconds']:.0f} s", flush=True)
    except (OSError, ValueError, KeyError, SpycfrError) as e:
        p.exit(2, f"error: {e if not isinstance(e, KeyError) else f'a game lacks {e}'}\n")


if __name__ == "__main__":
    main()
