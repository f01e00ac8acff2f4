from .model import TinyClimaX  # noqa: F401
from .data import ERA5Slices, VARIABLES  # noqa: F401
