"""The chat conversation of one seat: what a line of text does, and the reply as messages a chat platform takes.

Each seat has a chat cursor in Redis (``<tag>:game:<gid>:chat:<seat>``, a hash with a TTL, refreshed by every
message): the version it last saw through the chat, so that the next reply narrates what happened since; and
the menu listing it was shown (the menu's digest, the group, the page), so that ``more`` and ``back`` page on,
and a number typed without ``version`` is refused with ``menu_changed`` when the moves it was shown are no
longer the ones on offer. The cursor holds no secret (versions, a digest of the seat's own menu, a group key).
A client may also send ``since`` itself; the cursor is only a default.

Everything about the game goes through its contract (``narrate``, ``prompt``, ``label``, ``menu_groups``,
``render_text``): see :mod:`services.gateway.narration`.
"""

from __future__ import annotations

import textwrap
import time
from dataclasses import dataclass
from typing import Any, NoReturn

from starlette.concurrency import run_in_threadpool

from services.gateway import errors as E
from services.gateway.auth import seat_of
from services.gateway.chat_models import ChatReply, ChatRequest, Listing, ListingEntry
from services.gateway.errors import ApiError
from services.gateway.games import GameInfo, History, Position
from services.gateway.narration import lines, plugin_of
from services.gateway.service import Gateway
from services.menus.menu import Menu, Page, menu_of
from services.menus.phrases import ChatError, Choice, interpret, normalize
from services.rules.contract import GamePlugin

CURSOR_TTL_S = 14 * 24 * 3600
"""How long the gateway remembers a seat's chat cursor after its last message."""
NARRATION_LINES = 40
"""The most lines of narration one reply carries (the most recent; a line says how many were left out)."""
HELP = (
    "Send a move's number (or a few words of it: accents and case do not matter) to play it; a group's key (A, "
    'or A.2 for a group inside A) to open that group; "more" for the next page, "back" for the list above, '
    '"menu" or "board" to see the board and the menu again.'
)


@dataclass
class Cursor:
    """What a seat's chat last showed it."""

    seen: int | None = None
    menu: str = ""
    key: str = ""
    page: int = 0


@dataclass
class Seat:
    """The seat's game at one position: its legal commands, and its menu."""

    pos: Position
    plugin: GamePlugin
    commands: list[Any]
    menu: Menu


def _seat_menu(pos: Position, seat: int) -> Seat:
    plugin = plugin_of(pos)
    commands = [] if pos.over else plugin.rules.legal_commands(pos.state, seat)
    return Seat(pos, plugin, commands, menu_of(plugin, commands, pos.state))


