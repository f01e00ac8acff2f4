from .dist import setup_distributed, is_main_process  # noqa: F401
from .logging_utils import get_logger  # noqa: F401
