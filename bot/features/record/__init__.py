"""/record: dated entries of what happened, their files, the advocate's export."""
