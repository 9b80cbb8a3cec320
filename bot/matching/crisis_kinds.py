"""The crisis screen's vocabulary: the reply kinds, the two tiers, a match, and the roles a
language's lists play in content/crisis_terms.yaml (crisis.py says how they are read).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class CrisisKind(StrEnum):
    DANGER = "danger"
    SELF_HARM = "self_harm"
    SEXUAL_VIOLENCE = "sexual_violence"
    GENERAL = "general"


CERTAIN = 1  # the emergency reply at once
UNCERTAIN = 2  # "Are you safe right now?"


@dataclass(frozen=True)
class CrisisMatch:
    """What a message showed: the reply kind and tier to act on, and everything found.

    `kind` and `category` belong to the most urgent finding of the best (lowest) tier;
    `kinds` and `categories` hold every finding of any tier.
    """

    kind: CrisisKind
    kinds: frozenset[CrisisKind]
    tier: int = CERTAIN
    category: str = "help"
    categories: frozenset[str] = field(default_factory=frozenset)

    @property
    def certain(self) -> bool:
        return self.tier == CERTAIN


# Roles a language's list can have besides categories: they shape matches, never match.
SHIELD = "not_crisis"  # spans that are not a crisis ("help me understand", "if I feel unsafe")
PAST = "past"  # the sentence tells of the past ("back then", "years ago")
SAFE_NOW = "safe_now"  # the person says they are safe now ("I'm safe now")
# The sentence laughs ("kkkk", "jajaja", "mdr", 😂): "SOCORRO my daughter wants a pineapple
# costume for tomorrow kkkkk" is a joke; a call for help in it gets the check, not the alarm.
JEST = "jest"
# Spans that are not a plea, though they hold its words ("if I text the code word she calls
# the police", "police or my lawyer first?"): they take out the general findings (a plea,
# distress) they share a word with, never a danger one ("if I call the police he'll kill
# me" is a threat).
NOT_A_PLEA = "not_a_plea"
# The sentence tells of a class, a sport, a story or the writer's work, not of their life ("we
# learnt to get out of a chokehold at krav maga", "a crime novel where he strangles them",
# "nurse here, two overdoses tonight"): the rules ask instead of alarming, and the model,
# which reads the whole sentence, may still send the emergency reply.
FRAMED = "framed"
ROLES = (SHIELD, PAST, SAFE_NOW, JEST, NOT_A_PLEA, FRAMED)
WORDS = "words"  # a language's named word lists, used in patterns as @name
LOWERINGS = (PAST, SAFE_NOW, JEST, FRAMED)


@dataclass(frozen=True)
class Category:
    name: str
    kind: CrisisKind
    tier: int
    lowered_by: frozenset[str]  # PAST, SAFE_NOW, JEST, FRAMED: what turns its tier 1 into 2


def lowered_tier(category: Category, tier: int, present: frozenset[str]) -> int:
    """Past, "safe now", laughter or a frame (once, whichever applies) turn tier 1 into 2 and drop a
    tier-2 finding (0): "I was scared of him back then" is not a crisis."""
    if category.lowered_by.isdisjoint(present):
        return tier
    return UNCERTAIN if tier == CERTAIN else 0


def parse_categories(raw: Mapping[str, Any]) -> dict[str, Category]:
    return {
        name: Category(
            name=name,
            kind=CrisisKind(spec["kind"]),
            tier=int(spec["tier"]),
            lowered_by=frozenset(spec.get("lowered_by", [])),
        )
        for name, spec in raw.items()
    }
