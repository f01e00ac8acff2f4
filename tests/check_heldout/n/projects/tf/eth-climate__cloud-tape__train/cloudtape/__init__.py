from .runtime import init_horovod

__all__ = ["init_horovod"]
