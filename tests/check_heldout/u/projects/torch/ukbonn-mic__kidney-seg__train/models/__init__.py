from .factory import build_model  # noqa: F401
