from .dist import all_reduce_sum, is_main, setup_distributed  # noqa: F401
