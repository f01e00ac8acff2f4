"""Learning-rate scaling and warmup: the math both frameworks' schedulers call.

Warmup follows Goyal et al. 2017 ("Accurate, Large Minibatch SGD"): start at the single-worker
rate and ramp linearly, once per optimizer step, to the rate scaled for the global batch.
"""
import math

RULES = ("linear", "sqrt", "none")


def scale_factor(size, rule="linear"):
    """How much to multiply a single-worker learning rate by for `size` workers."""
    if rule not in RULES:
        raise ValueError(f"unknown LR scaling rule {rule!r}: use one of {', '.join(RULES)}")
    if size < 1:
        raise ValueError(f"number of workers must be >= 1, got {size}")
    return {"linear": float(size), "sqrt": math.sqrt(size), "none": 1.0}[rule]


def scaled_lr(base_lr, size, rule="linear"):
    return base_lr * scale_factor(size, rule)


def warmup_steps(steps=None, epochs=None, steps_per_epoch=None):
    """Warmup length in optimizer steps, given either steps or (epochs, steps_per_epoch)."""
    if steps is not None and epochs is not None:
        raise ValueError("give warmup as steps or as epochs, not both")
    if epochs is not None:
        if steps_per_epoch is None or steps_per_epoch < 1:
            raise ValueError("warmup in epochs needs steps_per_epoch >= 1")
        steps = int(round(epochs * steps_per_epoch))
    steps = int(steps or 0)
    if steps < 0:
        raise ValueError(f"warmup length must be >= 0, got {steps}")
    return steps


def warmup_lr(step, base_lr, target_lr, warmup, minimum=min):
    """LR for optimizer step `step` (0-based): linear from base_lr at step 0 to target_lr at `warmup`.

    `minimum` lets a framework pass its own op, so a graph-mode schedule uses this same formula.
    """
    if warmup <= 0:
        return target_lr
    return base_lr + (target_lr - base_lr) * minimum(step / warmup, 1.0)
