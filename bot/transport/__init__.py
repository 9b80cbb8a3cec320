"""How bytes reach Telegram and back: fetching updates, crisis-first ordering, the HTTP
transport, the send policy, webhook mode and its metrics."""
