"""/start, /guide, the private-chat guard, routing of buttons and free text, the error
handler."""
