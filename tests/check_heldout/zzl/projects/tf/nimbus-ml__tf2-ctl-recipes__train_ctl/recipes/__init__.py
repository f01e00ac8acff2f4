"""Small custom-training-loop recipes (ported from our tf.distribute versions)."""
from .strategy import HorovodStrategy

__all__ = ["HorovodStrategy"]
