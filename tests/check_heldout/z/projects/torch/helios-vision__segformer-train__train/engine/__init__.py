"""Shared training helpers (moved over from the DDP code base; see MIGRATION.md)."""
