"""The Bot API methods about the bot itself, not a chat: its commands and descriptions,
where Telegram posts updates (setWebhook) and which kinds (allowed_updates)."""

from __future__ import annotations

import re
from typing import Any

from bot.emulator import rules
from bot.emulator.errors import bad_request
from bot.emulator.params import Params
from bot.emulator.state import EmulatorState, WebhookConfig, commands_key

_COMMAND = re.compile(r"[a-z0-9_]{1,32}")
_LANGUAGE_CODE = re.compile(r"[a-z]{2}")  # ISO 639-1, as the Bot API asks


class ProfileApi:
    def __init__(self, state: EmulatorState) -> None:
        self._state = state

    def handlers(self) -> dict[str, Any]:
        return {
            "setmycommands": self.set_my_commands,
            "getmycommands": self.get_my_commands,
            "deletemycommands": self.delete_my_commands,
            "setmydescription": self.set_my_description,
            "getmydescription": self.get_my_description,
            "setmyshortdescription": self.set_my_short_description,
            "getmyshortdescription": self.get_my_short_description,
            "setwebhook": self.set_webhook,
            "deletewebhook": self.delete_webhook,
            "getwebhookinfo": self.get_webhook_info,
            "close": self.close,
            "logout": self.close,
        }

    def _commands_key(self, params: Params) -> tuple[str, str]:
        return commands_key(params.obj("scope"), params.string("language_code") or "")

    async def set_my_commands(self, bot_id: int, params: Params) -> bool:
        commands = params.array("commands")
        if commands is None:
            raise bad_request('Bad Request: parameter "commands" is required')
        if len(commands) > rules.MAX_COMMANDS:
            raise bad_request("Bad Request: too many commands specified")
        cleaned: list[dict[str, Any]] = []
        for entry in commands:
            if not isinstance(entry, dict):
                raise bad_request("Bad Request: can't parse commands JSON object")
            command, description = entry.get("command"), entry.get("description")
            if not isinstance(command, str) or not _COMMAND.fullmatch(command):
                raise bad_request("Bad Request: BOT_COMMAND_INVALID")
            if not isinstance(description, str) or not 1 <= len(description.strip()) <= 256:
                raise bad_request("Bad Request: command description is empty or too long")
            cleaned.append({"command": command, "description": description})
        self._state.commands_by_scope[self._commands_key(params)] = cleaned
        self._state.commands = cleaned
        return True

    async def get_my_commands(self, bot_id: int, params: Params) -> list[dict[str, Any]]:
        return list(self._state.commands_by_scope.get(self._commands_key(params), []))

    async def delete_my_commands(self, bot_id: int, params: Params) -> bool:
        self._state.commands_by_scope.pop(self._commands_key(params), None)
        return True

    async def set_my_description(self, bot_id: int, params: Params) -> bool:
        return self._set_profile_text(params, "description", rules.DESCRIPTION_LIMIT)

    async def get_my_description(self, bot_id: int, params: Params) -> dict[str, str]:
        language = params.string("language_code") or ""
        text = self._state.descriptions.get(language, self._state.descriptions.get("", ""))
        return {"description": text}

    async def set_my_short_description(self, bot_id: int, params: Params) -> bool:
        return self._set_profile_text(params, "short_description", rules.SHORT_DESCRIPTION_LIMIT)

    async def get_my_short_description(self, bot_id: int, params: Params) -> dict[str, str]:
        language = params.string("language_code") or ""
        texts = self._state.short_descriptions
        return {"short_description": texts.get(language, texts.get("", ""))}

    def _set_profile_text(self, params: Params, name: str, limit: int) -> bool:
        language = params.string("language_code") or ""
        if language and not _LANGUAGE_CODE.fullmatch(language):
            raise bad_request("Bad Request: invalid language code specified")
        text = params.string(name) or ""
        if len(text) > limit:
            raise bad_request(f"Bad Request: {name} is too long")
        store = (
            self._state.descriptions if name == "description" else self._state.short_descriptions
        )
        if text:
            store[language] = text
        else:
            store.pop(language, None)  # an empty text removes it, as in Telegram
        return True

    async def set_webhook(self, bot_id: int, params: Params) -> bool:
        url = params.string("url")
        if not url:
            return await self.delete_webhook(bot_id, params)
        rules.webhook_url(url)
        secret = params.string("secret_token")
        if secret is not None and not rules.is_valid_secret(secret):
            raise bad_request("Bad Request: secret token contains unallowed characters")
        kinds = self._state.updates.subscribe(params.array("allowed_updates"))
        raw = params.string("max_connections")  # a form field arrives as text
        if raw is not None and (not raw.isdigit() or not 1 <= int(raw) <= 100):
            raise bad_request("Bad Request: wrong parameter max_connections specified")
        self._state.webhook = WebhookConfig(url, secret, int(raw) if raw else 40, kinds)
        if params.flag("drop_pending_updates"):
            self._state.updates.drop_all()
        return True

    async def delete_webhook(self, bot_id: int, params: Params) -> bool:
        self._state.webhook = None
        if params.flag("drop_pending_updates"):
            self._state.updates.drop_all()
        return True

    async def get_webhook_info(self, bot_id: int, params: Params) -> dict[str, Any]:
        hook = self._state.webhook
        info: dict[str, Any] = {
            "url": hook.url if hook else "",
            "has_custom_certificate": False,
            "pending_update_count": len(self._state.updates),
        }
        if hook is not None:
            info["max_connections"] = hook.max_connections
            if hook.allowed_updates is not None:
                info["allowed_updates"] = sorted(hook.allowed_updates)
        return info

    async def close(self, bot_id: int, params: Params) -> bool:
        return True
