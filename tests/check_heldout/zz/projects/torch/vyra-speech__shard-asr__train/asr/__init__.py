from .data import build_loaders, VOCAB
from .model import CTCModel
from .engine import Engine
