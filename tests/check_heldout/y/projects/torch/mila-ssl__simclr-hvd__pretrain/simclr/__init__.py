"""Small SimCLR re-implementation used by the lab's SSL projects."""
__version__ = "0.3.1"
