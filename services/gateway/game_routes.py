"""Opening a game, its public summary, and a seat's commands with their outcomes (the gateway's hot path)."""

from __future__ import annotations

import json
from collections.abc import Callable, Coroutine
from typing import Any

from fastapi import FastAPI, Path, Request, Response
from fastapi.routing import APIRoute

from services.bots.kinds import bot_kinds
from services.bus.client import GameNotCreated, new_id
from services.bus.envelope import Outcome
from services.bus.keys import COMMAND_ID_RE, GAME_ID_RE
from services.gateway import errors as E
from services.gateway.auth import TokenFirstRoute, seat_of, token_first
from services.gateway.errors import ApiError
from services.gateway.models import (
    CommandRequest,
    CommandResult,
    CreatedGame,
    CreateGameRequest,
    GameSummary,
    Seat,
)
from services.gateway.route_common import (
    ERRORS,
    SEAT,
    GameId,
    gateway_of,
    new_router,
    token_of,
)  # fmt: skip
from services.gateway.service import rejection_error
from services.rules.registry import game_names, get_game

router = new_router()


@router.post("/games", status_code=201, response_model=CreatedGame, responses=ERRORS, tags=["games"])
def create_game(body: CreateGameRequest, request: Request) -> CreatedGame:
    """Open a game and get one secret token per seat (shown only here; keep them). Seats listed in ``open`` get
    no token here: the lobby offers them, and the first claim of each receives its token."""
    gw = gateway_of(request)
    if body.game not in game_names():
        raise ApiError(422, "unknown_game_name", f"no game called {body.game!r}; known: {', '.join(game_names())}")
    kinds = bot_kinds(body.game)
    bots = body.bot_seats
    for seat, kind in bots.items():
        if kind not in kinds:
            raise ApiError(422, "unknown_bot_kind", f"no bot {kind!r} for {body.game}; known: {', '.join(kinds)}")
        if not 0 <= seat < len(body.players):
            raise ApiError(422, E.VALIDATION, f"bot seat {seat} is not a seat of this game")
    clock_setting = body.settings.get("clock") if isinstance(body.settings, dict) else None
    handover = clock_setting.get("bot") if isinstance(clock_setting, dict) else None
    if isinstance(handover, str) and handover not in kinds:  # the rules check its form; the kinds live here
        raise ApiError(
            422, "unknown_bot_kind", f"clock bot {handover!r}: no such bot for {body.game}; known: {', '.join(kinds)}"
        )
    if body.seed is not None and body.open and get_game(body.game).rules.commits_seed:
        raise ApiError(
            422,
            "seed_not_allowed",
            "a chosen seed would let its chooser compute every hand and draw of a table strangers may join: leave "
            "the seed out (the referee draws it and reveals it at the end), or open no seat (a practice table)",
        )
    lobby = gw.lobby
    assert lobby is not None
    game_id = new_id()
    open_seats = lobby.new_open_seats(body.open)
    try:
        new = gw.service.create_game(
            body.game, body.players, body.settings, body.seed, timeout=gw.limits.command_timeout, bots=bots,
            player_ids=body.player_ids, game_id=game_id, tokens=open_seats.tokens(lobby.key, game_id),
        )  # fmt: skip
    except GameNotCreated as exc:
        raise rejection_error(exc.outcome) from None
    except TimeoutError:
        raise ApiError(504, E.OUTCOME_TIMEOUT, "the game was not created in time") from None
    except ValueError as exc:
        raise ApiError(422, E.VALIDATION, str(exc)[:300]) from None
    lobby.offer(new.game_id, open_seats)
    ids = body.player_ids or [None] * len(body.players)
    seats = [
        Seat(
            seat=i, player=p, token=None if i in bots or i in body.open else t, bot=bots.get(i), player_id=ids[i],
            open=i in body.open,
        )
        for i, (p, t) in enumerate(zip(body.players, new.tokens, strict=True))
    ]  # fmt: skip
    version = new.outcome.version if new.outcome is not None and new.outcome.version is not None else 0
    gw.log.info("gateway.game_created", game=new.game_id, name=body.game, players=len(body.players), version=version)
    return CreatedGame(
        game_id=new.game_id, game=body.game, players=body.players, seed=new.seed, practice=new.seed is not None,
        commitment=new.commitment if get_game(body.game).rules.commits_seed else None, version=version, seats=seats,
    )  # fmt: skip


@router.get("/games/{game_id}", response_model=GameSummary, responses=ERRORS, tags=["games"])
def game_summary(request: Request, game_id: str = GameId) -> GameSummary:
    """What anyone may know of a game: players, status, version, who is awaited, the result once over."""
    gw = gateway_of(request)
    pos = gw.position(game_id)
    rules = pos.rules
    fairness = rules.fairness(pos.state)
    return GameSummary(
        game_id=game_id,
        game=pos.name,
        players=list(pos.players),
        status=pos.status,
        version=pos.version,
        over=pos.over,
        awaiting=list(rules.awaited(pos.state)),
        result=rules.result(pos.state),
        practice=bool(fairness and fairness["practice"]),
        fairness=fairness,
    )


