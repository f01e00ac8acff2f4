from .image import ImageTower
from .text import TextTower, CharTrigramTokenizer

__all__ = ["ImageTower", "TextTower", "CharTrigramTokenizer"]
