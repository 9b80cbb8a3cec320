"""Riding the wave: /urge, the held draft, My reasons."""
