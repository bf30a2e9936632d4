"""Menus of legal moves for people typing: grouped and numbered (:mod:`services.menus.menu`), and what a typed
line picks from them (:mod:`services.menus.phrases`: numbers, group keys, phrases matched without regard to
case or accents).

Shared by the gateway's chat surface and ``throne play``; pure code that knows no game (labels and groups come
from the game's presenter) and does no IO.
"""
