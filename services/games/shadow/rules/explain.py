"""Why a command of the right type was refused: a stable code, a plain sentence and the rulings it enforces.

Only called on the rejection path; acceptance itself is decided by the legal options (actions.py). Every
refusal names the rule it enforces [X15]: a specific code (a missing privilege, card, supply, push...) or
``illegal_move`` with a sentence saying what is wrong with the command's details and the rulings of that rule;
only when no such reason is found, ``illegal_move`` cites the rules that define the options of the awaited
decision (``DECISION_RULINGS``, ``COMMAND_RULINGS``).
"""

from __future__ import annotations

from typing import Any

from services.games.shadow.messages import events as ev
from services.games.shadow.rules.actions import CARD_OF_COMMAND, TRIER_CARDS, permit_cost
from services.games.shadow.rules.board import ARISTOCRAT, CASTLE, ELECTOR, ELECTORATE_KEYS, EMINENCE, THRONE
from services.games.shadow.rules.queries import (
    BRANDENBURG,
    KOELN,
    PALATINATE,
    TRIER,
    elector_owner,
    first_free,
    stack_available,
)
from services.games.shadow.rules.state import EMPIRE, City, GameState, Knight, Tile

Why = tuple[str, str, tuple[str, ...]]

PRIVILEGE_OF = {"UseKoelnPrivilege": KOELN, "UsePalatinatePrivilege": PALATINATE, "TakeGrayEminence": BRANDENBURG}

DECISION_RULINGS: dict[str, tuple[str, ...]] = {
    "setup_empire_city": ("S1", "X1"),
    "setup_elector": ("S2", "S3"),
    "setup_aristocrat": ("S2", "X1"),
    "setup_knight": ("S2", "X1"),
    "replace_emperor": ("A2",),
    "choose_throne": ("E4",),
    "choose_elector": ("V4",),
    "place_son": ("D2",),
    "place_displaced": ("V4", "D2"),
    "place_dethroned": ("E4", "D2"),
    "daughter": ("D3",),
    "marriage_answer": ("D3",),
    "gray_eminence": ("P8", "X13"),
    "break_tie": ("V2",),
    "aim_church_influence": ("E1", "X8"),
    "aim_excommunication": ("E1", "X8"),
    "vote": ("E2",),
    "emperor_place_city": ("R1", "X3"),
    "emperor_move_city": ("R1", "X3"),
    "actions": ("P1",),
}
"""The rulings that define the options of each decision the game can wait for."""

COMMAND_RULINGS: dict[str, tuple[str, ...]] = {
    "PlaceKnight": ("P1", "X1"),
    "MoveKnight": ("P1", "X2"),
    "BuyDoctor": ("P3", "X10"),
    "BuyMove": ("P4",),
    "BuyPope": ("P2",),
    "BuyChurchInfluence": ("P2",),
    "BuyExcommunication": ("P2",),
    "BuyIndulgence": ("P5",),
    "BuyPermit": ("P5",),
    "BuyOrdinance": ("P5",),
    "BuyPromotion": ("P5",),
    "BuyForeignKingsDaughter": ("P5",),
    "BuyRival": ("P1", "X12"),
    "BuyCardWithoutEffect": ("P2", "X9"),
    "TakeGrayEminence": ("P8",),
    "UseKoelnPrivilege": ("P3", "P7", "X10"),
    "UsePalatinatePrivilege": ("P7",),
}
"""The rulings that define the options of each phase IV command (the ``actions`` decision)."""

PUSHING = {"place_son", "place_displaced", "place_dethroned", "actions"}
"""Decisions in which an aristocrat placement may push a knight [D2]."""

PLACEMENT_KINDS = {
    "setup_elector": (ELECTOR,),
    "setup_aristocrat": (ARISTOCRAT,),
    "setup_knight": (ARISTOCRAT, CASTLE),
    "gray_eminence": (EMINENCE,),
    "place_son": (ARISTOCRAT,),
    "place_displaced": (ARISTOCRAT,),
    "place_dethroned": (ARISTOCRAT,),
}
"""The kinds of space a ``PlacePiece`` answers with, per decision."""


def options_rulings(c: Any, p: ev.Prompt) -> tuple[str, ...]:
    """The rulings that define the options of the decision ``p`` for a command of ``c``'s type."""
    if p.decision == "actions":
        return COMMAND_RULINGS.get(c.type, DECISION_RULINGS["actions"])
    return DECISION_RULINGS.get(p.decision, ("G1",))


