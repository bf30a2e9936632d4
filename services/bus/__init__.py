"""The command bus on Redis Streams: key layout, envelopes, connection and the client library."""
