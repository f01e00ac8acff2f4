"""Block-level architecture search for image classifiers (Keras 3)."""
from .search_space import SEARCH_SPACE, TRAINING
from .blocks import build_from_spec
