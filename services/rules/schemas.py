"""``python -m services.rules.schemas`` (``make schemas``): write the JSON Schemas of every installed game's
commands, events and views (``GamePlugin.command_schema`` / ``event_schema`` / ``view_schema``) into
events/schemas/."""

from __future__ import annotations

from pathlib import Path

from events.schemas import DIRECTORY, path_of, render
from services.rules.contract import JSON, GamePlugin
from services.rules.registry import game_names, get_game


def schemas_of(game: GamePlugin) -> dict[str, JSON]:
    """The schemas a game declares, by file name (``<game>.commands``, ``<game>.events``, ``<game>.views``)."""
    found = {
        f"{game.name}.commands": game.command_schema,
        f"{game.name}.events": game.event_schema,
        f"{game.name}.views": game.view_schema,
    }
    return {name: schema for name, schema in found.items() if schema is not None}


def write_schemas(directory: Path = DIRECTORY, games: list[str] | None = None) -> list[Path]:
    """Write the schemas of ``games`` (default: every installed game) into ``directory``; the paths written."""
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for name in game_names() if games is None else games:
        for schema_name, schema in schemas_of(get_game(name)).items():
            path = path_of(schema_name, directory)
            path.write_bytes(render(schema))
            written.append(path)
    return written


if __name__ == "__main__":
    for path in write_schemas():
        print(path)
