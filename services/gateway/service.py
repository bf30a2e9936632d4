"""The gateway's core: what the HTTP routes, the WebSocket feed and the chat surface have in common.

The hot paths run on the event loop: submitting a command and awaiting its outcome
(:mod:`services.gateway.asyncbus`), and bringing a cached game up to date (one pipelined read, then folding the
few new events). A command's answer needs no read at all when the cached position is current: the reply carries
the events the worker committed, and the gateway folds those (reading only the events its cache misses before
them). Other blocking work (loading a game not cached yet, read models, views) runs in the thread pool.
"""

from __future__ import annotations

import contextlib
import math
import time
from dataclasses import dataclass
from typing import Any

import orjson
import redis
from pydantic import ValidationError
from starlette.concurrency import run_in_threadpool

from events.clock import LEAVE_SEAT, TIME_OUT
from projections.api import ReadModels
from services.bus import envelope as env_mod
from services.bus.client import BusClient, new_id
from services.bus.envelope import CommandEnvelope, Outcome, seat_key, summarize
from services.bus.keys import Layout
from services.gateway import errors as E
from services.gateway.asyncbus import AsyncBus, Refused
from services.gateway.errors import ApiError
from services.gateway.games import Directory, GameInfo, History, NoSuchGame, Position, label_of, seat_event
from services.gateway.limits import Limits
from services.gateway.lobby import Lobby, seat_key_from_env
from services.gateway.models import CommandResult, LegalCommand, NarratedEvent, SeatEvent, SeatView
from services.gateway.narration import Narrated, narrate
from services.log import get_logger

# HTTP status of a rejection, by code; every other code (the game's own: not_your_turn, ...) is 409.
_REJECTION_STATUS = {
    env_mod.BAD_ENVELOPE: 400,
    env_mod.NOT_JSON: 400,
    env_mod.BAD_COMMAND: 422,
    env_mod.WRONG_TOKEN: 401,
    env_mod.UNKNOWN_GAME: 404,
    env_mod.PAYLOAD_TOO_LARGE: 413,
    env_mod.DEAD_LETTER: 503,
    env_mod.COMMAND_ID_CONFLICT: 409,
}


