from .config import TrainConfig
from .tokenizer import KmerTokenizer

__all__ = ["TrainConfig", "KmerTokenizer"]
