"""Commands: for each decision the game can wait for, which commands are legal (as compact keys), and the
one place that lists, samples and checks them (``legal_keys``, ``sample_key``, ``is_legal``).

A command's *key* is ``(type, *fields)`` in the order of ``FIELDS[type]``. ``options`` lists the keys that
are legal now; ``decide`` accepts a command exactly when its key is among them, so the list of legal
commands and the accepted commands can never disagree. The parts: command_keys.py (keys and commands),
options.py and turn_options.py (the legal keys outside and inside phase IV), handlers.py and turn_handlers.py
(what each accepted command does: ``APPLY``). Importing this module registers them all.
"""

from __future__ import annotations

import random
from typing import Any

from events.base import Command
from services.games.shadow.rules.command_keys import (
    CARD_OF_COMMAND,
    CARDS_WITHOUT_EFFECT,
    FIELDS,
    TRIER_CARDS,
    Key,
    command_of,
    key_of,
)
from services.games.shadow.rules.handlers import APPLY
from services.games.shadow.rules.options import OPTIONS
from services.games.shadow.rules.state import GameState, awaited
from services.games.shadow.rules.turn_counts import counts
from services.games.shadow.rules.turn_handlers import doctor_effect
from services.games.shadow.rules.turn_options import (
    PHASE_IV,
    Turn,
    block_key,
    block_keys,
    block_size,
    permit_cost,
    turn,
)
from services.games.shadow.rules.turn_picks import PICKS

__all__ = [
    "APPLY", "CARDS_WITHOUT_EFFECT", "CARD_OF_COMMAND", "FIELDS", "OPTIONS", "PHASE_IV", "TRIER_CARDS", "Key",
    "Turn", "awaited", "block_key", "block_keys", "block_size", "command_of", "doctor_effect", "is_legal", "key_of",
    "legal_keys", "permit_cost", "sample_command", "sample_key", "turn",
]  # fmt: skip

# What is known legal without listing again: the latest full listing (state, its version, seat, keys, end of each
# command type's keys in OPTIONS order), and the latest sampled key (state, version, seat, key). A state handed
# back is never changed again, and these hold it, so the same identity at the same version is the same position:
# ``is_legal`` answers from them (the random bot and the rules worker list or sample the very state they execute).
_last_keys: tuple[GameState, int, int, list[Key], list[int]] | None = None
_last_sample: tuple[GameState, int, int, Key] | None = None
# Per decision, each command type's position in OPTIONS order.
_POSITION: dict[str, dict[str, int]] = {}


def legal_keys(s: GameState, seat: int) -> list[Key]:
    """Every legal key of ``seat`` now."""
    global _last_keys
    p = s.prompt
    if p is None or seat not in awaited(s):
        return []
    keys: list[Key] = []
    ends: list[int] = []
    if p.decision == "actions":  # the same functions as OPTIONS["actions"], sharing one Turn
        x = turn(s, seat)
        for phase_iv_fn in PHASE_IV.values():
            for block in phase_iv_fn(x):
                keys += block_keys(block)
            ends.append(len(keys))
    else:
        for fn in OPTIONS[p.decision].values():
            keys += fn(s, seat, p)
            ends.append(len(keys))
    _last_keys = (s, s.version, seat, keys, ends)
    return keys.copy()


def sample_key(s: GameState, seat: int, rng: random.Random) -> Key | None:
    """A uniformly random legal key of ``seat`` (None: it has none): ``rng.choice(legal_keys(s, seat))``, the
    same draw from the generator, but in phase IV counting the keys of each command type (turn_counts.py) and
    building only the key drawn (turn_picks.py)."""
    global _last_sample
    p = s.prompt
    if p is None or seat not in awaited(s):
        return None
    if p.decision != "actions":
        keys = legal_keys(s, seat)
        return rng.choice(keys) if keys else None
    sizes = counts(s, seat)
    total = sum(sizes)
    if not total:
        return None
    r = rng.randrange(total)  # as rng.choice(keys): one draw below the number of keys
    for pick, size in zip(PICKS, sizes, strict=True):
        if r < size:
            key = pick(s, seat, r)
            _last_sample = (s, s.version, seat, key)
            return key
        r -= size
    raise AssertionError("unreachable: r < total")


def sample_command(s: GameState | None, seat: int, rng: random.Random) -> Command | None:
    """The command of :func:`sample_key` (None: no game, or no legal command)."""
    key = sample_key(s, seat, rng) if s is not None else None
    return None if key is None else command_of(seat, key)


def is_legal(s: GameState, seat: int, p: Any, command_type: str, key: Key) -> bool:
    """Whether ``key`` (of ``command_type``, one of the decision's types) is among the legal options of the
    awaited ``seat`` now: exactly ``key in OPTIONS[p.decision][command_type](s, seat, p)``."""
    sampled = _last_sample
    if sampled is not None and sampled[0] is s and sampled[1] == s.version and sampled[2] == seat and sampled[3] == key:
        return True
    last = _last_keys
    if last is not None and last[0] is s and last[1] == s.version and last[2] == seat:
        positions = _POSITION.get(p.decision)
        if positions is None:
            positions = _POSITION[p.decision] = {t: i for i, t in enumerate(OPTIONS[p.decision])}
        i = positions[command_type]
        ends = last[4]
        try:
            last[3].index(key, ends[i - 1] if i else 0, ends[i])
        except ValueError:
            return False
        return True
    return key in OPTIONS[p.decision][command_type](s, seat, p)


missing = {(d, t) for d, fns in OPTIONS.items() for t in fns} - set(APPLY)
assert not missing, f"options without effects: {missing}"
