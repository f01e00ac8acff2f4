class WarmupPolyLR:
    """Linear warm-up followed by poly decay, stepped once per iteration."""

    def __init__(self, optimizer, base_lr, max_iters, warmup_iters=1000,
                 warmup_factor=0.001, power=0.9):
        self.optimizer = optimizer
        self.base_lr = base_lr
        self.max_iters = max_iters
        self.warmup_iters = warmup_iters
        self.warmup_factor = warmup_factor
        self.power = power
        self.last_iter = 0

    def get_lr(self):
        it = self.last_iter
        if it < self.warmup_iters:
            alpha = it / self.warmup_iters
            factor = self.warmup_factor * (1 - alpha) + alpha
        else:
            factor = (1 - (it - self.warmup_iters) / max(1, self.max_iters - self.warmup_iters)) ** self.power
        return self.base_lr * factor

    def step(self):
        self.last_iter += 1
        lr = self.get_lr()
        for group in self.optimizer.param_groups:
            group["lr"] = lr * group.get("lr_mult", 1.0)

    def state_dict(self):
        return {"last_iter": self.last_iter}

    def load_state_dict(self, state):
        self.last_iter = state["last_iter"]
