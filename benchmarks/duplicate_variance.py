"""Would duplicate matches narrow head to head's intervals (issues 22 and 23)? Two
measurements on players that cost nothing to play, and one on a search agent's committed
games.

Formats (``formats``): PAIRS pairs of games (A as P1 in one, as P2 in the other) in each of
  plain      head_to_head's streams: each game draws chance and moves from its own stream
             (seed S's game i as P1, second_stream(S)'s game i as P2);
  duplicate  both games of a pair draw chance from one stream of their own, apart from the
             players' draws (each game's own): the same deal, the seats swapped (duplicate
             bridge; the Annual Computer Poker Competition's duplicate format);
  shared     both games of a pair draw everything from one stream (chance and moves alike).
Each format's samples come from seeds of their own (independent). Printed: each format's
mean per game with its 95% interval over the pairs, the variance of a game and of a pair's
mean, the correlation of a pair's two games, and the pair-mean variance as a fraction of the
plain format's (the games the format needs for the plain format's interval) with a bootstrap
95% interval (2,000 resamples of the pairs, within each format apart).

Deal luck (``--deal-luck GAMES.jsonl``): a search agent's committed pairs against the
heuristic (benchmarks/agent_headtohead.py's lines; plain streams): each game's deal (its
stream's chance draws up to the first decision) valued by K heuristic-mirror games played on
from it, correlated with the payoff the agent got; R^2 is the share of the games' variance
that the deal's value explains, which is about what dealing both seats alike could remove.

    python benchmarks/duplicate_variance.py A B [--game G --preset P] [--pairs N] [--seed S]
    python benchmarks/duplicate_variance.py AGENT_DIR --deal-luck GAMES.jsonl [--values K]
    python benchmarks/duplicate_variance.py RUN_DIR --deal-luck N [--values K]

A and B as `spycfr head-to-head` names them (uniform, heuristic[:STYLE], a run directory);
--deal-luck N plays N pairs of RUN_DIR (a stored strategy) against the heuristic instead.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
from numba import njit

from spycfr.analysis.headtohead import (
    _play,
    mean_ci,
    payoff_bound,
    player_args,
    player_from,
    player_probs,
    second_stream,
)
from spycfr.cfr.mccfr_kernels import advance_keys
from spycfr.engine import protocol as P
from spycfr.engine.rng import GOLDEN, fmix, game_stream, root_key, sample, uniform
from spycfr.games import get_plugin, make_game
from spycfr.tree import CHANCE, TERMINAL

FORMAT_SEEDS = {"plain": 0, "duplicate": 1 << 41, "shared": 2 << 41}  # added to --seed
CHANCE_SALT = np.uint64(0xD1B54A32D192ED03)  # a duplicate pair's chance stream, apart
MIRROR_SALT = 0x5DEECE66D  # the deal-valuing games' streams, apart from the game's


@njit(cache=False)
def chance_stream(seed, g):
    """The generator state of pair ``g``'s chance draws in the duplicate format from ``seed``
    (int64s): game_stream salted, so that it is apart from every game's own stream."""
    return fmix((game_stream(seed, g) ^ CHANCE_SALT) * GOLDEN)


@njit(cache=False)
def play_dealt(params, games, seed, chance_seed, a_first, pa, pb):
    """headtohead._play with chance apart: game g's moves drawn from game_stream(seed, g),
    its chance from chance_stream(chance_seed, g); team 0's payoff in each game."""
    max_act = max(P.max_actions(params), 2)
    acts = np.empty(max_act, dtype=np.int32)
    probs = np.empty(max_act)
    cur = P.initial_state(params)
    nxt = np.empty_like(cur)
    h = np.empty(P.num_seats(params), dtype=np.int64)
    payoff = np.empty(games)
    rng = np.empty(1, dtype=np.uint64)
    deal = np.empty(1, dtype=np.uint64)
    for g in range(games):
        rng[0] = game_stream(seed, g)
        deal[0] = chance_stream(chance_seed, g)
        cur[:] = P.initial_state(params)
        for s in range(h.shape[0]):
            h[s] = root_key(s)
        while True:
            p = P.current_player(cur, params)
            if p == TERMINAL:
                payoff[g] = P.returns_p1(cur, params)
                break
            if p == CHANCE:
                k = P.chance_outcomes(cur, params, acts, probs)
                u = uniform(deal)
            else:
                k = P.legal_actions(cur, params, acts)
                seat = P.current_seat(cur, params)
                if (p == 0) == a_first:
                    player_probs(pa, cur, params, seat, h, acts, k, probs)
                else:
                    player_probs(pb, cur, params, seat, h, acts, k, probs)
                u = uniform(rng)
            advance_keys(params, cur, nxt, acts[sample(probs, k, u)], h)
    return payoff


