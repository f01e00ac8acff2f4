"""ampnet: mixed precision ImageNet-style training with horovod."""
__version__ = "0.3.1"
