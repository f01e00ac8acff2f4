"""nanoshards: tiny GPT pretraining on pre-tokenized uint16 shards."""
__version__ = "0.3.1"
