from .engine import Engine
from .model import PointNetSeg

__all__ = ["Engine", "PointNetSeg"]
