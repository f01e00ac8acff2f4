from .model import CrystalGraphConvNet  # noqa: F401
from .data import CrystalGraphNPZ  # noqa: F401
