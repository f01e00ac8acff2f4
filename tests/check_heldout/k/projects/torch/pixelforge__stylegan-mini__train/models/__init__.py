from .discriminator import Discriminator  # noqa: F401
from .generator import Generator  # noqa: F401
