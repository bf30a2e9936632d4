"""Why each event happened and every refused command: the audit, from its read model or from the store."""

from collections.abc import Mapping
from typing import Any

import orjson

from projections.audit_model import command_doc, compose_audit_entry, compose_refusal_entry
from projections.history import BadVersion, Game
from projections.read_base import ReadBase
from services.rules import fair
from services.rules.reference import Ruling


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
        limit: int | None = None,
    ) -> dict[str, Any]:  # fmt: skip
        """Why each event (or the one at ``version``) happened, and every refused command, in the order they were
        judged: command, sender, time, rulings (with their texts), inputs.

        ``seat`` None: the referee's full record (every secret: show it to referees, or once the game is over).
        A seat: what that seat may know of it while the game runs, its own refused commands only (a seat's own
        refusals are its secret [K14]; its events are in its feed).

        ``limit``: one page, the versions ``after < v <= after + limit`` (events and the commands refused at
        them); the answer then also holds ``after``, ``next`` (the following page's ``after``, None at the end),
        ``last_version`` and ``over``."""
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
        refusals = self._refusals(game, first, last, seat, reference)
        over = game.meta.finished
        if seat is not None:
            return {"game_id": game_id, "seat": seat, **page, "entries": fair.scrub(refusals, over)}
        got = self.r.xrange(self.keys.audit(game_id), min=f"0-{first}", max=f"0-{last}")
        cids = sorted({f[b"c"] for _, f in got})
        docs = dict(zip(cids, self.r.hmget(self.keys.audit_commands(game_id), cids), strict=True)) if cids else {}
        rules, presenter = game.rules, game.presenter
        entries = []
        for eid, f in got:
            doc = docs.get(f[b"c"])
            v = int(eid.decode().partition("-")[2])
            data = orjson.loads(f[b"e"])
            command = orjson.loads(doc) if doc else None
            entries.append(
                compose_audit_entry(
                    v,
                    data,
                    int(f[b"t"]),
                    f[b"c"].decode(),
                    command,
                    f[b"x"].decode(),
                    automatic=presenter.flow_event(rules.parse_event(data)),
                    reference=reference,
                )
            )
        done = entries[-1]["version"] if entries else first - 1
        if done < last:
            # The audit model is behind (or not running): the rest straight from the store, composed alike.
            entries += self._audit_from_store(game, done + 1, last, reference)
        # The seed and the salt are the referee's secrets until the end, even in the referee's record [X23, KX23].
        fairness = self.fairness(game)
        return {
            "game_id": game_id,
            **page,
            "practice": bool(fairness.get("practice")),
            "fairness": fair.scrub(fairness, over),
            "entries": fair.scrub(_interleave(entries, refusals), over),
        }

    def fairness(self, game: Game) -> dict[str, Any]:
        """Whether the game's recorded reveal matches its published commitment (``services/rules/fair.py``)."""
        events = self.history.events(game, 1, game.version)
        return fair.verdict(e.data for i, e in enumerate(events) if i == 0 or e.data.get("type") in fair.FACTS)

    def _audit_from_store(
        self, game: Game, first: int, last: int, reference: Mapping[str, Ruling]
    ) -> list[dict[str, Any]]:
        log = {c.command_id: c for c in self.history.commands(game)}
        docs: dict[str, dict[str, Any]] = {}
        out = []
        for stored in self.history.events(game, first, last):
            event = game.rules.parse_event(stored.data)
            cmd = log.get(stored.command_id)
            if cmd is not None and not (cmd.outcome.get("first_version") or 0) <= stored.version <= cmd.version:
                cmd = None
            if cmd is not None and cmd.command_id not in docs:
                # Labelled in the position it was sent in: the state before its first event.
                pre, _ = self.history.state_at(game, int(cmd.outcome.get("first_version", 1)) - 1)
                docs[cmd.command_id] = orjson.loads(_dumps_doc(command_doc(game.ctx(pre, 0), cmd, pre)))
            explanation = game.presenter.explain_event(event, game.players)
            doc = docs.get(cmd.command_id) if cmd is not None else None
            out.append(
                compose_audit_entry(
                    stored.version,
                    stored.data,
                    stored.at,
                    stored.command_id,
                    doc,
                    explanation,
                    automatic=game.presenter.flow_event(event),
                    reference=reference,
                )
            )
        return out

    def _refusals(
        self, game: Game, first: int, last: int, seat: int | None, reference: Mapping[str, Ruling]
    ) -> list[dict[str, Any]]:
        """The refused commands (of ``seat``, or all) judged at versions ``first..last``, in log order; each
        labelled in the position it was judged in."""
        refused = [
            c for c in self.history.commands(game)
            if c.kind == "cmd" and not c.accepted and first <= c.version <= last and (seat is None or c.seat == seat)
        ]  # fmt: skip
        states: dict[int, Any] = {}
        out = []
        for cmd in refused:
            if cmd.version not in states:
                states[cmd.version], _ = self.history.state_at(game, cmd.version)
            state = states[cmd.version]
            doc = orjson.loads(_dumps_doc(command_doc(game.ctx(state, cmd.version), cmd, state)))
            out.append(compose_refusal_entry(doc, reference))
        return out
