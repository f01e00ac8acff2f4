from .model import build_resnet1d
from .optim import make_optimizer

__all__ = ["build_resnet1d", "make_optimizer"]
