"""`spycfr train-values GAME --stage N --out DIR`: one stage of a learned value function."""

from __future__ import annotations

import time
from pathlib import Path

import click

from spycfr.cli.options import game_command, seed_option
from spycfr.errors import SpycfrError


def _positive(name: str, value: int | float, allow_zero: bool = False) -> None:
    if not (value > 0 or (allow_zero and value == 0)):
        what = "a non-negative" if allow_zero else "a positive"
        raise SpycfrError(f"--{name} must be {what} number, got {value}")


@game_command("train-values")
@click.argument("game")
@click.option("--stage", type=int, default=1, show_default=True,
              help="Stage N: public states N-th span of public edges before the end; stage 1 "
                   "solves to the end, a later one to SPAN edges, its leaves valued by stage "
                   "N-1 (trained first, in the same --out).")
@click.option("--out", "out", required=True, type=click.Path(),
              help="Training directory: OUT/stage-N/ holds the situations, checkpoints, "
                   "stage.json (cost, held-out error) and weights.npz. Rerun to resume.")
@click.option("--situations", type=int, default=1000, show_default=True,
              help="Situation draws (a draw whose playout is too short for the stage gives "
                   "none).")
@click.option("--span", type=int, default=4, show_default=True,
              help="Public edges per stage.")
@click.option("--iterations", type=int, default=300, show_default=True,
              help="CFR+ iterations per situation's solve.")
@click.option("--internal", type=int, default=32, show_default=True,
              help="Public nodes below each solve's root kept as situations too (their "
                   "ranges the solve's reaches there; 0: the root only).")
@click.option("--queries", type=click.Path(exists=True, dir_okay=False), default=None,
              help="Situations where a re-solving agent asks for leaf values instead of "
                   "random playouts: a file of benchmarks/record_leaf_queries.py, situation "
                   "i its query i.")
@click.option("--data", "data", multiple=True, type=click.Path(exists=True, file_okay=False),
              help="Another stage directory (OUT/stage-N of an earlier run, same game, "
                   "variant and stage) whose situations are trained on as well; repeatable: "
                   "rounds at an agent's own queries each solve their new queries and train "
                   "on all rounds so far.")
@click.option("--head", type=click.Choice(["bilinear", "shift"]), default="bilinear",
              show_default=True,
              help="How the network's last layer becomes zero-sum values: a matrix M, "
                   "u0 = M p1 and u1 = -M^T p0 (bilinear), or DeepStack's shift. Either "
                   "head's values are clipped to the largest target's size.")
@seed_option(0)
@click.option("--batch", type=int, default=16, show_default=True,
              help="Situations per Dask task (and per checkpoint file).")
@click.option("--epochs", type=int, default=200, show_default=True)
@click.option("--schedule", type=click.Choice(["cosine", "constant"]), default="cosine",
              show_default=True,
              help="The learning rate over the epochs: constant, or cosine down to 0.")
@click.option("--hidden", default="256,256,256", show_default=True,
              help="Hidden layer widths, comma-separated.")
@click.option("--backend", type=click.Choice(["auto", "numpy", "torch"]), default="auto",
              show_default=True, help="Trainer: torch (the train extra) or numpy; auto takes "
                                      "torch when installed.")
@click.option("--scheduler", default=None,
              help="Address of a running Dask scheduler; default: a LocalCluster here.")
@click.option("--workers", type=int, default=None,
              help="LocalCluster worker processes (default 2; 0: in this process, no Dask).")
def train_values(game: str, preset: str | None, variant_params: dict, stage: int, out: str,
                 situations: int, span: int, iterations: int, internal: int,
                 queries: str | None, data: tuple[str, ...], head: str, seed: int,
                 batch: int, epochs: int, schedule: str, hidden: str, backend: str,
                 scheduler: str | None, workers: int | None) -> None:
    """Train one stage of GAME's value function for depth-limited re-solving.

    Random public states and DeepStack-style random ranges, each solved by CFR+; a network
    from public-state features and both ranges to both seats' counterfactual values, trained
    on them (zero-sum by construction). The weights (OUT/stage-N/weights.npz) load with
    spycfr.search.learned.LearnedValues.load(OUT).
    """
    from spycfr.games import get_plugin, make_variant

    get_plugin(game)
    make_variant(game, preset, variant_params)
    for name, value in (("stage", stage), ("situations", situations), ("span", span),
                        ("iterations", iterations), ("batch", batch), ("epochs", epochs)):
        _positive(name, value)
    _positive("internal", internal, allow_zero=True)
    if workers is not None:
        _positive("workers", workers, allow_zero=True)
    if scheduler is not None and workers is not None:
        raise SpycfrError("--workers sizes a LocalCluster; with --scheduler the cluster's own "
                          "workers are used")
    from spycfr.search.training import hidden_widths

    widths = hidden_widths(hidden)
    click.echo(f"train-values: loading the solver for {game} ...", err=True)
    from spycfr.search.situations import StageSpec, check_queries, game_model
    from spycfr.search.stages import previous_weights, run_stage
    from spycfr.search.training import TrainSettings, backend_name

    try:
        backend_name(backend)
    except ValueError as exc:
        raise SpycfrError(str(exc)) from None
    if queries is not None:
        try:
            check_queries(str(Path(queries).resolve()), game_model(game, preset,
                                                                   dict(variant_params)))
        except ValueError as exc:
            raise SpycfrError(f"--queries: {exc}") from None
    spec = StageSpec(game, preset, dict(variant_params), stage, span, iterations, seed,
                     previous_weights(out, stage), internal=internal,
                     queries=None if queries is None else str(Path(queries).resolve()))
    t0 = time.monotonic()

    def note(text: str) -> None:
        click.echo(f"train-values: {time.monotonic() - t0:6.0f}s {text}", err=True)

    record = run_stage(out, spec, situations, TrainSettings(hidden=widths, epochs=epochs,
                                                            seed=seed, backend=backend,
                                                            head=head, schedule=schedule),
                       batch, scheduler, workers, note, data)
    held = record["training"]["heldout_error"]
    also = f" and {sum(record['data_rows'])} of --data" if data else ""
    click.echo(f"{game} stage {stage}: {record['situations_made']} situations, "
               f"{record['training_rows']} rows{also} "
               f"({_generate_words(record)}, "
               f"{record['training']['train_seconds']:.0f} s to train, "
               f"{record['training']['backend']}); held-out mse {held['mse']:.3g}, "
               f"mae {held['mae']:.3g} (payoff units)")
    click.echo(f"wrote {out}/stage-{stage}/weights.npz")


def _generate_words(record: dict) -> str:
    """How long the stage's situations took to generate, as stage.json records it."""
    seconds = record.get("generate_wall_seconds")
    if seconds is None:
        return "its batches found made, their time not recorded"
    made = record.get("made_before")
    return f"{seconds:.0f} s to generate" + (f", {made['batches']} batches by {made['by']}"
                                              if made else "")
