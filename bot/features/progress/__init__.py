"""/progress: the picture of the waves getting smaller, no-contact days, the mood tap."""
