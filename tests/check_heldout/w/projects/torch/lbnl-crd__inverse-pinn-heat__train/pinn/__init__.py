from .model import FieldMLP
from .physics import HeatResidual

__all__ = ["FieldMLP", "HeatResidual"]
