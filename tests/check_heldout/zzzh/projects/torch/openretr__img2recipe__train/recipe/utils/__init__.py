from .checkpoint import restore_or_init, save_checkpoint
from .meters import AverageMeter
