from .registry import MODELS, OPTIMIZERS  # noqa: F401
from . import models, optimizers  # noqa: F401
