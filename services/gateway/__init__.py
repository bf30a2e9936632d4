"""The HTTP + WebSocket gateway in front of the bus (FastAPI + uvicorn).

Game-agnostic: it reaches a game only through the plug-in (rules and presenter) registered under the game's
name, and the rules workers only through the shards' streams. Modules: ``app`` (the factory ``create_app``), ``routes``
(HTTP), ``models`` (strict request and response bodies), ``feed`` (WebSocket), ``fanout`` (the one reader
behind every feed of a process, feed caps), ``auth`` (seat tokens), ``limits`` (every bound; body size, rate),
``protocol`` (request head bound and read deadline, the uvicorn configuration), ``errors`` (typed JSON errors),
``chat`` (the text menu), ``games`` (token check, cached positions, per-seat redaction), ``asyncbus`` (submit
and wait on the event loop), ``openapi`` (the typed document: the games' schemas, short operation ids),
``docs`` (Swagger UI at ``/docs``, served offline), ``cors`` (allowed web origins), ``boardlinks`` (signed,
short-lived links to a seat's board), ``lobby`` and ``lobby_routes`` (listing games, open seats and their claims,
leaving a seat), ``web`` (the web client served at ``/``: its page, ES modules and styles). Its figures for
``make bench`` are in services/bench/gateway.py.

Run it: ``REDIS_URL=redis://127.0.0.1:6379/0 python -m services.gateway --host 127.0.0.1 --port 8000`` next to
``python -m services.worker``. The OpenAPI document is served at ``/openapi.json`` (and ``/docs``).
"""

from services.gateway.app import create_app

__all__ = ["create_app"]
