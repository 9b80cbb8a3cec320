"""The record feature's PTB adapters."""
