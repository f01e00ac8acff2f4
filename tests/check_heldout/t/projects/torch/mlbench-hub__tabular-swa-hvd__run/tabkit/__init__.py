from .config import TrainConfig
from .trainer import Trainer

__all__ = ["TrainConfig", "Trainer", "train_fn"]


def train_fn(cfg):
    """Entry point for horovod.run / horovodrun: one call per worker process."""
    return Trainer(cfg).fit()
