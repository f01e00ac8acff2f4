"""3D U-Net segmentation (ported from the lab's TF1 / Keras 2 code base)."""
__version__ = "0.4.0"
