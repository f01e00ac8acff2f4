"""Elastic CIFAR-10 training with Horovod."""
__version__ = "0.3.1"
