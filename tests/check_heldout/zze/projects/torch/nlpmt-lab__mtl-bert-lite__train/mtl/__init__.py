"""mtl-bert-lite: a small joint intent / slot-filling encoder."""

__version__ = "0.3.1"