@njit(cache=False)
def deal_value(params, stream_seed, values, ph):
    """The deal of game 0 of ``stream_seed``'s stream (its chance draws up to the first
    decision) and P1's mean payoff in ``values`` games of the player ``ph`` against itself
    played on from it (streams apart), with the state dealt."""
    max_act = max(P.max_actions(params), 2)
    acts = np.empty(max_act, dtype=np.int32)
    probs = np.empty(max_act)
    cur = P.initial_state(params)
    nxt = np.empty_like(cur)
    h = np.empty(P.num_seats(params), dtype=np.int64)
    for s in range(h.shape[0]):
        h[s] = root_key(s)
    rng = np.empty(1, dtype=np.uint64)
    rng[0] = game_stream(stream_seed, 0)
    while P.current_player(cur, params) == CHANCE:
        k = P.chance_outcomes(cur, params, acts, probs)
        advance_keys(params, cur, nxt, acts[sample(probs, k, uniform(rng))], h)
    dealt = cur.copy()
    h0 = h.copy()
    total = 0.0
    for g in range(values):
        cur[:] = dealt
        h[:] = h0
        rng[0] = game_stream(stream_seed ^ MIRROR_SALT, g)
        while True:
            p = P.current_player(cur, params)
            if p == TERMINAL:
                total += P.returns_p1(cur, params)
                break
            if p == CHANCE:
                k = P.chance_outcomes(cur, params, acts, probs)
            else:
                k = P.legal_actions(cur, params, acts)
                player_probs(ph, cur, params, P.current_seat(cur, params), h, acts, k, probs)
            advance_keys(params, cur, nxt, acts[sample(probs, k, uniform(rng))], h)
    return total / values, dealt


def format_pairs(params, pa, pb, pairs: int, seed: int, name: str
                 ) -> tuple[np.ndarray, np.ndarray]:
    """A's payoffs as P1 and as P2 in ``pairs`` pairs of format ``name`` from ``seed``."""
    n = np.int64(pairs)
    if name == "plain":  # head_to_head's own streams
        first = _play(params, n, np.int64(seed), True, pa, pb)[0]
        second = _play(params, n, np.int64(second_stream(seed)), False, pa, pb)[0]
    elif name == "duplicate":
        first = play_dealt(params, n, np.int64(seed), np.int64(seed), True, pa, pb)
        second = play_dealt(params, n, np.int64(second_stream(seed)), np.int64(seed), False,
                            pa, pb)
    else:  # shared: game i of both seats from game_stream(seed, i)
        first = _play(params, n, np.int64(seed), True, pa, pb)[0]
        second = _play(params, n, np.int64(seed), False, pa, pb)[0]
    return first, -second


def _ratio_ci(d: np.ndarray, base: np.ndarray, rng: np.random.Generator,
              draws: int = 2000) -> list[float]:
    """Bootstrap 95% percentile interval of var(d) / var(base), each resampled apart."""
    n, m = len(d), len(base)
    r = [np.var(d[rng.integers(0, n, n)], ddof=1) / np.var(base[rng.integers(0, m, m)], ddof=1)
         for _ in range(draws)]
    return [float(x) for x in np.percentile(r, [2.5, 97.5])]


def _game(a_name: str, b_name: str, game_name: str | None, preset: str | None):
    """The game named, or the first run directory's."""
    from spycfr.errors import SpycfrError
    from spycfr.runs.store import read_run

    if game_name is not None:
        return make_game(game_name, preset)
    run = next((p for p in (a_name, b_name)
                if p not in ("uniform", "heuristic") and not p.startswith("heuristic:")), None)
    if run is None:
        raise SpycfrError(f"{a_name} and {b_name} name no game: give --game (and --preset) "
                          "or a run directory")
    config = read_run(run).config
    assert config is not None  # read_run requires it
    return make_game(config.game, config.preset, config.params)


def formats(a_name: str, b_name: str, game_name: str | None, preset: str | None,
            pairs: int, seed: int) -> dict:
    """Each format's pairs of A against B, their means and variances (module docstring)."""
    game = _game(a_name, b_name, game_name, preset)
    a, b = player_from(a_name, game), player_from(b_name, game)
    params = get_plugin(game.name).numba_params(game.variant_obj)
    pa, pb = player_args(a), player_args(b)
    bound = payoff_bound(game)
    start = time.perf_counter()
    samples = {name: format_pairs(params, pa, pb, pairs, seed + offset, name)
               for name, offset in FORMAT_SEEDS.items()}
    seconds = time.perf_counter() - start
    rng = np.random.default_rng(seed)
    plain = samples["plain"][0] + samples["plain"][1]
    out = {}
    for name, (p1, p2) in samples.items():
        d = (p1 + p2) / 2
        both = np.std(p1) > 0 and np.std(p2) > 0
        out[name] = {
            "pair_mean": mean_ci(d, bound), "game_variance": float(np.var(
                np.concatenate([p1, p2]), ddof=1)),
            "pair_variance": float(np.var(d, ddof=1)),
            "pair_correlation": float(np.corrcoef(p1, p2)[0, 1]) if both else None,
            "variance_ratio": float(np.var(d, ddof=1) / np.var(plain / 2, ddof=1)),
            "variance_ratio_ci95": [1.0, 1.0] if name == "plain" else
            _ratio_ci(d, plain / 2, rng)}
    return {"game": game.name, "variant": game.variant_obj.as_dict(), "a": a_name,
            "b": b_name, "pairs": pairs, "seed": seed, "seconds": round(seconds, 1),
            "formats": out}


