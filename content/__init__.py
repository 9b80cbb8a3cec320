# Makes content/ installable as the data package `bot_content` (see pyproject.toml).
