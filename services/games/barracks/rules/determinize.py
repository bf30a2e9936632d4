"""A position one seat cannot tell from the real one, its secrets re-drawn: what a search bot plays on
(``GameRules.determinize``, services/bots/search.py).

Barracks' secrets [K14] (presenter.py): the cards of other seats' hands that no one has been shown, the order
of the draw deck and of the Emperor deck, the cards Frumentarii lets another seat look at, and the seed (every
later shuffle is drawn from it: rounds.py). A determinization for ``seat`` deals the cards it cannot place
(others' unknown hand cards and the deck, its own look at the deck's top kept) at random into the same places
in the same numbers, shuffles the Emperor deck and draws a new seed. What the seat sees (its hand, the cards
everyone knows, the board, every count) is kept.

Honesty: the hidden cards are gathered as one set, sorted by their codes, and only then shuffled, so the
result and the number of draws from ``rng`` depend on which cards are unknown to ``seat`` (public: every card
not seen is one of them), not on where they really are."""

from __future__ import annotations

import random

from services.games.barracks.rules.state import DECK, HAND, KEEP, Game


def determinize(g: Game | None, seat: int, rng: random.Random) -> Game | None:
    """``g`` with what ``seat`` cannot see re-drawn from ``rng`` (see the module docstring)."""
    if g is None or g.over:
        return g
    own_look = g.phase == KEEP and g.actor_seat[g.active] == seat
    kept_top = len(g.looked) if own_look else 0  # the top cards it looked at: known to it, in place
    deck_hidden = len(g.deck) - kept_top
    others = [s for s in range(len(g.players)) if s != seat]
    slots = {s: [c for c in g.hands[s] if c not in g.known[s]] for s in others}
    unknown = sorted(g.deck[:deck_hidden] + [c for s in others for c in slots[s]])
    rng.shuffle(unknown)
    out = g.copy()
    # The deck's hidden part (bottom first, as stored), then each other seat's unknown cards.
    out.deck = unknown[:deck_hidden] + g.deck[deck_hidden:]
    for c in out.deck[:deck_hidden]:
        out.loc[c] = DECK
    dealt = deck_hidden
    for s in others:
        known = [c for c in g.hands[s] if c in g.known[s]]
        fresh = unknown[dealt : dealt + len(slots[s])]
        dealt += len(fresh)
        out.hands[s] = known + fresh
        for c in fresh:
            out.loc[c] = HAND + s
    if g.looked and not own_look:
        out.looked = tuple(out.deck[-len(g.looked) :][::-1])  # another seat's look: the new top cards [K31]
    emperors = sorted(g.emperor_deck)
    rng.shuffle(emperors)
    out.emperor_deck = tuple(emperors)
    out.seed = rng.getrandbits(63)
    return out
