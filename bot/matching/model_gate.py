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

# The model's second opinion on the rules' reply (CrisisModel.second_opinion). The rules'
# false alarms on the held-out sets v7-v12 were calm texts that use a crisis's own words: a
# first-aid or krav maga class, a survivor telling a past long over, a true-crime podcast,
# "this exam will kill me". Where the n-gram view does not find such a text worrying (its
# logit at or below SECOND_OPINION_ABOVE) the reply waits for the encoder, and where the
# model then reads it as calm the reply goes one step down: the emergency reply becomes
# "Are you safe right now?" (P(crisis) below EMERGENCY_CALM_BELOW), and a check is not sent
# (below CHECK_CALM_BELOW, stricter: a check withdrawn leaves nothing). docs/crisis.md, "The
# model's second opinion" and "The eleventh pass", has how each was chosen: on D1-D3 the
# lowest P(crisis) of a crisis among the rules' emergencies that wait is 0.126 and among
# their checks 0.159; the calm ones are nearly all below 0.05.
SECOND_OPINION_ABOVE = 0.0
EMERGENCY_CALM_BELOW = 0.1
CHECK_CALM_BELOW = 0.05
# Below this the model is so sure that the rules' emergency reply is withdrawn, not turned
# into a check: "the health insurance strangles me, 500 francs a month" read 0.00. On every
# labelled set (the spent sets, D1-D3, the older held-out sets and crisis_eval.tsv) the
# lowest P(crisis) of a crisis among the rules' emergencies that wait is 0.072 (117 of
# them); 8 of the 400 calm texts of the spent v12 and v13 read below 0.02 (docs/crisis.md,
# "twelfth pass").
EMERGENCY_WITHDRAWN_BELOW = 0.02
# How long the rules' reply waits for that reading (its place is first in the model's
# queue, so this bounds a message being read already and a loaded machine); past it, or
# if the model is loading or absent, the rules' reply goes out as it is.
SECOND_OPINION_WAIT = 0.5


def word_count(text: str) -> int:
    return len(_WORD.findall(text))


def reads(text: str) -> bool:
    """Whether the model reads this text at all (the bot starts no reading otherwise)."""
    return word_count(text) >= MIN_WORDS


def second_opinion_wanted(text: str) -> bool:
    """Whether the rules' reply may wait for the model's second opinion: on a text long
    enough for the model's reading to mean something (the help word and other short pleas
    never wait)."""
    return word_count(text) >= CERTAIN_WORDS


def weighed(match: CrisisMatch, calm_reading: float) -> CrisisMatch | None:
    """The rules' match after the model's second opinion, its P(crisis) `calm_reading`
    (the most worrying piece's): as it is, one step down, or for an emergency reply read
    as surely calm, nothing."""
    if match.certain:
        if calm_reading < EMERGENCY_WITHDRAWN_BELOW:
            return None
        return match if calm_reading >= EMERGENCY_CALM_BELOW else lowered(match)
    return match if calm_reading >= CHECK_CALM_BELOW else None


def lowered(match: CrisisMatch) -> CrisisMatch:
    """The same match, as a safety check instead of the emergency reply."""
    return dataclasses.replace(match, tier=UNCERTAIN)


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
    return lowered(match)
