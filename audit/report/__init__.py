"""Reporters: render a ``ChapterReport``; they never decide anything."""
