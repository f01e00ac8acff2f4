"""tkh - a keras-like fit() loop for pytorch with horovod."""
__version__ = "0.3.1"
