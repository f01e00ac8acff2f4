from .misc import AverageMeter, accuracy, save_checkpoint
