"""The emulator's in-memory world: people, chats, messages both ways, and queued updates."""

from __future__ import annotations

import asyncio
import builtins
import itertools
import json
from collections import Counter, OrderedDict, deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

from bot.emulator.wakeup import Signal

# Telegram refuses to delete any message older than this.
DELETE_WINDOW_SECONDS = 48 * 3600
# The kinds a bot gets only when it names them in allowed_updates; an empty list (or none
# ever given) means every other kind (https://core.telegram.org/bots/api#getupdates).
DEFAULT_OFF_UPDATES = frozenset({"chat_member", "message_reaction", "message_reaction_count"})

MessagePredicate = Callable[["SentMessage"], bool]
MessageEvent = Literal["sent", "edited", "deleted"]
MessageListener = Callable[["SentMessage", MessageEvent], None]


def commands_key(scope: dict[str, Any] | None, language_code: str) -> tuple[str, str]:
    """setMyCommands keeps one list per (scope, language); the scope is a JSON object."""
    return json.dumps(scope or {"type": "default"}, sort_keys=True), language_code


@dataclass(slots=True, eq=False)
class SentDocument:
    filename: str
    data: builtins.bytes
    caption: str | None = None
    mime_type: str = "application/octet-stream"
    file_id: str = ""
    file_unique_id: str = ""

    @property
    def bytes(self) -> builtins.bytes:
        """Alias of `data`."""
        return self.data


@dataclass(slots=True, eq=False)
class SentMessage:
    """One message the bot sent, kept after deletion so tests can see what happened."""

    message_id: int
    chat_id: int
    text: str | None = None
    reply_markup: dict[str, Any] | None = None
    protect_content: bool = False
    disable_notification: bool = False
    reply_to_message_id: int | None = None
    document: SentDocument | None = None
    photo: SentDocument | None = None  # a sent photo's bytes (PNG or JPEG), as uploaded
    deleted: bool = False
    edits: int = 0
    date: int = 0
    parse_mode: str | None = None
    entities: list[Any] | None = None
    link_preview_options: dict[str, Any] | None = None
    edit_date: int | None = None
    bot_id: int = 0
    # Position among every bot message ever sent to this chat; survives trimming.
    index: int = -1


@dataclass(slots=True, eq=False)
class UserMessage:
    message_id: int
    chat_id: int
    user_id: int
    date: int
    # The Message object exactly as queued in the update, so replies can quote it.
    payload: dict[str, Any]
    deleted: bool = False


@dataclass(slots=True)
class User:
    id: int
    first_name: str
    language_code: str
    is_premium: bool = False

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.id,
            "is_bot": False,
            "first_name": self.first_name,
            "language_code": self.language_code,
        }
        if self.is_premium:
            out["is_premium"] = True  # Telegram leaves the field out otherwise
        return out


@dataclass(slots=True)
class Chat:
    id: int
    type: str
    first_name: str | None = None
    title: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "type": self.type}
        if self.title is not None:
            out["title"] = self.title
        if self.first_name is not None:
            out["first_name"] = self.first_name
        return out


class ChatLog:
    """Everything about one chat, bounded so a long benchmark stays flat in memory."""

    def __init__(self, chat: Chat, keep: int) -> None:
        self.chat = chat
        self.bot_messages: deque[SentMessage] = deque(maxlen=keep)
        self.sent_count = 0
        # Both directions, by id, for replies, edits and deletes; oldest evicted first.
        self.by_id: OrderedDict[int, SentMessage | UserMessage] = OrderedDict()
        self.deleted_ids: set[int] = set()
        self._keep_by_id = keep * 2
        self._last_message_id = 0

    def next_message_id(self) -> int:
        # One sequence per chat, shared by the bot's and the people's messages, as in Telegram.
        self._last_message_id += 1
        return self._last_message_id

    def remember(self, message: SentMessage | UserMessage) -> None:
        self.by_id[message.message_id] = message
        if len(self.by_id) > self._keep_by_id:
            self.by_id.popitem(last=False)

    def find(self, message_id: int) -> SentMessage | UserMessage | None:
        return self.by_id.get(message_id)

    def bot_messages_from(self, index: int) -> Iterator[SentMessage]:
        first_kept = self.sent_count - len(self.bot_messages)
        return itertools.islice(self.bot_messages, max(0, index - first_kept), None)

    def clear(self) -> None:
        self.bot_messages.clear()
        self.by_id.clear()
        self.deleted_ids.clear()