async def reply(gw: Gateway, game_id: str, token: str | None, body: ChatRequest, max_chars: int) -> ChatReply:
    """Answer one line of chat of the token's seat (see :mod:`services.menus.phrases` for what a line may be)."""
    info = await gw.info(game_id)
    seat = seat_of(info, token)
    assert token is not None
    cursor_key = gw.layout.chat(gw.layout.shard_of(game_id), game_id, seat)
    cursor = _cursor(await gw.bus.r.hgetall(cursor_key))
    now = _seat_menu(await gw.position_async(game_id), seat)
    pos = now.pos
    stale = body.version is not None and body.version != pos.version
    try:
        choice = interpret(body.text, now.menu, within=cursor.key if cursor.menu == now.menu.digest else "")
    except ChatError as exc:
        if stale:  # it named a move of a menu that is gone: say so rather than why it fits the new one badly
            await _menu_changed(gw, cursor_key, cursor, now, seat, f"the game moved on to version {pos.version}")
        # A well-formed line that names no one move of the menu as it stands now: a conflict with the game's state
        # (409, like a move the rules refuse), not a malformed request.
        raise ApiError(409, exc.code, exc.message, candidates=exc.candidates) from None
    if choice.kind == "play":
        if stale:
            await _menu_changed(gw, cursor_key, cursor, now, seat, f"the game moved on to version {pos.version}")
        typed_number = normalize(body.text).lstrip("#").rstrip(".) ").isdigit()
        if typed_number and body.version is None and cursor.menu and cursor.menu != now.menu.digest:
            await _menu_changed(
                gw, cursor_key, cursor, now, seat,
                f"the moves changed since your last message (the game is at version {pos.version})",
            )  # fmt: skip
    since = body.since if body.since is not None else cursor.seen
    if since is None or since > pos.version:
        since = pos.recent[0][0] - 1 if pos.recent else pos.version  # a first message: what is still at hand
    before = await _told(gw, now, seat, since, pos.version)

    result = None
    after: list[str] = []
    if choice.kind == "play":
        index = now.menu.order[choice.number - 1]
        label = now.menu.labels[choice.number - 1]
        command = now.plugin.rules.encode_command(now.commands[index])
        env = gw.envelope(info, seat, token, command, pos.version, None)
        done = await gw.result(await gw.execute(env, fresh=True), seat)
        moved = _seat_menu(await gw.position_async(game_id), seat)
        own = await _told(gw, moved, seat, done.first_version - 1, done.version)
        after = await _told(gw, moved, seat, done.version, moved.pos.version)
        result = {"status": "accepted", "label": label, "version": done.version, "events": own}
        now, pos = moved, moved.pos

    key, page = _listing(choice, cursor, now.menu)
    header = _header(now, seat, info)
    shown = now.menu.page(key, page, max_chars, header)
    note = ""
    if choice.kind in ("more", "back") and cursor.menu != now.menu.digest:
        note = "The moves changed since your last message; here is the new menu."
    elif choice.kind == "more" and shown.key == cursor.key and shown.page == cursor.page:
        note = "That was the last page."
    if note:
        shown = now.menu.page(key, page, max_chars, f"{note}\n{header}")
    board = await run_in_threadpool(_board, now, seat)
    messages = _messages(before, result, after, board, shown, choice, max_chars)
    await _remember(gw, cursor_key, Cursor(pos.version, now.menu.digest, shown.key, shown.page))
    return ChatReply(
        game_id=game_id, seat=seat, version=pos.version, over=pos.over, board=board, menu=now.menu.lines(),
        result=result, since=since, narration=[*before, *after], prompt=now.plugin.presenter.prompt(pos.state, seat),
        listing=_listing_model(shown), messages=messages, max_chars=max_chars,
    )  # fmt: skip


async def _menu_changed(gw: Gateway, cursor_key: str, cursor: Cursor, now: Seat, seat: int, why: str) -> NoReturn:
    """Refuse a move picked from a menu that is gone (409 ``menu_changed``, with the new board and menu), and
    remember that the seat has now been shown the new menu."""
    board = await run_in_threadpool(_board, now, seat)
    await _remember(gw, cursor_key, Cursor(cursor.seen, now.menu.digest))
    raise ApiError(
        409, E.MENU_CHANGED, f"{why}; pick from the new menu",
        version=now.pos.version, board=board, menu=now.menu.lines(),
    )  # fmt: skip


def _listing(choice: Choice, cursor: Cursor, menu: Menu) -> tuple[str, int]:
    """The group and page a reply lists: the top unless the line opened a group or paged the same menu."""
    same = cursor.menu == menu.digest and menu.group(cursor.key) is not None
    if choice.kind == "open":
        return choice.key, 0
    if choice.kind == "more" and same:
        return cursor.key, cursor.page + 1
    if choice.kind == "back" and same:
        group = menu.group(cursor.key)
        parent = group.parent if group is not None else None
        return (parent.key if parent is not None else ""), 0
    return "", 0


def _header(now: Seat, seat: int, info: GameInfo) -> str:
    """The first line of the menu message: the prompt, or whom the game waits for, or that it is over."""
    pos = now.pos
    if pos.over:
        return "The game is over."
    prompt = now.plugin.presenter.prompt(pos.state, seat)
    if prompt:
        return prompt
    waiting = [info.players[s] for s in now.plugin.rules.awaited(pos.state) if 0 <= s < len(info.players)]
    return f"Not your turn: waiting for {', '.join(waiting) or 'nobody'}."


