"""Outfit retrieval: match product photos with their catalogue descriptions."""
