"""What every feature plugs into and no feature owns: the Feature contract and its Hub, the
router, the per-update Context with the typed Services, and the helpers that reply."""
