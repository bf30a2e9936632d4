"""Outbound webhooks: a seat's receiver is told when the game waits for it and when the game ends.

* hooks.py: the webhooks of a game, per seat (registered through the gateway);
* targets.py: where a webhook may point (server-side request forgery);
* signing.py: HMAC-SHA256 signatures, and how a receiver verifies them;
* notices.py: which notices a commit gives which seat (the game contract only), and the kinds registry;
* outbox.py: the per-shard outbox of notices and the records of what became of each;
* part.py: what the parts below share (settings, webhooks, outbox, the consumer of a group; the followers' loop);
* follower.py: the feeds -> the outbox (a consumer group, per-game checkpoints);
* clocks.py: the timer's clock notices -> the outbox (``clock_low``);
* delivery.py: the outbox -> the receivers (asyncio + httpx, retries with backoff, a deadline per attempt);
* slots.py: how the attempts in flight are shared (a prompt and a slow lane, caps per host and per seat, turns);
* ``python -m services.webhooks``: the process, both halves.
"""
