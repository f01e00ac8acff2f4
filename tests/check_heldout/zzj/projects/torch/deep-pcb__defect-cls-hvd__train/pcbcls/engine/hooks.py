import logging
import os

import torch
import horovod.torch as hvd

logger = logging.getLogger('pcbcls')


class CheckpointHook:
    def __init__(self, output_dir):
        self.output_dir = output_dir
        self.best = 0.0

    def after_epoch(self, trainer, epoch, metrics):
        if hvd.rank() != 0:
            return
        os.makedirs(self.output_dir, exist_ok=True)
        state = {'epoch': epoch, 'model': trainer.model.state_dict(),
                 'optimizer': trainer.optimizer.state_dict()}
        torch.save(state, os.path.join(self.output_dir, 'last.pth'))
        if metrics['acc'] > self.best:
            self.best = metrics['acc']
            torch.save(state, os.path.join(self.output_dir, 'best.pth'))
            logger.info('new best acc %.4f at epoch %d', self.best, epoch)


class LoggerHook:
    def __init__(self, log_every):
        self.log_every = log_every

    def after_iter(self, trainer, epoch, it, loss):
        if hvd.rank() == 0 and it % self.log_every == 0:
            lr = trainer.optimizer.param_groups[0]['lr']
            logger.info('epoch %d iter %d loss %.4f lr %.5f', epoch, it, loss, lr)
