from .meters import Metric, accuracy
from .lr_schedule import adjust_learning_rate
from .ckpt import save_checkpoint, find_resume_epoch

__all__ = ['Metric', 'accuracy', 'adjust_learning_rate', 'save_checkpoint', 'find_resume_epoch']
