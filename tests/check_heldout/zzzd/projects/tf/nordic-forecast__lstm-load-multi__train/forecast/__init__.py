"""Hourly grid-load forecasting."""
