"""The learned value function: numpy inference (zero-sum by construction), the numpy
trainer's backward pass and checkpoints, situation generation, a stage end to end on Kuhn
poker, and the command's errors. The PyTorch trainer is tested where the train extra is
installed (marked ``train``)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from cli_helpers import spycfr
from spycfr.errors import SpycfrError
from spycfr.public.protocol import TERMINAL
from spycfr.search.evaluate import Settings
from spycfr.search.learned import (
    HEADS,
    LearnedValues,
    Network,
    combine_weights,
    head_width,
    load_routes,
    load_weights,
    raw_features,
    route_weights,
    save_weights,
)
from spycfr.search.resolve import solve
from spycfr.search.situations import (
    StageSpec,
    after_decisions,
    game_model,
    generate_batch,
    leaf_queries,
    possible,
    random_path,
    rest_counts,
    rest_sizes,
    sample_range,
    situation,
)
from spycfr.search.stages import run_stage
from spycfr.search.subgame import subgame
from spycfr.search.training import (
    Data,
    TrainSettings,
    _NumpyRun,
    epoch_lr,
    init_network,
    split,
    train,
)
from spycfr.search.tree import LEAF, build
from spycfr.search.values import CommittedValues


def _net(rng, f=3, n=(4, 5), hidden=(6,), head="shift"):
    sizes = [f + n[0] + n[1], *hidden, head_width(head, n)]
    layers = [(rng.normal(size=(a, b)), rng.normal(size=b))
              for a, b in zip(sizes[:-1], sizes[1:], strict=True)]
    return Network(layers, np.zeros(f), np.ones(f), n, head)


def _data(rng, size, net):
    feats = rng.normal(size=(size, 3))
    p0 = rng.dirichlet(np.ones(4), size)
    p1 = rng.dirichlet(np.ones(5), size)
    u0, u1 = net.unit(feats, p0, p1)
    return Data(feats, p0, p1, u0, u1)


@pytest.mark.parametrize("head", HEADS)
def test_values_are_zero_sum_and_scale_with_the_opponents_mass(tmp_path, head):
    rng = np.random.default_rng(1)
    net = _net(rng, head=head)
    save_weights(tmp_path / "w.npz", net, {"game": "kuhn", "preset": None, "params": {},
                                           "z": 6.0})
    vf = LearnedValues.load(tmp_path / "w.npz", features=raw_features)
    assert vf.net.head == head
    pubs = rng.integers(0, 3, (7, 3))
    r0, r1 = rng.random((7, 4)) * 3, rng.random((7, 5)) * 0.2
    r0[0] = 0.0  # a leaf seat 0 never reaches
    v0, v1 = vf.values(pubs, r0, r1)
    assert np.allclose((r0 * v0).sum(1) + (r1 * v1).sum(1), 0.0, atol=1e-12)
    assert not np.allclose(v0[1:], 0.0)
    w0, w1 = vf.values(pubs, r0 * 2, r1 * 5)  # the same normalised ranges
    assert np.allclose(w0, v0 * 5) and np.allclose(w1, v1 * 2)
    assert np.allclose(v1[0], 0.0)


def test_bilinear_values_are_linear_in_the_opponents_range():
    rng = np.random.default_rng(11)
    net = _net(rng, head="bilinear")
    feats, p0, p1 = rng.normal(size=(1, 3)), rng.dirichlet(np.ones(4), 1), np.eye(5)[[1]]
    m = net.layers[-1]  # a one-hidden-layer net: the matrix for these inputs, by hand
    h = np.maximum(net.inputs(feats, p0, p1) @ net.layers[0][0] + net.layers[0][1], 0)
    mat = (h @ m[0] + m[1]).reshape(4, 5)
    u0, u1 = net.unit(feats, p0, p1)
    assert np.allclose(u0[0], mat[:, 1]) and np.allclose(u1[0], -p0[0] @ mat)


def test_weights_saved_before_the_heads_load_as_shift(tmp_path):
    net = _net(np.random.default_rng(12))
    save_weights(tmp_path / "w.npz", net, {"game": "kuhn", "preset": None, "params": {},
                                           "z": 6.0})
    with np.load(tmp_path / "w.npz") as f:
        old = {k: f[k] for k in f.files if k != "head"}
    np.savez(tmp_path / "old.npz", **old)
    assert load_weights(tmp_path / "old.npz")[0].head == "shift"
    assert load_weights(tmp_path / "old.npz")[0].bound == 0.0  # and answer unclipped


def test_an_ensemble_answers_its_members_average(tmp_path):
    rng = np.random.default_rng(14)
    nets = [_net(rng, head="bilinear"), _net(rng, head="shift")]
    meta = {"game": "kuhn", "preset": None, "params": {}, "z": 6.0}
    for k, net in enumerate(nets):
        save_weights(tmp_path / f"w{k}.npz", net, {**meta, "heldout_error": {"mse": 0.1 * k}})
    combine_weights(tmp_path / "e.npz", [tmp_path / "w0.npz", tmp_path / "w1.npz"])
    vf = LearnedValues.load(tmp_path / "e.npz", features=raw_features)
    assert len(vf.members) == 2 and vf.meta["ensemble"][1].endswith("w1.npz")
    # each member's held-out error kept as its own; none of them stands for the ensemble's
    assert "heldout_error" not in vf.meta
    assert vf.meta["members_heldout_error"] == [{"mse": 0.0}, {"mse": 0.1}]
    pubs = rng.integers(0, 3, (6, 3))
    r0, r1 = rng.random((6, 4)), rng.random((6, 5))
    alone = [LearnedValues.load(tmp_path / f"w{k}.npz", features=raw_features)
             .values(pubs, r0, r1) for k in (0, 1)]
    v0, v1 = vf.values(pubs, r0, r1)
    assert np.allclose(v0, (alone[0][0] + alone[1][0]) / 2)
    assert np.allclose(v1, (alone[0][1] + alone[1][1]) / 2)
    assert np.allclose((r0 * v0).sum(1) + (r1 * v1).sum(1), 0.0, atol=1e-12)
    save_weights(tmp_path / "other.npz", nets[0], {**meta, "game": "leduc"})
    with pytest.raises(ValueError, match="different games"):
        combine_weights(tmp_path / "x.npz", [tmp_path / "w0.npz", tmp_path / "other.npz"])


def test_a_route_answers_at_its_public_states_the_default_elsewhere(tmp_path):
    rng = np.random.default_rng(16)
    nets = [_net(rng, head="bilinear"), _net(rng, head="shift"), _net(rng, head="bilinear")]
    meta = {"game": "kuhn", "preset": None, "params": {}, "z": 6.0}
    for k, net in enumerate(nets):
        save_weights(tmp_path / f"w{k}.npz", net, meta)
    pubs = rng.integers(0, 3, (8, 3))
    pubs[3] = pubs[0]  # a state twice: both rows routed alike
    route_weights(tmp_path / "r.npz", tmp_path / "w0.npz",
                  [(tmp_path / "w1.npz", pubs[[0, 1]]), (tmp_path / "w2.npz", pubs[[1, 2]])])
    vf = LearnedValues.load(tmp_path / "r.npz", features=raw_features)
    assert [r.pubs.shape[0] for r in load_routes(tmp_path / "r.npz")] == [2, 2]
    assert vf.meta["routes"][0]["states"] == 2 and vf.meta["default"].endswith("w0.npz")
    r0, r1 = rng.random((8, 4)), rng.random((8, 5))
    alone = [LearnedValues.load(tmp_path / f"w{k}.npz", features=raw_features)
             .values(pubs, r0, r1) for k in range(3)]
    v0, v1 = vf.values(pubs, r0, r1)
    # the first route holding a state answers it (state 1: the first route's, not w2's)
    which = np.array([1, 1, 2, 1, 0, 0, 0, 0])
    assert np.array_equal(vf.route_of(pubs), which - 1)
    for i, k in enumerate(which):
        assert np.allclose(v0[i], alone[k][0][i]) and np.allclose(v1[i], alone[k][1][i])
    # int32 public states find the same routes
    assert np.array_equal(vf.route_of(pubs.astype(np.int32)), which - 1)
    with pytest.raises(ValueError, match="has routes"):
        combine_weights(tmp_path / "e.npz", [tmp_path / "r.npz", tmp_path / "w1.npz"])
    save_weights(tmp_path / "other.npz", nets[1], {**meta, "game": "leduc"})
    with pytest.raises(ValueError, match="another game"):
        route_weights(tmp_path / "x.npz", tmp_path / "w0.npz",
                      [(tmp_path / "other.npz", pubs[:1])])
    # a file without routes answers as before
    assert not load_routes(tmp_path / "w0.npz")


def test_route_values_script_routes_a_subgames_cut(tmp_path):
    """benchmarks/route_values.py: the route answers at the non-terminal leaves of a
    1-level subgame from Kuhn's root; a bad --route is one line."""
    import subprocess
    import sys
    from pathlib import Path

    from spycfr.search.subgame import subgame

    rng = np.random.default_rng(17)
    meta = {"game": "kuhn", "preset": None, "params": {}, "z": 6.0}
    for k in (0, 1):
        save_weights(tmp_path / f"w{k}.npz", _net(rng, head="bilinear", n=(3, 3)), meta)
    root = Path(__file__).resolve().parent.parent
    script = [sys.executable, str(root / "benchmarks" / "route_values.py"), "--default",
              str(tmp_path / "w0.npz"), "-o", str(tmp_path / "r.npz")]
    done = subprocess.run([*script, "--route", f"{tmp_path / 'w1.npz'}:1"], cwd=root,
                          capture_output=True, text=True, check=True)
    assert json.loads(done.stdout)["routes"][0]["states"] >= 1
    game = game_model("kuhn", None, {})
    tree = subgame(game, game.root(), 1)
    cut = tree.pub[tree.leaves]
    routes = load_routes(tmp_path / "r.npz")
    assert len(routes) == 1 and routes[0].pubs.shape[0] == np.unique(cut, axis=0).shape[0]
    assert set(routes[0].keys) == {p.astype(np.int64).tobytes() for p in cut}
    bad = subprocess.run([*script, "--route", str(tmp_path / "w1.npz")], cwd=root,
                         capture_output=True, text=True)
    assert bad.returncode != 0 and "Traceback" not in bad.stderr
    assert "WEIGHTS:LEVELS" in bad.stderr.strip().splitlines()[-1]


