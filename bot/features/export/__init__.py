"""/export: everything a person wrote, as a Markdown file or a PDF, made in memory."""
