"""Nothing left lying in the chat: buttons and timers that take messages out."""
