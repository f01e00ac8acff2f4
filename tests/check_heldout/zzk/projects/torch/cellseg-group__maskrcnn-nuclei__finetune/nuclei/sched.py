class WarmupPolyLR:
    """Per-iteration schedule: linear warm-up from warmup_factor * lr, then poly decay.

    Call step() after every optimizer step."""

    def __init__(self, optimizer, cfg, iters_per_epoch):
        self.optimizer = optimizer
        self.base_lr = cfg.lr
        self.warmup_iters = cfg.warmup_iters
        self.warmup_factor = cfg.warmup_factor
        self.max_iters = cfg.epochs * iters_per_epoch
        self.power = cfg.poly_power
        self.last_iter = 0
        self._apply()

    def get_lr(self):
        it = self.last_iter
        if it < self.warmup_iters:
            alpha = it / self.warmup_iters
            return self.base_lr * (self.warmup_factor * (1 - alpha) + alpha)
        return self.base_lr * (1 - it / self.max_iters) ** self.power

    def _apply(self):
        lr = self.get_lr()
        for group in self.optimizer.param_groups:
            group["lr"] = lr * group.get("lr_mult", 1.0)

    def step(self):
        self.last_iter += 1
        self._apply()

    def state_dict(self):
        return {"last_iter": self.last_iter}

    def load_state_dict(self, state):
        self.last_iter = state["last_iter"]
        self._apply()
