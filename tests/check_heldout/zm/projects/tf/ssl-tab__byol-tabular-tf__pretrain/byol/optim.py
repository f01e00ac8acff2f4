import keras


def build_optimizer(base_lr, batch_size, total_steps, warmup_frac=0.05):
    """LARS-style rule from the BYOL paper: lr = base_lr * batch_size / 256, cosine decay."""
    peak = base_lr * batch_size / 256
    warmup = int(total_steps * warmup_frac)
    schedule = keras.optimizers.schedules.CosineDecay(
        initial_learning_rate=0.0, decay_steps=total_steps - warmup,
        warmup_target=peak, warmup_steps=warmup)
    return keras.optimizers.SGD(learning_rate=schedule, momentum=0.9, nesterov=True)
