"""The table's facts in a game's published event schema: every game's log holds them, so its schema lists them."""

from __future__ import annotations

from typing import Annotated, Any, Union

from pydantic import Field, TypeAdapter

from services.rules.table.state import TABLE_EVENTS

_TABLE_UNION = TypeAdapter(Annotated[Union[tuple(TABLE_EVENTS.values())], Field(discriminator="type")])  # noqa: UP007


def with_table_events(schema: dict[str, Any] | None) -> dict[str, Any] | None:
    """A game's event schema (a discriminated ``oneOf`` over ``$defs``) with the table's facts added (a new dict;
    one that lists them already, or that is not of that shape, is returned as it is)."""
    if schema is None or "oneOf" not in schema or "$defs" not in schema:
        return schema
    table = _TABLE_UNION.json_schema()
    if all(name in schema["$defs"] for name in table["$defs"]):
        return schema
    mapping = {**schema.get("discriminator", {}).get("mapping", {}), **table["discriminator"]["mapping"]}
    known = {ref["$ref"] for ref in schema["oneOf"] if isinstance(ref, dict) and "$ref" in ref}
    one_of = [*schema["oneOf"], *(ref for ref in table["oneOf"] if ref["$ref"] not in known)]
    return {
        **schema,
        "$defs": {**schema["$defs"], **table["$defs"]},
        "discriminator": {"mapping": dict(sorted(mapping.items())), "propertyName": "type"},
        "oneOf": one_of,
    }
