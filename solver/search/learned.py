"""A learned value function for the leaves of depth-limited subgames (DeepStack's network,
inference in numpy from committed weights, so that playing needs no neural-network library).

Inputs: the public state's features (the game's ``value_features`` hook, standardised) and
both seats' ranges, each normalised to sum 1. Outputs: each seat's values per private state
for one unit of opponent range, in the game's payoff units; the engine's counterfactual
values are these times the opponent's range mass over ``Z``. As in DeepStack, the outputs are
zero-sum: ``sum_i r0[i] v0[i] + sum_j r1[j] v1[j] = 0`` holds exactly, by one of two heads.
``shift`` is DeepStack's correction: the network outputs both seats' values and half of its
excess is taken from every value of both seats. ``bilinear`` (the default) outputs a matrix
``M`` (n0 x n1, itself a function of the public state and both ranges) and answers
``u0 = M p1``, ``u1 = -M^T p0``: zero-sum by construction, and exact where the values are
linear in the opponent's range (a continuation that the ranges do not change, as near the
end of a game), which a shifted output has to learn as a product of its inputs.

A network's values never leave ``[-B, B]``, ``B`` the largest target it was trained on:
they are clipped there at inference (a value outside the payoff range is an error a
re-solve's CFR exploits: on Agent Hunter ``tiny`` 9% of the values a depth-4 agent asked
for were outside, and clipping them took it from 0.049 to 0.017 exploitable;
docs/search.md).

The network is a multi-layer perceptron with ReLU hidden layers; its weights, the feature
standardisation and the game it was trained for live in one ``.npz`` (:func:`save_weights`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from spycfr.io import save_npz

Features = Callable[[np.ndarray], np.ndarray]


def raw_features(pubs: np.ndarray) -> np.ndarray:
    """The default features: the public state's integers as they are (the network
    standardises each column)."""
    return np.asarray(pubs, float)


def game_features(game: str, variant: Any) -> Features:
    """The features of ``game``'s public states: its plug-in's ``value_features(variant)``
    hook, or the raw public state."""
    from spycfr.games import get_plugin

    hook = get_plugin(game).value_features
    return raw_features if hook is None else hook(variant)


def unit_values(v: np.ndarray, opp_range: np.ndarray, z: float) -> np.ndarray:
    """Engine-scale counterfactual values -> values per unit of opponent range (the
    network's targets): ``v * Z / sum(opp_range)``, 0 where the opponent has no range."""
    mass = opp_range.sum(axis=1, keepdims=True)
    return np.where(mass > 0, v * z / np.where(mass > 0, mass, 1.0), 0.0)


def normalised(r: np.ndarray) -> np.ndarray:
    mass = r.sum(axis=1, keepdims=True)
    return np.where(mass > 0, r / np.where(mass > 0, mass, 1.0), 0.0)


def zero_sum(p0: np.ndarray, p1: np.ndarray, u0: np.ndarray, u1: np.ndarray
             ) -> tuple[np.ndarray, np.ndarray]:
    """DeepStack's correction: subtract half the excess ``p0.u0 + p1.u1`` from every value
    (ranges normalised to sum 1, so the corrected excess is 0)."""
    eps = 0.5 * ((p0 * u0).sum(axis=1) + (p1 * u1).sum(axis=1))
    return u0 - eps[:, None], u1 - eps[:, None]


HEADS = ("bilinear", "shift")


def head_width(head: str, n: tuple[int, int]) -> int:
    """The network's output width for ``head``."""
    if head not in HEADS:
        raise ValueError(f"unknown value head {head!r}: {' or '.join(HEADS)}")
    return n[0] * n[1] if head == "bilinear" else n[0] + n[1]


def head_values(head: str, out: np.ndarray, p0: np.ndarray, p1: np.ndarray,
                n: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """Zero-sum values per unit of opponent range from the last layer's ``out``."""
    if head == "bilinear":
        m = out.reshape(-1, n[0], n[1])
        return np.einsum("lij,lj->li", m, p1), -np.einsum("lij,li->lj", m, p0)
    return zero_sum(p0, p1, out[:, :n[0]], out[:, n[0]:])


class Network:
    """The numpy MLP: ``layers`` is a list of (W, b); ReLU between layers; ``head`` turns
    the last layer into values (``HEADS``); ``bound`` (0: none, as in weights saved before
    it) the largest absolute value it answers."""

    def __init__(self, layers: list[tuple[np.ndarray, np.ndarray]], mean: np.ndarray,
                 std: np.ndarray, n: tuple[int, int], head: str = "shift", bound: float = 0.0):
        self.layers = layers
        self.mean, self.std = mean, std
        self.n = n
        self.head = head
        self.bound = bound

    def inputs(self, feats: np.ndarray, p0: np.ndarray, p1: np.ndarray) -> np.ndarray:
        return np.concatenate([(feats - self.mean) / self.std, p0, p1], axis=1)

    def unit(self, feats: np.ndarray, p0: np.ndarray, p1: np.ndarray
             ) -> tuple[np.ndarray, np.ndarray]:
        """Zero-sum values per unit of opponent range for normalised ranges ``p0``, ``p1``."""
        h = self.inputs(feats, p0, p1)
        for k, (w, b) in enumerate(self.layers):
            h = h @ w + b
            if k < len(self.layers) - 1:
                h = np.maximum(h, 0.0)
        u0, u1 = head_values(self.head, h, p0, p1, self.n)
        if self.bound > 0:
            u0, u1 = np.clip(u0, -self.bound, self.bound), np.clip(u1, -self.bound, self.bound)
        return u0, u1


def pub_keys(pubs: np.ndarray) -> list[bytes]:
    """Each public state's key in a route's set (its integers as int64 bytes)."""
    return [row.tobytes() for row in np.ascontiguousarray(np.atleast_2d(pubs), np.int64)]


class Route:
    """Networks (an ensemble's members, averaged) that answer at a given set of public
    states instead of the file's default ones: a network per stage of the game, as
    DeepStack trains one per street. ``pubs`` are the states, one a row."""

    def __init__(self, pubs: np.ndarray, members: list[Network]):
        self.pubs = np.atleast_2d(np.asarray(pubs, np.int64))
        self.members = members
        self.keys = set(pub_keys(self.pubs))


class LearnedValues:
    """The value-function interface (:class:`spycfr.search.values.ValueFunction`) over a
    trained network, or the average of several (an ensemble: ``members``, the first is
    ``net``; an average of zero-sum answers is zero-sum); ``nodes`` is ignored (the values
    are a function of the public state). ``routes``: other networks answering at their own
    public states (:class:`Route`, the first whose set holds a state answers it); the
    default members answer everywhere else."""

    def __init__(self, net: Network, features: Features, z: float, meta: dict,
                 members: list[Network] | None = None, routes: list[Route] | None = None):
        self.net = net
        self.members = members or [net]
        self.features = features
        self.z = z
        self.meta = meta
        self.routes = routes or []

    @classmethod
    def load(cls, path: str | Path, features: Features | None = None) -> LearnedValues:
        """From a weights file, or a training directory (its last finished stage)."""
        path = Path(path)
        if path.is_dir():
            path = latest_weights(path)
        members, meta = load_members(path)
        routes = load_routes(path)
        net = members[0]
        if features is None:
            from spycfr.games import make_variant

            features = game_features(meta["game"], make_variant(meta["game"], meta["preset"],
                                                                meta["params"]))
        width = features(np.asarray(meta["example_pub"])[None, :]).shape[1] \
            if "example_pub" in meta else net.mean.shape[0]
        if width != net.mean.shape[0]:
            raise ValueError(f"{path} was trained on {net.mean.shape[0]} features of a public "
                             f"state; the game's value_features give {width} now (retrain it)")
        return cls(net, features, float(meta["z"]), meta, members, routes)

    def values(self, pubs: np.ndarray, r0: np.ndarray, r1: np.ndarray,
               nodes: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        pubs = np.atleast_2d(pubs)
        feats, p0, p1 = self.features(pubs), normalised(r0), normalised(r1)
        if not self.routes:
            u0, u1 = _average(self.members, feats, p0, p1)
        else:
            which = self.route_of(pubs)
            u0, u1 = np.zeros(p0.shape), np.zeros(p1.shape)
            for k in np.unique(which):
                rows = which == k
                u0[rows], u1[rows] = _average(self.members if k < 0 else self.routes[k].members,
                                              feats[rows], p0[rows], p1[rows])
        return (u0 * r1.sum(axis=1, keepdims=True) / self.z,
                u1 * r0.sum(axis=1, keepdims=True) / self.z)

    def route_of(self, pubs: np.ndarray) -> np.ndarray:
        """Per public state, the route that answers it (-1: the default members)."""
        out = np.full(np.atleast_2d(pubs).shape[0], -1, np.int64)
        for i, key in enumerate(pub_keys(pubs)):
            for k, route in enumerate(self.routes):
                if key in route.keys:
                    out[i] = k
                    break
        return out


def _average(members: list[Network], feats: np.ndarray, p0: np.ndarray, p1: np.ndarray
             ) -> tuple[np.ndarray, np.ndarray]:
    answers = [m.unit(feats, p0, p1) for m in members]
    u0 = np.sum([a[0] for a in answers], axis=0) / len(answers)
    u1 = np.sum([a[1] for a in answers], axis=0) / len(answers)
    return u0, u1


def save_weights(path: str | Path, net: Network, meta: dict,
                 others: Sequence[Network] = (), routes: Sequence[Route] = ()) -> None:
    """One ``.npz``: the layers, the standardisation and ``meta`` (game, variant, z, stage,
    training record) as JSON, an ensemble's ``others`` under the prefixes ``e1_``,
    ``e2_``, ..., and each route's public states and members under ``r1_``, ``r2_``, ...
    (``r1_pubs``, ``r1_w0``, ``r1_e1_w0``, ...); written atomically."""
    arrays = {"meta": np.array(json.dumps(meta))}
    _put_members(arrays, "", [net, *others])
    for k, route in enumerate(routes, start=1):
        arrays[f"r{k}_pubs"] = route.pubs
        _put_members(arrays, f"r{k}_", route.members)
    save_npz(path, **arrays)


def _put_members(arrays: dict, prefix: str, members: Sequence[Network]) -> None:
    for j, member in enumerate(members):
        pre = prefix + (f"e{j}_" if j else "")
        arrays.update({f"{pre}mean": member.mean, f"{pre}std": member.std,
                       f"{pre}n": np.array(member.n), f"{pre}head": np.array(member.head),
                       f"{pre}bound": np.array(member.bound)})
        for k, (w, b) in enumerate(member.layers):
            arrays[f"{pre}w{k}"] = w.astype(np.float32)
            arrays[f"{pre}b{k}"] = b.astype(np.float32)


def load_weights(path: str | Path) -> tuple[Network, dict]:
    """The (first) network of a weights file and its ``meta``."""
    members, meta = load_members(path)
    return members[0], meta


def load_members(path: str | Path) -> tuple[list[Network], dict]:
    """Every default network of a weights file (one, or an ensemble's) and its ``meta``."""
    with np.load(path) as f:
        return _members(f, ""), json.loads(str(f["meta"]))


def load_routes(path: str | Path) -> list[Route]:
    """A weights file's routes (none in a file saved without them)."""
    with np.load(path) as f:
        routes: list[Route] = []
        while f"r{len(routes) + 1}_pubs" in f:
            pre = f"r{len(routes) + 1}_"
            routes.append(Route(f[f"{pre}pubs"], _members(f, pre)))
        return routes


def _members(f: Any, prefix: str) -> list[Network]:
    members: list[Network] = []
    while (pre := prefix + (f"e{len(members)}_" if members else "")) + "w0" in f:
        k = 0
        layers = []
        while f"{pre}w{k}" in f:
            layers.append((f[f"{pre}w{k}"].astype(float), f[f"{pre}b{k}"].astype(float)))
            k += 1
        n = tuple(int(x) for x in f[f"{pre}n"])
        # weights saved before the heads, before the bound
        head = str(f[f"{pre}head"]) if f"{pre}head" in f else "shift"
        bound = float(f[f"{pre}bound"]) if f"{pre}bound" in f else 0.0
        members.append(Network(layers, f[f"{pre}mean"], f[f"{pre}std"], (n[0], n[1]),
                               head, bound))
    return members


def route_weights(path: str | Path, default: str | Path,
                  routes: Sequence[tuple[str | Path, np.ndarray]]) -> None:
    """One weights file from ``default``'s networks and, per ``(source, pubs)`` of
    ``routes``, ``source``'s default networks answering at the public states ``pubs``
    (every file of the same game and variant); ``meta`` is the default's, with the sources
    and each route's state count listed."""
    members, meta = load_members(default)
    made = []
    for source, pubs in routes:
        nets, other = load_members(source)
        if (other.get("game"), other.get("preset"), other.get("params")) != \
                (meta.get("game"), meta.get("preset"), meta.get("params")):
            raise ValueError(f"{source} holds weights of another game or variant than "
                             f"{default}")
        if nets[0].n != members[0].n:
            raise ValueError(f"{source}'s networks answer {nets[0].n} private states, "
                             f"{default}'s {members[0].n}")
        made.append(Route(pubs, nets))
    save_weights(path, members[0], {**meta, "routes": [
        {"source": str(s), "states": int(r.pubs.shape[0])}
        for (s, _), r in zip(routes, made, strict=True)], "default": str(default)},
        members[1:], made)


def combine_weights(path: str | Path, sources: list[str | Path]) -> None:
    """One ensemble weights file from several weights files of the same game and variant
    (every member of each); ``meta`` is the first's, with the sources listed and each
    source's own held-out error under ``members_heldout_error``: the first's is not the
    ensemble's (its members' held-out splits differ, so none is held out from them all)."""
    nets: list[Network] = []
    metas = []
    for source in sources:
        if load_routes(source):
            raise ValueError(f"{source} has routes (networks for some public states): "
                             "combine the default networks' files, then route them")
        members, meta = load_members(source)
        nets += members
        metas.append(meta)
    keys = [(m.get("game"), m.get("preset"), m.get("params")) for m in metas]
    if len(set(map(str, keys))) > 1:
        raise ValueError(f"weights of different games or variants: {keys}")
    meta = {k: v for k, v in metas[0].items() if k != "heldout_error"}
    meta["members_heldout_error"] = [m.get("heldout_error") for m in metas]
    save_weights(path, nets[0], {**meta, "ensemble": [str(s) for s in sources]}, nets[1:])


def latest_weights(directory: str | Path) -> Path:
    """The weights of the highest finished stage under a training directory."""
    stages = sorted(Path(directory).glob("stage-*/weights.npz"),
                    key=lambda p: int(p.parent.name.split("-")[1]))
    if not stages:
        raise FileNotFoundError(f"{directory} holds no trained stage (stage-N/weights.npz)")
    return stages[-1]
