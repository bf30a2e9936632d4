"""Chat menus that fit messaging platforms: legal moves grouped, numbered and paged under a size limit.

A phase IV turn of Shadow offers about a hundred moves (some 8,000 characters), more than a chat message
holds (2,000 characters on some platforms, 4,096 on others). A :class:`Menu` arranges a seat's legal moves in
the game's groups (``Presenter.menu_groups``: by action, then by where it acts; titles nest on `` > ``):

* moves are numbered in menu order (group after group), so a number always names the same move of one menu;
* each group with more than one move has a key: a letter at the first level (``C``), then numbers after dots
  (``C.2``, ``C.2.1``);
* :meth:`Menu.page` renders one listing as one message of at most ``max_chars`` characters: the whole menu
  when it fits; else the groups of the top level (a group of one move shows as that move); a group whose moves
  do not fit shows its own groups; a listing still too long is cut into pages ("more").

Pure code: no IO, no game knowledge (labels and groups come from the game's presenter: :func:`menu_of`).
"""

from __future__ import annotations

import hashlib
import re
import string
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from services.rules.contract import GamePlugin

LEVEL = " > "
"""Separates the levels of a group title."""
MORE_HINT = 'send "more" for the next page'
_WORDS = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


@dataclass(eq=False)
class Node:
    """A group of the menu: its key, title, its own moves (menu numbers) and its subgroups."""

    key: str
    title: str
    indexes: list[int] = field(default_factory=list)
    """Its own moves, as indexes into the legal list."""
    numbers: list[int] = field(default_factory=list)
    """Its own moves, as menu numbers."""
    children: list[Node] = field(default_factory=list)
    parent: Node | None = None

    def all_numbers(self) -> list[int]:
        """Every move under this group, in menu order."""
        out = list(self.numbers)
        for child in self.children:
            out.extend(child.all_numbers())
        return out

    @property
    def size(self) -> int:
        """How many moves the group holds."""
        return len(self.indexes) + sum(child.size for child in self.children)

    @property
    def path(self) -> str:
        """The titles from the top, joined with `` > ``."""
        titles = []
        node: Node | None = self
        while node is not None and node.parent is not None:
            titles.append(node.title)
            node = node.parent
        return LEVEL.join(reversed(titles))


@dataclass(frozen=True)
class Entry:
    """One line of a listing: a move (``number``) or a group (``key``)."""

    text: str
    number: int | None = None
    key: str | None = None
    title: str | None = None
    count: int | None = None
    heading: bool = False


@dataclass(frozen=True)
class Page:
    """One listing as one message: ``text`` (at most ``max_chars``), the group listed (``key``, "" the top), the
    page (0-based) of ``pages``, and the entries shown."""

    text: str
    key: str
    page: int
    pages: int
    entries: tuple[Entry, ...]


