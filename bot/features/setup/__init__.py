"""Onboarding (/start) and /settings: country, time zone, daily check-in, discretion."""
