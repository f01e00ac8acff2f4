from .datamodule import FoldDataModule
from .trainer import Trainer
