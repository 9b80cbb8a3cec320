"""The rules read a message alike in every process. The typo guess took the first one-deletion form
found in a set, whose order follows the process's hash seed, so one message got a check in
one process and nothing in another (found by comparing two runs over the training data);
and where two categories of one kind matched, the one named followed the scan's order."""

from __future__ import annotations

import json
import os
import subprocess
import sys

# Messages whose words have one-deletion forms near two different term words.
TEXTS = [
    "me ha dicho que un dia me echa algo en el cafe y ni me entero",
    "hij trok de sjaal om mijn nek strakker en strakker tot alles zwart werd",
    "de kinderen spelen cowboys en indianen en schieten elkaar dood met stokken haha",
    # Two categories of one kind found at once: the one named followed the scan's order.
    "he tried to strangle me with the dog leash",
    "amenaza con llevarse a mis hijos",
    "I keep cutting myself",
    "si no pago la factura mi marido me va a matar",
]

READ = """
import json, sys
from bot.content.loader import load_content
detector = load_content().detector
out = []
for text in json.loads(sys.argv[1]):
    m = detector.detect(text)
    out.append(None if m is None else [m.tier, m.category])
print(json.dumps(out))
"""


def test_the_rules_read_a_message_alike_whatever_the_hash_seed() -> None:
    seen = set()
    for seed in ("1", "2", "4", "6"):  # four readings of the old guess
        done = subprocess.run(
            [sys.executable, "-c", READ, json.dumps(TEXTS)],
            env={**os.environ, "PYTHONHASHSEED": seed},
            capture_output=True,
            text=True,
            check=True,
        )
        seen.add(done.stdout.strip())
    assert len(seen) == 1, seen