def test_rest_counts_keep_more_queries_far_from_the_end():
    game = game_model("kuhn", None, {})
    full = build(game)
    sizes = rest_sizes(full)
    assert sizes[0] == full.size and (full.kind == TERMINAL).any()
    assert (sizes[full.kind == TERMINAL] == 1).all()
    for node in range(full.size):  # a node's rest is itself and its children's
        kids = np.flatnonzero(full.parent == node)
        assert sizes[node] == 1 + sizes[kids].sum()
    counts = rest_counts(full, 3, 4, 0)
    assert np.array_equal(counts, 3 * np.ceil(sizes / 4).astype(int))
    assert rest_counts(full, 3, 4, 7).max() == 7 and rest_counts(full, 3, 0, 7) is None
    with pytest.raises(ValueError, match="at least 1"):
        rest_counts(full, 0, 4, 0)


def test_leaf_queries_keep_the_rest_weighted_counts():
    game = game_model("kuhn", None, {})
    full = build(game)
    vf = CommittedValues(full, solve(full, game.weights, 100).strategy)
    settings = Settings(iterations=30, depth=1, value_function=vf)
    plain = leaf_queries(game, settings, 1, 0, full)
    more = leaf_queries(game, settings, 1, 0, full, rest_scale=2, max_per_state=4)
    counts = rest_counts(full, 1, 2, 4)
    index = {p.tobytes(): n for n, p in enumerate(full.pub)}
    states, got = np.unique(more["pub"], axis=0, return_counts=True)
    assert more["pub"].shape[0] > plain["pub"].shape[0] and int(more["total"]) == \
        int(plain["total"])
    for p, k in zip(states, got, strict=True):
        assert k <= counts[index[p.tobytes()]]
    assert (got > 1).any()
    # the same draw: every query of the plain sample is kept in the larger one
    rows = {np.concatenate([p, a, b]).tobytes()
            for p, a, b in zip(more["pub"], more["r0"], more["r1"], strict=True)}
    assert all(np.concatenate([p, a, b]).tobytes() in rows
               for p, a, b in zip(plain["pub"], plain["r0"], plain["r1"], strict=True))


