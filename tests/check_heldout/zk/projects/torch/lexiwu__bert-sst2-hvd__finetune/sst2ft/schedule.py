from torch.optim.lr_scheduler import LambdaLR


def linear_warmup_decay(optimizer, warmup_steps, total_steps):
    """Linear warmup to the base lr, then linear decay to zero (BERT schedule)."""

    def lr_lambda(step):
        if step < warmup_steps:
            return float(step + 1) / float(max(1, warmup_steps))
        return max(0.0, float(total_steps - step) / float(max(1, total_steps - warmup_steps)))

    return LambdaLR(optimizer, lr_lambda)
