"""/start and the update router (docs/architecture.md, "Handler groups")."""
