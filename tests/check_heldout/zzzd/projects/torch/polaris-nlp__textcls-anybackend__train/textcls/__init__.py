"""textcls: small text classifiers that train the same way on one GPU, under Horovod or torchrun."""

__version__ = "0.3.1"
