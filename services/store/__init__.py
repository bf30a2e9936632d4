"""The event store on Redis: the Lua commit script, event reads, snapshots and archives."""
