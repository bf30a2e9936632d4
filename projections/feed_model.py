"""The seat feed read model: per event what each seat may see, and each seat's view as a patch of the
spectators' view."""

from __future__ import annotations

from typing import Any

import orjson

from projections.base import Applied, GameCtx, Projection, shown_text
from projections.store import Ops, RMKeys
from services.rules.contract import GameRules, Presenter


def _dumps(value: Any) -> bytes:
    return orjson.dumps(value, default=str)


class FeedModel(Projection):
    """Per seat and for spectators: the event feed filtered by the presenter's ``redact`` (entry id = version, so
    a client resumes from the last version it saw), and the current view and legal commands with labels.

    One stream entry per event holds the spectators' version and, only where a seat sees something else (its
    own sealed vote), that seat's version: secrets cost an extra field, not a stream per seat."""

    name = "feed"

    def write(self, ctx: GameCtx, before: Any, batch: list[Applied], ops: Ops, keys: RMKeys, extra: Any) -> None:
        """Each event into every seat's feed as that seat may see it; then the views and legal commands."""
        presenter = ctx.presenter
        key = keys.feed(ctx.game_id)
        for a in batch:
            public = presenter.redact(a.event, None, a.state)
            fields: list[Any] = ["e", b"", "x", ""]
            if public is not None:
                # Shown whole (the common case): the recorded bytes are the JSON, no need to encode it again.
                encoded = a.raw if a.raw and public == a.data else _dumps(public)
                fields = ["e", encoded, "x", shown_text(presenter, a.event, public, ctx.players)]
            for seat in range(len(ctx.players)):
                shown = presenter.redact(a.event, seat, a.state)
                if shown is public or (shown is not None and shown == public):
                    continue  # as the spectators see it (the common case: nothing secret)
                if shown is None:
                    fields += [f"e{seat}", b""]  # withheld from this seat
                else:
                    fields += [
                        f"e{seat}",
                        _dumps(shown),
                        f"x{seat}",
                        shown_text(presenter, a.event, shown, ctx.players),
                    ]
            ops.add("XADD", key, f"0-{a.version}", *fields)
        ops.add("HSET", keys.feed_now(ctx.game_id), *now_fields(ctx, batch[-1].state, batch[-1].version))


def now_fields(ctx: GameCtx, state: Any, version: int) -> list[Any]:
    """``version``, ``over``, ``awaiting``, the state (the rules' snapshot), the spectators' view and per seat
    what its view adds to it.

    The legal commands are not stored: only awaited seats have any, the one or two that ask for them, and
    listing and labelling them costs more than everything else here; :func:`labelled_legal` makes them from the
    stored state when asked (the API caches them per version)."""
    rules = ctx.rules
    awaited = list(rules.awaited(state))
    fields: list[Any] = [
        "version", version, "over", "1" if rules.is_over(state) else "0", "awaiting", _dumps(awaited),
        "state", rules.snapshot(state),
    ]  # fmt: skip
    seats: list[int | None] = [*range(len(ctx.players)), None]
    # Every seat's view at once: a presenter may build the shared part once.
    shown = ctx.presenter.views(state, seats)
    spectators = shown[-1]
    for seat in range(len(ctx.players)):
        fields += [f"view:{seat}", _dumps(view_patch(spectators, shown[seat]))]
    fields += ["view:spec", _dumps(spectators)]
    return fields


def labelled_legal(rules: GameRules[Any], presenter: Presenter[Any], state: Any, seat: int) -> list[dict[str, Any]]:
    """The seat's legal commands, each as JSON with its readable label."""
    return [
        {"command": rules.encode_command(c), "label": presenter.label(c, state)}
        for c in rules.legal_commands(state, seat)
    ]


def view_patch(base: dict[str, Any], view: dict[str, Any]) -> dict[str, Any]:
    """The top-level entries of ``view`` that differ from ``base`` (a seat's view is mostly the spectators':
    storing only the difference keeps the write small). ``{**base, **patch}`` gives ``view`` back; a key the
    seat's view lacks is stored as ``{"__removed__": [keys]}``."""
    patch = {k: v for k, v in view.items() if k not in base or (base[k] is not v and base[k] != v)}
    removed = [k for k in base if k not in view]
    if removed:
        patch["__removed__"] = removed
    return patch


def apply_view_patch(base: dict[str, Any], patch: dict[str, Any]) -> dict[str, Any]:
    """The seat's view from the spectators' view and the seat's :func:`view_patch`."""
    view = {**base, **patch}
    for key in view.pop("__removed__", ()):
        view.pop(key, None)
    return view
