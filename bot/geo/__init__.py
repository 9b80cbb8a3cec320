"""Countries and time zones: the IANA tables tzdata ships, what people call a zone, and
the one place the rest of the bot asks (`lookup`)."""
