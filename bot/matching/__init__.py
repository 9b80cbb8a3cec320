"""Where a crisis word is matched: normalisation, the pattern language of the terms, the
detector, and the phrase patterns built on them. Pure and fast: it runs on every message."""