async def _told(gw: Gateway, now: Seat, seat: int, after: int, upto: int) -> list[str]:
    """The narration for ``seat`` of the events after ``after`` up to ``upto`` (at most NARRATION_LINES lines)."""
    if upto <= after:
        return []
    pos, items = await gw.history_async(now.pos.game_id, after)
    told = lines(now.plugin, pos, _upto(items, upto), seat)
    if len(told) > NARRATION_LINES:
        left = len(told) - NARRATION_LINES + 1
        told = [f"({left} earlier events not shown)", *told[-NARRATION_LINES + 1 :]]
    return told


def _upto(items: History, upto: int) -> History:
    return [item for item in items if item[0] <= upto]


def _board(now: Seat, seat: int) -> str:
    board = now.plugin.presenter.render_text(now.pos.state, seat)
    clocks = now.plugin.rules.clock_text(now.pos.state, now.pos.players, int(time.time() * 1000))
    return board if clocks is None else f"{board}\n{clocks}"


def _messages(
    before: list[str],
    result: dict[str, Any] | None,
    after: list[str],
    board: str,
    shown: Page,
    choice: Choice,
    max_chars: int,
) -> list[str]:
    """The reply as chat messages of at most ``max_chars`` characters each."""
    parts: list[str] = []
    if before:
        parts.append("\n".join(["Since your last message:", *(f"- {line}" for line in before)]))
    if result is not None:
        parts.append("\n".join([f"You: {result['label']}", *(f"- {line}" for line in result["events"])]))
    if after:
        parts.append("\n".join(["Then:", *(f"- {line}" for line in after)]))
    if choice.kind in ("show", "help", "play"):
        parts.append(board)
    if choice.kind == "help":
        parts.append(HELP)
    out: list[str] = []
    for part in parts:
        out.extend(_chunks(part, max_chars))
    out.append(shown.text)
    return out


def _chunks(text: str, max_chars: int) -> list[str]:
    """``text`` cut at line ends into messages of at most ``max_chars`` (a longer line wrapped at spaces)."""
    out: list[str] = []
    current: list[str] = []
    size = 0
    for raw in text.splitlines():
        for line in textwrap.wrap(raw, max_chars, replace_whitespace=False, drop_whitespace=False) or [""]:
            if current and size + len(line) + 1 > max_chars:
                out.append("\n".join(current))
                current, size = [], 0
            current.append(line)
            size += len(line) + 1
    if current:
        out.append("\n".join(current))
    return out


def _listing_model(shown: Page) -> Listing:
    return Listing(
        key=shown.key,
        page=shown.page,
        pages=shown.pages,
        entries=[
            ListingEntry(text=e.text, number=e.number, key=e.key, title=e.title, count=e.count) for e in shown.entries
        ],
    )


def _cursor(raw: dict[bytes, bytes]) -> Cursor:
    """A stored cursor (anything unreadable counts as none)."""
    try:
        seen = raw.get(b"seen")
        return Cursor(
            seen=int(seen) if seen is not None else None,
            menu=raw.get(b"menu", b"").decode(),
            key=raw.get(b"key", b"").decode(),
            page=int(raw.get(b"page", b"0")),
        )
    except (ValueError, UnicodeDecodeError):
        return Cursor()


async def _remember(gw: Gateway, key: str, cursor: Cursor) -> None:
    pipe = gw.bus.r.pipeline(transaction=True)
    fields: dict[str, Any] = {"menu": cursor.menu, "key": cursor.key, "page": cursor.page}
    if cursor.seen is not None:
        fields["seen"] = cursor.seen
    pipe.hset(key, mapping=fields)
    pipe.expire(key, CURSOR_TTL_S)
    await pipe.execute()
