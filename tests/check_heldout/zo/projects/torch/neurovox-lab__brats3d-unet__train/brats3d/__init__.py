"""brats3d: patch-based 3D segmentation of brain tumour MRI (BraTS layout)."""

__version__ = "0.3.1"
