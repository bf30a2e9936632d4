"""The rules worker: the one authoritative writer per shard."""