@pytest.mark.parametrize("head", HEADS)
def test_values_stay_within_the_networks_bound(head):
    """Clipped at inference (weights saved before the bound answer unclipped)."""
    rng = np.random.default_rng(13)
    net = _net(rng, head=head)
    feats = rng.normal(size=(50, 3))
    p0, p1 = rng.dirichlet(np.ones(4), 50), rng.dirichlet(np.ones(5), 50)
    free = max(np.abs(u).max() for u in net.unit(feats, p0, p1))
    net.bound = 0.2 * free
    u0, u1 = net.unit(feats, p0, p1)
    assert max(np.abs(u0).max(), np.abs(u1).max()) <= net.bound + 1e-12
    assert np.isclose(max(np.abs(u0).max(), np.abs(u1).max()), net.bound)  # some were cut


@pytest.mark.parametrize("head", HEADS)
def test_numpy_backward_pass_matches_finite_differences(head):
    rng = np.random.default_rng(2)
    target = _net(rng)
    data = _data(rng, 8, target)
    data.u0 += rng.normal(size=data.u0.shape)
    data.m0 = (rng.random(data.u0.shape) < 0.6).astype(float)  # values the loss ignores
    net = init_network(data, (6,), seed=3, head=head)
    net.bound = 0.0  # the loss is on the values before the inference's clip
    run = _NumpyRun(net, TrainSettings(lr=0.0), None)  # lr 0: the step leaves the weights

    def loss() -> float:
        u0, u1 = net.unit(data.feats, data.p0, data.p1)
        return float(((data.m0 * (u0 - data.u0) ** 2).sum() + ((u1 - data.u1) ** 2).sum())
                     / (data.m0.sum() + u1.size))

    base = loss()
    assert run._step(data, 0.0) == pytest.approx(base)
    # Adam's first moment after one step is 0.1 * grad; the first layer's and the head's
    for k, (i, j) in [(0, (0, 0)), (0, (4, 2)), (0, (9, 5)), (-1, (1, 3)), (-1, (5, 2))]:
        w, grads = net.layers[k][0], run.m[k][0] / (1 - 0.9)
        w[i, j] += 1e-6
        numeric = (loss() - base) / 1e-6
        w[i, j] -= 1e-6
        assert grads[i, j] == pytest.approx(numeric, rel=1e-3, abs=1e-7)


def test_numpy_trainer_learns_and_resumes_from_its_checkpoint(tmp_path):
    rng = np.random.default_rng(4)
    data = _data(rng, 200, _net(rng))
    settings = TrainSettings(hidden=(16,), epochs=30, batch=32, lr=3e-3, backend="numpy",
                             schedule="constant")
    net, record = train(data, settings)
    assert record["train_error"]["mse"] < 0.2 * float(
        np.mean(np.concatenate([data.u0, data.u1], 1) ** 2))
    assert record["heldout_situations"] == 20
    # 30 epochs in one go equal 12, an interruption, then the rest from the checkpoint
    ck = tmp_path / "ck.npz"
    train(data, TrainSettings(**{**settings.__dict__, "epochs": 12}), ck)
    resumed, _ = train(data, settings, ck)
    for (a, b), (c, d) in zip(net.layers, resumed.layers, strict=True):
        assert np.array_equal(a, c) and np.array_equal(b, d)


@pytest.mark.parametrize("backend", ["numpy", pytest.param("torch", marks=pytest.mark.train)])
def test_the_loss_ignores_values_a_seat_cannot_hold(backend):
    if backend == "torch":
        pytest.importorskip("torch", reason="the train extra (PyTorch) is not installed")
    rng = np.random.default_rng(8)
    data = _data(rng, 60, _net(rng))
    data.m0 = (rng.random(data.u0.shape) < 0.5).astype(float)
    noisy = data.take(np.arange(data.size))
    noisy.u0 = np.where(data.m0 > 0, data.u0, rng.normal(0, 50, data.u0.shape))
    settings = TrainSettings(hidden=(8,), epochs=3, batch=16, backend=backend)
    a, ra = train(data, settings)
    b, rb = train(noisy, settings)
    for (w, x), (y, z) in zip(a.layers, b.layers, strict=True):
        assert np.allclose(w, y) and np.allclose(x, z)
    assert ra["heldout_error"] == rb["heldout_error"]
    unmasked = Data(noisy.feats, noisy.p0, noisy.p1, noisy.u0, noisy.u1)
    c, _ = train(unmasked, settings)
    assert not np.allclose(a.layers[0][0], c.layers[0][0])  # the noise does count unmasked


def test_the_cosine_schedule_decays_the_learning_rate_to_zero():
    s = TrainSettings(lr=0.01, epochs=10)
    rates = [epoch_lr(s, e) for e in range(10)]
    assert rates[0] == 0.01 and all(a > b for a, b in zip(rates, rates[1:], strict=False))
    assert rates[-1] < 0.001 and epoch_lr(TrainSettings(lr=0.01, schedule="constant"), 7) == 0.01
    with pytest.raises(ValueError, match="unknown learning-rate schedule"):
        epoch_lr(TrainSettings(schedule="step"), 0)


def test_held_out_rows_are_whole_situations():
    group = np.repeat(np.arange(10), 4)[np.random.default_rng(9).permutation(40)]
    tr, ho = split(group, 0.2, seed=1)
    assert np.array_equal(np.sort(np.concatenate([tr, ho])), np.arange(40))
    assert np.unique(group[ho]).size == 2 and not set(group[ho]) & set(group[tr])


