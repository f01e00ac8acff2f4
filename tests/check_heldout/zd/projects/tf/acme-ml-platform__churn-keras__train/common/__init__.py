"""Shared helpers for acme ML platform Keras jobs."""
