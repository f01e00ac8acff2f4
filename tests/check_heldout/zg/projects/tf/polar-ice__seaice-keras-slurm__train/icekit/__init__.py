from . import slurm

__all__ = ["slurm"]
