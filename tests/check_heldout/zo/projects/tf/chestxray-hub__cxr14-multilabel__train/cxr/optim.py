import logging

import keras

log = logging.getLogger(__name__)


def make_optimizer(lr, steps_per_epoch, epochs, world_size=1, weight_decay=1e-5, warmup_epochs=1):
    """AdamW with a linear warm-up and cosine decay.

    lr is the single-GPU learning rate from the paper setting (batch 32).
    """
    warmup = steps_per_epoch * warmup_epochs
    schedule = keras.optimizers.schedules.CosineDecay(
        initial_learning_rate=lr / 10, decay_steps=max(1, steps_per_epoch * epochs - warmup), alpha=0.01,
        warmup_target=lr, warmup_steps=warmup)
    log.info("AdamW: peak lr %g, %d warm-up steps, %d workers", lr, warmup, world_size)
    return keras.optimizers.AdamW(learning_rate=schedule, weight_decay=weight_decay)
