import torch


class LinearWarmupDecay:
    """Per-update schedule: linear warm-up to peak_lr, then linear decay to 0."""

    def __init__(self, optimizer, peak_lr, warmup_steps, total_steps):
        self.optimizer = optimizer
        self.peak_lr = peak_lr
        self.warmup_steps = max(1, warmup_steps)
        self.total_steps = total_steps
        self.step_num = 0

    def lr_at(self, step):
        if step < self.warmup_steps:
            return self.peak_lr * step / self.warmup_steps
        return self.peak_lr * max(0.0, (self.total_steps - step) / max(1, self.total_steps - self.warmup_steps))

    def step(self):
        self.step_num += 1
        lr = self.lr_at(self.step_num)
        for group in self.optimizer.param_groups:
            group["lr"] = lr
        return lr

    def state_dict(self):
        return {"step_num": self.step_num}

    def load_state_dict(self, state):
        self.step_num = state["step_num"]


def build_optimizer(model, lr, weight_decay):
    return torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=weight_decay)


def build_scheduler(optimizer, args, total_steps):
    return LinearWarmupDecay(optimizer, peak_lr=args.lr, warmup_steps=int(args.warmup_ratio * total_steps),
                             total_steps=total_steps)
