"""A check that only the key module and the store build Redis key names (the closed store boundary).

A module "builds a key" when its source does one of these (found by walking its syntax tree, so comments and
docstrings are not code and are ignored):

* interpolates a layout's ``prefix`` or ``tag(...)`` into an f-string (``f"{layout.prefix}:*"``);
* holds a hash tag in a string (``{s17}``, ``{s*}``, ``{lb:...}``, ``{rtt}``: braces around a word, between
  colons or at an end, so a URL template such as ``/games/{id}/events`` is none; see :data:`HASH_TAG`);
* holds a key segment of the layout between colons or at the end after one (``":game:"``, ``":meta"``,
  ``":rm:"`` ...), or tests a key name against one (``name.endswith(":notices")``).

The segments are not listed by hand: they are read from the key module itself (every key its typed functions
name, split on ``:``), so a key family added there is guarded here at once.
"""

from __future__ import annotations

import ast
import inspect
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PRODUCT = ("services", "projections", "events")
"""The packages of the product (tests may spell keys: they check the byte-identical layout)."""
ALLOWED = ("services/bus/keys.py", "services/store/")
"""The two places that name keys: the bus's key module and the store."""
HASH_TAG = re.compile(r"(^|:)\{[A-Za-z0-9_*:-]+\}(:|$)")
"""A Redis Cluster hash tag as this project spells them: ``{s<N>}``, ``{lb:<game>}``, ``{rtt}``..."""
SAMPLE_ARGS = {
    "shard": 7, "game_id": "GID", "seat": 3, "scope": "SCOPE", "command_id": "CID", "model": "MODEL",
    "game": "GAME", "part": "PART", "name": "NAME", "suffix": "SUFFIX",
}  # fmt: skip
"""Arguments to call every key function with; their values are not segments of the layout."""


@dataclass(frozen=True, slots=True)
class Finding:
    """One place where a module builds a key."""

    path: str
    line: int
    why: str


def key_segments(*namers: object) -> set[str]:
    """The literal segments of every key that the public methods of ``namers`` return (called with
    :data:`SAMPLE_ARGS`), the prefix and the sample values left out."""
    segments: set[str] = set()
    for namer in namers:
        for attr, fn in inspect.getmembers(namer, callable):
            if attr.startswith("_") or isinstance(fn, type):
                continue
            try:
                params = inspect.signature(fn).parameters
            except (TypeError, ValueError):
                continue
            if not params or any(p not in SAMPLE_ARGS for p in params):
                continue
            key = fn(**{p: SAMPLE_ARGS[p] for p in params})
            if not isinstance(key, str) or ":" not in key:
                continue
            for part in key.split(":")[1:]:
                word = part.strip("{}*")
                if word.isalpha() and word.islower() and word not in map(str, SAMPLE_ARGS.values()):
                    segments.add(word)
    return segments


def _strings(node: ast.AST) -> Iterator[tuple[int, str]]:
    """Every string constant under ``node`` (f-string literal parts included), with its line."""
    for sub in ast.walk(node):
        if isinstance(sub, ast.Constant) and isinstance(sub.value, str):
            yield sub.lineno, sub.value


def _docstring_nodes(tree: ast.AST) -> set[int]:
    """ids of the constants that are docstrings (of the module, a class or a function)."""
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                out.add(id(body[0].value))
    return out


def _interpolates_layout(value: ast.expr) -> bool:
    """True for ``x.prefix`` and ``x.tag(...)``, the two pieces every key starts with."""
    if isinstance(value, ast.Attribute) and value.attr == "prefix":
        return True
    return isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "tag"


def findings_of_source(path: str, source: str, segments: Iterable[str]) -> list[Finding]:
    """Where the module at ``path`` (its ``source``) builds a key."""
    tree = ast.parse(source)
    docstrings = _docstring_nodes(tree)
    words = "|".join(sorted(map(re.escape, segments)))
    segment_re = re.compile(rf":({words})(:|$)")
    found: list[Finding] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            for part in node.values:
                if isinstance(part, ast.FormattedValue) and _interpolates_layout(part.value):
                    found.append(Finding(path, node.lineno, "interpolates a layout's prefix or tag"))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            if HASH_TAG.search(node.value) and ":" in node.value:  # a lone "{x}" is a format template
                found.append(Finding(path, node.lineno, f"spells a hash tag: {node.value!r}"))
            elif segment_re.search(node.value):
                found.append(Finding(path, node.lineno, f"spells a key segment: {node.value!r}"))
    return found


def product_modules(root: Path) -> Iterator[tuple[str, Path]]:
    """Every Python module of the product under ``root`` outside :data:`ALLOWED`, by relative path."""
    for package in PRODUCT:
        for path in sorted((root / package).rglob("*.py")):
            rel = path.relative_to(root).as_posix()
            if not rel.startswith(ALLOWED):
                yield rel, path


def boundary_findings(root: Path, segments: Iterable[str]) -> list[Finding]:
    """Every place under ``root`` where a product module outside :data:`ALLOWED` builds a key."""
    words = set(segments)
    out: list[Finding] = []
    for rel, path in product_modules(root):
        out += findings_of_source(rel, path.read_text(encoding="utf-8"), words)
    return out


if __name__ == "__main__":  # the figure: python -m tests.service.key_boundary [ROOT]
    import sys

    from services.bus import keys

    namers = [keys.Layout()] + [cls(keys.Layout()) for cls in getattr(keys, "KEY_NAMERS", ())]
    where = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT
    hits = boundary_findings(where, key_segments(*namers))
    for hit in hits:
        print(f"{hit.path}:{hit.line}: {hit.why}")
    print(f"{len({h.path for h in hits})} modules, {len(hits)} places")
