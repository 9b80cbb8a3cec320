"""Daily check-ins and the journal: when a prompt is due (`schedule`), the pass that sends
them (`delivery`), the replies kept as journal entries."""