def explain(s: GameState, c: Any, p: ev.Prompt) -> Why:
    """(code, message, rulings) for a refused command; the rulings are never empty."""
    why = _common(s, c, p) or _specific(s, c, p)
    if why is None:
        why = ("illegal_move", "these details match none of its options", options_rulings(c, p))
    code, message, rulings = why
    if code == "illegal_move":  # the code stays generic; the sentence and the rulings say which rule
        message = f"{c.type} is not legal now for the decision '{p.decision}': {message}."
    return code, message, rulings


def _common(s: GameState, c: Any, p: ev.Prompt) -> Why | None:
    """Checks shared by every command: spaces and electorates that exist, privileges, cards, supply, thalers."""
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
        return "emperor_cannot_rival", "The Emperor can not take the Rival card.", ("P1", "X12")
    if c.type == "TakeGrayEminence" and not stack_available(s, "gray_eminence"):
        return "stack_empty", "The Gray eminence card was already taken this round.", ("B5", "P8")
    card = CARD_OF_COMMAND.get(c.type) or getattr(c, "card", None)
    if card is not None:
        why = _card(s, c, card)
        if why is not None:
            return why
    if c.type in ("BuyPermit", "UsePalatinatePrivilege", "BuyPromotion") and s.tiles_in_supply[c.seat] == 0:
        rulings = ("B3", "P5") if c.type != "UsePalatinatePrivilege" else ("B3", "P7")
        return "supply_empty", "You have no aristocrat tile left in your supply.", rulings
    if c.type == "BuyOrdinance" and s.cities_in_supply[c.seat] == 0:
        return "supply_empty", "You have no city left in your supply.", ("B3", "P5")
    if c.type == "PlaceKnight" and s.knights_in_supply[c.seat] == 0:
        return "supply_empty", "You have no knight left in your supply.", ("B3", "P1")
    if c.type in ("PlaceKnight", "MoveKnight") and s.thalers[c.seat] < s.layout.constants["knight_cost"]:
        return "cannot_afford", "A knight costs 1 thaler.", ("G2", "P1")
    return None


def _card(s: GameState, c: Any, card: str) -> Why | None:
    """A card command: can it be paid, is the card left, may Trier's privilege stand in for it [B5, P2, P6]."""
    cost = permit_cost(s, c.couple) if c.type == "BuyPermit" else s.layout.cards[card].cost
    if s.thalers[c.seat] < cost:
        return "cannot_afford", f"{card} costs {cost} thalers; you have {s.thalers[c.seat]}.", ("G2", "P2")
    trier = getattr(c, "trier", False)
    if trier and stack_available(s, card):
        return "trier_not_needed", f"The {card} stack is not empty: take the card itself.", ("P6",)
    if trier and card not in TRIER_CARDS:
        return "no_privilege", f"Trier's privilege does not stand in for the {card} card.", ("P6",)
    if trier and (elector_owner(s, TRIER) != c.seat or s.privilege_used[TRIER]):
        return "no_privilege", "Trier's privilege is not yours to use now.", ("P6", "P7")
    if not trier and not stack_available(s, card):
        if card == "rival":
            return "stack_empty", "Rival was already taken this round.", ("B5", "X12")
        return "stack_empty", f"No {card} card is left this round.", ("B5", "P2")
    if c.type == "BuyCardWithoutEffect" and s.n != 2:
        return "not_two_players", "Cards can be bought without effect only with two players.", ("P2", "X9")
    return None


def _specific(s: GameState, c: Any, p: ev.Prompt) -> Why | None:
    """The reason tied to the command's own details: its space kind, its push, the piece it names."""
    if c.type == "PlacePiece":
        why = _place_piece(s, c, p)
        if why is not None:
            return why
    if c.type in ("PlaceEmpireCity", "MoveEmpireCity"):
        return _empire_city(s, c, p)
    if c.type in ("PlaceKnight", "MoveKnight"):
        why = _knight(s, c)
        if why is not None:
            return why
    if hasattr(c, "push") and p.decision in PUSHING:
        why = _push(s, c)
        if why is not None:
            return why
    if c.type == "BuyOrdinance" and first_free(s, s.layout.electorates[_e(c.electorate)].cities) is None:
        return "illegal_move", f"{c.electorate} has no free city space", ("P5", "X1")
    if c.type == "BreakTie" and c.winner not in p.tied:
        return "illegal_move", f"seat {c.winner} is not among the players tied for most power", ("V2",)
    if c.type in ("AimChurchInfluence", "AimExcommunication"):
        spiritual = s.layout.electorates[_e(c.electorate)].spiritual
        if c.type == "AimChurchInfluence" and not spiritual:
            return "illegal_move", "church influence names an archdiocese", ("E1", "X8")
        if c.type == "AimExcommunication" and spiritual:
            return "illegal_move", "excommunication names a secular electorate", ("E1", "X8")
    return _piece(s, c, p)


