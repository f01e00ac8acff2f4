from .model import LSTMClassifier
from .vocab import Vocab
