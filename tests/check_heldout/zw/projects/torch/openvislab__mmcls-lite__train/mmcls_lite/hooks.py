import math
import time

import torch


class Hook:
    def before_run(self, runner): pass
    def after_run(self, runner): pass
    def before_train_epoch(self, runner): pass
    def after_train_epoch(self, runner): pass
    def before_train_iter(self, runner): pass
    def after_train_iter(self, runner): pass


class CosineLrHook(Hook):
    def __init__(self, base_lr, warmup_iters=500, min_lr=0.0):
        self.base_lr, self.warmup_iters, self.min_lr = base_lr, warmup_iters, min_lr

    def before_train_iter(self, runner):
        max_iters = runner.max_epochs * len(runner.data_loader)
        if runner.iter < self.warmup_iters:
            lr = self.base_lr * (runner.iter + 1) / self.warmup_iters
        else:
            progress = (runner.iter - self.warmup_iters) / max(1, max_iters - self.warmup_iters)
            lr = self.min_lr + 0.5 * (self.base_lr - self.min_lr) * (1 + math.cos(math.pi * progress))
        for group in runner.optimizer.param_groups:
            group['lr'] = lr


class CheckpointHook(Hook):
    def __init__(self, interval=1, out_dir=None):
        self.interval, self.out_dir = interval, out_dir

    def after_train_epoch(self, runner):
        if runner.epoch % self.interval == 0 or runner.epoch == runner.max_epochs:
            runner.logger.info(f'saving checkpoint at epoch {runner.epoch}')
            runner.save_checkpoint(self.out_dir or runner.work_dir)


class LoggerHook(Hook):
    def __init__(self, interval=50):
        self.interval, self.t0 = interval, time.time()

    def after_train_iter(self, runner):
        if runner.rank == 0 and (runner.inner_iter + 1) % self.interval == 0:
            lr = runner.optimizer.param_groups[0]['lr']
            runner.logger.info(f'Epoch [{runner.epoch + 1}][{runner.inner_iter + 1}/{len(runner.data_loader)}] '
                               f'lr: {lr:.4e}, loss: {runner.log_buffer["loss"]:.4f}, '
                               f'time: {time.time() - self.t0:.1f}s')


class EvalHook(Hook):
    def __init__(self, dataloader, interval=1):
        self.dataloader, self.interval = dataloader, interval

    @torch.no_grad()
    def after_train_epoch(self, runner):
        if runner.epoch % self.interval:
            return
        runner.model.eval()
        correct, total = 0, 0
        for img, target in self.dataloader:
            pred = runner.model(img.to(runner.device)).argmax(1)
            correct += (pred == target.to(runner.device)).sum().item()
            total += target.numel()
        acc = 100.0 * correct / total
        runner.log_buffer['accuracy_top-1'] = acc
        if runner.rank == 0:
            runner.logger.info(f'Epoch(val) [{runner.epoch}] accuracy_top-1: {acc:.2f}')
        runner.model.train()
