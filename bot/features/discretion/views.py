"""The panic-word menu in /settings, and the command menu's entries (default or neutral)."""

from __future__ import annotations

from collections.abc import Sequence

from bot.content.texts import Texts, Tx
from bot.core.buttons import Rows
from bot.features.discretion.callbacks import DiscretionButton
from bot.features.discretion.prefs import DiscretionPrefs
from bot.features.setup.callbacks import SettingsButton
from bot.people.profile import Profile


def discretion_menu(
    tx: Tx, profile: Profile, themes: Sequence[tuple[str, str]], *, note: str | None = None
) -> tuple[str, Rows]:
    """`themes`: (id, label) of each decoy theme; `note`: what just changed."""
    p = profile.part(DiscretionPrefs)
    armed = p.panic_digest is not None
    theme = p.decoy_theme or (themes[0][0] if themes else "")
    label = next((name for tid, name in themes if tid == theme), theme)
    if armed:
        status = tx(
            "discretion.status_on",
            theme=label,
            back=tx("discretion.return_set" if p.return_digest else "discretion.return_unset"),
            erase=tx("discretion.erase_on" if p.panic_erases else "discretion.erase_off"),
        )
    else:
        status = tx("discretion.status_off")
    text = tx("discretion.menu") + "\n\n" + status
    if note:
        text = note + "\n\n" + text

    def button(key: str, value: str) -> tuple[str, str]:
        return (tx(key), DiscretionButton(value).encode())

    rows: Rows = [[button("discretion.btn_change" if armed else "discretion.btn_set", "panic")]]
    if armed:
        rows.append(
            [
                (
                    ("✓ " if tid == theme else "") + name,
                    DiscretionButton(f"theme:{tid}").encode(),
                )
                for tid, name in themes
            ]
        )
        back = [button("discretion.btn_return", "return")]
        if p.return_digest:
            back.append(button("discretion.btn_noreturn", "noreturn"))
        rows.append(back)
        erase = "erase:off" if p.panic_erases else "erase:on"
        key = "discretion.btn_erase_off" if p.panic_erases else "discretion.btn_erase_on"
        rows.append([button(key, erase)])
        rows.append([button("discretion.btn_off", "off")])
    rows.append([(tx("discretion.btn_back"), SettingsButton("menu").encode())])
    return text, rows


def menu_entries(texts: Texts, names: Sequence[str], *, neutral: bool) -> list[tuple[str, str]]:
    """(command, description) in the menu's order; `neutral`: the ordinary-words menu."""
    order = texts.data.get("command_menu", list(names))
    section = "command_menu_neutral" if neutral else "commands"
    return [
        (name, texts(f"{section}.{name}"))
        for name in order
        if name in names and texts.has(f"{section}.{name}")
    ]