def deal_luck(run: str, source: str, values: int) -> dict:
    """Each game's deal valued by ``values`` heuristic-mirror games from it, correlated
    with A's payoff in it: the committed pairs of a games file (their heuristic rows), or
    ``source`` (a number) pairs of the run's stored strategy against the heuristic."""
    game = _game(run, "heuristic", None, None)
    params = get_plugin(game.name).numba_params(game.variant_obj)
    ph = player_args(player_from("heuristic", game))
    if source.isdigit():
        pa = player_args(player_from(run, game))
        seeds = list(range(int(source)))
        p1 = np.array([_play(params, np.int64(1), np.int64(s), True, pa, ph)[0][0]
                       for s in seeds])
        p2 = -np.array([_play(params, np.int64(1), np.int64(second_stream(s)), False, pa,
                              ph)[0][0] for s in seeds])
    else:
        rows = [r for r in map(json.loads, open(source)) if r["opponent"] == "heuristic"]
        seeds = [r["seed"] for r in rows]
        p1 = np.array([r["p1"] for r in rows])
        p2 = np.array([r["p2"] for r in rows])
    v1 = np.array([deal_value(params, np.int64(s), values, ph)[0] for s in seeds])
    v2 = -np.array([deal_value(params, np.int64(second_stream(s)), values, ph)[0]
                    for s in seeds])
    out = {}
    for name, x, v in (("as P1", p1, v1), ("as P2", p2, v2),
                       ("all", np.concatenate([p1, p2]), np.concatenate([v1, v2]))):
        r = float(np.corrcoef(x, v)[0, 1])
        z = np.arctanh(r)  # Fisher's 95% interval of the correlation
        half = 1.96 / np.sqrt(max(len(x) - 3, 1))
        out[name] = {"games": len(x), "correlation": r,
                     "correlation_ci95": [float(np.tanh(z - half)), float(np.tanh(z + half))],
                     "r2": r * r, "deal_value_variance": float(np.var(v, ddof=1)),
                     "payoff_variance": float(np.var(x, ddof=1))}
    return {"game": game.name, "variant": game.variant_obj.as_dict(), "run": run,
            "games_from": source, "values": values, "deal_luck": out}


def _print(r: dict) -> None:
    if "deal_luck" in r:
        print(f"{r['run']} against the heuristic ({r['games_from']}), each deal valued by "
              f"{r['values']} heuristic-mirror games")
        for name, f in r["deal_luck"].items():
            lo, hi = f["correlation_ci95"]
            print(f"  {name:<6} {f['games']} games: corr(payoff, deal's value) "
                  f"{f['correlation']:+.3f} [{lo:+.3f}, {hi:+.3f}], R^2 {f['r2']:.3f}")
        return
    print(f"{r['a']} against {r['b']} ({r['game']}, {r['pairs']} pairs a format, "
          f"seed {r['seed']}, {r['seconds']} s)")
    for name, f in r["formats"].items():
        m = f["pair_mean"]
        corr = "n/a" if f["pair_correlation"] is None else f"{f['pair_correlation']:+.3f}"
        lo, hi = f["variance_ratio_ci95"]
        print(f"  {name:<9} mean {m['mean']:+.4f} [{m['ci95'][0]:+.4f}, {m['ci95'][1]:+.4f}]"
              f"  var(game) {f['game_variance']:.4f}  var(pair mean) "
              f"{f['pair_variance']:.4f}  pair corr {corr}  ratio {f['variance_ratio']:.3f}"
              f" [{lo:.3f}, {hi:.3f}]")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("a")
    ap.add_argument("b", nargs="?")
    ap.add_argument("--game")
    ap.add_argument("--preset")
    ap.add_argument("--pairs", type=int, default=5000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--deal-luck", metavar="GAMES.jsonl|N")
    ap.add_argument("--values", type=int, default=100,
                    help="with --deal-luck: heuristic-mirror games valuing each deal")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    if not args.deal_luck and not args.b:
        ap.error("give A and B, or RUN_DIR --deal-luck GAMES.jsonl|N")
    if args.pairs < 2 or args.values < 1:
        ap.error("--pairs must be >= 2 and --values >= 1")
    from spycfr.errors import SpycfrError
    try:
        result = (deal_luck(args.a, args.deal_luck, args.values) if args.deal_luck else
                  formats(args.a, args.b, args.game, args.preset, args.pairs, args.seed))
    except (OSError, ValueError, KeyError, SpycfrError) as e:
        ap.exit(2, f"error: {e}\n")
    print(json.dumps(result)) if args.json else _print(result)