async def send_command(body: CommandRequest, request: Request, game_id: str = GameId) -> CommandResult:
    """Send a command for the token's seat and get its outcome: the events it caused, or a typed rejection."""
    outcome, seat = await _decided(body, request, game_id)
    return await gateway_of(request).result(outcome, seat)


async def _decided(
    body: CommandRequest, request: Request, game_id: str, seat: int | None = None
) -> tuple[Outcome, int]:
    """The outcome of the request's command (submitted for the token's seat), and that seat (``seat``: the
    token's, checked already by :func:`token_first`)."""
    gw = gateway_of(request)
    info = await gw.info(game_id)
    token = token_of(request)
    if seat is None:
        seat = seat_of(info, token)
    assert token is not None
    env = gw.envelope(info, seat, token, body.command, body.expected_version, body.command_id)
    return await gw.execute(env, fresh=body.command_id is None), seat


class _CommandRoute(TokenFirstRoute):
    """The route of :func:`send_command`, the gateway's hot path, with a short way for a plainly well-formed
    request: no query string, a JSON body that is a valid :class:`CommandRequest`, a game id of the right shape.
    Either way the token is checked first (:func:`token_first`): 401 whatever the body.
    Such a request is decided exactly as FastAPI would (the same body validation, in Python mode after
    ``json.loads``; the same endpoint; its errors raised to the same handlers; the answer serialized by the
    route's own model, written straight by :meth:`~services.gateway.service.Gateway.result_json`), without the
    general machinery around it (dependency solving, parameter collection), which cost more CPU than the
    command's own work. Any other request takes FastAPI's way, which answers it with the same typed errors as
    before (422 ``validation_error``, 400 ``not_json``, ...).
    """

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        """FastAPI's handler, behind the token check and the short way."""
        general = APIRoute.get_route_handler(self)  # FastAPI's own: the token is checked here, once

        async def handler(request: Request) -> Response:
            game_id = request.path_params.get("game_id")
            if isinstance(game_id, str) and GAME_ID_RE.fullmatch(game_id) is not None:
                await gateway_of(request).warm(game_id)
            seat = await token_first(request)
            body = await _plain_command(request)
            if body is None:
                return await general(request)
            outcome, seat = await _decided(body, request, request.path_params["game_id"], seat)
            return Response(await gateway_of(request).result_json(outcome, seat), media_type="application/json")

        return handler


async def _plain_command(request: Request) -> CommandRequest | None:
    """The body of a plainly well-formed command request, else None (FastAPI's way will say what is wrong)."""
    if request.scope.get("query_string") or request.headers.get("content-type") != "application/json":
        return None
    game_id = request.path_params.get("game_id")
    if not isinstance(game_id, str) or GAME_ID_RE.fullmatch(game_id) is None:
        return None
    try:
        return CommandRequest.model_validate(json.loads(await request.body()))
    except Exception:  # not JSON, too deeply nested, not a command...: FastAPI's way answers it as it always did
        return None


router.add_api_route(
    "/games/{game_id}/commands", send_command, methods=["POST"], response_model=CommandResult, responses=ERRORS,
    tags=["commands"], dependencies=SEAT, route_class_override=_CommandRoute,
)  # fmt: skip


def put_command_route_first(app: FastAPI) -> None:
    """A twin of the command route first among ``app``'s own routes (left out of the OpenAPI document, which
    keeps the route in its place): FastAPI finds a route of an included router by matching down each level of
    routers, twice per level, which cost the hot path more than the token check; the twin is matched at once.
    The same path, endpoint, route class, dependencies (the router's, then the route's) and responses: whichever
    of the two matches, a request is answered alike."""
    app.router.add_api_route(
        "/games/{game_id}/commands", send_command, methods=["POST"], response_model=CommandResult,
        responses=ERRORS, tags=["commands"], dependencies=[*router.dependencies, *SEAT],
        route_class_override=_CommandRoute, include_in_schema=False,
    )  # fmt: skip
    routes = app.router.routes
    routes.insert(0, routes.pop())
    app.router._mark_routes_changed()  # (FastAPI caches its view of the routes by this version)


@router.get(
    "/games/{game_id}/commands/{command_id}",
    response_model=CommandResult,
    responses=ERRORS,
    tags=["commands"],
    dependencies=SEAT,
)
async def command_outcome(
    request: Request, game_id: str = GameId, command_id: str = Path(pattern=COMMAND_ID_RE.pattern)
) -> CommandResult:
    """The outcome of a command this seat sent earlier (e.g. after ``outcome_timeout``).

    Command ids belong to the seat that sent them: the token's seat sees only its own commands' outcomes, and
    any other id (none yet, expired, or another seat's) is 404 ``not_found``.
    """
    gw = gateway_of(request)
    info = await gw.info(game_id)
    seat = seat_of(info, token_of(request))
    outcome = await gw.bus.outcome(game_id, seat, command_id)
    if outcome is None:
        raise ApiError(404, E.NOT_FOUND, f"no outcome of a command {command_id!r} of this seat (yet)")
    return await gw.result(outcome, seat)
