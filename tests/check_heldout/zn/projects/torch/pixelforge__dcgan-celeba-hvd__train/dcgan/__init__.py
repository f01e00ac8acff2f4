"""Small DCGAN package (models, data, horovod helpers, metrics)."""
__version__ = "0.3.0"
