"""tunelab: tiny random-search tuner for Keras models on Horovod."""
from .space import SearchSpace, Trial

__all__ = ["SearchSpace", "Trial"]
