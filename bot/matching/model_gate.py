"""What the bot asks of the crisis model before it is loaded: which texts it reads at all,
and where its head lives. Plain Python: the model itself (bot/matching/crisis_model.py, with
numpy and the encoder) loads in its worker after the first poll (issue 25), while the
handlers decide from the first message on whether a text goes to it.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from pathlib import Path

from bot.matching.crisis import UNCERTAIN, CrisisMatch

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


def temper(
    match: CrisisMatch | None, text: str, tempered: Callable[[str], bool]
) -> CrisisMatch | None:
    """The model's emergency reply lowered to a check where the rules read the text's
    crisis words as not a crisis or as laughter (`CrisisDetector.tempered`): on the held-out
    sets its false emergencies were of that kind ("how do I help a friend whose boyfriend
    controls her", a narco series "jaja"), and a person in danger who wrote that way is still
    asked whether they are safe. Asked only of the model's emergency replies: a scan of the
    text, tens of microseconds for a chat message."""
    if match is None or not match.certain or not tempered(text):
        return match
    return dataclasses.replace(match, tier=UNCERTAIN)
