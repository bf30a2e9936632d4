"""Shadow's own bots: the heuristic player (heuristic.py), the arena that measures it against random bots
(arena.py) and its ``make bench`` section (bench.py). The random bot is the generic one (services/bots/)."""
