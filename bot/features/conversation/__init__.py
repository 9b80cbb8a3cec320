"""A conversation with no dead ends: the words people steer with, the menu, media replies."""
