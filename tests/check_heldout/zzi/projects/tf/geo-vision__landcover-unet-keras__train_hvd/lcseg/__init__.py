from .unet import build_unet
from .losses import DiceCrossEntropy

__all__ = ["build_unet", "DiceCrossEntropy"]
