from .dist import init_horovod, is_root, DistContext
from .metrics import AverageMeter, accuracy
from .checkpoint import save_checkpoint, resume_from

__all__ = ["init_horovod", "is_root", "DistContext", "AverageMeter", "accuracy",
           "save_checkpoint", "resume_from"]