@dataclass
class WebhookConfig:
    """What setWebhook was given (the emulator posts there once asked to push)."""

    url: str
    secret: str | None
    max_connections: int = 40
    allowed_updates: frozenset[str] | None = None


class UpdateQueue:
    """Updates waiting for the bot, kept until a getUpdates offset confirms them."""

    def __init__(self) -> None:
        self._pending: deque[dict[str, Any]] = deque()
        self._next_id = 1
        self.changed = Signal()
        # The bot's last allowed_updates (None: the default set); Telegram keeps it between
        # polls and applies it to updates made after the call, not to those already queued.
        self.allowed: frozenset[str] | None = None

    def __len__(self) -> int:
        return len(self._pending)

    def subscribe(self, kinds: list[Any] | None) -> frozenset[str] | None:
        """allowed_updates as given to getUpdates or setWebhook: left out keeps the last
        choice, an empty list goes back to the default set."""
        if kinds is not None:
            self.allowed = frozenset(str(kind) for kind in kinds) or None
        return self.allowed

    def accepts(self, kind: str) -> bool:
        if self.allowed is None:
            return kind not in DEFAULT_OFF_UPDATES
        return kind in self.allowed

    def push(self, kind: str, payload: dict[str, Any]) -> dict[str, Any]:
        update = {"update_id": self._next_id, kind: payload}
        self._next_id += 1
        if not self.accepts(kind):
            return update  # Telegram never delivers a type the bot did not subscribe to
        self._pending.append(update)
        self.changed.notify()
        return update

    def confirm(self, offset: int) -> None:
        before = len(self._pending)
        if offset < 0:
            # Telegram: a negative offset keeps the last -offset updates, forgets the rest.
            while len(self._pending) > -offset:
                self._pending.popleft()
        else:
            while self._pending and self._pending[0]["update_id"] < offset:
                self._pending.popleft()
        if len(self._pending) != before:
            self.changed.notify()

    def remove(self, update_id: int) -> None:
        """Webhook mode: one update taken by the bot, wherever it is in the queue."""
        for update in self._pending:
            if update["update_id"] == update_id:
                self._pending.remove(update)
                self.changed.notify()
                return

    def take(self, limit: int) -> list[dict[str, Any]]:
        return list(itertools.islice(self._pending, limit))

    def pending_ids(self) -> list[int]:
        return [update["update_id"] for update in self._pending]

    def drop_all(self) -> None:
        if self._pending:
            self._pending.clear()
            self.changed.notify()


@dataclass(slots=True, eq=False)
class MessageWatch:
    """A pending wait_for_message, offered each new or changed message as it happens,
    so waiting never rescans the chat's history."""

    after: int
    predicate: MessagePredicate | None
    future: asyncio.Future[SentMessage]

    def offer(self, message: SentMessage) -> None:
        if self.future.done() or message.index < self.after:
            return
        try:
            matched = self.predicate is None or self.predicate(message)
        except Exception as exc:  # the test's predicate is at fault; hand it back to the test
            self.future.set_exception(exc)
            return
        if matched:
            self.future.set_result(message)


@dataclass(slots=True)
class PendingCallback:
    chat_id: int
    message_id: int
    user_id: int
    at: float = 0.0  # by the emulator's clock: the query expires after a short while