class Menu:
    """A seat's legal moves arranged for chat (see the module docstring)."""

    def __init__(self, labels: Sequence[str], groups: Sequence[tuple[str, Sequence[int]]]) -> None:
        self.root = Node("", "")
        by_path: dict[tuple[str, ...], Node] = {(): self.root}
        seen: set[int] = set()
        for title, indexes in groups:
            levels = tuple(part.strip() for part in title.split(LEVEL) if part.strip()) or ("Moves",)
            node = self.root
            for depth in range(1, len(levels) + 1):
                found = by_path.get(levels[:depth])
                if found is None:
                    found = Node("", levels[depth - 1], parent=node)
                    node.children.append(found)
                    by_path[levels[:depth]] = found
                node = found
            for i in indexes:
                if 0 <= i < len(labels) and i not in seen:
                    seen.add(i)
                    node.indexes.append(i)
        missing = [i for i in range(len(labels)) if i not in seen]  # a game's groups should cover every move
        if missing:
            self.root.children.append(Node("", "Other moves", indexes=missing, parent=self.root))
        _collapse(self.root)
        self.order: list[int] = []
        """``order[n - 1]``: the index in the legal list of the move numbered ``n``."""
        self.keys: dict[str, Node] = {}
        self._number(self.root)
        self.labels = [labels[i] for i in self.order]
        """``labels[n - 1]``: the label of the move numbered ``n``."""
        self.digest = hashlib.sha256("\n".join(self.labels).encode()).hexdigest()[:16]
        """Names this menu's numbering: the same moves in the same order have the same digest."""

    def _number(self, node: Node) -> None:
        for i in node.indexes:
            self.order.append(i)
            node.numbers.append(len(self.order))
        n = 0
        for child in node.children:
            if child.size > 1:  # a group of one move shows as that move: it needs no key
                child.key = _child_key(node.key, n)
                self.keys[child.key.upper()] = child
                n += 1
            else:
                child.key = node.key
            self._number(child)

    # --- lookups ------------------------------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.order)

    def lines(self) -> list[str]:
        """Every move as a numbered line, in menu order: ``["1. Pass", "2. Permit: ...", ...]``."""
        return [f"{n}. {label}" for n, label in enumerate(self.labels, start=1)]

    def group(self, key: str) -> Node | None:
        """The group with this key (any case), or None; "" is the top."""
        return self.root if key == "" else self.keys.get(key.upper())

    def groups(self) -> list[Node]:
        """Every group (not the top), in menu order."""
        return list(self.keys.values())

    # --- rendering ----------------------------------------------------------------------------------------
    def page(self, key: str, page: int, max_chars: int, header: str = "") -> Page:
        """Group ``key`` ("" the top) as one message of at most ``max_chars`` characters, starting with
        ``header``: page ``page`` (clamped) of its listing."""
        node = self.group(key) or self.root
        top = node is self.root
        title = "" if top else f"{node.path} (group {node.key}, {_moves(node.size)}):"
        head = [_cut(line, max_chars // 3) for line in (header.strip(), title) if line]
        whole = self._whole(node)
        if _fits(head, whole, "", max_chars):
            return _page(head, whole, "", node.key, 0, 1, max_chars)
        entries = self._entries(node)
        hint = "Send a letter to open a group, a number or a few words to play a move." if top else ""
        pages = _paginate(head, entries, hint, max_chars)
        page = max(0, min(page, len(pages) - 1))
        footer = hint
        if len(pages) > 1:
            footer = f"Page {page + 1} of {len(pages)}" + (f": {MORE_HINT}." if page + 1 < len(pages) else ".")
            footer = f"{hint}\n{footer}" if hint else footer
        return _page(head, pages[page], footer, node.key, page, len(pages), max_chars)

    def _whole(self, node: Node) -> list[Entry]:
        """Every move under ``node`` with its group headings (for a listing that fits whole)."""
        out = [self._move(n) for n in node.numbers]
        headings = len(node.children) > 1 and any(child.size > 1 for child in node.children)
        for child in node.children:
            if headings:
                out.append(Entry(f"[{child.title}]", title=child.title, heading=True))
            out.extend(self._move(n) for n in child.all_numbers())
        return out

    def _entries(self, node: Node) -> list[Entry]:
        """The listing of ``node`` when its moves do not fit whole: its subgroups (a one-move group as that move),
        or its moves when it has no subgroups."""
        out = [self._move(n) for n in node.numbers]
        for child in node.children:
            if child.size == 1:
                out.append(self._move(child.all_numbers()[0]))
            else:
                out.append(
                    Entry(f"{child.key}. {child.title} ({_moves(child.size)})", key=child.key, title=child.title,
                          count=child.size)
                )  # fmt: skip
        return out

    def _move(self, number: int) -> Entry:
        return Entry(f"{number}. {self.labels[number - 1]}", number=number)


def _collapse(node: Node) -> None:
    """Merge a group that holds nothing but one subgroup with it ("A card without its effect > Doctor")."""
    for child in node.children:
        _collapse(child)
    if node.parent is not None and not node.indexes and len(node.children) == 1:
        only = node.children[0]
        node.title = f"{node.title}{LEVEL}{only.title}"
        node.indexes = only.indexes
        node.children = only.children
        for grandchild in node.children:
            grandchild.parent = node


def _child_key(parent: str, n: int) -> str:
    """A letter at the first level (``A``..``Z``, ``AA``..), then numbers after dots (``A.1``, ``A.1.2``): keys
    never look like a board's space names (``C3``), which players also type."""
    return _letters(n) if not parent else f"{parent}.{n + 1}"


def _letters(n: int) -> str:
    letters = string.ascii_uppercase
    out = ""
    n += 1
    while n:
        n, rest = divmod(n - 1, 26)
        out = letters[rest] + out
    return out


def _moves(n: int) -> str:
    return f"{n} move{'s' if n != 1 else ''}"


def _fits(head: list[str], entries: Sequence[Entry], footer: str, max_chars: int) -> bool:
    return len(_join(head, [e.text for e in entries], footer)) <= max_chars


def _join(head: list[str], lines: Sequence[str], footer: str) -> str:
    return "\n".join([*head, *lines, *([footer] if footer else [])])


def _paginate(head: list[str], entries: list[Entry], hint: str, max_chars: int) -> list[list[Entry]]:
    """Entries cut into pages that fit with the header and the longest footer a page may have."""
    footer = f"{hint}\nPage 999 of 999: {MORE_HINT}." if hint else f"Page 999 of 999: {MORE_HINT}."
    room = max_chars - len(_join(head, [], footer)) - 1
    pages: list[list[Entry]] = [[]]
    used = 0
    for entry in entries:
        size = min(len(entry.text), max(room, 1)) + 1
        if pages[-1] and used + size > room:
            pages.append([])
            used = 0
        pages[-1].append(entry)
        used += size
    return pages


def _page(
    head: list[str], entries: Sequence[Entry], footer: str, key: str, page: int, pages: int, max_chars: int
) -> Page:
    """The message of one page; a move too long for any page (alone on its page) is shortened with "…"."""
    lines = [e.text for e in entries]
    if len(lines) == 1:
        lines = [_cut(lines[0], max(max_chars - len(_join(head, [], footer)) - 1, 8))]
    return Page(_cut(_join(head, lines, footer), max_chars), key, page, pages, tuple(entries))


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: max(limit - 1, 0)] + "…"


def type_title(kind: str) -> str:
    """A command type as a heading: ``BuyPermit`` -> ``Buy permit``."""
    words = _WORDS.sub(" ", kind).split()
    return " ".join([words[0], *(w.lower() for w in words[1:])]) if words else kind


def groups_of(plugin: GamePlugin, commands: Sequence[Any], state: Any) -> list[tuple[str, list[int]]]:
    """The menu groups of ``commands``: the game's own ``menu_groups`` when it gives more than one, else by
    command type when there are several (a one-group answer, like the contract's default, says nothing a menu
    can use)."""
    groups = plugin.presenter.menu_groups(commands, state) if commands else []
    if len(groups) > 1:
        return groups
    by_type: dict[str, list[int]] = {}
    for i, command in enumerate(commands):
        by_type.setdefault(type_title(str(command.type)), []).append(i)
    return list(by_type.items()) if len(by_type) > 1 or not groups else groups


def menu_of(plugin: GamePlugin, commands: Sequence[Any], state: Any) -> Menu:
    """The menu of a seat's legal ``commands`` at ``state``: the presenter's labels in the groups of
    :func:`groups_of`."""
    labels = [plugin.presenter.label(c, state) for c in commands]
    return Menu(labels, groups_of(plugin, commands, state))