def test_concatenated_data_keeps_each_parts_situations_apart():
    rng = np.random.default_rng(7)
    net = _net(rng)
    a, b = _data(rng, 6, net), _data(rng, 4, net)
    a.group = np.array([3, 3, 5, 5, 9, 9])
    b.group = np.array([3, 3, 4, 4])  # the same numbers, other situations
    both = Data.concat([a, b])
    assert both.size == 10 and np.array_equal(both.u0[6:], b.u0)
    assert np.array_equal(both.group, [0, 0, 1, 1, 2, 2, 3, 3, 4, 4])


def test_a_stage_trains_on_other_stage_directories_too(tmp_path):
    """``data``: an earlier round's situations join this stage's own in the training;
    another variant's are refused before any work."""
    settings = TrainSettings(hidden=(8,), epochs=2, batch=16, backend="numpy")
    spec = StageSpec("kuhn", None, {}, 1, 4, 50, seed=0)
    first = run_stage(tmp_path / "a", spec, 12, settings, batch=12, workers=0)
    other = StageSpec("kuhn", None, {}, 1, 4, 50, seed=1)
    record = run_stage(tmp_path / "b", other, 12, settings, batch=12, workers=0,
                       data=(str(tmp_path / "a" / "stage-1"),))
    assert record["data_rows"] == [first["training_rows"]]
    trained = record["training"]
    assert trained["train_rows"] + trained["heldout_rows"] == \
        record["training_rows"] + first["training_rows"]
    code, _, err = spycfr("train-values", "kuhn", "--out", str(tmp_path / "c"), "--stage", "1",
                          "--data", str(tmp_path / "a"))
    assert code == 2 and "is not a stage directory" in err.strip().splitlines()[-1], err
    leduc = StageSpec("leduc", None, {}, 1, 4, 50, seed=0)
    with pytest.raises(Exception, match="holds situations of"):
        run_stage(tmp_path / "d", leduc, 12, settings, batch=12, workers=0,
                  data=(str(tmp_path / "a" / "stage-1"),))
    assert not (tmp_path / "d").exists()


def test_sample_range_is_a_distribution_on_its_support():
    rng = np.random.default_rng(5)
    support = np.array([True, False, True, True, False, True, True])
    draws = np.array([sample_range(support, rng) for _ in range(200)])
    assert np.allclose(draws.sum(1), 1.0) and not draws[:, ~support].any()
    assert draws.max(1).min() < 0.6 and draws.max(1).max() > 0.9  # flat ones and peaked ones
    with pytest.raises(ValueError, match="at least one"):
        sample_range(np.zeros(3, bool), rng)


def test_situations_are_subgame_solves_and_reproducible():
    spec = StageSpec("kuhn", None, {}, 1, 4, 400, seed=7, internal=3)
    batch = generate_batch(spec.as_dict(), 0, 6)
    again = generate_batch(spec.as_dict(), 3, 3)  # another split of the same indices
    assert batch["root"].sum() == 6 and (~batch["root"]).sum() > 6  # nodes below the roots
    for k in ("pub", "r0", "v0", "v1", "m0", "root"):
        assert np.array_equal(batch[k][batch["index"] >= 3], again[k])
    game = game_model("kuhn", None, {})
    rows = zip(*(batch[k] for k in ("pub", "r0", "r1", "v0", "v1", "root")), strict=True)
    for pub, r0, r1, v0, v1, root in rows:
        sol = solve(build(game, pub), (r0, r1), 400)
        if root:  # the solve itself: its best-response values
            assert r0.sum() == pytest.approx(1.0) and r1.sum() == pytest.approx(1.0)
            assert np.allclose(sol.best[0][0], v0) and np.allclose(sol.best[1][0], v1)
        # a node below a root is a subgame of its own from the reaches there: solved afresh,
        # its value to each seat (unique, unlike the values per private state) is the same
        assert r0 @ sol.best[0][0] == pytest.approx(r0 @ v0, abs=0.01 * r1.sum())
        assert r1 @ sol.best[1][0] == pytest.approx(r1 @ v1, abs=0.01 * r0.sum())
        assert r0 @ v0 + r1 @ v1 == pytest.approx(0.0, abs=0.01 * r0.sum() * r1.sum())


def test_leaf_queries_are_the_agents_and_solve_as_situations(tmp_path):
    game = game_model("kuhn", None, {})
    full = build(game)
    vf = CommittedValues(full, solve(full, game.weights, 100).strategy)
    settings = Settings(iterations=30, depth=1, value_function=vf)
    q = leaf_queries(game, settings, 3, 0, full)
    again = leaf_queries(game, settings, 3, 0, full)
    assert all(np.array_equal(q[k], again[k]) for k in q)
    _, per_state = np.unique(q["pub"], axis=0, return_counts=True)
    assert per_state.max() == 3 and int(q["total"]) > q["pub"].shape[0]
    assert ((q["r0"].sum(1) > 0) | (q["r1"].sum(1) > 0)).all()
    assert not q["r0"][~q["m0"]].any() and not q["r1"][~q["m1"]].any()
    np.savez(tmp_path / "q.npz", **q)
    spec = StageSpec("kuhn", None, {}, 1, 4, 200, seed=0, queries=str(tmp_path / "q.npz"))
    # a leaf seat 1 never reaches: solved as holding any card it can hold there; the
    # values against its range of 0 (seat 0's) are not learned
    k = int(np.flatnonzero(q["r1"].sum(1) == 0)[0])
    row = situation(game, spec, k, None)
    assert np.array_equal(row["r1"][0], q["r1"][k]) and not row["m0"][0].any()
    sol = solve(build(game, q["pub"][k]), (q["r0"][k], q["m1"][k].astype(float)), 200)
    assert np.allclose(row["v1"][0], sol.best[1][0]) and row["m1"][0].any()
    assert situation(game, spec, q["pub"].shape[0], None) is None  # past the file's end


