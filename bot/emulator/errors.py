"""Bot API error replies, with the descriptions Telegram really sends.

Bot code tends to match on these strings (PTB strips the "Bad Request: " prefix and
capitalises the rest), so they are copied from live Telegram answers rather than invented.
"""

from __future__ import annotations

from typing import Any

CHAT_NOT_FOUND = "Bad Request: chat not found"
CHAT_ID_EMPTY = "Bad Request: chat_id is empty"
TEXT_EMPTY = "Bad Request: message text is empty"
TEXT_TOO_LONG = "Bad Request: message is too long"
CAPTION_TOO_LONG = "Bad Request: message caption is too long"
MESSAGE_ID_MISSING = "Bad Request: message identifier is not specified"
DELETE_NOT_FOUND = "Bad Request: message to delete not found"
CANNOT_DELETE = "Bad Request: message can't be deleted"
EDIT_NOT_FOUND = "Bad Request: message to edit not found"
CANNOT_EDIT = "Bad Request: message can't be edited"
NO_TEXT_TO_EDIT = "Bad Request: there is no text in the message to edit"
NOT_MODIFIED = (
    "Bad Request: message is not modified: specified new message content and reply markup"
    " are exactly the same as a current content and reply markup of the message"
)
REPLY_NOT_FOUND = "Bad Request: message to be replied not found"
QUERY_INVALID = "Bad Request: query is too old and response timeout expired or query ID is invalid"
BLOCKED = "Forbidden: bot was blocked by the user"
NOT_FOUND = "Not Found"
UNAUTHORIZED = "Unauthorized"
METHOD_NOT_FOUND = "Not Found: method not found"
INTERNAL = "Internal Server Error"
TOO_LARGE = "Request Entity Too Large"
WEBHOOK_ACTIVE = (
    "Conflict: can't use getUpdates method while webhook is active;"
    " use deleteWebhook to delete the webhook first"
)
CONFLICT = (
    "Conflict: terminated by other getUpdates request;"
    " make sure that only one bot instance is running"
)
# Not a Telegram text: the emulator's "400" fault has no real cause to name.
INJECTED_BAD_REQUEST = "Bad Request: injected fault"


class ApiError(Exception):
    """A Bot API failure, carried up to the HTTP layer and turned into Telegram's JSON."""

    def __init__(self, status: int, description: str, *, retry_after: int | None = None) -> None:
        super().__init__(description)
        self.status = status
        self.description = description
        self.retry_after = retry_after

    def payload(self) -> dict[str, Any]:
        body: dict[str, Any] = {
            "ok": False,
            "error_code": self.status,
            "description": self.description,
        }
        if self.retry_after is not None:
            body["parameters"] = {"retry_after": self.retry_after}
        return body


def bad_request(description: str) -> ApiError:
    return ApiError(400, description)


def too_many_requests(retry_after: int) -> ApiError:
    return ApiError(429, f"Too Many Requests: retry after {retry_after}", retry_after=retry_after)
