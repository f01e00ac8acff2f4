from .dist import setup_distributed, is_main_process  # noqa: F401
