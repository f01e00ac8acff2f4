"""recsys-trainer: two-tower retrieval training service."""
__version__ = "0.7.2"
