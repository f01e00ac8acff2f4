"""Short-chunk CNN music tagger (MTG-Jamendo top-50)."""
__version__ = "0.3.1"
