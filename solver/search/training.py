"""Training the value network (:mod:`spycfr.search.learned`) on solved situations.

Loss: mean squared error of the zero-sum-corrected outputs against the situations' values
per unit of opponent range (payoff units), over the private states a seat can hold at the
public state (the others' values never reach a re-solve: a chance mask or the rules zero
them). Adam, minibatches, a seeded held-out split by situation (the rows of one solve are
held out together); a checkpoint after every epoch, so an interrupted training resumes where
it stopped.

Two interchangeable backends train the same network with the same loss: PyTorch (the
``train`` extra: autograd, any GPU torch sees) and a numpy one (hand-written backward pass),
which needs nothing beyond the product's dependencies and is what CI tests. ``auto`` takes
PyTorch when it is installed.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from spycfr.errors import SpycfrError
from spycfr.io import save_npz
from spycfr.search.learned import Network, head_values, head_width, normalised, unit_values


def hidden_widths(text: str, name: str = "--hidden") -> tuple[int, ...]:
    """A network's hidden layer widths written comma-separated (``256,256,256``); else
    SpycfrError naming ``name`` and the text (one rule for the CLI and the scripts)."""
    try:
        widths = tuple(int(w) for w in text.split(","))
    except ValueError:
        widths = ()
    if not widths or min(widths) < 1:
        raise SpycfrError(f"{name} {text}: layer widths are whole numbers from 1, "
                          "comma-separated (256,256,256)")
    return widths


@dataclass
class TrainSettings:
    hidden: tuple[int, ...] = (256, 256, 256)
    epochs: int = 200
    batch: int = 256
    lr: float = 1e-3
    heldout: float = 0.1  # share of situations held out to measure the error
    seed: int = 0
    backend: str = "auto"  # numpy, torch or auto
    # PyTorch's CPU threads: with two on this 2-core machine under a load of 10 a 128x128 step
    # took 92-384 ms against 6.9 ms with one (its threads spin waiting for each other)
    threads: int = 1
    head: str = "bilinear"  # learned.HEADS: how the last layer becomes zero-sum values
    # the learning rate over the epochs: cosine (from lr down to 0 at the last epoch: Adam at
    # a constant 1e-3 ends wherever its oscillations leave it; on Agent Hunter tiny a third of
    # the held-out error, though the agent's exploitability varies more with the seed than
    # with that: docs/search.md) or constant
    schedule: str = "cosine"


SCHEDULES = ("constant", "cosine")


def epoch_lr(settings: TrainSettings, epoch: int) -> float:
    """The learning rate of epoch ``epoch`` (0-based) under ``settings.schedule``."""
    if settings.schedule == "constant":
        return settings.lr
    if settings.schedule == "cosine":
        return settings.lr * 0.5 * (1.0 + np.cos(np.pi * epoch / settings.epochs))
    raise ValueError(f"unknown learning-rate schedule {settings.schedule!r}: "
                     f"{' or '.join(SCHEDULES)}")


_UNSET = np.zeros(0)  # Data's default masks (all ones) and groups (one per row)


@dataclass
class Data:
    """Network inputs and targets: raw features, normalised ranges, unit values; ``m0``,
    ``m1`` weigh each value in the loss (1: a private state the seat can hold there) and
    ``group`` is each row's situation (held out together). Both default to all ones and one
    group per row."""

    feats: np.ndarray
    p0: np.ndarray
    p1: np.ndarray
    u0: np.ndarray
    u1: np.ndarray
    m0: np.ndarray = field(default_factory=lambda: _UNSET)
    m1: np.ndarray = field(default_factory=lambda: _UNSET)
    group: np.ndarray = field(default_factory=lambda: _UNSET)

    def __post_init__(self) -> None:
        self.m0 = np.asarray(np.ones_like(self.u0) if self.m0 is _UNSET else self.m0, float)
        self.m1 = np.asarray(np.ones_like(self.u1) if self.m1 is _UNSET else self.m1, float)
        if self.group is _UNSET:
            self.group = np.arange(self.feats.shape[0])

    @classmethod
    def of(cls, pubs, r0, r1, v0, v1, features: Callable, z: float, m0=_UNSET, m1=_UNSET,
           group=_UNSET) -> Data:
        return cls(features(pubs), normalised(r0), normalised(r1), unit_values(v0, r1, z),
                   unit_values(v1, r0, z), m0, m1, group)

    @classmethod
    def concat(cls, parts: list[Data]) -> Data:
        """The rows of ``parts`` in order, each part's groups kept apart from the others'."""
        groups, offset = [], 0
        for p in parts:
            _, g = np.unique(p.group, return_inverse=True)
            groups.append(g + offset)
            offset += int(g.max()) + 1 if g.size else 0
        def cat(k: str) -> np.ndarray:
            return np.concatenate([getattr(p, k) for p in parts])

        return cls(cat("feats"), cat("p0"), cat("p1"), cat("u0"), cat("u1"), cat("m0"),
                   cat("m1"), np.concatenate(groups))

    def take(self, idx: np.ndarray) -> Data:
        return Data(*(a[idx] for a in (self.feats, self.p0, self.p1, self.u0, self.u1,
                                       self.m0, self.m1, self.group)))

    @property
    def size(self) -> int:
        return int(self.feats.shape[0])


def split(group: np.ndarray, heldout: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Seeded train / held-out row indices, whole groups at a time (at least one group of
    each when there are two or more)."""
    ids, inverse = np.unique(group, return_inverse=True)
    n = ids.size
    order = np.random.default_rng([seed, 1]).permutation(n)
    k = min(max(1, int(round(n * heldout))), n - 1) if n >= 2 else 0
    held = np.zeros(n, bool)
    held[order[:k]] = True
    return np.flatnonzero(~held[inverse]), np.flatnonzero(held[inverse])


