"""``make bench`` (``throne bench``, ``python -m services.bench``): the figures of the engine and the services.

Prints figures line by line; the LAST line is one JSON object with every figure, e.g.::

    {"engine_games_per_s": 70.1, "fold_events_per_s": 410000.0, "decide_p50_us": 95.0, ...}

``python -m services.bench --engine`` (``throne bench --engine``) measures only the machine and the engine's random
games: ``engine_games_per_s``, ``machine_python_mops`` and their ratio ``engine_games_per_mops``, in seconds;
``--instructions`` adds the instructions per random game of Shadow and Barracks, counted by callgrind
(``instructions``: deterministic, unmoved by the machine's load; a few minutes).

Every benchmark lives in this package, one module per section; it is a measuring tool (like the tests), so a
game's own section may reach into that game. ``context`` (what sections share), ``engine`` (the engine's
sections), ``runner`` (the order, the JSON line), ``perf`` (recorded games, local Redis servers, the service's
measures) and one module per optional section: ``instructions``, ``service``, ``gateway``, ``projections``,
``webhooks`` (with ``trickle``, its slow receivers), ``timer``, ``shadow_heuristic``, ``shadow_search`` and
``barracks``.
"""

from services.bench.context import Context, RecordedGame, Section, play_random_game
from services.bench.runner import main, optional_sections, run

__all__ = ["Context", "RecordedGame", "Section", "main", "optional_sections", "play_random_game", "run"]
