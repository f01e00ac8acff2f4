"""seglite: a compact SegFormer-style segmentation toolkit."""

__version__ = "0.3.1"
