"""Utilities for training sequence models on sharded FASTA exports."""
