"""People: pseudonymous identity, sealed settings and crypto-shredding, each person's
language in memory, the /clear message ledger, and rollback refused for rewritten rows."""
