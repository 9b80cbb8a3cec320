"""The crisis feature's PTB adapters."""
