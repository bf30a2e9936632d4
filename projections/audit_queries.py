"""Why each event happened and every refused command: the audit, from its read model or from the store."""

from collections.abc import Mapping, Sequence
from typing import Any

import orjson

from projections.audit_model import command_doc, compose_audit_entry, compose_refusal_entry
from projections.history import BadVersion, Game, Span
from projections.read_base import ReadBase
from services.rules import fair
from services.rules.reference import Ruling
from services.store.eventstore import StoredCommand, StoredEvent


def _dumps_doc(doc: dict[str, Any]) -> bytes:
    return orjson.dumps(doc, default=str)


def _interleave(events: list[dict[str, Any]], refusals: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Event entries in version order with each refusal after the event of the version it was judged at."""
    out: list[dict[str, Any]] = []
    pending = iter(refusals)
    nxt = next(pending, None)
    for entry in events:
        out.append(entry)
        while nxt is not None and nxt["version"] <= entry["version"]:
            out.append(nxt)
            nxt = next(pending, None)
    while nxt is not None:
        out.append(nxt)
        nxt = next(pending, None)
    return out


class AuditQueries(ReadBase):
    """The audit and the fairness verdict (see projections/api.py for the shape)."""

    def audit(
        self, game_id: str, version: int | None = None, seat: int | None = None, after: int = 0,
        limit: int | None = None, refused_only: bool = False,
    ) -> dict[str, Any]:  # fmt: skip
        """Why each event (or the one at ``version``) happened, and every refused command, in the order they were
        judged: command, sender, time, rulings (with their texts), inputs.

        ``seat`` None: the referee's full record (every secret: show it to referees, or once the game is over).
        A seat: what that seat may know of it while the game runs, its own refused commands only (a seat's own
        refusals are its secret [K14]; its events are in its feed). ``refused_only``: the refused commands alone.

        ``limit``: one page, the versions ``after < v <= after + limit`` (events and the commands refused at
        them); the answer then also holds ``after``, ``next`` (the following page's ``after``, None at the end),
        ``last_version`` and ``over``.

        A few reads whatever the game's length: the metadata, the command log, the audit model's entries and
        their commands' documents, and the events (for the fairness verdict and the positions the refusals, or
        the commands the model has not reached yet, are labelled in: one fold forward)."""
        game = self.history.game(game_id)
        game.check_seat(seat)
        if version is not None and not 1 <= version <= game.version:
            raise BadVersion(f"game {game_id} has events 1..{game.version}, not {version}")
        if version is not None:
            first, last = version, version
        else:
            first = after + 1
            last = game.version if limit is None else min(game.version, after + limit)
        page: dict[str, Any] = {}
        if limit is not None or version is not None:
            paged = version is None
            page = {
                "last_version": game.version, "over": game.finished, "after": after if paged else None,
                "next": last if paged and last < game.version else None,
            }  # fmt: skip
        if last < first:
            return {"game_id": game_id, **({"seat": seat} if seat is not None else {}), **page, "entries": []}
        reference = game.plugin.rulings()
        commands = self.history.commands(game)
        refused = [
            c for c in commands
            if c.kind == "cmd" and not c.accepted and first <= c.version <= last and (seat is None or c.seat == seat)
        ]  # fmt: skip
        over = game.meta.finished
        if seat is not None:
            return {
                "game_id": game_id,
                "seat": seat,
                **page,
                "entries": fair.scrub(self._refusals(game, refused, reference), over),
            }
        # The referee's record: the whole game's events are read once, for the fairness verdict and the fold.
        events = self.history.events(game, 1, game.version)
        entries: list[dict[str, Any]] = []
        if not refused_only:
            entries = self._modelled(game, first, last, reference)
        done = entries[-1]["version"] if entries else first - 1
        log = {c.command_id: c for c in commands}
        # The audit model is behind (or not running): the rest straight from the store, composed alike.
        behind = [] if refused_only else [e for e in events if done < e.version <= last]
        labelled = [cmd for e in behind if (cmd := _command_of(log, e)) is not None]
        span = self._positions(game, refused, labelled, events)
        entries += self._from_store(game, behind, log, span, reference)
        refusals = self._refusals(game, refused, reference, span)
        # The seed and the salt are the referee's secrets until the end, even in the referee's record [X23, KX23].
        fairness = self.fairness(game, events)
        return {
            "game_id": game_id,
            **page,
            **({"only": "refused"} if refused_only else {}),
            "practice": bool(fairness.get("practice")),
            "fairness": fair.scrub(fairness, over),
            "entries": fair.scrub(_interleave(entries, refusals), over),
        }

    def fairness(self, game: Game, events: Sequence[StoredEvent] | None = None) -> dict[str, Any]:
        """Whether the game's recorded reveal matches its published commitment (``services/rules/fair.py``);
        ``events``: the game's recorded events when the caller holds them (else they are read)."""
        if events is None:
            events = self.history.events(game, 1, game.version)
        return fair.verdict(e.data for i, e in enumerate(events) if i == 0 or e.data.get("type") in fair.FACTS)

    def _modelled(self, game: Game, first: int, last: int, reference: Mapping[str, Ruling]) -> list[dict[str, Any]]:
        """The event entries of versions ``first..last`` the audit model holds (two reads), in version order."""
        got = self.r.xrange(self.keys.audit(game.game_id), min=f"0-{first}", max=f"0-{last}")
        cids = sorted({f[b"c"] for _, f in got})
        docs = dict(zip(cids, self.r.hmget(self.keys.audit_commands(game.game_id), cids), strict=True)) if cids else {}
        rules, presenter = game.rules, game.presenter
        entries = []
        for eid, f in got:
            doc = docs.get(f[b"c"])
            data = orjson.loads(f[b"e"])
            entries.append(
                compose_audit_entry(
                    int(eid.decode().partition("-")[2]),
                    data,
                    int(f[b"t"]),
                    f[b"c"].decode(),
                    orjson.loads(doc) if doc else None,
                    f[b"x"].decode(),
                    automatic=presenter.flow_event(rules.parse_event(data)),
                    reference=reference,
                )
            )
        return entries

    def _positions(
        self, game: Game, refused: list[StoredCommand], labelled: list[StoredCommand], events: Sequence[StoredEvent]
    ) -> Span | None:
        """One fold over the positions the entries are labelled in: each refusal's (the state it was judged at)
        and each store-composed command's (the state before its first event); None when there are none."""
        wanted = [c.version for c in refused] + [_first_version(c) - 1 for c in labelled]
        if not wanted:
            return None
        return self.history.fold_span(game, min(wanted), max(wanted), events)

    def _from_store(
        self, game: Game, events: Sequence[StoredEvent], log: Mapping[str, StoredCommand], span: Span | None,
        reference: Mapping[str, Ruling],
    ) -> list[dict[str, Any]]:  # fmt: skip
        """The event entries of ``events`` composed from the store (the command log and ``span``'s positions)."""
        docs: dict[str, dict[str, Any]] = {}
        out = []
        for stored in events:
            event = game.rules.parse_event(stored.data)
            cmd = _command_of(log, stored)
            if cmd is not None and span is not None and cmd.command_id not in docs:
                # Labelled in the position it was sent in: the state before its first event.
                pre = span.at(_first_version(cmd) - 1)
                docs[cmd.command_id] = orjson.loads(_dumps_doc(command_doc(game.ctx(pre, 0), cmd, pre)))
            explanation = game.presenter.explain_event(event, game.players)
            out.append(
                compose_audit_entry(
                    stored.version,
                    stored.data,
                    stored.at,
                    stored.command_id,
                    docs.get(cmd.command_id) if cmd is not None else None,
                    explanation,
                    automatic=game.presenter.flow_event(event),
                    reference=reference,
                )
            )
        return out

    def _refusals(
        self, game: Game, refused: list[StoredCommand], reference: Mapping[str, Ruling], span: Span | None = None
    ) -> list[dict[str, Any]]:
        """The entries of the ``refused`` commands, in log order; each labelled in the position it was judged in
        (``span``'s, else one fold over them)."""
        if span is None and refused:
            span = self.history.fold_span(game, min(c.version for c in refused), max(c.version for c in refused))
        out = []
        for cmd in refused:
            state = span.at(cmd.version) if span is not None else None
            doc = orjson.loads(_dumps_doc(command_doc(game.ctx(state, cmd.version), cmd, state)))
            out.append(compose_refusal_entry(doc, reference))
        return out


def _first_version(cmd: StoredCommand) -> int:
    return int(cmd.outcome.get("first_version", 1))


def _command_of(log: Mapping[str, StoredCommand], stored: StoredEvent) -> StoredCommand | None:
    """The logged command that wrote ``stored`` (None when the log has none that covers its version)."""
    cmd = log.get(stored.command_id)
    if cmd is not None and not (cmd.outcome.get("first_version") or 0) <= stored.version <= cmd.version:
        return None
    return cmd