def backend_name(requested: str) -> str:
    if requested not in ("auto", "numpy", "torch"):
        raise ValueError(f"unknown training backend {requested!r}: auto, numpy or torch")
    if requested == "numpy":
        return "numpy"
    try:
        import torch  # noqa: F401
    except ImportError:
        if requested == "torch":
            raise ValueError("the torch backend needs PyTorch: pip install 'spycfr[train]'"
                             ) from None
        return "numpy"
    return "torch"


def init_network(data: Data, hidden: tuple[int, ...], seed: int, head: str = "shift"
                 ) -> Network:
    """He-initialised layers; the features' standardisation and the value bound (the
    largest target the loss weighs) from the training data."""
    rng = np.random.default_rng([seed, 2])
    mean = data.feats.mean(axis=0)
    std = data.feats.std(axis=0)
    std = np.where(std > 1e-9, std, 1.0)
    n = (data.p0.shape[1], data.p1.shape[1])
    sizes = [data.feats.shape[1] + n[0] + n[1], *hidden, head_width(head, n)]
    layers = [(rng.normal(0, np.sqrt(2.0 / a), (a, b)), np.zeros(b))
              for a, b in zip(sizes[:-1], sizes[1:], strict=True)]
    bound = max(float(np.abs(data.u0 * (data.m0 > 0)).max(initial=0.0)),
                float(np.abs(data.u1 * (data.m1 > 0)).max(initial=0.0)))
    return Network(layers, mean, std, n, head, bound if bound > 0 else 1.0)


def error(net: Network, data: Data) -> dict:
    """Mean squared and mean absolute error of the zero-sum outputs (payoff units) on the
    values the loss weighs, the range-weighted absolute error (what a re-solve's root value
    sees), and the mean square of the targets (the error of answering 0)."""
    u0, u1 = net.unit(data.feats, data.p0, data.p1)
    d = np.concatenate([u0 - data.u0, u1 - data.u1], axis=1)
    m = np.concatenate([data.m0, data.m1], axis=1)
    weighted = (np.abs(u0 - data.u0) * data.p0 * data.m0).sum(1) + \
        (np.abs(u1 - data.u1) * data.p1 * data.m1).sum(1)
    t = np.concatenate([data.u0, data.u1], axis=1)
    mass = max(float(m.sum()), 1.0)
    return {"mse": float((m * d ** 2).sum() / mass), "mae": float((m * np.abs(d)).sum() / mass),
            "range_weighted_mae": float(weighted.mean() / 2),
            "target_ms": float((m * t ** 2).sum() / mass)}


