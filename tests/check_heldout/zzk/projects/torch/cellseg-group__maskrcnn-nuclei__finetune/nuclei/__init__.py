"""Nuclei instance segmentation (DSB2018 / MoNuSeg) on top of torchvision's Mask R-CNN."""
__version__ = "0.3.1"
