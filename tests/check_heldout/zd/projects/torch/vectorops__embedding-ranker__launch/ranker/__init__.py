"""Two-tower retrieval model training library (used by launch.py and by the offline eval jobs)."""
