"""The HTTP routes of the gateway, gathered (the WebSocket feed is in :mod:`services.gateway.feed`, the lobby's
routes in :mod:`services.gateway.lobby_routes`, the webhooks' in :mod:`services.gateway.webhooks`).

Who may see what:

* anyone: a game's summary, the spectator view and events, the scoreboard, the leaderboard, replays and boards
  as a spectator, the JSON Schemas;
* a seat's token: that seat's view, legal commands, events, replay and board (with its own secrets), and its
  commands and chat; another seat's are refused (403 ``forbidden_seat``);
* once a game is over everything is public: any seat's replay and board, the audit and the verification.
  While it runs, audit and verification are refused (403 ``game_running``): both show every recorded event
  and command in full, sealed votes and refused commands included; a seat's token may read the audit of its own
  refused commands (``?seat=``) at any time, since what a seat sent is that seat's own;
* anyone: each game's rules reference (``/rules/{game}``, ``/rules/{game}/{ruling_id}``).

One module per group, in the order of the OpenAPI document: ``game_routes`` (games and commands),
``view_routes`` (views, events, chat), ``read_routes`` (the read models), ``rules_routes`` (rules references),
``board_link_routes`` (signed board links), ``meta_routes`` (schemas, health); what they share is in
``route_common``.
"""

from __future__ import annotations

from fastapi import APIRouter

from services.gateway import board_link_routes, game_routes, meta_routes, read_routes, rules_routes, view_routes

router = APIRouter()
for _group in (game_routes, view_routes, read_routes, rules_routes, board_link_routes, meta_routes):
    router.include_router(_group.router)
