"""The numba game protocol: what a game supplies so that the generic engines can run it.

A game's rules are ``@njit`` functions over a small integer state array. Every protocol
function takes the game's parameters record (``params``), an instance of a
``typing.NamedTuple`` class of the game's own; that class is what selects the game. The
engines (enumerator, sampler, Monte-Carlo CFR) call the stubs below, and numba resolves
each stub, at compile time, to the implementation registered for the params class
(``numba.extending.overload``). So each engine is compiled once per game, and cached on
disk like any ``cache=True`` function (keyed by the params type, which is importable).
Passing jitted functions as arguments would also work, but misses numba's cache in every
new process (measured: 3.3 s of compile per process against 0 s here).

The functions a game registers (:func:`register`), all ``@njit``:

- ``initial_state(params)``: the root state, a 1-D integer array (fixed size and dtype).
- ``current_player(state, params)``: the team to move (0 or 1), ``CHANCE`` or ``TERMINAL``.
- ``current_seat(state, params)``: the seat to move (optional; default: the team).
- ``legal_actions(state, params, out)``: writes the action codes (int32, in an order
  fixed for every state of an infoset) into ``out`` and returns their number.
- ``chance_outcomes(state, params, codes, probs)``: at a chance node, writes the outcome
  codes and their probabilities (positive, summing to 1); returns their number.
- ``apply_action(state, params, action, out)``: writes the state after the action (or
  chance outcome) into ``out``.
- ``observation(state, params, action, seat)``: what ``seat`` observes when ``action`` is
  applied at ``state``, as a code in ``[0, 2**OBS_BITS)``. A seat's information state is
  the sequence of its observations, so the code must tell apart everything the seat can
  tell apart (its own actions always), which gives perfect recall by construction.
- ``returns_p1(state, params)``: team 0's payoff at a terminal state (team 1 gets minus).
- ``num_seats(params)``: seats at the table (optional; default 2).
- ``max_actions(params)``: an upper bound on legal actions and chance outcomes.
- ``max_depth(params)``: an upper bound on the edges of a root-to-leaf path, or -1 when
  the game is unbounded (it cannot then be enumerated or sampled).
- ``heuristic_policy(state, params, actions, k, probs)`` (optional): a simple heuristic
  player, for head-to-head measurements: writes into ``probs[:k]`` a distribution over the
  ``k`` legal ``actions`` at a decision, using only what the seat to move can see.
- ``styled_heuristic(state, params, style, actions, k, probs)`` (optional): more heuristic
  players, as ``heuristic_policy`` for the style number ``style`` (their names are the
  plug-in's ``heuristic_styles``).
- ``abstraction_key(state, params, seat)`` (optional): an information abstraction for
  Monte-Carlo CFR on games too big to enumerate: a 63-bit key (>= 0) of what the seat to
  move knows at a decision, keeping what matters and forgetting the rest (e.g. the order of
  history). It must depend only on the seat's information: on an enumerable variant every
  node of an infoset must give the same key (checked when a strategy is mapped on a tree).
"""

from __future__ import annotations

import numpy as np
from numba.core import types
from numba.extending import overload

TERMINAL = -1
CHANCE = 2
OBS_BITS = 24  # observation codes are in [0, 2**OBS_BITS)

REQUIRED = ("initial_state", "current_player", "legal_actions", "chance_outcomes",
            "apply_action", "observation", "returns_p1", "max_actions", "max_depth")
OPTIONAL = ("current_seat", "num_seats", "heuristic_policy", "styled_heuristic",
            "abstraction_key")

_REGISTRY: dict[type, dict] = {}


def register(params_class: type, **impls) -> None:
    """Make the ``@njit`` functions ``impls`` the protocol of games whose params are
    instances of ``params_class`` (a ``typing.NamedTuple`` subclass)."""
    missing = [name for name in REQUIRED if name not in impls]
    unknown = [name for name in impls if name not in REQUIRED + OPTIONAL]
    if missing or unknown:
        raise TypeError(f"protocol of {params_class.__name__}: missing {missing}, unknown "
                        f"{unknown}")
    _REGISTRY[params_class] = dict(impls)


def _impl(name: str, params):
    """The implementation of ``name`` for the numba type ``params`` (None: not ours)."""
    # numba's annotations omit the names numba.core.types exports at run time
    if isinstance(params, types.BaseNamedTuple):  # type: ignore[attr-defined]
        impls = _REGISTRY.get(params.instance_class)
        if impls is not None:
            return impls.get(name)
    return None


# --- the stubs (called from numba code only) ---------------------------------------------


def initial_state(params):
    raise NotImplementedError("protocol functions run inside numba code only")


def current_player(state, params):
    raise NotImplementedError("protocol functions run inside numba code only")


def current_seat(state, params):
    raise NotImplementedError("protocol functions run inside numba code only")


def legal_actions(state, params, out):
    raise NotImplementedError("protocol functions run inside numba code only")