def test_situations_after_decisions_are_the_leaves_of_a_subgame_that_deep():
    """``after_decisions`` D: each situation's root is a decision node where a subgame D
    decision levels below the game's root cuts a leaf (Kuhn: D = 1 is P2's first decision,
    after either move; D = 2 only P1's answer to a bet after a check); a playout that ends
    first gives none."""
    # private chance, P1, P2, public chance, P1, terminal
    kinds = [3, 0, 1, 2, 0, -1]
    assert [after_decisions(kinds, d) for d in range(4)] == [[1], [2], [4], []]
    game = game_model("kuhn", None, {})
    for d in (1, 2):
        tree = subgame(game, game.root(), d, terminal_leaves=False)
        leaves = {p.tobytes() for p in tree.pub[tree.kind == LEAF]}
        spec = StageSpec("kuhn", None, {}, 1, 4, 50, seed=0, after_decisions=d)
        batch = generate_batch(spec.as_dict(), 0, 12)
        roots = batch["pub"][batch["root"]]
        assert {p.tobytes() for p in roots} == leaves  # every such leaf drawn, none else
        assert (roots.shape[0] == 12) == (d == 1)  # at 2, the playouts without a bet end
    none = StageSpec("kuhn", None, {}, 1, 4, 50, seed=0, after_decisions=3)
    assert generate_batch(none.as_dict(), 0, 6)["index"].size == 0


def test_a_stage_without_situations_names_where_its_roots_are(tmp_path):
    """A stage whose draws give no situation, or too few to train, says where its roots
    are: by ``after_decisions`` the decisions (Kuhn has at most 3), by span the edges."""
    settings = TrainSettings(hidden=(8,), epochs=2, batch=16, backend="numpy")
    deep = StageSpec("kuhn", None, {}, 1, 4, 20, seed=0, after_decisions=3)
    with pytest.raises(SpycfrError, match=r"made no situations: no draw reached its roots "
                                          r"\(.* after its first 3 decisions\)"):
        run_stage(tmp_path / "deep", deep, 4, settings, batch=4, workers=0)
    # roots after D decisions are solved to the end: a later stage of them is refused
    with pytest.raises(ValueError, match="stage 1 only"):
        StageSpec("kuhn", None, {}, 2, 2, 20, seed=0, after_decisions=1)
    late = StageSpec("kuhn", None, {}, 3, 2, 20, seed=0)
    with pytest.raises(SpycfrError, match=r"made no situations: no draw reached its roots "
                                          r"\(public states 5 to 6 public edges before"):
        run_stage(tmp_path / "late", late, 4, settings, batch=4, workers=0)
    # P1's answer to a bet after a check: the draws up to the first that reaches it
    one = StageSpec("kuhn", None, {}, 1, 4, 20, seed=0, after_decisions=2)
    game = game_model("kuhn", None, {})
    n = next(i + 1 for i in range(50) if situation(game, one, i, None) is not None)
    with pytest.raises(SpycfrError, match=r"has only 1 situation: too few to train .* this "
                                          r"stage's: .* after its first 2 decisions\)"):
        run_stage(tmp_path / "one", one, n, settings, batch=n, workers=0)


