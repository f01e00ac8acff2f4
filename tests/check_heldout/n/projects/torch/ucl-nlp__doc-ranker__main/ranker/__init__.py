"""Dual-encoder passage ranker (toy-sized vocab, hashed tokens)."""
