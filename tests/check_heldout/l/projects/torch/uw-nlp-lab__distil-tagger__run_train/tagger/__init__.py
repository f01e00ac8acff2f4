from .data import TaggingDataset, collate_batch, load_splits, read_conll
from .model import build_tagger
from .trainer import Trainer
