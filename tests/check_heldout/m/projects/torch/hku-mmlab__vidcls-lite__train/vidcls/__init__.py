"""vidcls-lite: small video classification baselines trained with Horovod."""
__version__ = "0.3.1"
