"""A learned value function trained at a depth-limited re-solving agent's own leaf queries, in
rounds (DAgger), each measured by the agent's exact exploitability, on an enumerable game.
Round 0 records the queries of the agent with the committed blueprint's leaf values
(``situations.leaf_queries``, as ``record_leaf_queries.py`` does) and trains stage 1 on their
solves (``stages.run_stage``, as ``spycfr train-values --queries``); round k records the
queries of the agent with round k-1's network (the walk that records them is the exact
measure of that agent) and trains on its new queries' solves and every earlier round's
(``--data``). A last walk measures the last network. Everything is seeded and resumable:
a round's queries file, situations and training checkpoints are kept under ``OUT/round-K``
and a rerun (or one with more ``--rounds``) continues. Run from the repository root::

    python benchmarks/train_values_rounds.py agent-hunter --preset tiny --out OUT --rounds 3

One JSON line per walk (the agent with round K-1's network, or the committed leaves for
K = 0): its exploitability (``--agent``: with its BR_P1 and BR_P2, ``best_responses``), the
queries recorded, and round K's training record; also appended to ``OUT/rounds.jsonl``.
``--rest-scale R`` keeps more queries at the states far from the end (``--per-state`` for
every R public nodes to the end, at most ``--max-per-state``; ``situations.rest_counts``).

``--seeds 0,1,2`` makes each round's network an ensemble: one network per training seed on the
same situations, averaged (``stages.train_ensemble``; the round's ``weights.npz`` the average,
each member also ``weights-seed-S.npz``, their records under ``training.ensemble``).
``--workers N`` solves a round's situations in N processes (a Dask LocalCluster) instead of
this one.

``--agent`` walks the search agent instead (``spycfr.search.agent.SearchAgent``, measured
by ``agent_exploitability`` and recorded by ``situations.agent_leaf_queries``): its first
plan ``--plan-depth`` decision levels deep (or the whole game within ``--plan-endgame``
node-states), its re-solves exact to the end where the rest of the game is within
``--endgame`` node-states and ``--depth`` deep otherwise (``AgentConfig.default``'s budgets
unless given). The network is then asked only at the plan's leaves and those of the
depth-limited re-solves, and learns only those states (docs/search.md, "`mini`: learned
leaves above exact endgames")::

    python benchmarks/train_values_rounds.py agent-hunter --preset mini --out OUT --agent \
        --plan-endgame 0 --plan-depth 3 --depth 3 --rounds 2
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from spycfr.errors import SpycfrError
from spycfr.io import save_npz
from spycfr.search import resolve
from spycfr.search.agent import whole_tree
from spycfr.search.evaluate import Settings
from spycfr.search.learned import LearnedValues
from spycfr.search.resolve import GAME_NODES, committed_blueprint
from spycfr.search.situations import StageSpec, game_model, leaf_queries
from spycfr.search.stages import run_stage, stage_dir, train_ensemble
from spycfr.search.training import TrainSettings, hidden_widths
from spycfr.search.tree import build
from spycfr.seeds import check_seed, seed_list

DEFAULT_MAX_NODES = StageSpec.__dataclass_fields__["max_nodes"].default


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("game")
    ap.add_argument("--preset", default=None)
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--rounds", type=int, default=3, help="rounds of training (0 .. R-1)")
    ap.add_argument("--depth", type=int, default=4, help="the agent's re-solving depth")
    ap.add_argument("--iterations", type=int, default=100, help="CFR+ a re-solve")
    ap.add_argument("--per-state", type=int, default=12,
                    help="queries kept per public state and round")
    ap.add_argument("--rest-scale", type=int, default=0,
                    help="keep --per-state queries for every this many public nodes to the end "
                         "of a state (0: --per-state at every state; situations.rest_counts)")
    ap.add_argument("--max-per-state", type=int, default=0,
                    help="with --rest-scale: at most this many a state (0: no cap)")
    ap.add_argument("--blueprint-iterations", type=int, default=300)
    ap.add_argument("--solve-iterations", type=int, default=300, help="CFR+ a situation")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--hidden", default="256,256,256")
    ap.add_argument("--epochs", type=int, default=100)
    ap.add_argument("--train-batch", type=int, default=256)
    ap.add_argument("--seeds", default=None,
                    help="training seeds, comma-separated: each round's network an ensemble "
                         "of one per seed, averaged (default: --seed alone)")
    ap.add_argument("--workers", type=int, default=0,
                    help="processes solving a round's situations (0: in this process)")
    ap.add_argument("--head", default="bilinear")
    ap.add_argument("--schedule", default="cosine", help="learning rate: cosine, constant")
    ap.add_argument("--agent", action="store_true",
                    help="walk the search agent (its plan and endgame rule), not evaluate's "
                         "depth-limited assembly")
    ap.add_argument("--plan-depth", type=int, help="--agent: the first plan's decision levels")
    ap.add_argument("--plan-endgame", type=int,
                    help="--agent: the first plan's endgame budget, node-states (0: off)")
    ap.add_argument("--endgame", type=int,
                    help="--agent: a re-solve's endgame budget, node-states (0: off)")
    ap.add_argument("--subgame-budget", type=int,
                    help="--agent: the depth rule's budget, node-states (0: off)")
    ap.add_argument("--plan-iterations", type=int,
                    help="--agent: CFR+ iterations of the first plan (0: --iterations)")
    ap.add_argument("--plan-play", type=int,
                    help="--agent: play the first plan at its decisions in its first this many "
                         "decision levels instead of re-solving them (0: off)")
    ap.add_argument("--max-nodes", type=int, default=DEFAULT_MAX_NODES,
                    help="the most public nodes of a situation's solve to the end")
    ap.add_argument("--game-nodes", type=int, default=GAME_NODES,
                    help="the most public nodes of the whole game's tree (the blueprint's; "
                         "Agent Hunter small has 2,308,847)")
    a = ap.parse_args()
    if a.per_state < 1 or a.rest_scale < 0 or a.max_per_state < 0:
        ap.error(f"--per-state must be at least 1, --rest-scale and --max-per-state at least 0 "
                 f"(got {a.per_state}, {a.rest_scale}, {a.max_per_state})")
    try:  # told now, not as a traceback after the solves (numpy refuses a negative seed)
        check_seed(a.seed, "--seed")
        seeds = [a.seed] if a.seeds is None else seed_list(a.seeds, "--seeds")
    except SpycfrError as exc:
        ap.exit(2, f"error: {exc}\n")
    if a.workers < 0:
        ap.exit(2, f"error: --workers must be at least 0 (got {a.workers})\n")
    if a.rounds < 0:
        ap.exit(2, f"error: --rounds must be at least 0 (got {a.rounds})\n")
    try:  # told now, not after the whole game's tree and round 0's walk
        hidden = hidden_widths(a.hidden)
    except SpycfrError as exc:
        ap.exit(2, f"error: {exc}\n")
    agent_options = {"plan_depth": a.plan_depth, "plan_endgame": a.plan_endgame,
                     "endgame": a.endgame, "plan_iterations": a.plan_iterations,
                     "subgame_budget": a.subgame_budget, "plan_play": a.plan_play}
    if not a.agent and any(v is not None for v in agent_options.values()):
        ap.error("--plan-depth, --plan-endgame, --endgame, --plan-iterations, "
                 "--subgame-budget and --plan-play need --agent")
    t0 = time.perf_counter()
    game = game_model(a.game, a.preset, {})
    _say(f"building the whole game's public tree (up to {a.game_nodes:,} nodes)")
    # as the blueprint's solve says its iterations (resolve.solve_progress), from its 5th s
    with resolve.beats(_say, "building the whole game's public tree:"):
        # --agent: the exact walk's own tree (live payoffs), which it then reads, not a second
        # one (Agent Hunter small's holds about 6 GB)
        full = whole_tree(game, a.game_nodes) if a.agent else build(game, max_nodes=a.game_nodes)
    _say(f"the whole game's tree: {full.size:,} public nodes, {time.perf_counter() - t0:.0f} s")
    settings = TrainSettings(hidden=hidden,
                             epochs=a.epochs, batch=a.train_batch, seed=seeds[0], head=a.head,
                             schedule=a.schedule)
    log = a.out / "rounds.jsonl"
    a.out.mkdir(parents=True, exist_ok=True)
    done = [json.loads(line)["round"] for line in log.read_text().splitlines()] \
        if log.exists() else []
    for k in range(a.rounds + 1):
        d = a.out / f"round-{k}"
        d.mkdir(exist_ok=True)
        queries = d / "queries.npz"
        if k in done and (k == a.rounds or (stage_dir(d, 1) / "weights.npz").exists()):
            continue
        line: dict = {"round": k, "leaves": "committed" if k == 0 else f"round-{k - 1}"}
        if not queries.exists():
            w = time.perf_counter()
            weights = stage_dir(a.out / f"round-{k - 1}", 1) / "weights.npz"
            if k == 0:
                _say(f"round 0: the committed blueprint, {a.blueprint_iterations} CFR+ "
                     "iterations on the whole game's tree")
                vf = committed_blueprint(game, a.blueprint_iterations, full, say=_say)
            else:
                vf = LearnedValues.load(weights)
            if a.agent:
                q = _agent_queries(a, agent_options, None if k == 0 else weights, vf, full,
                                   a.seed + k)
                line["config"] = q.pop("config")
                line.update(solves_asking=int(q["solves"]), resolves=int(q["resolves"]),
                            states_asked=int(np.unique(q["pub"], axis=0).shape[0]),
                            best_responses=[float(x) for x in q["best_responses"]])
            else:
                q = leaf_queries(game, Settings(iterations=a.iterations, depth=a.depth,
                                                value_function=vf), a.per_state, a.seed + k,
                                 full, a.rest_scale, a.max_per_state)
            save_npz(queries, **q)
            if a.rest_scale:
                line.update(per_state=a.per_state, rest_scale=a.rest_scale,
                            max_per_state=a.max_per_state)
            line["walk_seconds"] = round(time.perf_counter() - w)
            print(f"round {k}: the agent with {line['leaves']} leaves is "
                  f"{float(q['exploitability']):.5f} exploitable", flush=True)
        else:
            with np.load(queries) as f:
                q = {"pub": f["pub"], "exploitability": f["exploitability"]}
        line.update(exploitability=float(q["exploitability"]), queries=int(q["pub"].shape[0]),
                    depth=a.depth, iterations=a.iterations)
        if k < a.rounds:
            spec = StageSpec(a.game, a.preset, {}, 1, 4, a.solve_iterations, a.seed,
                             max_nodes=a.max_nodes, internal=0, queries=str(queries.resolve()))
            earlier = tuple(str(stage_dir(a.out / f"round-{j}", 1)) for j in range(k))
            record = run_stage(d, spec, line["queries"], settings, batch=200,
                               workers=a.workers, note=_quiet, data=earlier)
            line["training"] = {key: record[key] for key in (
                "generate_wall_seconds", "situations_made", "training_rows", "data_rows")
                if key in record}
            line["training"].update({key: record["training"][key] for key in (
                "train_seconds", "heldout_error", "train_error")})
            if len(seeds) > 1:  # the round's weights.npz becomes the members' average
                line["training"]["ensemble"] = train_ensemble(
                    stage_dir(d, 1), spec, settings, seeds, record["training"], _quiet,
                    data=earlier, into="weights.npz")
        line["seconds"] = round(time.perf_counter() - t0)
        print(json.dumps(line), flush=True)
        if k not in done or "training" in line:
            with log.open("a") as f:
                f.write(json.dumps(line) + "\n")


def _agent_queries(a: argparse.Namespace, options: dict, weights: Path | None, vf, full,
                   seed: int) -> dict:
    """The search agent's leaf queries (``situations.agent_leaf_queries``): the config's
    leaves ``learned`` from ``weights``, or (round 0, ``weights`` None) the committed
    blueprint's values ``vf``, each seat's walk by its own agent (its first plan and
    re-solves with that seat's values, as ``agent_exact_walk.py --committed-leaves`` plays
    it). Adds the
    agent's config as ``config``."""
    from spycfr.games import make_variant
    from spycfr.search.agent import AgentConfig, SearchAgent
    from spycfr.search.situations import agent_leaf_queries

    leaves = ({"value_function": "learned", "value_file": str(weights)} if weights
              else {"value_function": "scored-now"})
    config = AgentConfig.default(a.game, iterations=a.iterations, depth=a.depth, **leaves,
                                 **{k: v for k, v in options.items() if v is not None})
    agent = SearchAgent(a.game, make_variant(a.game, a.preset).as_dict(), config)
    if weights is None:  # committed values depend on the seat: SearchAgent.for_seat gives
        agent.values = vf  # each seat's walk its own values and first plan
    q = agent_leaf_queries(agent, a.per_state, seed, full, progress=_say,
                           rest_scale=a.rest_scale, max_per_state=a.max_per_state)
    q["config"] = config.as_dict()
    return q


def _say(text: str) -> None:
    """A progress line (the rounds' JSON lines stay the only unindented ones)."""
    print(f"  {text}", flush=True)


def _quiet(text: str) -> None:
    """run_stage's notes without a line per batch and per epoch (every tenth epoch)."""
    if text.startswith("batch "):
        return
    if text.startswith("epoch ") and int(text.split()[1].split("/")[0]) % 10:
        return
    _say(text)


if __name__ == "__main__":
    main()
