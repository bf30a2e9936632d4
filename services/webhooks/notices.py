"""What a seat's webhook is told, computed from committed events through the game contract only.

The webhooks process folds a game commit by commit (a commit: the events one command caused, written at once by
the rules worker) and, at the end of each, asks every notice kind whether it has something for each seat that
has webhooks. A kind is a function ``(commit, seat) -> fields | None`` registered under its name with
:func:`notice_kind`; the fields it returns are merged into the notice's body. The kinds of today:

* ``turn``: the game comes to wait for the seat anew: it did not wait for it before the commit, or it waited
  for that seat alone (so the commit was the seat's own move and the game asks again), or what it asks of the
  seat changed (``Presenter.prompt``). A seat that waits while others answer a simultaneous decision is not
  told again each time another seat answers.
* ``game_over``: the commit ended the game; the body carries the rules' ``result``.

Kinds to come add themselves the same way (issue [5/7]: a "clock running low" notice). A kind that does not
follow from a commit (a clock) is declared with :func:`external_kind` and queued with
:meth:`services.webhooks.outbox.Outbox.notify` by whatever process notices it; its id is again
:func:`notice_id`, a function of what it is about, so that every retry carries the same id.

Every notice's id is :func:`notice_id` ``(game, seat, kind, version)``: the same notice always has the same id,
however often it is queued or delivered (after a crash, a retry, two processes), so receivers deduplicate on it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from services.rules.contract import GamePlugin
from services.store.eventstore import StoredEvent


@dataclass(frozen=True, slots=True)
class Commit:
    """One commit of a game as the webhooks process folded it: the state before it, and each of its events with
    the state after that event."""

    game_id: str
    plugin: GamePlugin
    players: tuple[str, ...]
    before: Any
    events: tuple[tuple[int, Any, Any], ...]
    at_ms: int = 0

    @property
    def version(self) -> int:
        """The game's version after the commit."""
        return int(self.events[-1][0])

    @property
    def after(self) -> Any:
        """The state after the commit."""
        return self.events[-1][2]

    def narration(self, seat: int) -> list[str]:
        """The commit's events in words as ``seat`` may know them (withheld and quiet events left out)."""
        presenter = self.plugin.presenter
        over = self.plugin.rules.is_over(self.after)
        out = []
        for _, event, state in self.events:
            if event.type in presenter.quiet_events:
                continue
            text = presenter.narrate(event, seat, self.after if over else state, self.players)
            if text:
                out.append(text)
        return out


NoticeRule = Callable[[Commit, int], dict[str, Any] | None]
"""A notice kind: the body fields of its notice to ``seat`` after ``commit`` (at least ``text``), or None."""

_KINDS: dict[str, NoticeRule | None] = {}


def notice_kind(name: str) -> Callable[[NoticeRule], NoticeRule]:
    """Register a notice kind under ``name`` (a decorator)."""

    def add(rule: NoticeRule) -> NoticeRule:
        _KINDS[name] = rule
        return rule

    return add


def external_kind(name: str) -> None:
    """Register a notice kind that follows from no commit (a clock running low): the process that notices it
    queues it with :meth:`services.webhooks.outbox.Outbox.notify`; webhooks may ask for it like any kind."""
    _KINDS.setdefault(name, None)


def kinds() -> tuple[str, ...]:
    """The names of the notice kinds a webhook may ask for."""
    return tuple(_KINDS)


def notice_id(game_id: str, seat: int, kind: str, version: int) -> str:
    """The id of a notice: the same for the same game, seat, kind and version, whoever computes it."""
    return f"{game_id}:{seat}:{kind}:{version}"


@dataclass(frozen=True, slots=True)
class Notice:
    """One thing to tell one seat: its id and the JSON body delivered to each of the seat's webhooks of its kind."""

    id: str
    seat: int
    kind: str
    body: dict[str, Any]


@notice_kind("turn")
def _turn(commit: Commit, seat: int) -> dict[str, Any] | None:
    rules, presenter = commit.plugin.rules, commit.plugin.presenter
    after = commit.after
    if rules.is_over(after):
        return None
    waiting = rules.awaited(after)
    if seat not in waiting:
        return None
    before = rules.awaited(commit.before)
    prompt = presenter.prompt(after, seat) or "Your turn."
    if seat in before and tuple(before) != (seat,) and presenter.prompt(commit.before, seat) == prompt:
        return None  # still waiting for the same answer while others move: told already
    return {"text": prompt, "prompt": prompt, "events": commit.narration(seat)}


@notice_kind("game_over")
def _game_over(commit: Commit, seat: int) -> dict[str, Any] | None:
    rules = commit.plugin.rules
    if not rules.is_over(commit.after) or rules.is_over(commit.before):
        return None
    events = commit.narration(seat)
    return {"text": events[-1] if events else "The game is over.", "result": rules.result(commit.after),
            "events": events}  # fmt: skip


def notices(commit: Commit, seats: Iterable[int], wanted: Sequence[str] | None = None) -> list[Notice]:
    """The notices of ``commit`` for ``seats`` (of the kinds ``wanted``, default every kind)."""
    out = []
    for kind in wanted or kinds():
        rule = _KINDS.get(kind)
        if rule is None:
            continue
        for seat in sorted(set(seats)):
            fields = rule(commit, seat)
            if fields is None:
                continue
            nid = notice_id(commit.game_id, seat, kind, commit.version)
            players = commit.players
            body = {
                "id": nid, "kind": kind, "game_id": commit.game_id, "game": commit.plugin.rules.name,
                "seat": seat, "player": players[seat] if seat < len(players) else None,
                "version": commit.version, "committed_ms": commit.at_ms, **fields,
            }  # fmt: skip
            out.append(Notice(nid, seat, kind, body))
    return out


def commits(events: Sequence[StoredEvent]) -> list[list[StoredEvent]]:
    """Recorded events split into commits: a commit's events carry the same command id and commit time.

    Read only whole commits (the rules worker writes each at once, so a read of a game's stream always ends on
    a commit's end). Two commits in a row with the same command id in the same millisecond would count as one:
    their notices are then those of the later state only."""
    out: list[list[StoredEvent]] = []
    for event in events:
        if out and (out[-1][-1].command_id, out[-1][-1].at) == (event.command_id, event.at):
            out[-1].append(event)
        else:
            out.append([event])
    return out
