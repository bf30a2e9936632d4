"""The fast mirrors of message models (services/rules/facts.py), on a small model set of this test's own:
a nested model, an optional nested model, a tuple of nested models, required fields after defaulted ones."""

from __future__ import annotations

import copy
from typing import Literal

import pytest
from pydantic import BaseModel, Field

from events.base import Event, Message
from services.rules import facts


class Stone(Message):
    colour: str
    weight: int = 1


class Pile(Message):
    stones: tuple[Stone, ...]
    label: str


class StonesMoved(Event):
    type: Literal["StonesMoved"] = "StonesMoved"
    seat: int
    top: Stone | None = None
    piles: tuple[Pile, ...] = ()
    note: str


class Counted(Event):
    type: Literal["Counted"] = "Counted"
    total: int


def _moved() -> StonesMoved:
    stone = Stone(colour="red", weight=3)
    return StonesMoved(seat=2, top=stone, piles=(Pile(stones=(stone, Stone(colour="blue")), label="a"),), note="n")


def test_given_a_model_with_nested_models_when_mirrored_then_the_nested_models_are_mirrored_from_the_annotations() -> (
    None
):
    # Given a model that nests models three ways (one, optional, a tuple of them, inside a tuple of them)
    # When it is mirrored
    moved = facts.mirror(StonesMoved)
    # Then every nested model has its mirror too, and a model mirrors once
    assert facts.mirror(Stone) is facts.from_model(Stone(colour="x")).__class__
    assert facts.mirror(Pile)._fields == ("stones", "label")
    assert facts.mirror(StonesMoved) is moved


def test_given_a_mirror_built_by_keyword_when_read_then_it_has_the_models_defaults() -> None:
    # Given the mirror of a model whose required fields follow defaulted ones
    moved = facts.mirror(StonesMoved)
    # When it is built by keyword with the required fields only
    built = moved(seat=1, note="n")
    # Then the defaults are the model's
    assert (built.rulings, built.type, built.top, built.piles) == ((), "StonesMoved", None, ())
    with pytest.raises(TypeError):
        moved(seat=1)  # a required field is required


@pytest.mark.parametrize("model", [_moved(), StonesMoved(seat=0, note=""), Counted(total=4, rulings=("R1",))])
def test_given_a_model_when_mirrored_then_the_encodings_are_byte_identical_and_the_two_compare_equal(
    model: BaseModel,
) -> None:
    # Given a model and its mirror
    core = facts.from_model(model)
    # Then the mirror encodes to the model's very bytes, and dumps to its data in the same key order
    assert facts.is_core(core) and not facts.is_core(model)
    assert facts.encode(core) == core.to_json() == model.to_json()
    assert list(facts.to_dict(core)) == list(model.model_dump(mode="json"))
    assert core.to_dict() == model.to_dict()
    # And the mirror and the model compare equal both ways, and convert back
    assert core == model and model == core and (core != model) is False
    assert facts.to_model(core) == model == facts.validated(core)
    assert type(facts.to_model(core)) is type(model) and facts.model_class(core) is type(model)
    assert facts.as_core(model) == core and facts.as_core(core) is core
    assert copy.deepcopy(core) == core and hash(core) == hash(copy.copy(core))


def test_given_two_mirrors_when_their_values_differ_or_their_kinds_differ_then_they_are_not_equal() -> None:
    # Given a mirror
    core = facts.from_model(Counted(total=4))
    # Then another value, another kind with the same values, or another model are not equal to it
    assert core != facts.from_model(Counted(total=5))
    assert core != (Counted.model_fields["rulings"].default, "Counted", 4)  # a plain tuple of the same values
    assert core != Counted(total=5) and core != facts.to_model(facts.from_model(StonesMoved(seat=0, note="")))


def test_given_a_model_with_a_default_factory_when_mirrored_then_it_is_refused() -> None:
    # Given a model whose default is made by a factory (a mirror's default is one value, shared)
    class Counters(Message):
        counts: dict[str, int] = Field(default_factory=dict)

    # When it is mirrored, Then it is refused
    with pytest.raises(TypeError, match="default factory"):
        facts.mirror(Counters)


def test_given_a_maker_in_the_mirrors_order_when_called_then_it_builds_what_the_keyword_call_builds() -> None:
    # Given the maker of a mirror, its fields named in the mirror's order (required first, then the defaulted ones)
    counted = facts.mirror(Counted)
    make = facts.maker(counted, "total rulings type")
    # When it builds from one tuple of every value, then the mirror the keyword call builds
    assert make((3, ("R1",), "Counted")) == counted(total=3, rulings=("R1",))
    assert type(make((3, (), "Counted"))) is counted


def test_given_a_maker_when_its_fields_are_not_the_mirrors_order_then_it_is_refused_at_once() -> None:
    counted = facts.mirror(Counted)
    assert counted._fields == ("total", "rulings", "type")
    with pytest.raises(TypeError, match="Counted holds total rulings type, not type total rulings"):
        facts.maker(counted, "type total rulings")
    with pytest.raises(TypeError):
        facts.maker(counted, "total rulings")