@dataclass
class EmulatorState:
    clock: Callable[[], float]
    keep_per_chat: int = 10_000
    record_calls: bool = True
    users: dict[int, User] = field(default_factory=dict)
    chats: dict[int, ChatLog] = field(default_factory=dict)
    blocked: set[int] = field(default_factory=set)
    updates: UpdateQueue = field(default_factory=UpdateQueue)
    webhook: WebhookConfig | None = None
    callbacks: dict[str, PendingCallback] = field(default_factory=dict)
    callback_answers: list[dict[str, Any]] = field(default_factory=list)
    commands: list[dict[str, Any]] = field(default_factory=list)
    commands_by_scope: dict[tuple[str, str], list[dict[str, Any]]] = field(default_factory=dict)
    # setMyDescription / setMyShortDescription, by language code ("" is the default).
    descriptions: dict[str, str] = field(default_factory=dict)
    short_descriptions: dict[str, str] = field(default_factory=dict)
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    stats: Counter[str] = field(default_factory=Counter)
    documents: dict[str, SentDocument] = field(default_factory=dict)
    # Bytes behind the files people send (photos, voice, documents), by file_id: what
    # getFile describes and /file/bot<token>/<path> serves.
    user_files: dict[str, builtins.bytes] = field(default_factory=dict)
    internal_errors: list[BaseException] = field(default_factory=list)
    messages_total: int = 0
    calls_changed: Signal = field(default_factory=Signal)
    listeners: list[MessageListener] = field(default_factory=list)
    _watches: dict[int, list[MessageWatch]] = field(default_factory=dict)
    _callback_counter: int = 0
    _file_counter: int = 0

    def now(self) -> int:
        # A date of 0 tells clients a message is inaccessible (PTB then builds an
        # InaccessibleMessage), so a test clock starting at 0 must not produce it.
        return max(1, int(self.clock()))

    def user(self, user_id: int, first_name: str = "Test", language_code: str = "en") -> User:
        found = self.users.get(user_id)
        if found is None:
            found = self.users[user_id] = User(user_id, first_name, language_code)
        return found

    def private_chat(self, user: User) -> ChatLog:
        log = self.chats.get(user.id)
        if log is None:
            chat = Chat(user.id, "private", first_name=user.first_name)
            log = self.chats[user.id] = ChatLog(chat, self.keep_per_chat)
        return log

    def group_chat(self, chat_id: int, chat_type: str) -> ChatLog:
        log = self.chats.get(chat_id)
        if log is None:
            chat = Chat(chat_id, chat_type, title="Test group")
            log = self.chats[chat_id] = ChatLog(chat, self.keep_per_chat)
        return log

    def add_bot_message(self, log: ChatLog, message: SentMessage) -> None:
        message.index = log.sent_count
        log.sent_count += 1
        log.bot_messages.append(message)
        log.remember(message)
        self.messages_total += 1
        self.message_changed(message, "sent")

    def add_user_message(self, log: ChatLog, message: UserMessage) -> None:
        log.remember(message)

    def message_changed(self, message: SentMessage, event: MessageEvent) -> None:
        for listener in list(self.listeners):
            try:
                listener(message, event)
            except Exception as exc:  # the listener's bug must not fail the bot's call
                self.internal_errors.append(exc)
        for watch in self._watches.get(message.chat_id, ()):
            watch.offer(message)

    def watch(self, chat_id: int, after: int, predicate: MessagePredicate | None) -> MessageWatch:
        future: asyncio.Future[SentMessage] = asyncio.get_running_loop().create_future()
        watch = MessageWatch(after, predicate, future)
        log = self.chats.get(chat_id)
        if log is not None:
            for message in log.bot_messages_from(after):
                watch.offer(message)
                if future.done():
                    return watch
        self._watches.setdefault(chat_id, []).append(watch)
        return watch

    def unwatch(self, chat_id: int, watch: MessageWatch) -> None:
        watches = self._watches.get(chat_id)
        if watches and watch in watches:
            watches.remove(watch)
            if not watches:
                del self._watches[chat_id]

    def new_callback_id(self) -> str:
        self._callback_counter += 1
        # Telegram's ids are long decimal strings; the shape matters to nobody but looks right.
        return str(4_611_686_018_427_387_904 + self._callback_counter)

    def new_file_ids(self) -> tuple[str, str]:
        self._file_counter += 1
        return f"BQACAgEmu{self._file_counter:010d}", f"AgADEmu{self._file_counter:06d}"

    def file_bytes(self, file_id: str) -> builtins.bytes | None:
        """A file the emulator knows: one a person sent, or one the bot uploaded."""
        found = self.user_files.get(file_id)
        if found is not None:
            return found
        document = self.documents.get(file_id)
        return document.data if document is not None else None

    def record_call(self, method: str, params: dict[str, Any]) -> None:
        self.stats[method] += 1
        if self.record_calls:
            self.calls.append((method, params))
        self.calls_changed.notify()

    def clear_messages(self) -> None:
        # Chats, people and counters stay: ids and indices keep counting, so an `after`
        # taken before the clear still means the same message.
        for log in self.chats.values():
            log.clear()
        self.calls.clear()
        self.callback_answers.clear()
        self.callbacks.clear()
        self.documents.clear()
