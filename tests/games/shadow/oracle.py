"""The Shadow engine's oracle: the JSON event logs of 510 seeded random-bot games, kept as one sha256 per game.

A rewrite of the rules core must leave every log byte-identical. ``oracle_digests.txt`` (next to this module)
holds one line per game: ``players seed events sha256``; the log hashed is every event of the game as
``encode_event_bytes`` writes it, one per line, the game played as ``make bench`` plays it (``start``, then the
random bot's ``sample_legal`` and ``execute`` until the end).

    python -m tests.games.shadow.oracle record          # rewrite the digests from the engine as it is now
    python -m tests.games.shadow.oracle check           # compare every game; print the ones that differ
    python -m tests.games.shadow.oracle dump 3 12       # one game's log (3 players, seed 12), one event per line

To see how a game differs, dump it here and from the reference engine (e.g. main's worktree) and diff the two.
"""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Iterator
from pathlib import Path

from services.bench import play_random_game
from services.rules.registry import get_game

DIGESTS = Path(__file__).with_name("oracle_digests.txt")
PLAYERS = (2, 3, 4)
SEEDS = range(170)  # 170 seeds for each player count: 510 games


def game_log(players: int, seed: int) -> list[bytes]:
    """Every event of one seeded random game of Shadow, as the JSON bytes the store would hold."""
    rules = get_game("shadow").rules
    played = play_random_game(rules, seed, players)
    return [rules.encode_event_bytes(event) for event in played.events]


def digest_line(players: int, seed: int) -> str:
    """``players seed events sha256`` of one game."""
    log = game_log(players, seed)
    digest = hashlib.sha256(b"\n".join(log)).hexdigest()
    return f"{players} {seed} {len(log)} {digest}"


def games() -> Iterator[tuple[int, int]]:
    """(players, seed) of every game of the oracle, in the order of the digests file."""
    for players in PLAYERS:
        for seed in SEEDS:
            yield players, seed


def recorded() -> dict[tuple[int, int], str]:
    """The recorded digest line of each game."""
    lines = DIGESTS.read_text(encoding="utf-8").split("\n")
    out = {}
    for line in lines:
        if line and not line.startswith("#"):
            players, seed = line.split()[:2]
            out[(int(players), int(seed))] = line
    return out


def mismatches(selected: list[tuple[int, int]] | None = None) -> list[tuple[str, str]]:
    """(recorded, now) of each selected game (all by default) whose log differs from the recorded one."""
    expected = recorded()
    out = []
    for players, seed in selected if selected is not None else list(games()):
        now = digest_line(players, seed)
        if expected.get((players, seed)) != now:
            out.append((expected.get((players, seed), "(not recorded)"), now))
    return out


def main(argv: list[str]) -> int:
    """The command line (see the module's docstring)."""
    command = argv[0] if argv else "check"
    if command == "record":
        header = "# players seed events sha256 of the event log (tests/games/shadow/oracle.py)\n"
        DIGESTS.write_text(header + "".join(digest_line(p, s) + "\n" for p, s in games()), encoding="utf-8")
        print(f"recorded {len(list(games()))} games in {DIGESTS}")
        return 0
    if command == "check":
        bad = mismatches()
        for was, now in bad:
            print(f"differs: recorded {was}\n         now      {now}")
        print(f"{len(list(games())) - len(bad)} of {len(list(games()))} games identical")
        return 1 if bad else 0
    if command == "dump":
        for line in game_log(int(argv[1]), int(argv[2])):
            sys.stdout.buffer.write(line + b"\n")
        return 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
