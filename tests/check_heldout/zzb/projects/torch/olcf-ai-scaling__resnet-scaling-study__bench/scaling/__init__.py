"""Helpers for the scaling study: job discovery, data, models, timers."""
