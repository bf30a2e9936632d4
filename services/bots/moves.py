"""What a bot seat plays: the awaited bot seat's command for a game, chosen by its bot, signed with the seat's
key and recorded as sent (services/bots/runner.py submits it).

The bot is seeded from the game id, seat, version and attempt; the command carries the version the runner saw
as its expected version (so it counts at most once) and a fresh unguessable id ``bot-<version>-<seat>-<random>``.
"""

from __future__ import annotations

import secrets
import time
from typing import Any

from services.bots.games import BotConfig, BotGame, BotGames, Sent, bot_seed
from services.bots.kinds import Bot, UnknownBot, make_bot
from services.bus.envelope import CommandEnvelope


def next_command(game: BotGame, bot_games: BotGames, cfg: BotConfig, log: Any) -> CommandEnvelope | None:
    """The command a bot seat of ``game`` sends now, signed and recorded as sent; None when no bot seat is
    awaited, one was sent at this version already, a retry is not due yet, or the game is over (then it is
    forgotten). A failing bot plays a random legal command instead; a bot with none waits for another try."""
    if game.behind:
        bot_games.catch_up(game)
    rules = game.rules
    if rules.is_over(game.state):
        log.info("bots.game_over", game=game.game_id, shard=game.shard, version=game.version)
        bot_games.forget(game.game_id, game.shard)
        return None
    if game.sent is not None and game.sent.version == game.version:
        return None
    if game.retry_at > time.monotonic():
        return None
    playing = bot_games.playing(game)
    seats = [s for s in rules.awaited(game.state) if s in playing]
    if not seats:
        return None
    seat = seats[0]
    kind, key = playing[seat]
    seed = bot_seed(game.game_id, seat, game.version, game.attempt)
    ctx = {"game": game.game_id, "shard": game.shard, "version": game.version, "seat": seat, "kind": kind}
    command = None
    try:
        command = rules.choose(bot_of(kind, game.name, seed, log), game.state, seat)
    except Exception as exc:
        # A broken bot must not stall the game: its seat plays a random legal command this time.
        log.exception("bots.bot_failed", **ctx, error=repr(exc))
        command = rules.choose(make_bot("random", game.name, seed), game.state, seat)
    if command is None:
        # Try again later (another attempt, another seed) rather than leave the game waiting for good.
        game.attempt += 1
        game.retry_at = time.monotonic() + cfg.retry_cap_ms / 1000
        log.error("bots.no_command", **ctx, retry_in_s=cfg.retry_cap_ms / 1000)
        return None
    # Unguessable: the version and seat are there for people reading logs, the random part for safety.
    cid = f"bot-{game.version}-{seat}-{secrets.token_hex(8)}"
    env = CommandEnvelope.signed(
        key,
        command_id=cid,
        game_id=game.game_id,
        seat=seat,
        payload=rules.encode_command(command),
        expected_version=game.version,
        no_reply=True,  # the bots read outcomes, never a reply: none is kept for them
    )
    game.sent = Sent(env, game.version, time.monotonic())
    game.retry_at = 0.0
    log.debug("bots.submit", **ctx, cid=cid, command=getattr(command, "type", ""))
    return env


def bot_of(kind: str, game: str, seed: int, log: Any) -> Bot:
    """The bot of ``kind`` for ``game``, seeded; an unknown kind still gets a player: the random bot."""
    try:
        return make_bot(kind, game, seed)
    except UnknownBot as exc:
        # Bot seats are written by the game's creator; an unknown kind still gets a player.
        log.error("bots.unknown_kind", kind=kind, game_name=game, error=str(exc))
        return make_bot("random", game, seed)
