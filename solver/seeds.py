"""The one rule of a random seed, wherever one is given: the CLI's --seed, the library's
``seed`` arguments, a game's seed in the workbench (``spycfr serve``).

A seed is an integer from 0 to 2**63 - 1: numpy's SeedSequence takes only integers >= 0,
and the numba kernels take a seed as an int64. Checked here, once, so that every place
refuses the same values with the same one-line message.
"""

from __future__ import annotations

import operator

from spycfr.errors import SpycfrError

SEED_MAX = 2**63 - 1
_SHOWN = 40  # characters of a bad seed's text quoted in the message


def check_seed(value: object, name: str = "seed") -> int:
    """``value`` as a seed: an int (a numpy integer too) or its decimal text (as ``int``
    reads it), from 0 to SEED_MAX; anything else raises SpycfrError naming ``name`` (the
    CLI's ``--seed``), the value and the range."""
    number = -1
    if isinstance(value, str):
        try:
            number = int(value)
        except ValueError:
            pass
    elif not isinstance(value, bool):  # True is no seed, though it is an int
        try:
            number = operator.index(value)  # type: ignore[arg-type]  # refused when not one
        except TypeError:
            pass
    if not 0 <= number <= SEED_MAX:
        shown = value if not isinstance(value, str) or len(value) <= _SHOWN \
            else value[:_SHOWN] + "..."
        raise SpycfrError(f"{name} must be an integer from 0 to {SEED_MAX} (2**63 - 1), "
                          f"got {shown!r}")
    return number


def seed_list(text: str, name: str = "seeds") -> list[int]:
    """Seeds written comma-separated (``0,1,2``: one network of an ensemble each), every one
    by :func:`check_seed`'s rule and none twice; else SpycfrError naming ``name`` (a
    script's ``--seeds``) and the text."""
    words = text.split(",")
    for word in words:
        if not word.strip().isdecimal():  # '', '-1', '1.5', 'x': said as the list's fault
            raise SpycfrError(f"{name} {text}: seeds are whole numbers from 0, "
                              "comma-separated (0,1,2)")
    seeds = [check_seed(int(word), name) for word in words]
    if len(set(seeds)) < len(seeds):
        raise SpycfrError(f"{name} {text}: a seed twice (each makes one member)")
    return seeds
