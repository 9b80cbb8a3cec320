"""The languages Steady is written in: English (the source) and the six translations under
content/locales/. Data kept per language (crisis terms, conversation words, decoys, the
helplines' part names, time-zone names, dates typed in words) is checked against this one
list, and `python -m bot content check` fails when content/locales/ and it disagree, so an
eighth language is added here and in content/, nowhere else."""

from __future__ import annotations

ENGLISH = "en"
LANGUAGES: tuple[str, ...] = (ENGLISH, "es", "fr", "de", "it", "nl", "pt")
