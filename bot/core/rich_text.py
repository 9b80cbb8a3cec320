"""Text with entities: plain text plus spans (bold, italic, blockquote) rather than HTML, so
nothing a person wrote ever needs escaping and a length check is a plain UTF-16 count."""

from __future__ import annotations

from dataclasses import dataclass, field

from bot.core.telegram_text import utf16_len


@dataclass(frozen=True)
class Span:
    kind: str  # a Telegram MessageEntity type: "bold", "italic", "blockquote"
    offset: int  # UTF-16 code units, as Telegram counts
    length: int


@dataclass
class Rich:
    text: str = ""
    spans: list[Span] = field(default_factory=list)

    @property
    def length(self) -> int:
        return utf16_len(self.text)

    def add(self, text: str, kind: str | None = None) -> Rich:
        if kind is not None and text.strip():
            self.spans.append(Span(kind, self.length, utf16_len(text)))
        self.text += text
        return self