def _e(electorate: str) -> int:
    return ELECTORATE_KEYS.index(electorate)


def _place_piece(s: GameState, c: Any, p: ev.Prompt) -> Why | None:
    """A placement the game asked for: the kind of space, the electorate, a free space there."""
    rulings = DECISION_RULINGS.get(p.decision, ("G1",))
    kinds = PLACEMENT_KINDS.get(p.decision, ())
    if c.space_kind not in kinds:
        wanted = " or ".join(kinds)
        return "illegal_move", f"this placement goes on a space of kind {wanted}, not {c.space_kind}", rulings
    if c.push is not None and p.decision not in PUSHING:
        return "push_not_allowed", "No knight is pushed in this placement.", rulings
    info = s.layout.electorates[_e(c.electorate)]
    if p.decision == "place_displaced" and c.electorate != p.electorate:
        return "illegal_move", f"the displaced elector stays in {p.electorate}", ("V4",)
    if p.decision == "setup_elector" and s.board[info.elector] is not None:
        return "illegal_move", f"the elector space of {c.electorate} is taken", rulings
    if p.decision == "gray_eminence" and s.board[info.eminence] is not None:
        return "illegal_move", f"the Gray eminence slot of {c.electorate} is taken", rulings
    if p.decision in ("setup_aristocrat", "setup_knight"):
        spaces = info.castles if c.space_kind == CASTLE else info.aristocrats
        if first_free(s, spaces) is None:
            cited = ("B2", *rulings) if not spaces else rulings
            return "illegal_move", f"{c.electorate} has no free {c.space_kind} space", cited
    return None


def _empire_city(s: GameState, c: Any, p: ev.Prompt) -> Why:
    """Placing or moving an empire city: a free city space, and (moving) an empire city in another electorate."""
    rulings = DECISION_RULINGS.get(p.decision, ("R1", "X3"))
    e = _e(c.electorate)
    if c.type == "MoveEmpireCity":
        i = s.layout.by_id[c.from_space]
        piece = s.board[i]
        if not (isinstance(piece, City) and piece.owner == EMPIRE):
            return "illegal_move", f"there is no empire city on {c.from_space}", ("R1", "X3")
        if s.layout.spaces[i].electorate == e:
            return "illegal_move", "the empire city moves to another electorate", ("X3",)
    if first_free(s, s.layout.electorates[e].cities) is None:
        return "illegal_move", f"{c.electorate} has no free city space", (*rulings, "X1")
    return "illegal_move", "these details match none of its options", rulings


def _knight(s: GameState, c: Any) -> Why | None:
    """Placing or moving a knight: the knight moved, and a free space of the named kind [P1, X1, X2, B2]."""
    info = s.layout.electorates[_e(c.electorate)]
    if c.type == "MoveKnight":
        i = s.layout.by_id[c.from_space]
        piece = s.board[i]
        if not isinstance(piece, Knight):
            return "illegal_move", f"there is no knight on {c.from_space}", ("P1",)
        if piece.owner != c.seat:
            return "illegal_move", f"the knight on {c.from_space} belongs to {s.players[piece.owner]}", ("P1",)
        here = s.layout.spaces[i]
        if here.electorate == _e(c.electorate) and here.kind == c.space_kind:
            return "illegal_move", "the knight must change its electorate or its kind of space", ("X2",)
    spaces = info.castles if c.space_kind == CASTLE else info.aristocrats
    if not spaces:
        return "illegal_move", f"{c.electorate} has no {c.space_kind} space", ("B2", "P1")
    if first_free(s, spaces) is None:
        return (
            "illegal_move",
            f"{c.electorate} has no free {c.space_kind} space (a knight pushes nothing)",
            (
                "P1",
                "X1",
            ),
        )
    return None


def _push(s: GameState, c: Any) -> Why | None:
    """An aristocrat placed into an electorate: a knight is pushed exactly when no aristocrat space is free,
    and only a knight on an aristocrat space of that electorate [D2, X6]."""
    e = _e(c.electorate)
    spaces = s.layout.electorates[e].aristocrats
    free = first_free(s, spaces) is not None
    push = c.push
    if push is not None and free:
        return "push_not_allowed", f"{c.electorate} has a free aristocrat space: no knight may be pushed.", ("D2",)
    if push is None and not free:
        if any(isinstance(s.board[i], Knight) for i in spaces):
            return "no_room", f"{c.electorate} has no free aristocrat space: name a knight to push.", ("D2", "X6")
        return "no_room", f"{c.electorate} has no free aristocrat space and no knight to push.", ("D2",)
    if push is None:
        return None
    i = s.layout.by_id[push]
    if not isinstance(s.board[i], Knight):
        return "not_a_knight", f"There is no knight on {push} to push.", ("D2",)
    if s.layout.spaces[i].kind == CASTLE:
        return "illegal_move", f"the knight on {push} stands on a castle space: it is never pushed", ("D2",)
    if i not in spaces:
        return "illegal_move", f"the knight on {push} is not in {c.electorate}", ("D2", "X6")
    return None


