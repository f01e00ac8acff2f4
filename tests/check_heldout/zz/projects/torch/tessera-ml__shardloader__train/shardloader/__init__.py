"""Minimal WebDataset-style tar shard loading."""
from .tario import iter_tar_samples
from .stream import ShardStream, expand_urls

__all__ = ["iter_tar_samples", "ShardStream", "expand_urls"]
