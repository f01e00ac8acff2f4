from .comm import get_local_rank, get_rank, get_world_size, is_main_process  # noqa: F401
