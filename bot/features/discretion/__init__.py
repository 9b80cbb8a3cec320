"""Discretion under watch: the panic word, the cover and its decoy, the neutral menu."""
