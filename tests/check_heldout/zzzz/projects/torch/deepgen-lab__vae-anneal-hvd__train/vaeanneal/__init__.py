"""VAE with KL annealing, trained with Horovod."""
__version__ = "0.3.1"
