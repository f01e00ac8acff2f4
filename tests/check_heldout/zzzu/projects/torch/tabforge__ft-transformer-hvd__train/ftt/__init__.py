from .model import FTTransformer
from .data import TabularPreprocessor, build_loaders

__version__ = "0.3.1"