def train(data: Data, settings: TrainSettings, checkpoint: Path | None = None,
          progress: Callable[[int, float, dict], None] | None = None
          ) -> tuple[Network, dict]:
    """Train on ``data`` (a seeded held-out share kept apart); returns the network and a
    record (backend, epochs, seconds, train and held-out errors)."""
    backend = backend_name(settings.backend)
    tr, ho = split(data.group, settings.heldout, settings.seed)
    train_set, held = data.take(tr), data.take(ho)
    net = init_network(train_set, settings.hidden, settings.seed, settings.head)
    t0 = time.perf_counter()
    run = _TorchRun if backend == "torch" else _NumpyRun
    trainer = run(net, settings, checkpoint)
    for epoch in range(trainer.epoch, settings.epochs):
        loss = trainer.epoch_step(train_set, epoch)
        trainer.save(epoch + 1)
        if progress is not None:
            progress(epoch + 1, loss, error(trainer.network(), held) if held.size else {})
    net = trainer.network()
    record = {"backend": backend, "head": net.head, "epochs": settings.epochs,
              "train_rows": int(tr.size),
              "heldout_rows": int(ho.size),
              "heldout_situations": int(np.unique(data.group[ho]).size),
              "train_seconds": time.perf_counter() - t0,
              "train_error": error(net, train_set),
              "heldout_error": error(net, held) if held.size else None}
    return net, record


def _batches(n: int, size: int, seed: int, epoch: int):
    order = np.random.default_rng([seed, 3, epoch]).permutation(n)
    for s in range(0, n, size):
        yield order[s:s + size]


class _NumpyRun:
    """Adam on the numpy MLP, backward pass written out (ReLU layers, either head)."""

    def __init__(self, net: Network, settings: TrainSettings, checkpoint: Path | None):
        self.net, self.s, self.path = net, settings, checkpoint
        self.m = [(np.zeros_like(w), np.zeros_like(b)) for w, b in net.layers]
        self.v = [(np.zeros_like(w), np.zeros_like(b)) for w, b in net.layers]
        self.t = 0
        self.epoch = 0
        if checkpoint is not None and checkpoint.exists():
            with np.load(checkpoint) as f:
                self.epoch, self.t = int(f["epoch"]), int(f["t"])
                for k in range(len(net.layers)):
                    net.layers[k] = (f[f"w{k}"], f[f"b{k}"])
                    self.m[k] = (f[f"mw{k}"], f[f"mb{k}"])
                    self.v[k] = (f[f"vw{k}"], f[f"vb{k}"])
                net.mean, net.std = f["mean"], f["std"]

    def network(self) -> Network:
        return self.net

    def save(self, epoch: int) -> None:
        if self.path is None:
            return
        arrays = {"epoch": np.array(epoch), "t": np.array(self.t), "mean": self.net.mean,
                  "std": self.net.std}
        for k, ((w, b), (mw, mb), (vw, vb)) in enumerate(zip(self.net.layers, self.m, self.v,
                                                              strict=True)):
            arrays.update({f"w{k}": w, f"b{k}": b, f"mw{k}": mw, f"mb{k}": mb, f"vw{k}": vw,
                           f"vb{k}": vb})
        save_npz(self.path, **arrays)

    def epoch_step(self, data: Data, epoch: int) -> float:
        total = 0.0
        lr = epoch_lr(self.s, epoch)
        for idx in _batches(data.size, self.s.batch, self.s.seed, epoch):
            total += self._step(data.take(idx), lr) * idx.size
        return total / data.size

    def _step(self, d: Data, lr: float) -> float:
        net = self.net
        hs = [net.inputs(d.feats, d.p0, d.p1)]
        for k, (w, b) in enumerate(net.layers):
            h = hs[-1] @ w + b
            hs.append(np.maximum(h, 0.0) if k < len(net.layers) - 1 else h)
        u0, u1 = head_values(net.head, hs[-1], d.p0, d.p1, net.n)
        e0, e1 = (u0 - d.u0) * d.m0, (u1 - d.u1) * d.m1
        count = max(float(d.m0.sum() + d.m1.sum()), 1.0)
        loss = float(((e0 ** 2).sum() + (e1 ** 2).sum()) / count)
        g0, g1 = 2 * e0 * d.m0 / count, 2 * e1 * d.m1 / count
        if net.head == "bilinear":  # u0 = M p1, u1 = -M^T p0
            g = (g0[:, :, None] * d.p1[:, None, :]
                 - d.p0[:, :, None] * g1[:, None, :]).reshape(g0.shape[0], -1)
        else:
            total = g0.sum(axis=1, keepdims=True) + g1.sum(axis=1, keepdims=True)
            g = np.concatenate([g0 - 0.5 * d.p0 * total, g1 - 0.5 * d.p1 * total], axis=1)
        self.t += 1
        b1, b2 = 0.9, 0.999
        for k in range(len(net.layers) - 1, -1, -1):
            w, b = net.layers[k]
            gw, gb = hs[k].T @ g, g.sum(axis=0)
            if k > 0:
                g = (g @ w.T) * (hs[k] > 0)
            new = []
            for q, (p, gp) in enumerate(((w, gw), (b, gb))):
                m = b1 * self.m[k][q] + (1 - b1) * gp
                v = b2 * self.v[k][q] + (1 - b2) * gp * gp
                self.m[k] = (m, self.m[k][1]) if q == 0 else (self.m[k][0], m)
                self.v[k] = (v, self.v[k][1]) if q == 0 else (self.v[k][0], v)
                mh, vh = m / (1 - b1 ** self.t), v / (1 - b2 ** self.t)
                new.append(p - lr * mh / (np.sqrt(vh) + 1e-8))
            net.layers[k] = (new[0], new[1])
        return loss


