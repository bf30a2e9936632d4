"""Why a command of the right type was refused: a stable code and a plain sentence.

Only called on the rejection path; acceptance itself is decided by the legal options (actions.py).
"""

from __future__ import annotations

from typing import Any

from events.shadow import events as ev
from services.rules.shadow.actions import CARD_OF_COMMAND, TRIER_CARDS, permit_cost
from services.rules.shadow.board import ELECTORATE_KEYS
from services.rules.shadow.queries import (
    BRANDENBURG,
    KOELN,
    PALATINATE,
    TRIER,
    elector_owner,
    first_free,
    stack_available,
)
from services.rules.shadow.state import City, GameState, Knight, Tile

PRIVILEGE_OF = {"UseKoelnPrivilege": KOELN, "UsePalatinatePrivilege": PALATINATE, "TakeGrayEminence": BRANDENBURG}


def explain(s: GameState, c: Any, p: ev.Prompt) -> tuple[str, str, tuple[str, ...]]:
    """(code, message, rulings) for a refused command."""
    for field in ("space", "target", "source", "knight", "baron", "from_space", "push"):
        space = getattr(c, field, None)
        if space is not None and space not in s.layout.by_id:
            return "unknown_space", f"There is no space '{space}' on this board.", ("B1",)
    electorate = getattr(c, "electorate", None)
    if electorate is not None and ELECTORATE_KEYS.index(electorate) in s.closed:
        return "closed_electorate", f"{electorate} is closed in this two-player game.", ("T1",)
    if c.type in PRIVILEGE_OF:
        e = PRIVILEGE_OF[c.type]
        name = s.layout.electorates[e].name
        if elector_owner(s, e) != c.seat:
            return "no_privilege", f"Only the elector of {name} may use its privilege.", ("P7",)
        if s.privilege_used[e]:
            return "privilege_used", f"The privilege of {name} was already used this round.", ("P7",)
    if c.type == "BuyRival" and c.seat == s.emperor:
        return "emperor_cannot_rival", "The Emperor can not take the Rival card.", ("P1",)
    card = CARD_OF_COMMAND.get(c.type) or getattr(c, "card", None)
    if card is not None:
        cost = permit_cost(s, c.couple) if c.type == "BuyPermit" else s.layout.cards[card].cost
        if s.thalers[c.seat] < cost:
            return "cannot_afford", f"{card} costs {cost} thalers; you have {s.thalers[c.seat]}.", ("G2", "P2")
        trier = getattr(c, "trier", False)
        if trier and stack_available(s, card):
            return "trier_not_needed", f"The {card} stack is not empty: take the card itself.", ("P6",)
        if trier and (card not in TRIER_CARDS or elector_owner(s, TRIER) != c.seat or s.privilege_used[TRIER]):
            return "no_privilege", "Trier's privilege is not yours to use for this card now.", ("P6", "P7")
        if not trier and not stack_available(s, card):
            return "stack_empty", f"No {card} card is left this round.", ("B5", "P2")
        if c.type == "BuyCardWithoutEffect" and s.n != 2:
            return "not_two_players", "Cards can be bought without effect only with two players.", ("P2", "X9")
    if c.type in ("BuyPermit", "UsePalatinatePrivilege", "BuyPromotion") and s.tiles_in_supply[c.seat] == 0:
        return "supply_empty", "You have no aristocrat tile left in your supply.", ("B3",)
    if c.type == "BuyOrdinance" and s.cities_in_supply[c.seat] == 0:
        return "supply_empty", "You have no city left in your supply.", ("B3",)
    if c.type in ("PlaceKnight",) and s.knights_in_supply[c.seat] == 0:
        return "supply_empty", "You have no knight left in your supply.", ("B3",)
    if c.type in ("PlaceKnight", "MoveKnight") and s.thalers[c.seat] < s.layout.constants["knight_cost"]:
        return "cannot_afford", "A knight costs 1 thaler.", ("G2", "P1")
    push = getattr(c, "push", None)
    if electorate is not None and hasattr(c, "push"):
        e = ELECTORATE_KEYS.index(electorate)
        spaces = s.layout.electorates[e].aristocrats
        if push is not None and first_free(s, spaces) is not None:
            return "push_not_allowed", f"{electorate} has a free aristocrat space: no knight may be pushed.", ("D2",)
        if push is None and first_free(s, spaces) is None:
            return "no_room", f"{electorate} has no free aristocrat space: name a knight to push.", ("D2",)
        if push is not None and not isinstance(s.board[s.layout.by_id[push]], Knight):
            return "not_a_knight", f"There is no knight on {push} to push.", ("D2",)
    why, rulings = _why_not(s, c)
    return "illegal_move", f"{c.type} is not legal now for the decision '{p.decision}': {why}.", rulings


def _why_not(s: GameState, c: Any) -> tuple[str, tuple[str, ...]]:
    """The reason a command naming a piece can not be played, in words (the code stays ``illegal_move``)."""
    players = s.players
    piece_field = next(
        (f for f in ("target", "source", "knight", "baron", "space", "from_space") if getattr(c, f, None)), None
    )
    if piece_field is None:
        return "these details match no legal option", ()
    space_id = getattr(c, piece_field)
    space = s.layout.spaces[s.layout.by_id[space_id]]
    piece = s.board[s.layout.by_id[space_id]]
    if piece is None:
        return f"there is no piece on {space_id}", ()
    wants_knight = c.type in ("BuyPromotion", "MoveKnight")
    if wants_knight != isinstance(piece, Knight) or isinstance(piece, City):
        return f"{space_id} does not hold {'a knight' if wants_knight else 'an aristocrat'}", ("X10",)
    owner = piece.owner
    if c.type in ("BuyDoctor", "UseKoelnPrivilege"):
        if owner == c.seat and isinstance(piece, Tile) and piece.age == 15:
            return "your aristocrat is already 15 and can not be younger", ("P3", "X10")
    elif c.type in ("OfferDaughter",):
        if owner == c.seat:
            return "a daughter is offered to an opponent's Baron", ("D3",)
    elif owner != c.seat:
        return f"the piece on {space_id} belongs to {players[owner]}", ()
    if c.type == "BuyPromotion" and space.kind != "aristocrat":
        return "only a knight on an aristocrat space can be promoted", ("P5",)
    if c.type == "BuyMove":
        if space.kind != "aristocrat":
            return "only an aristocrat on an aristocrat space moves (not an elector, the Emperor)", ("P4",)
        if s.layout.electorates[space.electorate].key == c.electorate:
            return "the Move card takes the aristocrat to another electorate", ("P4",)
    if c.type in ("BuyForeignKingsDaughter", "OfferDaughter") and isinstance(piece, Tile):
        if piece.couple:
            return f"the tile on {space_id} is already a Couple", ("P5", "D3")
        if space.kind == "elector" and s.layout.electorates[space.electorate].spiritual:
            return "an archdiocese elector must stay a Baron", ("B1", "P5", "D3")
    if c.type == "MoveKnight":
        return "the knight must change its electorate or its kind of space, to a free space", ("X2",)
    return f"{space_id} is not one of the options of this decision", ()
