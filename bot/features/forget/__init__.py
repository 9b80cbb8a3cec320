"""/forget (delete everything, by destroying the person's key) and /clear (tidy the chat)."""
