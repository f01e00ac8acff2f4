"""Small helpers for running learning-rate sweeps under Horovod."""
__version__ = "0.3.1"