class _TorchRun:
    """The same network and loss in PyTorch (float32, Adam; on a GPU when torch sees one)."""

    def __init__(self, net: Network, settings: TrainSettings, checkpoint: Path | None):
        import torch

        self.torch = torch
        self.s, self.path = settings, checkpoint
        self.dev = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        if self.dev.type == "cpu":
            torch.set_num_threads(settings.threads)
        torch.manual_seed(settings.seed)
        self.mean, self.std, self.n, self.head = net.mean, net.std, net.n, net.head
        self.bound = net.bound
        mods: list = []
        for k, (w, b) in enumerate(net.layers):
            lin = torch.nn.Linear(*w.shape)
            with torch.no_grad():
                lin.weight.copy_(torch.tensor(w.T))
                lin.bias.copy_(torch.tensor(b))
            mods.append(lin)
            if k < len(net.layers) - 1:
                mods.append(torch.nn.ReLU())
        self.model = torch.nn.Sequential(*mods).to(self.dev)
        self.opt = torch.optim.Adam(self.model.parameters(), lr=settings.lr)
        self.epoch = 0
        if checkpoint is not None and checkpoint.with_suffix(".pt").exists():
            state = torch.load(checkpoint.with_suffix(".pt"), map_location=self.dev)
            self.model.load_state_dict(state["model"])
            self.opt.load_state_dict(state["opt"])
            self.epoch = int(state["epoch"])
            self.mean, self.std = state["mean"], state["std"]

    def network(self) -> Network:
        lins = [m for m in self.model if isinstance(m, self.torch.nn.Linear)]
        layers = [(m.weight.detach().cpu().numpy().T.astype(float),
                   m.bias.detach().cpu().numpy().astype(float)) for m in lins]
        return Network(layers, self.mean, self.std, self.n, self.head, self.bound)

    def save(self, epoch: int) -> None:
        if self.path is None:
            return
        from spycfr.io import atomic_path

        with atomic_path(self.path.with_suffix(".pt")) as tmp:
            self.torch.save({"model": self.model.state_dict(), "opt": self.opt.state_dict(),
                             "epoch": epoch, "mean": self.mean, "std": self.std}, tmp)

    def epoch_step(self, data: Data, epoch: int) -> float:
        torch = self.torch
        x = torch.tensor(np.concatenate([(data.feats - self.mean) / self.std, data.p0,
                                         data.p1], axis=1), dtype=torch.float32,
                         device=self.dev)
        p0, p1, t0, t1, m0, m1 = (torch.tensor(a, dtype=torch.float32, device=self.dev)
                                  for a in (data.p0, data.p1, data.u0, data.u1, data.m0,
                                            data.m1))
        n0, n1 = self.n
        total = 0.0
        for group in self.opt.param_groups:
            group["lr"] = epoch_lr(self.s, epoch)
        for idx in _batches(data.size, self.s.batch, self.s.seed, epoch):
            i = torch.as_tensor(idx, device=self.dev)
            out = self.model(x[i])
            if self.head == "bilinear":
                m = out.reshape(-1, n0, n1)
                u0 = torch.einsum("lij,lj->li", m, p1[i])
                u1 = -torch.einsum("lij,li->lj", m, p0[i])
            else:
                o0, o1 = out[:, :n0], out[:, n0:]
                eps = 0.5 * ((p0[i] * o0).sum(1) + (p1[i] * o1).sum(1))
                u0, u1 = o0 - eps[:, None], o1 - eps[:, None]
            e = torch.cat([(u0 - t0[i]) * m0[i], (u1 - t1[i]) * m1[i]], dim=1)
            loss = (e ** 2).sum() / torch.clamp(m0[i].sum() + m1[i].sum(), min=1.0)
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()
            total += float(loss.detach()) * idx.size
        return total / data.size