def chance_outcomes(state, params, codes, probs):
    raise NotImplementedError("protocol functions run inside numba code only")


def apply_action(state, params, action, out):
    raise NotImplementedError("protocol functions run inside numba code only")


def observation(state, params, action, seat):
    raise NotImplementedError("protocol functions run inside numba code only")


def returns_p1(state, params):
    raise NotImplementedError("protocol functions run inside numba code only")


def num_seats(params):
    raise NotImplementedError("protocol functions run inside numba code only")


def max_actions(params):
    raise NotImplementedError("protocol functions run inside numba code only")


def max_depth(params):
    raise NotImplementedError("protocol functions run inside numba code only")


def heuristic_policy(state, params, actions, k, probs):
    raise NotImplementedError("protocol functions run inside numba code only")


def styled_heuristic(state, params, style, actions, k, probs):
    raise NotImplementedError("protocol functions run inside numba code only")


def abstraction_key(state, params, seat):
    raise NotImplementedError("protocol functions run inside numba code only")


def implementations(params) -> dict:
    """The ``@njit`` functions the game of ``params`` registered, by protocol name (called
    from Python: the search agent's and the LBR's own loops)."""
    return _REGISTRY[type(params)]


def has_heuristic(params_class: type) -> bool:
    """Whether the game of ``params_class`` registered a heuristic player."""
    return "heuristic_policy" in _REGISTRY.get(params_class, {})


def seats(params) -> int:
    """Seats at the table of the game of ``params`` (from Python; 2 unless it says)."""
    f = _REGISTRY.get(type(params), {}).get("num_seats")
    return 2 if f is None else int(f(params))


def has_abstraction(params_class: type) -> bool:
    """Whether the game of ``params_class`` registered an information abstraction."""
    return "abstraction_key" in _REGISTRY.get(params_class, {})


# --- dispatch ----------------------------------------------------------------------------


@overload(initial_state)
def _initial_state(params):
    f = _impl("initial_state", params)
    if f is not None:
        return lambda params: f(params)


@overload(current_player)
def _current_player(state, params):
    f = _impl("current_player", params)
    if f is not None:
        return lambda state, params: f(state, params)


@overload(current_seat)
def _current_seat(state, params):
    f = _impl("current_seat", params) or _impl("current_player", params)
    if f is not None:
        return lambda state, params: f(state, params)


@overload(legal_actions)
def _legal_actions(state, params, out):
    f = _impl("legal_actions", params)
    if f is not None:
        return lambda state, params, out: f(state, params, out)


@overload(chance_outcomes)
def _chance_outcomes(state, params, codes, probs):
    f = _impl("chance_outcomes", params)
    if f is not None:
        return lambda state, params, codes, probs: f(state, params, codes, probs)


@overload(apply_action)
def _apply_action(state, params, action, out):
    f = _impl("apply_action", params)
    if f is not None:
        return lambda state, params, action, out: f(state, params, action, out)


@overload(observation)
def _observation(state, params, action, seat):
    f = _impl("observation", params)
    if f is not None:
        return lambda state, params, action, seat: f(state, params, action, seat)


@overload(returns_p1)
def _returns_p1(state, params):
    f = _impl("returns_p1", params)
    if f is not None:
        return lambda state, params: f(state, params)


@overload(num_seats)
def _num_seats(params):
    if _impl("initial_state", params) is None:
        return None
    f = _impl("num_seats", params)
    if f is not None:
        return lambda params: f(params)
    return lambda params: 2


@overload(max_actions)
def _max_actions(params):
    f = _impl("max_actions", params)
    if f is not None:
        return lambda params: f(params)


@overload(max_depth)
def _max_depth(params):
    f = _impl("max_depth", params)
    if f is not None:
        return lambda params: f(params)


@overload(heuristic_policy)
def _heuristic_policy(state, params, actions, k, probs):
    if _impl("initial_state", params) is None:
        return None
    f = _impl("heuristic_policy", params)
    if f is not None:
        return lambda state, params, actions, k, probs: f(state, params, actions, k, probs)

    def uniform(state, params, actions, k, probs):  # no heuristic: the caller refuses first
        for a in range(k):
            probs[a] = 1.0 / k
    return uniform


@overload(styled_heuristic)
def _styled_heuristic(state, params, style, actions, k, probs):
    if _impl("initial_state", params) is None:
        return None
    f = _impl("styled_heuristic", params)
    if f is not None:
        return lambda state, params, style, actions, k, probs: f(state, params, style, actions,
                                                                 k, probs)

    def uniform(state, params, style, actions, k, probs):  # none: the caller refuses first
        for a in range(k):
            probs[a] = 1.0 / k
    return uniform


@overload(abstraction_key)
def _abstraction_key(state, params, seat):
    if _impl("initial_state", params) is None:
        return None
    f = _impl("abstraction_key", params)
    if f is not None:
        return lambda state, params, seat: f(state, params, seat)
    return lambda state, params, seat: np.int64(-1)  # none: the caller refuses first
