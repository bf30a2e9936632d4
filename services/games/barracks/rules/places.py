"""Moving one card or Emperor from wherever it is to a container: the low-level steps of every event handler
(apply.py). The rarely changed containers are tuples, replaced whole (shared by state copies until then)."""

from __future__ import annotations

from typing import Any

from services.games.barracks.rules.state import (
    BOARD,
    BOX,
    DECK,
    DISCARD,
    E_ASIDE,
    E_BOARD,
    E_DECK,
    E_OUT,
    E_WON,
    FORUM,
    HAND,
    LIMBO,
    POOL,
    WON,
    Game,
)


def take(g: Game, c: int) -> None:
    """Remove card ``c`` from wherever it is (a board space uncovers what a barbarian covered) [K19, K27]."""
    where = g.loc[c]
    if where == BOARD:
        s = g.pos[c]
        if g.top[s] == c:
            g.top[s] = g.under[s]
            if g.under[s] < 0:  # the space is empty now
                filled = g.filled
                for e in g.T.touches[s]:
                    if filled[e] == 4:
                        g.full &= ~(1 << e)
                    filled[e] -= 1
        g.under[s] = -1
        g.pos[c] = -1
        if g.counters[c]:  # K18: counters leave with their card
            g.counters = replaced(g.counters, c, 0)
        if g.face_down[c]:
            g.face_down = replaced(g.face_down, c, False)
        g.played_by[c] = -1
    elif where == DECK:
        deck = g.deck
        if deck[-1] == c:
            deck.pop()
        else:
            deck.remove(c)
    elif where == FORUM:
        g.forum.remove(c)
    elif where == DISCARD:
        g.discard = without(g.discard, c)
    elif where == BOX:
        g.box = without(g.box, c)
    elif where == POOL:
        g.pool = without(g.pool, c)
    elif where == LIMBO:
        g.limbo = -1
    elif where >= WON:
        actor = where - WON
        g.won_barbarians = replaced(g.won_barbarians, actor, without(g.won_barbarians[actor], c))
    else:
        seat = where - HAND
        g.hands[seat].remove(c)
        known = g.known[seat]
        if c in known:
            g.known = replaced(g.known, seat, without(known, c))


def without(items: tuple[Any, ...], x: Any) -> tuple[Any, ...]:
    """``items`` without its element ``x`` (the rarely changed parts of the state are tuples: shared by copies)."""
    i = items.index(x)
    return items[:i] + items[i + 1 :]


def replaced(items: tuple[Any, ...], i: int, value: Any) -> tuple[Any, ...]:
    """``items`` with element ``i`` replaced."""
    return (*items[:i], value, *items[i + 1 :])


def put(g: Game, c: int, s: int, actor: int) -> None:
    """Card ``c`` onto space ``s``; on an occupied space it covers the card there (only barbarians do) [K19]."""
    top = g.top[s]
    if top >= 0:
        g.under[s] = top
    else:
        filled = g.filled
        for e in g.T.touches[s]:
            filled[e] += 1
            if filled[e] == 4:
                g.full |= 1 << e
    g.top[s] = c
    g.pos[c] = s
    g.loc[c] = BOARD
    g.played_by[c] = actor


def to_discard(g: Game, c: int) -> None:
    """Card ``c`` onto the discard pile."""
    take(g, c)
    g.discard += (c,)
    g.loc[c] = DISCARD


def take_emperor(g: Game, e: int) -> None:
    """Remove Emperor ``e`` from wherever it is."""
    where = g.eloc[e]
    if where == E_BOARD:
        es = g.emp.index(e)
        g.emp[es] = -1
        g.alive &= ~(1 << es)
    elif where == E_DECK:
        g.emperor_deck = without(g.emperor_deck, e)
    elif where == E_ASIDE:
        g.aside = without(g.aside, e)
    elif where == E_OUT:
        g.out = without(g.out, e)
    elif where >= E_WON:
        actor = where - E_WON
        g.won = replaced(g.won, actor, without(g.won[actor], e))
