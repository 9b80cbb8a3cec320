"""Worksheets: one question at a time, resumable, answers sealed."""
