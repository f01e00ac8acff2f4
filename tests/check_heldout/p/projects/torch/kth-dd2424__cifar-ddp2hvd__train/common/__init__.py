from .utils import is_main_process, save_on_master, AverageMeter
