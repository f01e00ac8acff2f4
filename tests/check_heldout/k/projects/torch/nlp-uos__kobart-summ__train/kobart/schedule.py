def linear_warmup_decay(step, warmup_steps, total_steps):
    """Multiplier in [0, 1]: linear warm-up, then linear decay to zero."""
    if step < warmup_steps:
        return float(step + 1) / float(max(1, warmup_steps))
    return max(0.0, float(total_steps - step) / float(max(1, total_steps - warmup_steps)))
