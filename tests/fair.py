"""The fair shuffle of a game, checked the same way in every game with hidden information or chance (through the
contract only): the commitment with the opening events, the seed and the salt sealed on every presenter output
until the end, the reveal with the events that end the game, and its check. Each game's own test calls these with
its ruling ids, so its ruling coverage test finds them.
"""

from __future__ import annotations

import random
import secrets
from typing import Any

import orjson

from events.base import Rejection
from services.adjudicator import adjudicate
from services.rules import fair
from services.rules.registry import get_game

NAMES = ("Ann", "Bob", "Cid")
T0 = 1_700_000_000_000


def _play(game_name: str, seed: int, salt: str | None, practice: bool = False) -> tuple[list[Any], Any, list[str]]:
    """A random game of ``game_name`` through the table's ``start``/``execute`` (with a salt and the time): its
    events, the final state and its commands as adjudicator lines."""
    rules = get_game(game_name).rules
    events = rules.start(NAMES, {}, seed, T0, salt, practice)
    state = rules.fold(events)
    rng = random.Random(seed % 1000)
    lines = [orjson.dumps({"game": game_name, "players": list(NAMES), "seed": seed, "at_ms": T0}).decode()]
    while not rules.is_over(state):
        seat = rules.awaited(state)[0]
        command = rules.sample_legal(state, seat, rng)
        done = rules.execute(state, command, T0)
        assert not isinstance(done, Rejection)
        events += done[0]
        state = done[1]
        lines.append(orjson.dumps(rules.encode_command(command)).decode())
    return events, state, lines


def check_commitment_sealed_until_the_reveal(game_name: str, rulings: tuple[str, ...]) -> None:
    """Given a game started with a drawn seed and salt, when it is played to its end, then the opening records
    ``SeedCommitted`` (citing ``rulings``) whose seed and salt every seat and spectator sees as null until the end,
    the end records ``SeedRevealed``, and the reveal verifies; folding the events alone gives the same seal."""
    game = get_game(game_name)
    rules, presenter = game.rules, game.presenter
    seed, salt = secrets.randbelow(2**63), secrets.token_hex(32)
    events, final, _ = _play(game_name, seed, salt)
    data = [rules.encode_event(e) for e in events]
    kinds = [d["type"] for d in data]
    assert kinds.count("SeedCommitted") == 1 and kinds[-1] == "SeedRevealed"
    committed = data[kinds.index("SeedCommitted")]
    assert tuple(committed["rulings"]) == rulings and committed["commitment"] == fair.commitment(seed, salt)
    assert fair.verdict(data)["status"] == fair.VERIFIED
    # Sealed: at every position before the end, neither the opening events (which record the seed and the salt)
    # nor the event just recorded shows either to any reader
    opening = events[: kinds.index("SeedCommitted") + 1]
    state = rules.initial_state()
    for event in events:
        state = rules.evolve(state, event)
        if rules.is_over(state):
            break
        for reader in (None, *range(len(NAMES))):
            text = orjson.dumps([presenter.redact(e, reader, state) for e in (*opening, event)]).decode()
            assert str(seed) not in text and salt not in text
    assert rules.fairness(final) == {
        "scheme": committed["scheme"], "commitment": committed["commitment"],
        "practice": False, "revealed": True, "seed": str(seed), "salt": salt,
    }  # fmt: skip
    assert presenter.redact(events[0], 1, final)["seed"] == seed  # once over, everything is public
    assert rules.restore(rules.snapshot(final)) == final


def check_tampered_reveal_is_a_mismatch(game_name: str) -> None:
    """Given a finished game, when its recorded reveal names another seed or salt, or the commitment another
    digest, then the check reports a mismatch; an unfinished one is not yet revealed."""
    rules = get_game(game_name).rules
    seed, salt = secrets.randbelow(2**63), secrets.token_hex(32)
    events, _, _ = _play(game_name, seed, salt)
    data = [rules.encode_event(e) for e in events]
    assert fair.verdict(data[:-1])["status"] == fair.NOT_REVEALED
    for field, forged in (("seed", str(seed + 1)), ("salt", "0" * 64), ("commitment", "f" * 64)):
        where = -1 if field != "commitment" else [d["type"] for d in data].index("SeedCommitted")
        tampered = [*data]
        tampered[where] = {**data[where], field: forged}
        assert fair.verdict(tampered)["status"] == fair.MISMATCH, field


def check_adjudicator_verifies_the_reveal(game_name: str) -> None:
    """Given a finished game's commands, when the adjudicator referees them with the header's salt and published
    commitment, then it closes with ``verified``; with another commitment in the header, ``mismatch``."""
    seed, salt = secrets.randbelow(2**63), secrets.token_hex(32)
    _, _, lines = _play(game_name, seed, salt)
    header = {**orjson.loads(lines[0]), "salt": salt, "commitment": fair.commitment(seed, salt)}
    out = list(adjudicate([orjson.dumps(header), *lines[1:]]))
    assert out[-1]["fairness"]["status"] == fair.VERIFIED
    assert out[-2]["event"]["type"] == "SeedRevealed"
    header["commitment"] = fair.commitment(seed + 1, salt)
    out = list(adjudicate([orjson.dumps(header), *lines[1:]]))
    assert out[-1]["fairness"]["status"] == fair.MISMATCH


def check_practice_table_recorded(game_name: str, rulings: tuple[str, ...]) -> None:
    """Given a seed the creator chose (a practice table), when the game starts, then its commitment says so and
    cites ``rulings``; the engine alone (no salt) records no commitment, as it always did."""
    rules = get_game(game_name).rules
    events = rules.start(NAMES, {}, 42, T0, secrets.token_hex(32), True)
    committed = [rules.encode_event(e) for e in events if rules.encode_event(e)["type"] == "SeedCommitted"]
    assert committed[0]["practice"] is True and tuple(committed[0]["rulings"]) == rulings
    assert rules.fairness(rules.fold(events))["practice"] is True  # type: ignore[index]
    plain = [rules.encode_event(e)["type"] for e in rules.start(NAMES, {}, 42, T0)]
    assert "SeedCommitted" not in plain and plain == [rules.encode_event(e)["type"] for e in rules.start(NAMES, {}, 42)]
