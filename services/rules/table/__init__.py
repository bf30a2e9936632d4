"""The table around every game: clocks and timeouts, default moves, seats handed to a bot and taken back, players
who leave, and the fair shuffle's committed seed.

A game supplies only what is its own (its default move for a decision, its ruling ids for these table rules); the
table decides the table's commands, folds the table's facts and words them, once for every game.
:class:`Table` is a game's rules with the table around them, :class:`TablePresenter` its presenter: the service
holds a game through these two (``GamePlugin.rules`` and ``GamePlugin.presenter``).
"""

from services.rules.table.referee import Table
from services.rules.table.state import TABLE_COMMANDS, TABLE_EVENTS, TableState
from services.rules.table.words import TablePresenter

__all__ = ["TABLE_COMMANDS", "TABLE_EVENTS", "Table", "TablePresenter", "TableState"]
