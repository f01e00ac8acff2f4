from collections import namedtuple

SparseFeat = namedtuple("SparseFeat", ["name", "vocab_size"])
DenseFeat = namedtuple("DenseFeat", ["name"])

FEATURES = (
    [DenseFeat(f"I{i}") for i in range(1, 14)]
    + [SparseFeat(f"C{i}", 100_000) for i in range(1, 27)]
)
LABEL = "label"


def sparse_features(features):
    return [f for f in features if isinstance(f, SparseFeat)]


def dense_features(features):
    return [f for f in features if isinstance(f, DenseFeat)]
