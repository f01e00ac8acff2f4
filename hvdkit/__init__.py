"""hvdkit: data-parallel training on Horovod, the eight steps done right.

The top package is framework-free: import ``hvdkit.torch`` or ``hvdkit.tensorflow`` for the API,
run ``hvdkit doctor`` to check an installation.
"""

__version__ = "0.1.0"