_PIECE_FIELD = {
    "ChooseAristocrat": "space",
    "OfferDaughter": "space",
    "BuyDoctor": "target",
    "UseKoelnPrivilege": "target",
    "BuyMove": "source",
    "BuyPromotion": "knight",
    "BuyForeignKingsDaughter": "baron",
}


def _piece(s: GameState, c: Any, p: ev.Prompt) -> Why | None:
    """The piece a command names: is it there, of the right sort, the player's (or an opponent's), where the
    rule wants it."""
    field = _PIECE_FIELD.get(c.type)
    if field is None:
        return None
    rulings = options_rulings(c, p)
    sid = getattr(c, field)
    i = s.layout.by_id[sid]
    piece = s.board[i]
    space = s.layout.spaces[i]
    if piece is None:
        return "illegal_move", f"there is no piece on {sid}", rulings
    if c.type == "BuyPromotion":
        if not isinstance(piece, Knight):
            return "illegal_move", f"{sid} does not hold a knight", rulings
        if piece.owner != c.seat:
            return "illegal_move", f"the knight on {sid} belongs to {s.players[piece.owner]}", rulings
        if space.kind != ARISTOCRAT:
            return "illegal_move", "only a knight on an aristocrat space can be promoted", rulings
        return None
    if not isinstance(piece, Tile):
        return "illegal_move", f"{sid} does not hold an aristocrat", rulings
    spiritual = space.electorate >= 0 and s.layout.electorates[space.electorate].spiritual
    if c.type in ("BuyDoctor", "UseKoelnPrivilege"):
        if piece.owner == c.seat and piece.age == 15:
            return "illegal_move", "your aristocrat is already 15 and can not be younger", rulings
        if space.kind not in (THRONE, ELECTOR, ARISTOCRAT, EMINENCE):
            return "illegal_move", f"the aristocrat on {sid} is not on the board's throne, seats or spaces", rulings
        return None
    if c.type == "OfferDaughter":
        if piece.owner == c.seat:
            return "illegal_move", "a daughter is offered to an opponent's Baron", ("D3",)
        if piece.couple:
            return "illegal_move", f"the tile on {sid} is already a Couple", ("D3",)
        if space.kind == ELECTOR and spiritual:
            return "illegal_move", "an archdiocese elector must stay a Baron", ("B1", "D3")
        if space.kind not in (THRONE, ARISTOCRAT, ELECTOR):
            return "illegal_move", f"the Baron on {sid} can not receive a daughter", ("D3",)
        return None
    if piece.owner != c.seat:
        return "illegal_move", f"the aristocrat on {sid} belongs to {s.players[piece.owner]}", rulings
    if c.type == "BuyForeignKingsDaughter":
        if piece.couple:
            return "illegal_move", f"the tile on {sid} is already a Couple", rulings
        if space.kind == ELECTOR and spiritual:
            return "illegal_move", "an archdiocese elector must stay a Baron", ("B1", "P5")
        return None
    if c.type == "BuyMove":
        if space.kind != ARISTOCRAT:
            return (
                "illegal_move",
                "only an aristocrat on an aristocrat space moves (not an elector, the Emperor)",
                ("P4",),
            )
        if space.electorate == _e(c.electorate):
            return "illegal_move", "the Move card takes the aristocrat to another electorate", ("P4",)
        return None
    # ChooseAristocrat
    allowed = {"replace_emperor": (ARISTOCRAT,), "choose_throne": (ARISTOCRAT, EMINENCE)}.get(
        p.decision, (ARISTOCRAT, EMINENCE)
    )
    if space.kind not in allowed:
        where = " or the Gray eminence slot" if EMINENCE in allowed else ""
        return "illegal_move", f"the aristocrat must come from an aristocrat space{where}", rulings
    if p.decision == "choose_elector":
        e = _e(p.electorate)  # type: ignore[arg-type]
        if space.electorate != e:
            return "illegal_move", f"the new elector comes from {p.electorate} itself", ("V4",)
        if piece.couple and s.layout.electorates[e].spiritual:
            return "illegal_move", "an archdiocese takes a Baron as elector, not a Couple", ("B1", "V4")
    return None
