"""segl: a small SegFormer-style segmentation package."""
__version__ = "0.3.1"
