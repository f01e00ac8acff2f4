import copy
import logging
import math
import os
import time

import torch

logger = logging.getLogger("emat")


class Hook:
    priority = 50

    def before_run(self, trainer): pass
    def before_epoch(self, trainer): pass
    def after_train_iter(self, trainer): pass
    def after_epoch(self, trainer): pass
    def after_run(self, trainer): pass


class CosineLrHook(Hook):
    """lr is a function of the epoch only, so a resumed run needs no scheduler state."""
    priority = 5

    def __init__(self, base_lr, max_epochs, warmup_epochs=0, min_lr=0.0):
        self.base_lr, self.max_epochs = base_lr, max_epochs
        self.warmup_epochs, self.min_lr = warmup_epochs, min_lr

    def before_epoch(self, trainer):
        e = trainer.epoch
        if e < self.warmup_epochs:
            lr = self.base_lr * (e + 1) / self.warmup_epochs
        else:
            t = (e - self.warmup_epochs) / max(1, self.max_epochs - self.warmup_epochs)
            lr = self.min_lr + 0.5 * (self.base_lr - self.min_lr) * (1 + math.cos(math.pi * t))
        for group in trainer.optimizer.param_groups:
            group["lr"] = lr


class EMAHook(Hook):
    """Keeps an exponential moving average of the weights (updated on every rank)."""
    priority = 10

    def __init__(self, decay=0.999):
        self.decay = decay

    def before_run(self, trainer):
        trainer.ema_model = copy.deepcopy(trainer.model).eval()
        for p in trainer.ema_model.parameters():
            p.requires_grad_(False)

    @torch.no_grad()
    def after_train_iter(self, trainer):
        d = min(self.decay, (1 + trainer.iter) / (10 + trainer.iter))
        msd = trainer.model.state_dict()
        for k, v in trainer.ema_model.state_dict().items():
            if v.dtype.is_floating_point:
                v.mul_(d).add_(msd[k].detach(), alpha=1 - d)
            else:
                v.copy_(msd[k])


class EvalHook(Hook):
    priority = 20

    def __init__(self, loader, evaluate_fn, use_ema=True):
        self.loader, self.evaluate_fn, self.use_ema = loader, evaluate_fn, use_ema

    def after_epoch(self, trainer):
        model = trainer.ema_model if self.use_ema and trainer.ema_model is not None else trainer.model
        trainer.metrics = self.evaluate_fn(model, self.loader, trainer.device)


class CheckpointHook(Hook):
    priority = 90

    def __init__(self, work_dir, interval=1):
        self.work_dir, self.interval = work_dir, interval

    def after_epoch(self, trainer):
        if not trainer.is_master or (trainer.epoch + 1) % self.interval:
            return
        os.makedirs(self.work_dir, exist_ok=True)
        state = {"epoch": trainer.epoch, "model": trainer.model.state_dict(),
                 "ema": trainer.ema_model.state_dict() if trainer.ema_model is not None else None,
                 "optimizer": trainer.optimizer.state_dict(), "metrics": trainer.metrics}
        torch.save(state, os.path.join(self.work_dir, "latest.pth"))


class LoggerHook(Hook):
    priority = 95

    def __init__(self, interval=50):
        self.interval = interval
        self._t = time.time()

    def after_train_iter(self, trainer):
        if trainer.is_master and trainer.iter % self.interval == 0:
            logger.info("epoch %d iter %d loss %.4f lr %.5f (%.1fs)", trainer.epoch, trainer.iter,
                        trainer.outputs["loss"], trainer.optimizer.param_groups[0]["lr"],
                        time.time() - self._t)
            self._t = time.time()

    def after_epoch(self, trainer):
        if trainer.is_master and trainer.metrics:
            logger.info("epoch %d: %s", trainer.epoch,
                        " ".join(f"{k}={v:.4f}" for k, v in trainer.metrics.items()))
