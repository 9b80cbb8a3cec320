"""Pure builders of what a person sees: text and buttons, from data and a translator (`Tx`).
No Telegram calls, no storage: each is unit-testable on its own."""

from __future__ import annotations

Button = tuple[str, str]  # (label, callback data)
Rows = list[list[Button]]