def test_the_pool_script_trains_an_ensemble_and_packs_its_situations(tmp_path):
    """benchmarks/train_values_pool.py (the lent machine's command): ``--seeds`` trains a
    network per seed on the same situations and averages them into ensemble.npz, each
    member's held-out error in stage.json; ``--pack`` writes the situations into files that
    load as the stage's own batches; ``--train-deadline`` leaves out a member that could
    not end in time and keeps the others."""
    from spycfr.search.learned import load_members
    from spycfr.search.stages import load_situations

    def pool(out: Path, *extra: str) -> dict:
        proc = subprocess.run(
            [sys.executable, str(Path(__file__).resolve().parent.parent / "benchmarks"
                                 / "train_values_pool.py"), "kuhn", "--out", str(out),
             "--after-decisions", "1", "--situations", "30", "--batch", "5",
             "--iterations", "30", "--budget", "60", "--processes", "2", "--hidden", "8",
             "--epochs", "2", "--train-batch", "8", "--seeds", "0,1,2", *extra],
            capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, proc.stderr
        return json.loads((out / "stage-1" / "stage.json").read_text())

    record = pool(tmp_path / "a", "--pack", str(tmp_path / "sit"), "--pack-mb", "0.003")
    d = tmp_path / "a" / "stage-1"
    members, _ = load_members(d / "ensemble.npz")
    own = [load_members(d / name)[0][0] for name in
           ("weights.npz", "weights-seed-1.npz", "weights-seed-2.npz")]
    assert len(members) == 3 and [m["seed"] for m in record["ensemble"]] == [0, 1, 2]
    for net, alone in zip(members, own, strict=True):
        assert np.array_equal(net.layers[0][0], alone.layers[0][0])
    assert not np.array_equal(own[0].layers[0][0], own[1].layers[0][0])
    assert all(m["heldout_error"]["mse"] >= 0 for m in record["ensemble"])
    packed = record["packed"]
    assert len(packed) > 1 and sum(p["rows"] for p in packed) == record["training_rows"]
    again = tmp_path / "b" / "situations"
    again.mkdir(parents=True)
    for k, p in enumerate(packed):
        Path(p["file"]).rename(again / f"batch-{k:07d}.npz")
    spec = StageSpec(**record["config"]["spec"])
    assert spec.after_decisions == 1
    first, repacked = load_situations(d, spec)[0], load_situations(again.parent, spec)[0]
    assert np.array_equal(first.feats, repacked.feats) and np.array_equal(first.u0,
                                                                          repacked.u0)
    late = pool(tmp_path / "c", "--train-deadline", "0")
    assert [m.get("left_out") for m in late["ensemble"]] == [None, "the deadline",
                                                             "the deadline"]
    assert len(load_members(tmp_path / "c" / "stage-1" / "ensemble.npz")[0]) == 1


def test_learned_values_bench_at_depth_0_trains_ensembles_and_measures_nothing(tmp_path):
    """benchmarks/bench_learned_values.py --depth 0 (a network for another agent's walk):
    each variant trained on the stage's situations and --data's, an ensemble averaged, no
    agent measured. The ensemble's line measured the depth-0 agent all the same (an
    IndexError's traceback in evaluate.assemble), on the whole game's tree built whatever
    the depth (on Agent Hunter small, 2.3 M public nodes, for nothing)."""
    from spycfr.search.learned import load_members

    settings = TrainSettings(hidden=(8,), epochs=2, batch=16, backend="numpy")
    for name, seed in (("a", 0), ("b", 1)):
        run_stage(tmp_path / name, StageSpec("kuhn", None, {}, 1, 4, 30, seed=seed), 12,
                  settings, batch=12, workers=0)
    variants = json.dumps([{"name": f"s{k}", "hidden": [8], "epochs": 2, "batch": 16,
                            "seed": k, "backend": "numpy"} for k in (0, 1)]
                          + [{"name": "both", "ensemble": ["s0", "s1"]}])
    d = tmp_path / "a" / "stage-1"
    proc = subprocess.run(
        [sys.executable, str(Path(__file__).resolve().parent.parent / "benchmarks"
                             / "bench_learned_values.py"), str(d), variants, "--depth", "0",
         "--data", str(tmp_path / "b" / "stage-1")],
        capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(x) for x in proc.stdout.splitlines()[1:]]
    assert [x["variant"]["name"] for x in lines] == ["s0", "s1", "both"]
    assert all(x["exploitability"] is None for x in lines)
    assert lines[0]["rows"] == 24  # both stages' situations
    members, _ = load_members(d / "variant-both.npz")
    assert len(members) == 2


def test_a_rounds_ensemble_replaces_the_stages_network_trained_on_every_rounds_data(
        tmp_path):
    """stages.train_ensemble into weights.npz (train_values_rounds.py --seeds: the next round
    loads a stage's weights.npz): the members' average, its first member run_stage's network
    (kept as weights-seed-0.npz), the others trained on the stage's situations and the
    earlier rounds' (``data``), in run_stage's order, as a train() of the same rows does."""
    from dataclasses import replace

    from spycfr.search.learned import load_members
    from spycfr.search.stages import load_situations, train_ensemble
    from spycfr.search.training import Data, train

    settings = TrainSettings(hidden=(8,), epochs=2, batch=16, backend="numpy")
    specs = [StageSpec("kuhn", None, {}, 1, 4, 30, seed=seed) for seed in (0, 1)]
    run_stage(tmp_path / "a", specs[0], 12, settings, batch=12, workers=0)
    first = run_stage(tmp_path / "b", specs[1], 12, settings, batch=12, workers=0,
                      data=(str(tmp_path / "a" / "stage-1"),))
    d = tmp_path / "b" / "stage-1"
    alone = load_members(d / "weights.npz")[0][0]
    members = train_ensemble(d, specs[1], settings, [0, 3, 5], first["training"],
                             data=(str(tmp_path / "a" / "stage-1"),), into="weights.npz")
    assert [m["seed"] for m in members] == [0, 3, 5]
    nets, meta = load_members(d / "weights.npz")
    assert len(nets) == 3 and len(meta["members_heldout_error"]) == 3
    assert np.array_equal(nets[0].layers[0][0], alone.layers[0][0])
    assert np.array_equal(load_members(d / "weights-seed-0.npz")[0][0].layers[0][0],
                          alone.layers[0][0])
    rows = Data.concat([load_situations(d, specs[1])[0],
                        load_situations(tmp_path / "a" / "stage-1", specs[0])[0]])
    assert rows.size == 24
    again, _ = train(rows, replace(settings, seed=5))
    other, _ = train(load_situations(d, specs[1])[0],
                     replace(settings, seed=5))
    saved = nets[2].layers[0][0]  # saved as float32
    assert np.allclose(saved, again.layers[0][0], rtol=0, atol=1e-6)
    assert not np.allclose(saved, other.layers[0][0], rtol=0, atol=1e-3)  # its own rows alone
    assert not np.allclose(nets[1].layers[0][0], saved, rtol=0, atol=1e-3)


def test_the_rounds_script_trains_each_round_an_ensemble_the_next_round_walks(tmp_path):
    """benchmarks/train_values_rounds.py --seeds: each round's weights.npz is the average of
    one network per seed, trained on that round's situations and the earlier rounds'; the
    next round's walk loads it; the members' records in rounds.jsonl."""
    from spycfr.search.learned import load_members

    proc = subprocess.run(
        [sys.executable, str(Path(__file__).resolve().parent.parent / "benchmarks"
                             / "train_values_rounds.py"), "agent-hunter", "--preset", "tiny",
         "--out", str(tmp_path), "--rounds", "2", "--per-state", "1",
         "--blueprint-iterations", "50", "--solve-iterations", "20", "--iterations", "10",
         "--depth", "2", "--epochs", "2", "--hidden", "8", "--seeds", "0,1"],
        capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(x) for x in (tmp_path / "rounds.jsonl").read_text().splitlines()]
    assert [x["round"] for x in lines] == [0, 1, 2]
    for k in (0, 1):
        training = lines[k]["training"]
        assert [m["seed"] for m in training["ensemble"]] == [0, 1]
        rows = training["training_rows"] + sum(training.get("data_rows", []))
        assert all(m["heldout_rows"] < rows for m in training["ensemble"])
        assert len(load_members(tmp_path / f"round-{k}" / "stage-1" / "weights.npz")[0]) == 2
    assert lines[1]["training"]["data_rows"] == [lines[0]["training"]["training_rows"]]
    assert lines[2]["leaves"] == "round-1" and "training" not in lines[2]


def test_possible_private_states_follow_the_root_support():
    game = game_model("kuhn", None, {})
    tree = build(game)
    m0, m1 = possible(tree, np.array([True, False, True]), np.ones(3, bool))
    assert not m0[:, 1].any() and m1.all()
    assert m0[:, [0, 2]].all()  # Kuhn masks nothing: every node open to every card


@pytest.mark.slow
def test_a_stage_on_kuhn_end_to_end(tmp_path):
    spec = StageSpec("kuhn", None, {}, 1, 4, 100, seed=0)
    settings = TrainSettings(hidden=(32,), epochs=40, batch=16, backend="numpy")
    record = run_stage(tmp_path, spec, 60, settings, batch=20, workers=0)
    assert record["situations_made"] > 30
    held = record["training"]["heldout_error"]
    assert held["mse"] < 0.5 * held["target_ms"]  # far better than answering 0
    vf = LearnedValues.load(tmp_path)  # the directory: its last stage
    net, meta = load_weights(tmp_path / "stage-1" / "weights.npz")
    assert meta["game"] == "kuhn" and meta["stage"] == 1 and vf.net.n == net.n
    stored = json.loads((tmp_path / "stage-1" / "stage.json").read_text())
    assert stored["training"]["heldout_error"] == held
    # resuming finds every batch made and the training finished: nothing is redone
    again = run_stage(tmp_path, spec, 60, settings, batch=20, workers=0)
    assert again["situations_made"] == record["situations_made"]
    assert again["training"]["train_seconds"] >= record["training"]["train_seconds"]
    with pytest.raises(Exception, match="other settings"):
        run_stage(tmp_path, spec, 80, settings, batch=20, workers=0)


def test_a_stage_records_how_long_its_batches_took_whoever_made_them(tmp_path):
    """generate_wall_seconds is the time the stage's batches took: the stage's own
    generation, summed over its runs; a pool's (benchmarks/train_values_pool.py) where the
    pool made every batch before the stage ran, recorded as made_before; not known (None)
    where batches were found made and nothing says how long they took. It read the
    microseconds of finding them (6e-06 in results/gpu/train-values-tiny-h200-2026-11-27.json)."""
    from spycfr.io import save_npz
    from spycfr.search.situations import generate_batch
    from spycfr.search.stages import stage_dir

    spec = StageSpec("kuhn", None, {}, 1, 4, 20, seed=0)
    settings = TrainSettings(hidden=(8,), epochs=2, batch=16, backend="numpy")
    own = run_stage(tmp_path / "own", spec, 8, settings, batch=4, workers=0)
    assert own["generate_wall_seconds"] > 0.001 and own["batches_generated"] == 2
    again = run_stage(tmp_path / "own", spec, 8, settings, batch=4, workers=0)  # all found
    assert again["generate_wall_seconds"] == own["generate_wall_seconds"]
    assert again["batches_generated"] == 2
    for name in ("pool", "found"):  # every batch made before the stage ran
        folder = stage_dir(tmp_path / name, 1) / "situations"
        folder.mkdir(parents=True)
        for start in (0, 4):
            save_npz(folder / f"batch-{start:07d}.npz", **generate_batch(spec.as_dict(), start, 4))
    made = {"by": "a pool of 16 processes", "batches": 2, "wall_seconds": 70.5}
    pool = run_stage(tmp_path / "pool", spec, 8, settings, batch=4, workers=0, made_before=made)
    assert pool["generate_wall_seconds"] == 70.5 and pool["made_before"] == made
    assert pool["batches_generated"] == 0
    found = run_stage(tmp_path / "found", spec, 8, settings, batch=4, workers=0)
    assert found["generate_wall_seconds"] is None
    stored = json.loads((stage_dir(tmp_path / "pool", 1) / "stage.json").read_text())
    assert stored["generate_wall_seconds"] == 70.5


def test_a_stage_recorded_before_the_heads_resumes_as_shift(tmp_path):
    """A stage.json written before `head` and `queries` were recorded (its network had the
    shift head, its situations were random) resumes with those settings and names what
    differs otherwise; one older still (no `internal`: situation files without masks) is
    refused as unreadable."""
    spec = StageSpec("kuhn", None, {}, 1, 4, 20, seed=0)
    shift = TrainSettings(hidden=(8,), epochs=2, batch=16, backend="numpy", head="shift")
    made = run_stage(tmp_path, spec, 8, shift, batch=4, workers=0)
    path = tmp_path / "stage-1" / "stage.json"
    old = json.loads(path.read_text())
    del old["config"]["spec"]["queries"], old["config"]["train"]["head"]
    del old["config"]["spec"]["after_decisions"]
    path.write_text(json.dumps(old))
    again = run_stage(tmp_path, spec, 8, shift, batch=4, workers=0)
    assert again["situations_made"] == made["situations_made"]
    path.write_text(json.dumps(old))
    bilinear = TrainSettings(hidden=(8,), epochs=2, batch=16, backend="numpy")
    with pytest.raises(SpycfrError, match=r"train.head: 'shift' there, 'bilinear' now\); use "):
        run_stage(tmp_path, spec, 8, bilinear, batch=4, workers=0)
    del old["config"]["spec"]["internal"]
    path.write_text(json.dumps(old))
    with pytest.raises(SpycfrError, match=r"spec.internal: not recorded, 0 now\); it was made "
                                          "by an earlier spycfr"):
        run_stage(tmp_path, spec, 8, shift, batch=4, workers=0)


@pytest.mark.parametrize("args, words", [
    (["--stage", "0"], "--stage must be a positive"),
    (["--hidden", "64,x"], "--hidden 64,x: layer widths are whole numbers from 1"),
    (["--hidden", "64,0"], "--hidden 64,0: layer widths are whole numbers from 1"),
    (["--stage", "2"], "needs stage 1's weights"),
    (["--workers", "2", "--scheduler", "tcp://127.0.0.1:1"], "--workers sizes a LocalCluster"),
])
def test_train_values_bad_input_is_one_line(tmp_path, args, words):
    code, _, err = spycfr("train-values", "kuhn", "--out", str(tmp_path / "v"), *args)
    lines = err.strip().splitlines()
    assert code == 2 and lines[-1].startswith("error: ") and words in lines[-1], err


def test_train_values_refuses_a_queries_file_it_cannot_use(tmp_path):
    """Another game's queries, or a file that is no queries file, fail in one line."""
    game = game_model("kuhn", None, {})
    n, m = game.n[0] + 2, game.root().size
    np.savez(tmp_path / "other.npz", pub=np.zeros((4, m)), r0=np.zeros((4, n)),
             r1=np.zeros((4, n)), m0=np.zeros((4, n), bool), m1=np.zeros((4, n), bool))
    (tmp_path / "text.npz").write_text("not arrays")
    for name, words in (("other.npz", "another game or variant: r0 has shape (4, 5)"),
                        ("text.npz", "is not a leaf-queries file")):
        code, _, err = spycfr("train-values", "kuhn", "--out", str(tmp_path / "v"),
                              "--queries", str(tmp_path / name))
        lines = err.strip().splitlines()
        assert code == 2 and lines[-1].startswith("error: --queries: ") \
            and words in lines[-1], err
    assert not (tmp_path / "v").exists()


@pytest.mark.train
@pytest.mark.parametrize("head", HEADS)
def test_torch_trainer_matches_numpy_inference(tmp_path, head):
    pytest.importorskip("torch", reason="the train extra (PyTorch) is not installed")
    rng = np.random.default_rng(6)
    data = _data(rng, 200, _net(rng, head=head))
    settings = TrainSettings(hidden=(16,), epochs=30, batch=32, lr=3e-3, backend="torch",
                             head=head, schedule="constant")
    net, record = train(data, settings, tmp_path / "ck.npz")
    assert record["backend"] == "torch" and net.head == head
    assert record["train_error"]["mse"] < 0.3 * float(
        np.mean(np.concatenate([data.u0, data.u1], 1) ** 2))
    assert (tmp_path / "ck.pt").exists()
    # the same first step as the numpy trainer: one epoch of one batch from the same start
    one = TrainSettings(**{**settings.__dict__, "epochs": 1, "batch": 500})
    a, _ = train(data, one)
    b, _ = train(data, TrainSettings(**{**one.__dict__, "backend": "numpy"}))
    for (w, x), (y, z) in zip(a.layers, b.layers, strict=True):
        assert np.allclose(w, y, atol=1e-5) and np.allclose(x, z, atol=1e-5)


def test_agent_hunter_features_tell_public_states_apart():
    from spycfr.games import get_plugin, make_variant

    variant = make_variant("agent-hunter", "tiny")
    game = game_model("agent-hunter", "tiny", {})
    rng = np.random.default_rng(0)
    pubs = np.array([p for _ in range(40) for p, _, _ in random_path(game, rng)])
    feats = get_plugin("agent-hunter").value_features(variant)(pubs)
    assert feats.shape[0] == pubs.shape[0] and np.isfinite(feats).all()
    assert np.unique(feats, axis=0).shape[0] == np.unique(pubs, axis=0).shape[0]


def test_the_committed_tiny_weights_answer_within_the_payoff_range():
    """results/tiny-values: loads with the game's own features; its values per unit of
    opponent range stay in [-1, 1] (its exploitability is measured in docs/search.md)."""
    from pathlib import Path

    vf = LearnedValues.load(Path(__file__).resolve().parent.parent / "results" / "tiny-values"
                            / "weights.npz")
    assert (vf.meta["game"], vf.meta["preset"]) == ("agent-hunter", "tiny")
    assert vf.net.bound == pytest.approx(1.0)  # the largest target: a whole game's payoff
    game = game_model("agent-hunter", "tiny", {})
    rng = np.random.default_rng(15)
    r0, r1 = rng.random((5, game.n[0])), rng.random((5, game.n[1]))
    v0, v1 = vf.values(np.repeat(game.root()[None, :], 5, axis=0), r0, r1)
    assert np.abs(v0 / r1.sum(1, keepdims=True)).max() <= vf.net.bound / game.z + 1e-12
    assert np.abs(v1 / r0.sum(1, keepdims=True)).max() <= vf.net.bound / game.z + 1e-12


def test_the_committed_mini_weights_answer_within_the_payoff_range():
    """results/mini-values: loads as the search agent's leaves on mini (the configuration its
    README measures, nothing solved here); at the public states its plan asks (the leaves of
    the first 4 decision levels) its values per unit of opponent range stay within the
    payoff range; its meta says how it was made and what it measured."""
    from pathlib import Path

    from spycfr.games import make_variant
    from spycfr.public.protocol import python_impl
    from spycfr.search.agent import AgentConfig, SearchAgent
    from spycfr.search.subgame import subgame

    path = Path(__file__).resolve().parent.parent / "results" / "mini-values" / "weights.npz"
    vf = LearnedValues.load(path)
    assert (vf.meta["game"], vf.meta["preset"]) == ("agent-hunter", "mini")
    assert "train_values_rounds.py" in vf.meta["made_by"]
    assert vf.meta["measured"]["exploitability"] <= 0.01
    assert vf.net.bound == pytest.approx(1.0)
    agent = SearchAgent("agent-hunter", make_variant("agent-hunter", "mini").as_dict(),
                        AgentConfig(value_function="learned", value_file=str(path),
                                    **vf.meta["measured"]["agent"]))
    game = agent.model
    plan = subgame(game, game.root(), 4)
    current = python_impl(game.params, "current_player")
    leaves = np.array([n for n in plan.leaves if current(plan.pub[n], game.params) != TERMINAL])
    assert leaves.size > 1000
    leaves = leaves[::7]
    rng = np.random.default_rng(22)
    r0, r1 = rng.random((leaves.size, game.n[0])), rng.random((leaves.size, game.n[1]))
    v0, v1 = agent.values.values(plan.pub[leaves], r0, r1)
    assert np.isfinite(v0).all() and np.isfinite(v1).all()
    assert np.abs(v0 / r1.sum(1, keepdims=True)).max() <= vf.net.bound / game.z + 1e-12
    assert np.abs(v1 / r0.sum(1, keepdims=True)).max() <= vf.net.bound / game.z + 1e-12


def test_weights_trained_on_other_features_are_refused(tmp_path):
    net = _net(np.random.default_rng(7))  # 3 features
    save_weights(tmp_path / "w.npz", net, {"game": "kuhn", "preset": None, "params": {},
                                           "z": 6.0, "example_pub": [0, 1, 2, 3]})
    with pytest.raises(ValueError, match="trained on 3 features"):
        LearnedValues.load(tmp_path / "w.npz", features=raw_features)  # 4 columns
