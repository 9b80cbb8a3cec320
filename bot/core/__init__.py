"""The bottom of the bot: pure codecs and types that import nothing above them (person
state, callback data, languages, Telegram's text rules, content problems, the clock,
buttons, rich text, dates and numbers in a person's language)."""
