"""Crisis: the reply to a crisis word (sent first, never waiting on storage), the country
question, the safety check, and the person's choice about words that triggered it."""
