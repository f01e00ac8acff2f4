from .unet import UNet
from .trainer import Trainer

__all__ = ["UNet", "Trainer"]
