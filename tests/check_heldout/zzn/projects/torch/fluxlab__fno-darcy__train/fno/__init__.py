"""Hand-written Fourier neural operator for the Darcy flow benchmark."""
__version__ = "0.3.1"
