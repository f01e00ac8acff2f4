from .trainer import Trainer, ModelEMA  # noqa: F401