@dataclass
class Gateway:
    """Shared state of one gateway process."""

    client: redis.Redis
    layout: Layout
    directory: Directory
    bus: AsyncBus
    service: BusClient
    limits: Limits
    read_models: ReadModels
    lobby: Lobby | None = None

    def __post_init__(self) -> None:
        self.log = get_logger("gateway")
        if self.lobby is None:
            self.lobby = Lobby(self.client, self.layout, seat_key_from_env())

    # --- games ----------------------------------------------------------------------------------------
    async def info(self, game_id: str) -> GameInfo:
        """A game's fixed info (cached; a miss reads Redis in the thread pool). 404 ``unknown_game``."""
        known = self.directory.cached_info(game_id)
        if known is not None:
            return known
        return await run_in_threadpool(self.info_sync, game_id)

    async def warm(self, game_id: str) -> None:
        """Before a command of a game not cached here yet: its position (and so its info) loaded in one hop to
        the thread pool, so that the command's answer only folds the events of its reply; else the info takes
        one hop and reading the game back for the answer another. Redis failing is raised as the info's read
        would raise it; whatever else fails here (no such game, rules or events that do not load) is left for
        the command's own way to answer, as it always did."""
        if self.directory.cached_info(game_id) is not None:
            return
        try:
            await run_in_threadpool(self.directory.position, game_id)
        except (redis.RedisError, OSError):
            raise
        except Exception:  # answered by the command's own way (see above)
            pass

    def info_sync(self, game_id: str) -> GameInfo:
        """:meth:`info` for the thread pool."""
        try:
            return self.directory.info(game_id)
        except NoSuchGame:
            raise ApiError(404, E.UNKNOWN_GAME, f"no game {game_id!r}") from None

    def position(self, game_id: str) -> Position:
        """The game's latest position (blocking). 404 ``unknown_game``."""
        try:
            return self.directory.position(game_id)
        except NoSuchGame:
            raise ApiError(404, E.UNKNOWN_GAME, f"no game {game_id!r}") from None

    def history(self, game_id: str, after: int) -> tuple[Position, History]:
        """The latest position and the events after ``after`` (blocking). 404 ``unknown_game``."""
        try:
            return self.directory.history(game_id, after)
        except NoSuchGame:
            raise ApiError(404, E.UNKNOWN_GAME, f"no game {game_id!r}") from None

    def history_page(self, game_id: str, after: int, upto: int) -> tuple[Position, History]:
        """The latest position and the events ``after < version <= upto`` (blocking). 404 ``unknown_game``."""
        try:
            return self.directory.history_page(game_id, after, upto)
        except NoSuchGame:
            raise ApiError(404, E.UNKNOWN_GAME, f"no game {game_id!r}") from None

    async def position_async(self, game_id: str) -> Position:
        """:meth:`position` on the event loop when the game is cached (one pipelined round trip, then folding
        the few new events here); a game not cached yet is loaded in the thread pool."""
        moved = await self._advance_cached(game_id)
        return moved if moved is not None else await run_in_threadpool(self.position, game_id)

    async def history_async(self, game_id: str, after: int, reads: Any = None) -> tuple[Position, History]:
        """:meth:`history` on the event loop when the cached position reaches back to ``after``.

        ``reads``: the asyncio Redis client to read with (default: the bus's; the feeds pass their own).
        """
        moved = await self._advance_cached(game_id, reads)
        if moved is not None:
            items = moved.recent_after(after)
            if items is not None:
                return moved, items
        return await run_in_threadpool(self.history, game_id, after)

    async def _advance_cached(self, game_id: str, reads: Any = None) -> Position | None:
        # The command path stays off the thread pool: a thread hop per command, and threads contending with
        # the event loop for the GIL, cost more than folding a handful of events right here.
        directory = self.directory
        pos = directory.cached_position(game_id)
        if pos is None or pos.status == "archived":
            return None
        pipe = (reads if reads is not None else self.bus.r).pipeline(transaction=False)
        for name, args in directory.refresh_reads(pos):
            getattr(pipe, name)(*args)
        try:
            moved = directory.advance(pos, *(await pipe.execute()))
        except NoSuchGame:
            raise ApiError(404, E.UNKNOWN_GAME, f"no game {game_id!r}") from None
        return directory.keep(moved) if moved is not None else None

    def seat_events(self, pos: Position, items: History, seat: int | None, upto: int | None = None) -> list[SeatEvent]:
        """Events as ``seat`` may see them.

        While the game runs each event is redacted with the state right after it, so the same version always
        reads the same (a resumed feed repeats exactly what the live one sent); once the game is over, with the
        final state: everything is public then.
        """
        game = pos.plugin
        over = pos.over
        return [
            SeatEvent(version=v, event=seat_event(game, event, seat, pos.state if over else state))
            for v, event, state in items
            if upto is None or v <= upto
        ]

    def seat_view(self, pos: Position, seat: int | None) -> SeatView:
        """The view of ``seat`` (None: a spectator) and its legal commands with labels."""
        game = pos.plugin
        legal: list[LegalCommand] = []
        if seat is not None and not pos.over:
            for i, command in enumerate(game.rules.legal_commands(pos.state, seat)):
                legal.append(
                    LegalCommand(
                        index=i, label=label_of(game, command, pos.state), command=game.rules.encode_command(command)
                    )
                )
        return SeatView(
            game_id=pos.game_id,
            game=pos.name,
            seat=seat,
            version=pos.version,
            over=pos.over,
            awaiting=list(game.rules.awaited(pos.state)),
            view=game.presenter.view(pos.state, seat),
            legal=legal,
            result=game.rules.result(pos.state),
            clocks=game.rules.clock_status(pos.state, int(time.time() * 1000)),
        )

    # --- commands -------------------------------------------------------------------------------------
    def envelope(
        self,
        info: GameInfo,
        seat: int,
        token: str,
        command: dict[str, Any],
        expected_version: int | None,
        command_id: str | None,
    ) -> CommandEnvelope:
        """Check a seat's command against the game's command model and wrap it for the bus, signed with the
        seat's token (the token itself never goes to Redis: the envelope carries a proof bound to this command).

        A command naming another seat is 403 ``forbidden_seat``; one the game can not parse is 422
        ``bad_command``; neither reaches the bus.
        """
        named = command.get("seat")
        if named is not None and named != seat:
            raise ApiError(403, E.FORBIDDEN_SEAT, f"this token acts for seat {seat} only, not seat {named}")
        payload = {**command, "seat": seat}
        try:
            parsed = info.rules.parse_command(payload)
        except ValidationError as exc:
            raise ApiError(422, E.BAD_COMMAND, summarize(exc)) from None
        except (ValueError, TypeError) as exc:
            raise ApiError(422, E.BAD_COMMAND, str(exc)[:300]) from None
        if parsed.type == TIME_OUT:
            raise ApiError(422, E.BAD_COMMAND, "TimeOut is the timer's claim, never a player's command")
        if parsed.type == LEAVE_SEAT:
            raise ApiError(422, E.BAD_COMMAND, "to leave the game, POST /games/{game_id}/seats/{seat}/leave")
        return CommandEnvelope.signed(
            seat_key(token),
            command_id=command_id or new_id(),
            game_id=info.game_id,
            seat=seat,
            expected_version=expected_version,
            payload=payload,
            reply_events=True,  # the answer is made of them (see result)
        )

    async def record_leave(self, info: GameInfo, seat: int, token: str, bot_kind: str) -> None:
        """Record that ``seat``'s player leaves (``LeaveSeat`` through the rules worker, signed with the seat's
        token), so the game's record holds the ``SeatLeft`` fact. Recorded already (a leave whose lobby step
        failed): nothing more to record. Any other refusal is raised as its typed error."""
        payload = {"type": LEAVE_SEAT, "seat": seat, "bot": bot_kind}
        env = CommandEnvelope.signed(
            seat_key(token), command_id=new_id(), game_id=info.game_id, seat=seat, expected_version=None,
            payload=payload, reply_events=False,
        )  # fmt: skip
        outcome = await self.bus.submit_and_wait(env, self.limits.command_timeout)
        if outcome is None:
            raise ApiError(504, E.OUTCOME_TIMEOUT, "the leave was not recorded in time; send it again")
        if not outcome.accepted and not (outcome.rejection is not None and outcome.rejection.code == E.SEAT_LEFT):
            raise rejection_error(outcome)

    async def execute(self, env: CommandEnvelope, fresh: bool) -> Outcome:
        """Submit a command and await its outcome; 504 ``outcome_timeout`` (with the command id) if none comes.

        ``fresh``: the command id was made here, so it can have no outcome yet. A client-chosen id may be a
        retry: its stored outcome answers it (or ``command_id_conflict`` when the id named another command of
        this seat), and nothing is submitted again.
        """
        started = time.perf_counter()
        shard = self.layout.shard_of(env.game_id)
        left = (self.layout.seats(shard, env.game_id), f"left.{env.seat}")
        if fresh and self.bus.pipelined:
            # The seat's check goes in the submission's own write (no round trip of its own).
            try:
                outcome = await self.bus.submit_and_wait(env, self.limits.command_timeout, unless=left)
            except Refused:
                raise _seat_left(env.seat) from None
        else:
            if await self.bus.r.hexists(*left):
                raise _seat_left(env.seat)
            outcome = None if fresh else await self.bus.known(env)
            if outcome is None:
                outcome = await self.bus.submit_and_wait(env, self.limits.command_timeout)
        ms = round((time.perf_counter() - started) * 1000, 2)
        if outcome is None:
            self.log.warning("gateway.timeout", game=env.game_id, cid=env.command_id, shard=shard, ms=ms)
            raise ApiError(
                504,
                E.OUTCOME_TIMEOUT,
                "no outcome in time; send the same command_id again to learn it (it is decided at most once)",
                command_id=env.command_id,
            )
        self.log.debug(
            "gateway.command", game=env.game_id, cid=env.command_id, shard=shard, seat=env.seat,
            status=outcome.status, version=outcome.version, ms=ms,
        )  # fmt: skip
        return outcome

    async def result(self, outcome: Outcome, seat: int) -> CommandResult:
        """An accepted outcome with its events as ``seat`` sees them, each narrated as that seat may know it;
        a refusal raised as a typed error."""
        pos, first, narrated = await self._narrated(outcome, seat)
        return CommandResult(
            game=pos.name,
            command_id=outcome.command_id,
            first_version=first,
            version=outcome.version or 0,
            over=outcome.over,
            events=[NarratedEvent(version=n.version, event=n.event, text=n.text, quiet=n.quiet) for n in narrated],
        )

    async def result_json(self, outcome: Outcome, seat: int) -> bytes:
        """:meth:`result` as the JSON body of its answer, the same bytes as the :class:`CommandResult` model's,
        written straight from the narrated events: the models' validation and serialization cost more than
        the redaction and narration they carry (an event the plain encoder can not write takes the models'
        way)."""
        pos, first, narrated = await self._narrated(outcome, seat)
        body = {
            "status": "accepted",
            "game": pos.name,
            "command_id": outcome.command_id,
            "first_version": first,
            "version": outcome.version or 0,
            "over": outcome.over,
            "events": [{"version": n.version, "event": n.event, "text": n.text, "quiet": n.quiet} for n in narrated],
        }
        if all(_plain_json(n.event) for n in narrated):
            with contextlib.suppress(TypeError):  # (an int beyond 64 bits, which the models write)
                return orjson.dumps(body)
        result = CommandResult.model_validate(body)
        return result.__pydantic_serializer__.to_json(result, by_alias=True)

    async def _narrated(self, outcome: Outcome, seat: int) -> tuple[Position, int, list[Narrated]]:
        """The position after an accepted command, its first version and its events narrated for ``seat``; a
        refusal raised as a typed error."""
        if not outcome.accepted:
            raise rejection_error(outcome)
        first = outcome.first_version or (outcome.version or 0) + 1
        answered = await self._from_reply(outcome, first)
        pos, items = answered if answered is not None else await self.history_async(outcome.game_id, first - 1)
        last = outcome.version
        own = items if last is None else [item for item in items if item[0] <= last]
        game, over = pos.plugin, pos.over
        shown = [seat_event(game, event, seat, pos.state if over else state) for _, event, state in own]
        return pos, first, narrate(game, pos, own, seat, shown)

    async def _from_reply(self, outcome: Outcome, first: int) -> tuple[Position, History] | None:
        """The game after an accepted command, from the events its reply carries: the cached position moved on
        by them, reading only the events the cache misses before them (None: no usable cache or no events in
        the reply; the caller reads the game instead)."""
        data, last = outcome.event_data, outcome.version
        directory = self.directory
        pos = directory.cached_position(outcome.game_id)
        if data is None or last is None or pos is None or pos.status == "archived" or len(data) != last - first + 1:
            return None
        if pos.version < last:
            records: list[tuple[int, Any]] = list(zip(range(first, last + 1), data, strict=True))
            if pos.version < first - 1:
                # The cache is behind (other seats moved meanwhile): read what it misses, and only that.
                records = [*await self.bus.events_between(outcome.game_id, pos.version, first - 1), *records]
            moved = directory.advance_by(pos, records, "over" if outcome.over else pos.status)
            if moved is None:
                return None
            pos = directory.keep(moved)
        items = pos.recent_after(first - 1)
        return None if items is None else (pos, items)


