"""Acoustic leak detection for water mains (hydrophone windows)."""
