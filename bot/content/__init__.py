"""Everything in `content/`: the schemas of its YAML files, their checks and loading, the
UI texts and the translations."""