def _plain_json(value: Any) -> bool:
    """Whether ``value`` is made of what JSON itself holds (str keys; str, int, float, bool, None, list, tuple),
    which the plain encoder writes as the models would; anything else (sets, models, dates...) takes the
    models' way."""
    kind = type(value)
    if kind is dict:
        return all(type(k) is str and _plain_json(v) for k, v in value.items())
    if kind is list or kind is tuple:
        return all(_plain_json(v) for v in value)
    if kind is float:
        return math.isfinite(value)  # (the models write NaN and infinities as null, as orjson does, but say so)
    return value is None or kind is str or kind is int or kind is bool


def _seat_left(seat: int) -> ApiError:
    return ApiError(403, E.SEAT_LEFT, f"seat {seat}'s player left the game: a bot plays it now")


def rejection_error(outcome: Outcome) -> ApiError:
    """The typed error of a refused (or dead-lettered) command."""
    rej = outcome.rejection
    code = rej.code if rej is not None else outcome.status
    message = rej.message if rej is not None else "the command was not accepted"
    status = _REJECTION_STATUS.get(code, 503 if outcome.status == "dead_letter" else 409)
    rulings = list(rej.rulings) if rej is not None else []
    return ApiError(status, code, message, command_id=outcome.command_id, version=outcome.version, rulings=rulings)
