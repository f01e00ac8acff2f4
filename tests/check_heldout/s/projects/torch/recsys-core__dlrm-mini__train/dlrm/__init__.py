from .model import DLRM  # noqa: F401
