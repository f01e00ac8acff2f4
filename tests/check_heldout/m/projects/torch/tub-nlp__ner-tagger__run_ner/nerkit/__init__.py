from .model import BiLSTMTagger  # noqa: F401
