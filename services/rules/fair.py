"""Fair shuffles, written once for every game: the seed's commitment, its reveal, their check, and the sealing of
the seed and the salt on every read path until the game is over.

Pure: the seed and the salt are inputs (drawn by the service from a CSPRNG, or the seed chosen by the creator of a
practice table); nothing here draws or reads a clock. A game with hidden information or chance keeps a
:class:`Seal` in its state, folding :class:`events.fair.SeedCommitted` and :class:`events.fair.SeedRevealed` with
:func:`fold`; the table records both facts (``Table.start``, ``Table.execute``: services/rules/table/).

The commitment is ``sha256("throne-seed-v1|<seed>|<salt>")`` in lowercase hex (``events.fair.SCHEME``): the salt
(256 random bits) keeps anyone from testing guessed seeds against the commitment, and the seed (63 random bits)
keeps a seat from searching the seeds that would deal the hand it holds.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from events.fair import SCHEME, SEED_COMMITTED, SEED_REVEALED, SeedCommitted, SeedRevealed

SECRET_FIELDS = ("seed", "salt")
"""The fields of any event (and of a creation's logged command) that hold the referee's secrets until the end."""
FACTS = frozenset({SEED_COMMITTED, SEED_REVEALED})

VERIFIED, MISMATCH, NOT_REVEALED, NO_COMMITMENT = "verified", "mismatch", "not_revealed", "no_commitment"


def commitment(seed: int | str, salt: str, scheme: str = SCHEME) -> str:
    """The commitment to ``seed`` under ``salt`` (``scheme`` must be :data:`events.fair.SCHEME`)."""
    if scheme != SCHEME:
        raise ValueError(f"unknown commitment scheme {scheme!r}")
    return hashlib.sha256(f"throne-seed-v1|{int(seed)}|{salt}".encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class Seal:
    """A game's committed seed (immutable; replaced whole by each fact)."""

    scheme: str
    commitment: str
    seed: str
    salt: str
    practice: bool = False
    revealed: bool = False

    def to_json(self) -> dict[str, Any]:
        """JSON-ready (snapshots: the operator's Redis holds the seed in the opening event anyway)."""
        return {
            "scheme": self.scheme, "commitment": self.commitment, "seed": self.seed, "salt": self.salt,
            "practice": self.practice, "revealed": self.revealed,
        }  # fmt: skip

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Seal:
        """Inverse of :meth:`to_json`."""
        return cls(
            str(data["scheme"]), str(data["commitment"]), str(data["seed"]), str(data["salt"]),
            bool(data.get("practice", False)), bool(data.get("revealed", False)),
        )  # fmt: skip


def committed(seed: int, salt: str, practice: bool, rulings: tuple[str, ...]) -> SeedCommitted:
    """The opening fact: the commitment to ``seed`` under ``salt`` (both recorded, sealed until the end)."""
    return SeedCommitted(
        scheme=SCHEME, commitment=commitment(seed, salt), practice=practice, seed=str(seed), salt=salt, rulings=rulings
    )


def reveal(seal: Seal, rulings: tuple[str, ...]) -> SeedRevealed:
    """The closing fact: the seed and the salt of ``seal``."""
    return SeedRevealed(scheme=seal.scheme, commitment=seal.commitment, seed=seal.seed, salt=seal.salt, rulings=rulings)


def fold(seal: Seal | None, event: Any) -> Seal | None:
    """The seal after one of the two facts (a core tuple or a model: read by attribute)."""
    if event.type == SEED_COMMITTED:
        return Seal(event.scheme, event.commitment, event.seed or "", event.salt or "", bool(event.practice))
    if event.type == SEED_REVEALED and seal is not None:
        return Seal(seal.scheme, seal.commitment, seal.seed, seal.salt, seal.practice, True)
    return seal


def public(seal: Seal | None, over: bool) -> dict[str, Any] | None:
    """What anyone may know of a game's seal now (the game summary, the scoreboard): scheme, commitment, whether
    it is a practice table, and once revealed the seed and the salt. None: the game records no commitment."""
    if seal is None:
        return None
    shown: dict[str, Any] = {
        "scheme": seal.scheme, "commitment": seal.commitment, "practice": seal.practice, "revealed": seal.revealed,
    }  # fmt: skip
    if seal.revealed and over:
        shown.update(seed=seal.seed, salt=seal.salt)
    return shown


def seal_json(data: dict[str, Any], over: bool) -> dict[str, Any]:
    """``data`` (an event's JSON) with its ``seed`` and ``salt`` shown as null while the game runs, and marked
    ``redacted`` (a new dict only when something was hidden: callers may share what they get)."""
    if over or (data.get("seed") is None and data.get("salt") is None):  # SECRET_FIELDS, spelled out: hot path
        return data
    return {**data, **{name: None for name in SECRET_FIELDS if name in data}, "redacted": True}


def scrub(value: Any, over: bool) -> Any:
    """``value`` (JSON-ready: an audit entry, a logged command) with every ``seed`` and ``salt`` at any depth shown
    as null while the game runs."""
    if over:
        return value
    if isinstance(value, dict):
        return {k: None if k in SECRET_FIELDS else scrub(v, over) for k, v in value.items()}
    if isinstance(value, list):
        return [scrub(v, over) for v in value]
    return value


def verdict(events: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """Whether a game's recorded events (JSON, in order) keep their commitment: ``status`` ``verified`` (the reveal
    matches the commitment and the seed the opening event recorded), ``mismatch`` (it does not: ``problems`` say
    how), ``not_revealed`` (committed, the game not over yet) or ``no_commitment``; with ``scheme``,
    ``commitment``, ``practice`` and, once revealed, ``seed`` and ``salt``."""
    opening: Any = None
    commits: list[Mapping[str, Any]] = []
    reveals: list[Mapping[str, Any]] = []
    for i, data in enumerate(events):
        if i == 0:
            opening = data.get("seed")
        if data.get("type") == SEED_COMMITTED:
            commits.append(data)
        elif data.get("type") == SEED_REVEALED:
            reveals.append(data)
    if not commits:
        status = MISMATCH if reveals else NO_COMMITMENT
        problems = ["a reveal without a commitment"] if reveals else []
        return {"status": status, "problems": problems, "message": _message(status, problems)}
    commit = commits[0]
    out: dict[str, Any] = {
        "scheme": commit.get("scheme"),
        "commitment": commit.get("commitment"),
        "practice": bool(commit.get("practice")),
    }
    problems = ["more than one commitment"] if len(commits) > 1 else []
    if len(reveals) > 1:
        problems.append("more than one reveal")
    if not reveals:
        status = MISMATCH if problems else NOT_REVEALED
        return {**out, "status": status, "problems": problems, "message": _message(status, problems)}
    shown = reveals[0]
    seed, salt = shown.get("seed"), shown.get("salt")
    out.update(seed=seed, salt=salt)
    if shown.get("scheme") != commit.get("scheme") or shown.get("commitment") != commit.get("commitment"):
        problems.append("the reveal names another commitment than the one published")
    try:
        expected = commitment(str(seed), str(salt), str(commit.get("scheme")))
    except ValueError as exc:  # an unknown scheme, a seed that is no number
        problems.append(str(exc))
    else:
        if not hmac.compare_digest(expected, str(commit.get("commitment"))):
            problems.append("sha256 of the revealed seed and salt is not the published commitment")
    if opening is not None and str(opening) != str(seed):
        problems.append(f"the opening event recorded seed {opening}, the reveal says {seed}")
    for name in SECRET_FIELDS:
        if commit.get(name) is not None and str(commit.get(name)) != str(shown.get(name)):
            problems.append(f"the commitment recorded another {name} than the reveal shows")
    status = MISMATCH if problems else VERIFIED
    return {**out, "status": status, "problems": problems, "message": _message(status, problems)}


def _message(status: str, problems: list[str]) -> str:
    if status == VERIFIED:
        return "Fair shuffle verified: the revealed seed and salt match the commitment published at the start."
    if status == NOT_REVEALED:
        return "Seed committed; not yet revealed (the reveal comes when the game ends)."
    if status == NO_COMMITMENT:
        return "The game records no seed commitment."
    return "Fair shuffle MISMATCH: " + "; ".join(problems) + "."


def describe_fact(data: Mapping[str, Any]) -> str:
    """A recorded fairness fact (JSON) in plain words; never tells a sealed seed or salt."""
    # (no digest in the words: the same seed tells the same story, whatever the salt drawn)
    if data.get("type") == SEED_COMMITTED:
        text = "The referee commits to the game's seed (a sha256); seed and salt are revealed at the end."
        return text + (" A practice table: the creator chose the seed." if data.get("practice") else "")
    ok = verdict([{"type": SEED_COMMITTED, **{k: data.get(k) for k in ("scheme", "commitment")}}, data])
    match = "it matches the commitment" if ok["status"] == VERIFIED else "it does NOT match the commitment"
    return f"The game's seed {data.get('seed')} and its salt are revealed: {match}."
