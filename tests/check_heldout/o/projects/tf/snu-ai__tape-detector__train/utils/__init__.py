from .misc import AverageMeter, configure_gpus, set_seed  # noqa: F401
