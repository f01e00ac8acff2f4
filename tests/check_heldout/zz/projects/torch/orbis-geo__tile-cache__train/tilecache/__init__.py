"""Per-node tile cache and loaders for the land-cover segmentation jobs."""
