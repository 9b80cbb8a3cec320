"""The worksheet feature's PTB adapters."""
