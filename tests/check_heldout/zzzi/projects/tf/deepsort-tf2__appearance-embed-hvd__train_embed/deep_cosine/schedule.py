import horovod.tensorflow as hvd


def lr_for_step(step, base_lr, warmup_steps, boundaries, decay=0.1):
    """Linear warm-up to base_lr * workers, then step decay."""
    peak = base_lr * hvd.size()
    if step < warmup_steps:
        return peak * (step + 1) / warmup_steps
    return peak * decay ** sum(step >= b for b in boundaries)
