"""What the bot asks of the crisis model before it is loaded: which texts it reads at all,
and where its head lives. Plain Python: the model itself (bot/matching/crisis_model.py, with
numpy and the encoder) loads in its worker after the first poll (issue 25), while the
handlers decide from the first message on whether a text goes to it.
"""

from __future__ import annotations

import re
from pathlib import Path

# Where the head lives inside content/ (bench/crisis_train.py writes it there).
MODEL_HEAD = Path("crisis_model") / "head.npz"

# Greetings, one-word answers, a button's number, a time: on so few words the model's guess
# is noise (it read "hi" and "hola" as emergencies). The rules still read them, and every
# help word is theirs.
MIN_WORDS = 3
# Below this many words the model may ask ("Are you safe right now?"), never send the
# emergency reply on its own ("my daughter has a cold" scored as danger).
CERTAIN_WORDS = 5
_WORD = re.compile(r"[^\W\d_]+")  # a run of letters, in any script


def word_count(text: str) -> int:
    return len(_WORD.findall(text))


def reads(text: str) -> bool:
    """Whether the model reads this text at all (the bot starts no reading otherwise)."""
    return word_count(text) >= MIN_WORDS
