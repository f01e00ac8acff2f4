"""cellseg-lite: fine-tuning a generic cell segmentation net on our microscopy data."""
__version__ = "0.3.1"
