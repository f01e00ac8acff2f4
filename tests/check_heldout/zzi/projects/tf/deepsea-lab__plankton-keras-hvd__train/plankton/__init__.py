"""Plankton image classifier (Keras 3 + Horovod)."""
__version__ = "0.3.1"
