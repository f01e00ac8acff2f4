"""Shared helpers for acme ML platform training jobs (config, distributed setup, storage, tracking)."""
