import logging
import os
import time

import torch

from .dist import is_master

logger = logging.getLogger('rsseg')


class LoggerHook:
    def __init__(self, interval=20):
        self.interval = interval
        self.t0 = time.time()

    def after_iter(self, runner):
        if is_master() and runner.iter % self.interval == 0:
            logger.info('epoch %d iter %d loss %.4f lr %.5f (%.1fs)', runner.epoch, runner.iter,
                        runner.loss, runner.optimizer.param_groups[0]['lr'], time.time() - self.t0)


class CheckpointHook:
    def __init__(self, work_dir, interval=1):
        self.work_dir = work_dir
        self.interval = interval

    def after_epoch(self, runner):
        if (runner.epoch + 1) % self.interval or not is_master():
            return
        os.makedirs(self.work_dir, exist_ok=True)
        path = os.path.join(self.work_dir, f'epoch_{runner.epoch + 1}.pth')
        torch.save({'epoch': runner.epoch + 1,
                    'state_dict': runner.model.state_dict(),
                    'optimizer': runner.optimizer.state_dict()}, path)
        logger.info('saved %s', path)
