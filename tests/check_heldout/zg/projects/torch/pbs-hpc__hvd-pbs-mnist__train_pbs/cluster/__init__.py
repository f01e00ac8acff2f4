from .pbs import PBSJob

__all__ = ["PBSJob"]
