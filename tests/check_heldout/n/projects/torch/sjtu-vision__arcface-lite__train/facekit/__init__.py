from .backbone import build_backbone
from .heads import ArcMarginProduct

__all__ = ["build_backbone", "ArcMarginProduct"]
