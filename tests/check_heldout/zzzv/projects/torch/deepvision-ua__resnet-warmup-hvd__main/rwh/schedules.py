class GradualWarmup(object):
    """Goyal et al.: ramp lr from base_lr to base_lr*size over warmup epochs, then /10 at 30/60/80"""

    def __init__(self, optimizer, base_lr, size, warmup_epochs, steps_per_epoch):
        self.optimizer = optimizer
        self.base_lr = base_lr
        self.size = size
        self.warmup_epochs = warmup_epochs
        self.steps_per_epoch = steps_per_epoch

    def step(self, epoch, batch_idx):
        if epoch < self.warmup_epochs:
            e = epoch + float(batch_idx + 1) / self.steps_per_epoch
            adj = 1.0 / self.size * (e * (self.size - 1) / self.warmup_epochs + 1)
        elif epoch < 30:
            adj = 1.0
        elif epoch < 60:
            adj = 1e-1
        elif epoch < 80:
            adj = 1e-2
        else:
            adj = 1e-3
        lr = self.base_lr * self.size * adj
        for group in self.optimizer.param_groups:
            group["lr"] = lr
        return lr
