"""What every feature builds on and no feature owns: the Feature contract and its Hub, the
router, the codecs for person state and callback data, Telegram text helpers."""
