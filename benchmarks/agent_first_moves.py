"""A search agent's first move for given deals, as it plays them (its re-solve for its own
cards), by the agent as committed and by the same run set up by the experiment's options
(benchmarks/leaf_options.py: --own, --opposing, ...): per deal each agent's most likely move
with its probability, its best discard's value and its best play's value (Agent Avenue: does
an option change the swap-or-play choice at the first turn, and by how much), and the CPU
seconds of each (the agents interleaved deal by deal, so their ratio is the options' cost).

    python benchmarks/agent_first_moves.py results/agent-avenue/standard --own heuristic,swapper \\
        CB.CB.DD.SE DA.EN.SE.SE

Advanced mode's first move follows the black market's supply (``--market``, as a record
writes it; default DEVICE.WATCHTOWER.TWIN, the supply of its run's plan.npz and openings).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from leaf_options import add_leaf_options, leaf_settings, set_up  # this folder's (a script)

from spycfr.errors import SpycfrError


def cpu_words(committed: list[float], options: list[float]) -> str:
    """The CPU seconds of the two agents' first moves, deal by deal, and their ratio (the
    options' cost), the first deal left out: its seconds include numba's compiling (the
    committed agent's, first)."""
    if len(committed) < 2:
        return "CPU seconds: give two deals or more (the first deal's include numba's compiling)"
    base, mine = np.array(committed[1:]), np.array(options[1:])
    ratios = mine / base
    return (f"CPU seconds a first move, the first deal left out ({base.size} deals): "
            f"committed median {np.median(base):.1f}, total {base.sum():.1f}; with the "
            f"options median {np.median(mine):.1f}, total {mine.sum():.1f}; with the options "
            f"over committed {mine.sum() / base.sum():.2f} (deal by deal {ratios.min():.2f} "
            f"to {ratios.max():.2f})")


def first_moves(agent_dir: str, deals: list[str], settings: dict,
                market: str = "DEVICE.WATCHTOWER.TWIN") -> None:
    from spycfr.analysis.agentplay import walk_view
    from spycfr.games import feature, make_variant
    from spycfr.games.agent_avenue.record import action_label
    from spycfr.runs.agent_run import is_agent_run, load_agent
    from spycfr.runs.store import read_run

    meta = read_run(agent_dir)
    if meta.game != "agent-avenue":  # the labels and the swap-or-play question are its own
        raise ValueError(f"{agent_dir} plays {meta.game}: give an Agent Avenue search agent's "
                         "run directory")
    if not is_agent_run(meta):
        raise ValueError(f"{agent_dir!r} is not a search agent's run directory")
    records = feature(meta.game, "records", "record notation to name a position in")
    variant = make_variant(meta.game, None, meta.variant)
    supply = f" market:{market}" if variant.mode == "advanced" else ""
    for deal in deals:  # a wrong deal or supply says so at once, not after the agents load
        records.view_state(variant, f"deal:{deal}|?{supply}", 0)
    agents = {"committed": load_agent(agent_dir, None)}
    agents["with the options"] = load_agent(agent_dir, None)
    set_up(agents["with the options"], **settings)
    seconds: dict[str, list[float]] = {name: [] for name in agents}
    for deal in deals:
        for name, agent in agents.items():
            cpu = time.process_time()
            game, state = walk_view(agent, records, variant, f"deal:{deal}|?{supply}", 0)
            info = game.move_info(state, 0)
            cpu = time.process_time() - cpu
            seconds[name].append(cpu)
            labels = [action_label(variant, state, int(a)) for a in info.actions]
            top = int(np.argmax(info.probs))
            # a move the options cut (--needs-only) has no value: left out
            best = {kind: max(((v, x) for v, x in zip(info.values, labels, strict=True)
                               if x.startswith(kind) and not np.isnan(v)),
                              default=(float("nan"), "-"))
                    for kind in ("swap:", "play:")}
            print(f"{deal} {name}: {labels[top]} {info.probs[top]:.3f}; best swap "
                  f"{best['swap:'][1]} {best['swap:'][0]:+.3f}, best play {best['play:'][1]} "
                  f"{best['play:'][0]:+.3f} ({cpu:.1f} s of CPU)", flush=True)
    print(cpu_words(seconds["committed"], seconds["with the options"]))
    turns = agents["with the options"].turn_subgames
    if agents["with the options"].config.turn_levels:
        print(f"re-solves a level a turn: {turns[0]} within the budget of "
              f"{agents['with the options'].config.turn_budget:,} node-states, {turns[1]} "
              "past it (a level a decision)")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("agent_dir")
    ap.add_argument("deals", nargs="+", help="P1's hand as a record writes it, e.g. CB.CB.DD.SE")
    ap.add_argument("--market", default="DEVICE.WATCHTOWER.TWIN",
                    help="advanced mode: the black market's supply, three cards as a record "
                         "writes them (ignored in simple mode)")
    add_leaf_options(ap)
    args = ap.parse_args()
    try:
        first_moves(args.agent_dir, args.deals, leaf_settings(args), args.market)
    except (SpycfrError, ValueError) as e:  # a bad directory, deal or option: one line
        ap.exit(2, f"error: {e}\n")
