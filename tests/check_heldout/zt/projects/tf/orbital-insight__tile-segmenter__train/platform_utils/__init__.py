from .retry import retry, stopwatch  # noqa: F401
from .obs import get_logger  # noqa: F401
