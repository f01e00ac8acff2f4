"""Code of the thesis 'Boundary-aware segmentation of cell microscopy' (M. Hoffmann)."""
__version__ = "0.4.1"
